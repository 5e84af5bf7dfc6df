"""The synthetic benchmark end to end: generated BLINK files, parsed markers, weight-free specialists."""

import json

import pytest

from adapters.datasets.blink.reader import BlinkReader
from adapters.datasets.synthetic import cached_synthetic, write_synthetic
from adapters.run.runner import RunConfig, run


def test_written_set_is_blink_format_deterministic_and_cached(tmp_path, monkeypatch):
    a = write_synthetic(tmp_path / "a", ["Relative_Reflectance", "Visual_Correspondence"], n=2, seed=5)
    b = write_synthetic(tmp_path / "b", ["Relative_Reflectance", "Visual_Correspondence"], n=2, seed=5)
    for task in ("Relative_Reflectance", "Visual_Correspondence"):
        name = f"{task}/val-00000-of-00001.parquet"
        assert (a / name).read_bytes() == (b / name).read_bytes()
    reader = BlinkReader(a, "val")
    questions = list(reader.questions("Visual_Correspondence"))
    assert [q.idx for q in questions] == ["val_Visual_Correspondence_1", "val_Visual_Correspondence_2"]
    assert all(len(q.images) == 2 and q.gold in "ABCD" for q in questions)
    truth = [json.loads(line) for line in (a / "truth.jsonl").read_text().splitlines()]
    assert {t["idx"]: t["answer"] for t in truth}["val_Visual_Correspondence_1"] == questions[0].gold
    markers = [json.loads(line) for line in (a / "markers.jsonl").read_text().splitlines()]
    assert set(markers[-1]["markers"]) == {"image_1", "image_2"}
    with pytest.raises(ValueError, match="no synthetic generator for Counting"):
        write_synthetic(tmp_path / "c", ["Counting"], n=1)

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    first = cached_synthetic(n=1, seed=0)
    stamp = (first / "synth.json").stat().st_mtime_ns
    assert cached_synthetic(n=1, seed=0) == first and (first / "synth.json").stat().st_mtime_ns == stamp


@pytest.mark.slow
def test_weight_free_specialists_beat_chance_clearly(tmp_path, monkeypatch):
    """8 questions per task: chance is 25% (correspondence), 50% (multi-view, jigsaw), 33% (reflectance)."""
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    results = run(RunConfig(str(tmp_path / "run"), benchmark="synthetic", synthetic_n=8, progress=False))
    tasks = results["tasks"]
    assert tasks["Visual_Correspondence"]["specialist"] == "sift"
    assert tasks["Visual_Correspondence"]["accuracy"] >= 0.75
    assert tasks["Multi-view_Reasoning"]["specialist"] == "essential"
    assert tasks["Multi-view_Reasoning"]["accuracy"] >= 0.875
    assert tasks["Relative_Reflectance"]["specialist"] == "retinex"
    assert tasks["Relative_Reflectance"]["accuracy"] >= 0.625
    assert tasks["Jigsaw"]["specialist"] == "seam" and tasks["Jigsaw"]["accuracy"] >= 0.875
    assert results["benchmark"] == "synthetic" and results["data"]["generator"]["n"] == 8
