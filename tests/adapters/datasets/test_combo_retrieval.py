import numpy as np
import pytest
import torch

from adapters.core.registry import get
from adapters.core.solver import SolverOptions
from adapters.datasets.combo import (
    LEVELS,
    CategoryBuildingConfig,
    ComboLiteRenderer,
    ComboLiteSource,
    FactorTable,
    build_category_building,
    prototype_scores,
)


def test_prototype_retrieval_on_oracle_embeddings():
    rng = np.random.default_rng(0)
    centres = torch.tensor(rng.normal(size=(3, 16)), dtype=torch.float32) * 3
    correct = 0
    for trial in range(30):
        supports = [c + 0.5 * torch.randn(5, 16) for c in centres]
        label = trial % 3
        query = centres[label] + 0.5 * torch.randn(16)
        correct += int(prototype_scores(supports, query).argmax()) == label
    assert correct == 30


def test_prototype_is_the_mean_of_normalised_supports():
    supports = [torch.tensor([[10.0, 0.0], [0.0, 1.0]]), torch.tensor([[0.0, 1.0]])]
    # Normalised first: the long vector does not dominate, the prototype is the diagonal.
    scores = prototype_scores(supports, torch.tensor([1.0, 1.0]))
    assert scores[0] == pytest.approx(1.0) and scores[1] == pytest.approx(2 ** -0.5)
    with pytest.raises(ValueError, match="non-empty"):
        prototype_scores([torch.zeros(0, 2)], torch.ones(2))


def test_questions_and_solver_end_to_end():
    table = FactorTable.load()
    source = ComboLiteSource(ComboLiteRenderer(table, image_size=32))
    config = CategoryBuildingConfig(n_per_level=2, k_support=2, n_difficulty_images=4, seed=1)
    questions = build_category_building(source, table, config)
    assert sorted(q.task for q in questions) == sorted(f"Category_Building_{lv}" for lv in LEVELS for _ in range(2))
    again = build_category_building(source, table, config)
    assert [(q.idx, q.gold, q.rules) for q in questions] == [(q.idx, q.gold, q.rules) for q in again]
    easy = [q.distance for q in questions if q.level == "easy"]
    expert = [q.distance for q in questions if q.level == "expert"]
    assert min(easy) >= max(expert)
    q = questions[0]
    assert len(q.images) == 5 and q.gold in ("A", "B") and q.rules[0] != q.rules[1]
    solver = get("prototype").build(SolverOptions(checkpoint="tiny-random", batch_size=4))
    decisions = solver.decide_batch(questions)
    assert all(d.pred in ("A", "B") and d.rule == "combo.prototype_retrieval" for d in decisions)
    assert solver.checkpoint.tiny_random
