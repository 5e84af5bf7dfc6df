"""`specialists run --benchmark cv-bench` end to end on fixture releases: the weight-free default
answers all four tasks and reports CV-Bench's own metrics; the detectors and Depth Anything run
as tiny random instances; a killed run resumes."""

from __future__ import annotations

import json

import pytest

from adapters.core.tasks import CV_BENCH_TASKS
from adapters.datasets.cv_bench.metrics import cv_bench_metrics
from adapters.datasets.synthetic.cv_bench_release import write_cv_bench_release
from adapters.run.runner import RunConfig, run


def _samples(folder):
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("layout", ["parquet", "jsonl"])
def test_the_weight_free_default_answers_all_four_tasks(tmp_path, layout):
    write_cv_bench_release(tmp_path / "cvb", 6, seed=3, layout=layout)
    results = run(RunConfig(str(tmp_path / "run"), benchmark="cv-bench", root=str(tmp_path / "cvb"), progress=False))
    tasks = results["tasks"]
    assert results["status"] == "complete" and list(tasks) == list(CV_BENCH_TASKS)
    assert {t: tasks[t]["specialist"] for t in tasks} == {
        "CV_Bench_Count": "random", "CV_Bench_Relation": "marked_box_relation",
        "CV_Bench_Depth": "box_bottom", "CV_Bench_Distance": "image_distance"}
    assert all(t["n"] == 6 and t["errors"] == 0 and t["checkpoint"] is None for t in tasks.values())
    # the fixture's scenes follow the geometry these rules read: boxes and a floor
    assert tasks["CV_Bench_Relation"]["accuracy"] == 1.0 and tasks["CV_Bench_Depth"]["accuracy"] == 1.0
    samples = _samples(tmp_path / "run")
    assert {s["meta"]["source"] for s in samples} == {"ADE20K", "COCO", "Omni3D"}
    metrics = results["benchmark_metrics"]
    assert metrics == cv_bench_metrics(samples)
    by_source = metrics["by_source"]
    expected = ((by_source["ADE20K"]["accuracy"] + by_source["COCO"]["accuracy"]) / 2
                + by_source["Omni3D"]["accuracy"]) / 2
    assert metrics["overall"]["accuracy"] == pytest.approx(expected)
    assert results["data"]["generator"]["layout"] == layout


def test_a_killed_run_resumes_where_it_stopped(tmp_path):
    write_cv_bench_release(tmp_path / "cvb", 3)
    config = RunConfig(str(tmp_path / "run"), benchmark="cv-bench", root=str(tmp_path / "cvb"), progress=False)
    first = run(config)
    lines = (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    (tmp_path / "run" / "samples.jsonl").write_text("\n".join(lines[:5]) + "\n")  # killed after 5 answers
    config.resume = True
    resumed = run(config)
    assert len(_samples(tmp_path / "run")) == 12
    assert resumed["benchmark_metrics"] == first["benchmark_metrics"]
    assert {t: r["accuracy"] for t, r in resumed["tasks"].items()} == {t: r["accuracy"] for t, r in first["tasks"].items()}


def test_the_neural_specialists_run_as_tiny_random_instances(tmp_path):
    write_cv_bench_release(tmp_path / "cvb", 2, seed=1)
    results = run(RunConfig(str(tmp_path / "run"), benchmark="cv-bench", root=str(tmp_path / "cvb"), progress=False,
                            specialist=["owlv2", "depth_anything_boxes"], checkpoint="tiny-random"))
    tasks = results["tasks"]
    assert {t: tasks[t]["specialist"] for t in tasks} == {
        "CV_Bench_Count": "owlv2", "CV_Bench_Relation": "owlv2",
        "CV_Bench_Depth": "depth_anything_boxes", "CV_Bench_Distance": "depth_anything_boxes"}
    assert tasks["CV_Bench_Count"]["rules"] == ["counting.owlv2_count"] and tasks["CV_Bench_Count"]["errors"] == 0
    # the fixture's 2D rows carry no bbox: the drawn outlines answer, the detector stays in reserve
    assert tasks["CV_Bench_Relation"]["rules"] == ["relation.marked_boxes_else_owlv2"]
    assert tasks["CV_Bench_Relation"]["accuracy"] == 1.0
    assert tasks["CV_Bench_Depth"]["rules"] == ["depth.depth_anything_centre_median"]
    assert results["settings"]["depth_anything_boxes"]["statistic"] == "centre_median"
    for sample in _samples(tmp_path / "run"):
        if sample["task"] == "CV_Bench_Distance" and sample["status"] == "error":
            # random weights give zero disparity: that object has no depth, and the sample says so
            assert "not positive, so it has no depth" in sample["error"]
        else:
            assert sample["status"] in ("ok", "abstained") and sample["decision"]["rule"]


def test_grounding_dino_answers_count_and_relation(tmp_path):
    write_cv_bench_release(tmp_path / "cvb", 1, seed=2)
    results = run(RunConfig(str(tmp_path / "run"), benchmark="cv-bench", root=str(tmp_path / "cvb"), progress=False,
                            tasks=["Count", "Relation"], specialist=["grounding_dino"], checkpoint="tiny-random"))
    assert results["tasks"]["CV_Bench_Count"]["rules"] == ["counting.grounding_dino_count"]
    assert results["tasks"]["CV_Bench_Relation"]["rules"] == ["relation.marked_boxes_else_grounding_dino"]
    assert results["benchmark_metrics"]["3d"] is None  # no Omni3D question was asked
    assert any("3D accuracy needs Omni3D" in note for note in results["benchmark_metrics"]["notes"])


def test_a_specialist_for_another_task_is_refused(tmp_path):
    write_cv_bench_release(tmp_path / "cvb", 1)
    with pytest.raises(ValueError, match="specialist 'box_bottom' does not answer CV_Bench_Distance"):
        run(RunConfig(str(tmp_path / "run"), benchmark="cv-bench", root=str(tmp_path / "cvb"), progress=False,
                      specialist=["CV_Bench_Distance=box_bottom"]))
