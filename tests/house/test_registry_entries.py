"""Each registry entry is the one place a specialist is described: its "module:Class" imports, is
a Solver, and the built solver takes its name, weights and settings from the entry."""

from __future__ import annotations

import pytest

from adapters.core.registry import PAPER_DEFAULTS, WEIGHT_FREE_DEFAULTS, all_specs, get
from adapters.core.solver import Solver, SolverOptions
from adapters.core.tasks import ALL_TASK_NAMES
from checkpoints.manifest import load_manifest


@pytest.mark.parametrize("spec", all_specs(), ids=lambda spec: spec.name)
def test_every_registered_solver_imports_and_is_a_solver(spec):
    cls = spec.solver_class()
    assert isinstance(cls, type) and issubclass(cls, Solver), spec.solver
    assert set(spec.tasks) <= set(ALL_TASK_NAMES)
    # nothing about the specialist is repeated on its class
    for attribute in ("specialist", "default_checkpoint"):
        assert attribute not in vars(cls), f"{spec.solver} repeats `{attribute}`: the registry entry carries it"


def test_neural_entries_name_a_manifest_checkpoint_and_the_others_none():
    names = load_manifest().names
    for spec in all_specs():
        if spec.kind == "neural":
            assert spec.default_checkpoint in names, spec.name
        else:
            assert spec.default_checkpoint is None, spec.name


def test_defaults_name_registered_specialists_that_serve_the_task():
    for defaults in (PAPER_DEFAULTS, WEIGHT_FREE_DEFAULTS):
        for task, name in defaults.items():
            assert task in get(name).tasks, (task, name)


@pytest.mark.parametrize("name", [spec.name for spec in all_specs() if spec.kind != "neural"])
def test_a_built_solver_takes_its_identity_from_the_entry(name):
    spec = get(name)
    solver = spec.build(SolverOptions(settings={}))
    assert solver.specialist == name and solver.spec is spec and solver.default_checkpoint is None
    assert set(solver.settings) == {setting.name for setting in spec.settings}
    assert solver.baseline == (spec.kind == "baseline")
