"""The parity frame (benchmarks/parity): what every family's check leans on. The checks
themselves need the official checkouts and run by hand; their lines are in
benchmarks/results/parity.jsonl."""

import json
import sys
import types

import numpy as np
import pytest

from benchmarks.parity import __main__ as parity_main
from benchmarks.parity.common import Patches, dense_errors, official_code, worst


def test_patches_are_listed_and_undone():
    owner = types.SimpleNamespace(__name__="owner", value=1)
    stand_in = types.ModuleType("stand_in")
    patches = Patches()
    with patches.attribute(owner, "value", 2, "why a"), patches.module("no_such_module_here", stand_in, "why b"):
        assert owner.value == 2 and sys.modules["no_such_module_here"] is stand_in
    assert owner.value == 1 and "no_such_module_here" not in sys.modules
    assert patches.applied == ["owner.value: why a", "import no_such_module_here: why b"]


def test_dense_errors_are_relative_to_the_official_scale():
    official = np.array([[0.0, 2.0], [4.0, -8.0]])
    errors = dense_errors(official + np.array([[0.0, 0.0], [0.0, 0.08]]), official)
    assert errors["max_abs"] == pytest.approx(0.08) and errors["max_rel"] == pytest.approx(0.01)
    assert worst([errors, {**errors, "max_rel": 0.5}])["max_rel"] == 0.5
    with pytest.raises(ValueError, match="shape"):
        dense_errors(np.zeros(3), np.zeros(4))


def test_official_code_is_importable_only_inside_its_block(tmp_path):
    (tmp_path / "official_pkg_for_parity").mkdir()
    (tmp_path / "official_pkg_for_parity" / "__init__.py").write_text("WHO = 'official'\n")
    with official_code(tmp_path, "official_pkg_for_parity"):
        import official_pkg_for_parity
        assert official_pkg_for_parity.WHO == "official"
    assert "official_pkg_for_parity" not in sys.modules and str(tmp_path) not in sys.path


def test_a_recorded_family_replaces_only_its_own_line(tmp_path, monkeypatch):
    path = tmp_path / "parity.jsonl"
    path.write_text(json.dumps({"family": "loftr", "old": True}) + "\n" + json.dumps({"family": "dire"}) + "\n")
    monkeypatch.setattr(parity_main, "PARITY_FILE", path)
    parity_main._record([{"family": "loftr", "old": False}])
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines == [{"family": "dire"}, {"family": "loftr", "old": False}]
