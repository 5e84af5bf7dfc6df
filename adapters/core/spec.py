"""What the registry knows of one specialist: the single place its name, tasks, weights and
settings are written.

A solver class learns who it is from the spec it is built with, so nothing about a specialist is
repeated on its class. The class itself is named as "module:Class" and imported on first build,
which keeps `specialists ls` instant (no torch, no model code).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adapters.core.settings import Setting

if TYPE_CHECKING:  # the solver module imports this one; the name is needed for annotations only
    from adapters.core.solver import Solver, SolverOptions

KINDS = ("baseline", "classical", "neural")


@dataclass(frozen=True)
class SpecialistSpec:
    """name: registry name; tasks: the tasks it answers; kind: baseline | classical | neural;
    summary: one line for `specialists ls`; solver: "module:Class" of its Solver subclass;
    default_checkpoint: manifest name used when none is given (None: no weights);
    settings: its named pipeline choices (`--set NAME.KEY=VALUE`), defaults = the official pipeline."""

    name: str
    tasks: tuple[str, ...]
    kind: str
    summary: str
    solver: str
    default_checkpoint: str | None = None
    settings: tuple[Setting, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"specialist {self.name!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.solver.count(":") != 1:
            raise ValueError(f"specialist {self.name!r}: solver {self.solver!r} is not 'module:Class'")

    @property
    def baseline(self) -> bool:
        return self.kind == "baseline"

    def solver_class(self) -> type[Solver]:
        """The Solver subclass, imported now."""
        module, cls = self.solver.split(":")
        return getattr(importlib.import_module(module), cls)

    def build(self, options: SolverOptions) -> Solver:
        """This specialist, ready to answer (loads its weights if it has any)."""
        return self.solver_class()(options, self)
