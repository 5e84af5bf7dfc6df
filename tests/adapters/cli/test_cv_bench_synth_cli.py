"""`specialists synth --benchmark cv-bench`: the release layouts it writes, and what it refuses."""

from __future__ import annotations

import json

from adapters.cli.main import main
from adapters.datasets.cv_bench.reader import CvBenchReader


def test_synth_writes_a_cv_bench_folder_the_reader_reads(tmp_path, capsys):
    assert main(["synth", "--benchmark", "cv-bench", "--output-dir", str(tmp_path / "s"), "--n", "2",
                 "--layout", "jsonl", "--seed", "7"]) == 0
    assert f"specialists run --benchmark cv-bench --root {tmp_path / 's'}" in capsys.readouterr().out
    reader = CvBenchReader(tmp_path / "s")
    assert reader.layout == "jsonl" and sum(reader.count(t) for t in reader.tasks) == 8
    truth = json.loads((tmp_path / "s" / "cv_bench_truth.json").read_text())
    assert [t["task"] for t in truth] == ["Count"] * 2 + ["Relation"] * 2 + ["Depth"] * 2 + ["Distance"] * 2
    assert all(t["count"] in range(1, 6) for t in truth if t["task"] == "Count")


def test_synth_refuses_what_cv_bench_does_not_take(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    for words, message in (
        (["--benchmark", "cv-bench", "--output-dir", str(tmp_path / "a"), "--tasks", "Count"], "drop --tasks and --images"),
        (["--benchmark", "cv-bench", "--output-dir", str(tmp_path / "full")], "is not empty; choose a new folder"),
        (["--output-dir", str(tmp_path / "b"), "--layout", "jsonl"], "--layout belongs to --benchmark cv-bench"),
    ):
        assert main(["synth", *words]) != 0
        assert message in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
