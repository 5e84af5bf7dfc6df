"""The prototype-retrieval specialist as a Solver: embeds every image of a batch of Category
Building questions in one pass, then assigns each query to its nearest prototype."""

from __future__ import annotations

from typing import Sequence

from checkpoints import CheckpointRef

from adapters.questions import Decision, MCQuestion, QuestionError
from adapters.solver import Solver, SolverOptions

from .backbone import TINY_RANDOM, Embedder, load_backbone
from .category_building import CategoryBuildingQuestion
from .retrieval import prototype_scores

RULE = "combo.prototype_retrieval"


class PrototypeRetrieval(Solver):
    """options.checkpoint: a backbone spec for `load_backbone` (default tiny-random)."""

    specialist = "prototype"

    def __init__(self, options: SolverOptions, architecture: str | None = None) -> None:
        super().__init__(options)
        model, config, self._ref = load_backbone(options.checkpoint or TINY_RANDOM, architecture)
        self.embedder = Embedder(model, config, options.device, batch_size=max(1, options.batch_size) * 11)

    @property
    def checkpoint(self) -> CheckpointRef:
        return self._ref

    def decide(self, question: MCQuestion) -> Decision:
        result = self.decide_batch([question])[0]
        if isinstance(result, Exception):
            raise result
        return result

    def decide_batch(self, questions: Sequence[MCQuestion]) -> list[Decision | Exception]:
        layouts: list[tuple[int, int] | Exception] = []
        images = []
        for q in questions:
            if not isinstance(q, CategoryBuildingQuestion):
                layouts.append(QuestionError(f"{q.idx}: prototype retrieval answers Category Building questions only"))
                continue
            try:
                supports, query = q.supports_and_query()
            except Exception as exc:  # one bad question must not stop the batch
                layouts.append(exc)
                continue
            layouts.append((len(images), len(supports[0]), len(supports[1])))
            images.extend(supports[0] + supports[1] + [query])
        embeddings = self.embedder(images) if images else None
        results: list[Decision | Exception] = []
        for q, layout in zip(questions, layouts):
            if isinstance(layout, Exception):
                results.append(layout)
                continue
            start, k1, k2 = layout
            e = embeddings[start:start + k1 + k2 + 1]
            scores = prototype_scores([e[:k1], e[k1:k1 + k2]], e[-1])
            results.append(Decision.from_scores({"A": float(scores[0]), "B": float(scores[1])}, RULE,
                                                {"level": q.level, "w2_distance": round(q.distance, 4)}))
        return results
