"""`compare` on CV-Bench: MLLM predictions (Cambrian-1's answer files, flat JSON) parsed without
guessing and scored with CV-Bench's metrics beside a specialist run; README's commands as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.datasets.cv_bench.metrics import cv_bench_metrics
from adapters.datasets.synthetic.cv_bench_release import write_cv_bench_release
from adapters.report.compare_other import compare_other, comparison_markdown, parse_answer
from adapters.run.runner import RunConfig, run


def _q(choices, task="CV_Bench_Relation"):
    return MCQuestion("cv_bench_1", task, "q", choices, "A", QuestionSource("cv-bench", "test"))


@pytest.mark.parametrize("raw, letter", [
    ("(A)", "A"), ("B", "B"), ("B.", "B"), ("Answer: B", "B"), ("(B) right", "B"), ("right", "B"),
    ("Left.", "A"), ("(A) or (B)", None), ("left or right", None), ("I cannot tell", None), ("(C)", None),
])
def test_answers_are_read_like_blinks_and_by_the_whole_option_text(raw, letter):
    assert parse_answer(_q(("left", "right")), raw) == letter


def test_count_answers_by_letter_or_number():
    count = _q(("1", "2", "3", "4"), "CV_Bench_Count")
    assert parse_answer(count, "3") == "C" and parse_answer(count, "(D)") == "D"
    assert parse_answer(count, "There are 3") is None  # not the option's text, not a letter: never guessed


def test_predictions_are_scored_with_cv_benchs_metrics(tmp_path):
    rows = write_cv_bench_release(tmp_path / "cvb", 2, seed=4)
    run(RunConfig(str(tmp_path / "run"), benchmark="cv-bench", root=str(tmp_path / "cvb"), progress=False))
    gold = {r["idx"]: r["answer"][1] for r in rows}
    text = {r["idx"]: r["choices"]["ABCDEFG".index(gold[r["idx"]])] for r in rows}
    other = {r["idx"]: r["choices"][1 - "AB".index(gold[r["idx"]])] for r in rows if r["task"] == "Depth"}
    # Cambrian-1's answer file: the model's output under "answer", the gold under "gt_answer".
    # idx 0-1 Count (ADE20K, COCO), 2-3 Relation (ADE20K, COCO), 4-5 Depth, 6-7 Distance (Omni3D):
    # 0-2 right (by "(X)", by the option's text, by "X."), 3 missing, 4 wrong, 5 unparsed, no Distance
    wrong = {"A": "B", "B": "A"}
    answers = {0: f"({gold[0]})", 1: text[1], 2: f"{gold[2]}.", 4: f"({wrong[gold[4]]}) {other[4]}", 5: "(A) or (B)"}
    lines = [{"questionId": idx, "prompt": "...", "answer": answer, "gt_answer": f"({gold[idx]})",
              "model_id": "m"} for idx, answer in answers.items()]
    (tmp_path / "cambrian.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    comparison = compare_other("cv-bench", [tmp_path / "run"], [f"cambrian={tmp_path / 'cambrian.jsonl'}"])
    model = comparison["models"]["cambrian"]
    assert model["parsing"] == {"parsed": 4, "unparsed": 1, "missing": 1, "ids_not_in_release": 0, "first_unknown": []}
    assert model["tasks"]["CV_Bench_Count"] == {"n": 2, "correct": 2, "accuracy": 1.0}
    assert model["tasks"]["CV_Bench_Relation"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert model["tasks"]["CV_Bench_Depth"] == {"n": 2, "correct": 0, "accuracy": 0.0}
    assert "CV_Bench_Distance" not in model["tasks"]  # a task the model was not run on is not charged to it
    metrics = model["metrics"]
    assert metrics["by_source"]["ADE20K"]["accuracy"] == 1.0 and metrics["by_source"]["COCO"]["accuracy"] == 0.5
    assert metrics["2d"]["accuracy"] == 0.75 and metrics["3d"]["accuracy"] == 0.0
    assert metrics["overall"]["accuracy"] == pytest.approx(0.375)
    (label,) = [name for name in comparison["models"] if name != "cambrian"]
    specialist = comparison["models"][label]
    assert specialist["kind"] == "specialist" and specialist["metrics"]["overall"]["n"] == 8
    markdown = comparison_markdown(comparison)
    assert "CV-Bench accuracy: (2D + 3D) / 2" in markdown and "| cambrian |" in markdown
    # a flat JSON with our ids gives the same scores
    flat = {f"cv_bench_{line['questionId']}": line["answer"] for line in lines}
    (tmp_path / "flat.json").write_text(json.dumps(flat))
    again = compare_other("cv-bench", [tmp_path / "run"], [str(tmp_path / "flat.json")])["models"]["flat"]
    assert again["tasks"] == model["tasks"] and again["metrics"] == model["metrics"]


def test_the_metrics_of_a_run_match_its_samples(tmp_path):
    write_cv_bench_release(tmp_path / "cvb", 2)
    results = run(RunConfig(str(tmp_path / "run"), benchmark="cv-bench", root=str(tmp_path / "cvb"), progress=False))
    comparison = compare_other("cv-bench", [tmp_path / "run"], [])
    (model,) = comparison["models"].values()
    assert model["metrics"] == results["benchmark_metrics"]
    samples = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert cv_bench_metrics(samples) == results["benchmark_metrics"]


def test_the_readme_commands_run_as_written(tmp_path, monkeypatch, capsys):
    from adapters.cli.main import main

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", readme.split("## CV-Bench", 1)[1], flags=re.S).group(1)
    (tmp_path / "cvbench_answers.jsonl").write_text(json.dumps({"questionId": 0, "answer": "(A)"}) + "\n")
    monkeypatch.chdir(tmp_path)
    for line in block.strip().splitlines():
        words = line.split()
        assert words[0] == "specialists"
        assert main(words[1:] + (["--no-progress"] if words[1] == "run" else [])) == 0, line
    printed = capsys.readouterr().out
    assert "CV-Bench accuracy: (2D + 3D) / 2" in printed and "run it (weight-free specialists by default)" in printed
    results = json.loads((tmp_path / "runs" / "cvbench" / "results.json").read_text())
    assert results["benchmark_metrics"]["overall"]["n"] == 80
    assert "CV-Bench's metrics" in (tmp_path / "cmp-cvbench" / "comparison.md").read_text()
