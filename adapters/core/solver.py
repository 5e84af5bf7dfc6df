"""What the runner asks of a specialist: answer a batch of questions of the tasks it serves.

A `Solver` pairs one specialist (and its weights) with its decision rules. The runner hands it
batches; per-question failures come back as exceptions in the result list, so one broken
question never costs the others their answers.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from adapters.core.questions import Decision, MCQuestion
from adapters.core.settings import resolve
from adapters.core.spec import SpecialistSpec
from checkpoints import CheckpointRef

PRECISIONS = ("fp32", "bf16", "fp16")


@dataclass(frozen=True)
class SolverOptions:
    """Run-wide settings a solver is built with (from the `specialists run` options)."""

    device: str = "cpu"
    batch_size: int = 8
    precision: str = "fp32"
    seed: int = 0
    checkpoint: str | None = None
    cache: str = "off"  # feature cache mode (specialists.feature_cache.MODES): off | read | refresh
    cache_dir: str | None = None  # default: $SPECIALISTS_HOME/features
    settings: Mapping[str, str] = field(default_factory=dict)  # this specialist's `--set` overrides
    # attach small pictures of the dense output to each Decision (`run --keep-evidence`); rules
    # that have no dense output ignore it and the report shows their details table alone
    keep_evidence: bool = False


class Solver(abc.ABC):
    """One specialist answering the questions of its tasks.

    Built by its registry entry (`SpecialistSpec.build`), from which it takes its name, default
    weights and declared settings. Subclasses implement `decide`; batched specialists override
    `decide_batch` to run their model once per batch.
    """

    def __init__(self, options: SolverOptions, spec: SpecialistSpec) -> None:
        self.options = options
        self.spec = spec
        self.specialist = spec.name
        self.baseline = spec.baseline
        self.default_checkpoint = spec.default_checkpoint
        # every declared pipeline choice, defaults filled in: what results.json records
        self.settings: dict[str, str] = resolve(spec.name, spec.settings, options.settings)

    @property
    def checkpoint(self) -> CheckpointRef | None:
        """The weights behind the answers; None for rules that load no weights."""
        return None

    @property
    def auxiliary_checkpoints(self) -> dict[str, CheckpointRef]:
        """Further weights behind the answers, by role (e.g. DIRE's classifier beside its ADM)."""
        return {}

    @abc.abstractmethod
    def decide(self, question: MCQuestion) -> Decision:
        """Answer one question, or raise (QuestionError for an expected, explained failure)."""

    def decide_batch(self, questions: Sequence[MCQuestion]) -> list[Decision | Exception]:
        """One entry per question, in order: its Decision or the exception that stopped it."""
        results: list[Decision | Exception] = []
        for question in questions:
            try:
                results.append(self.decide(question))
            except Exception as exc:  # isolated per question by design
                results.append(exc)
        return results
