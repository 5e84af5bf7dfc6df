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


def _line(per_image, decisions=None, **extra):
    return {"family": "dift", "per_image": per_image, "dense": {}, "decisions": decisions, "recorded": "2026-01-01",
            "seconds": 10.0, "official_commit": "abc", **extra}


def _worst_rel(per_image):
    return {"max_rel": max(e["max_rel"] for e in per_image)}


def test_a_merged_run_keeps_the_earlier_per_image_figures_and_counts_both_runs():
    from benchmarks.parity.common import merge_lines

    old = _line([{"image": "cat", "size": 768, "preset": "semantic", "max_rel": 1e-6},
                 {"image": "cat", "size": 256, "preset": "semantic", "max_rel": 3e-6}],
                {"n": 4, "agree": 4, "agreement": 1.0, "questions": ["q1"]},
                settings={"steps": 2, "seed": 0}, sizes={"full": {"preset": "semantic"}}, patches=["p1"], images=["cat"])
    new = _line([{"image": "cat", "size": 768, "preset": "geometric", "max_rel": 5e-6},
                 {"image": "cat", "size": 256, "preset": "semantic", "max_rel": 2e-6}],
                {"n": 2, "agree": 1, "agreement": 0.5, "questions": ["q2"]}, seconds=5.0, recorded="2026-02-02",
                scope="geometric at full size", settings={"steps": 20, "seed": 0},
                sizes={"full": [{"preset": "geometric"}]}, patches=["p1", "p2"], images=["cat", "dog"])
    merged = merge_lines(old, new, _worst_rel)
    kept = {(e["size"], e["preset"]): e["max_rel"] for e in merged["per_image"]}
    assert kept == {(768, "semantic"): 1e-6, (768, "geometric"): 5e-6, (256, "semantic"): 2e-6}  # same run: replaced
    assert merged["dense"] == {"max_rel": 5e-6}
    assert merged["decisions"] == {"n": 6, "agree": 5, "agreement": 5 / 6, "questions": ["q1", "q2"]}
    assert merged["settings"] == {"steps": [2, 20], "seed": 0}  # a differing setting keeps both values
    assert merged["sizes"] == {"full": [{"preset": "semantic"}, {"preset": "geometric"}]}
    assert merged["patches"] == ["p1", "p2"] and merged["images"] == ["cat", "dog"]
    assert [run.get("scope") for run in merged["runs"]] == [None, "geometric at full size"]
    assert merged["seconds"] == 15.0 and merged["recorded"] == "2026-02-02" and "scope" not in merged


def test_a_run_without_decisions_keeps_the_recorded_ones():
    from benchmarks.parity.common import merge_lines

    decisions = {"n": 4, "agree": 4, "agreement": 1.0}
    merged = merge_lines(_line([{"image": "a", "max_rel": 1.0}], decisions), _line([{"image": "b", "max_rel": 2.0}]),
                         _worst_rel)
    assert merged["decisions"] == decisions and len(merged["per_image"]) == 2


def test_lines_of_two_families_or_without_entries_do_not_merge():
    from benchmarks.parity.common import merge_lines

    with pytest.raises(ValueError, match="cannot merge"):
        merge_lines(_line([]), {**_line([]), "family": "dire"}, _worst_rel)
    with pytest.raises(ValueError, match="per_image must be a list"):
        merge_lines(_line({"cat": {}}), _line([]), _worst_rel)


def test_record_with_merge_folds_into_the_family_line(tmp_path, monkeypatch):
    path = tmp_path / "parity.jsonl"
    old = _line([{"image": "cat", "size": 768, "preset": "semantic", "max_rel": 1e-6}])
    path.write_text(json.dumps(old) + "\n")
    monkeypatch.setattr(parity_main, "PARITY_FILE", path)
    parity_main._record([_line([{"image": "cat", "size": 768, "preset": "geometric", "max_rel": 2e-6}])], merge=True)
    (line,) = [json.loads(text) for text in path.read_text().splitlines()]
    assert len(line["per_image"]) == 2 and line["dense"]["max_rel"] == 2e-6 and len(line["runs"]) == 2


def test_merge_is_refused_up_front_for_a_family_that_cannot_fold(capsys):
    with pytest.raises(SystemExit):
        parity_main.main(["--official", "loftr=/nowhere", "--record", "--merge"])
    assert "record it without --merge" in capsys.readouterr().err
