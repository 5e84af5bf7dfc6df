"""The shape every neural solver shares: weights from `--checkpoint`, one batched model call per
batch, the decision rule per question, and per-question failures kept per question.

Feature cache (`--cache read|refresh`): a specialist wrapper that runs on the batched engine
offers `use_cache(cache, checkpoint_sha256)`; the solver opens the cache folder and hands it the
sha256 of the weights it loaded (None for `tiny-random`: the wrapper then fingerprints its own
random weights). The same engine path runs with the cache off, so decisions do not depend on
the cache mode, only on whether features were computed or read back bit-exact.
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import Any, Sequence

from adapters.core.questions import Decision, MCQuestion
from adapters.core.solver import Solver, SolverOptions
from adapters.core.spec import SpecialistSpec
from adapters.rules.loading import load_weights
from checkpoints import CheckpointRef
from specialists.feature_cache import FeatureCache


def open_feature_cache(options: SolverOptions) -> FeatureCache | None:
    """The run's feature cache (`--cache`, `--cache-dir`, default $SPECIALISTS_HOME/features);
    None when the mode is off."""
    if options.cache == "off":
        return None
    from checkpoints.locations import specialists_home

    return FeatureCache(options.cache_dir or specialists_home() / "features", mode=options.cache)  # type: ignore[arg-type]


class ModelSolver(Solver):
    """Subclasses set `specialist`, `rule`, `default_checkpoint` and implement the four hooks."""

    rule: str = ""

    def __init__(self, options: SolverOptions, spec: SpecialistSpec) -> None:
        super().__init__(options, spec)
        self.model, self._checkpoint = load_weights(options, self.default_checkpoint, self.build_tiny, self.build_real)
        self.feature_cache = open_feature_cache(options)
        use_cache = getattr(self.model, "use_cache", None)  # wrappers on the engine; others ignore --cache
        if self.feature_cache is not None and use_cache is not None:
            use_cache(self.feature_cache, self._checkpoint.sha256)

    @property
    def engine(self):
        """The wrapper's `specialists.engine.Engine` (its `stats` count cache hits), or None."""
        return getattr(self.model, "engine", None)

    @property
    def checkpoint(self) -> CheckpointRef:
        return self._checkpoint

    @abc.abstractmethod
    def build_tiny(self) -> Any:
        """The random-weight test-size model (`--checkpoint tiny-random`)."""

    @abc.abstractmethod
    def build_real(self, path: Path) -> Any:
        """The model from resolved weights at `path`."""

    @abc.abstractmethod
    def model_input(self, question: MCQuestion) -> Any:
        """What the model needs from one question (raise QuestionError if it cannot be had)."""

    @abc.abstractmethod
    def decision(self, question: MCQuestion, output: Any) -> Decision:
        """The rule applied to the model's output for one question."""

    def run_model(self, inputs: list[Any]) -> list[Any]:
        """One output per input; by default the model takes the list as one batch."""
        return self.model(inputs)

    def decide(self, question: MCQuestion) -> Decision:
        (outcome,) = self.decide_batch([question])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def decide_batch(self, questions: Sequence[MCQuestion]) -> list[Decision | Exception]:
        """Inputs per question (a failure stays with its question), one model call, rule per question.

        A failure of the model call itself propagates: the runner then retries question by
        question, so one bad input cannot sink its batch.
        """
        results: list[Decision | Exception | None] = [None] * len(questions)
        inputs, members = [], []
        for i, question in enumerate(questions):
            try:
                inputs.append(self.model_input(question))
                members.append(i)
            except Exception as exc:
                results[i] = exc
        outputs = self.run_model(inputs) if inputs else []
        for i, output in zip(members, outputs):
            try:
                results[i] = self.decision(questions[i], output)
            except Exception as exc:
                results[i] = exc
        return results  # type: ignore[return-value]
