"""The prototype-retrieval specialist as a Solver: embeds every image of a batch of ComBo
questions in one pass, then assigns each query to its nearest prototype.

Category Building: one prototype per category (the mean of its support embeddings), the query
goes to the nearer. Pattern Perception is the same rule with one-image "categories": each
candidate is its own prototype and the reference is the query."""

from __future__ import annotations

from typing import Sequence

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver, SolverOptions
from adapters.core.spec import SpecialistSpec
from adapters.datasets.combo.category_building import CategoryBuildingQuestion
from adapters.datasets.combo.pattern_perception import PatternPerceptionQuestion
from adapters.datasets.combo.retrieval import prototype_scores
from checkpoints import CheckpointRef
from specialists.timm_backbone import Embedder, load_backbone

RULE = "combo.prototype_retrieval"
# The paper's pretrained ResNet-50 (torchvision's weights, as ComBo used), from the manifest.
DEFAULT_CHECKPOINT = "resnet50.tv_in1k"


class PrototypeRetrieval(Solver):
    """options.checkpoint: a backbone spec for `load_backbone` (default DEFAULT_CHECKPOINT)."""


    def __init__(self, options: SolverOptions, spec: SpecialistSpec, architecture: str | None = None) -> None:
        super().__init__(options, spec)
        model, config, self._ref = load_backbone(options.checkpoint or DEFAULT_CHECKPOINT, architecture)
        self.embedder = Embedder(model, config, options.device, batch_size=max(1, options.batch_size) * 11)

    @property
    def checkpoint(self) -> CheckpointRef:
        return self._ref

    def decide(self, question: MCQuestion) -> Decision:
        result = self.decide_batch([question])[0]
        if isinstance(result, Exception):
            raise result
        return result

    @staticmethod
    def _groups(question: MCQuestion) -> tuple[list[list], object, dict]:
        """(support images per choice, query image, decision details) of one question."""
        if isinstance(question, CategoryBuildingQuestion):
            supports, query = question.supports_and_query()
            return supports, query, {"level": question.level, "w2_distance": round(question.distance, 4)}
        if isinstance(question, PatternPerceptionQuestion):
            reference, candidates = question.reference_and_candidates()
            return [[c] for c in candidates], reference, {"changed": list(question.changed)}
        raise QuestionError(f"{question.idx}: prototype retrieval answers ComBo's Category Building and Pattern "
                            f"Perception questions, not {question.task}")

    def decide_batch(self, questions: Sequence[MCQuestion]) -> list[Decision | Exception]:
        layouts: list[tuple[int, list[int], dict] | Exception] = []
        images: list = []
        for q in questions:
            try:
                supports, query, details = self._groups(q)
            except Exception as exc:  # one bad question must not stop the batch
                layouts.append(exc)
                continue
            layouts.append((len(images), [len(group) for group in supports], details))
            images.extend([im for group in supports for im in group] + [query])
        embeddings = self.embedder(images) if images else None
        results: list[Decision | Exception] = []
        for q, layout in zip(questions, layouts):
            if isinstance(layout, Exception):
                results.append(layout)
                continue
            start, sizes, details = layout
            groups, at = [], start
            for size in sizes:
                groups.append(embeddings[at:at + size])
                at += size
            scores = prototype_scores(groups, embeddings[at])
            letters = "ABCDE"[:len(sizes)]
            results.append(Decision.from_scores({l: float(v) for l, v in zip(letters, scores)}, RULE, details))
        return results
