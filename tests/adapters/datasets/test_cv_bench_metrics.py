"""CV-Bench's metrics against figures worked out by hand."""

from __future__ import annotations

import pytest

from adapters.datasets.cv_bench.metrics import cv_bench_metrics


def _s(task, source, correct, n_choices=2):
    return {"task": f"CV_Bench_{task}", "correct": correct, "n_choices": n_choices, "meta": {"source": source}}


def test_the_card_formula_by_hand():
    samples = [
        # ADE20K: 3 of 4 right (Count with 4 options, Relation with 2)
        _s("Count", "ADE20K", True, 4), _s("Count", "ADE20K", False, 4), _s("Relation", "ADE20K", True),
        _s("Relation", "ADE20K", True),
        # COCO: 1 of 2 right (Count with 5 options)
        _s("Count", "COCO", True, 5), _s("Relation", "COCO", False),
        # Omni3D: 2 of 5 right, one of them failed (no option count)
        _s("Depth", "Omni3D", True), _s("Depth", "Omni3D", False), _s("Distance", "Omni3D", True),
        _s("Distance", "Omni3D", False), {"task": "CV_Bench_Distance", "correct": False, "n_choices": None,
                                          "meta": {"source": "Omni3D"}},
        # unscored and foreign samples are left out
        {"task": "CV_Bench_Depth", "correct": None, "meta": {"source": "Omni3D"}},
        {"task": "Counting", "correct": True, "n_choices": 4, "meta": {"source": "COCO"}},
    ]
    m = cv_bench_metrics(samples)
    ade, coco, omni = (m["by_source"][s] for s in ("ADE20K", "COCO", "Omni3D"))
    assert (ade["n"], ade["correct"], ade["accuracy"]) == (4, 3, 0.75)
    assert ade["random_expected"] == pytest.approx((0.25 + 0.25 + 0.5 + 0.5) / 4)
    assert (coco["accuracy"], coco["random_expected"]) == (0.5, pytest.approx((0.2 + 0.5) / 2))
    assert (omni["n"], omni["correct"], omni["accuracy"]) == (5, 2, 0.4)
    assert omni["random_expected"] == pytest.approx(0.5)  # the failed row's options are unknown: left out
    assert m["2d"]["accuracy"] == pytest.approx((0.75 + 0.5) / 2)  # 0.625: the sources weighted alike
    assert m["3d"]["accuracy"] == pytest.approx(0.4)
    assert m["overall"]["accuracy"] == pytest.approx((0.625 + 0.4) / 2)  # 0.5125
    assert m["overall"]["random_expected"] == pytest.approx(((0.375 + 0.35) / 2 + 0.5) / 2)
    assert m["2d"]["n"] == 6 and m["overall"]["n"] == 11
    count = m["by_task"]["CV_Bench_Count"]
    assert (count["n"], count["correct"]) == (3, 2)
    assert count["random_expected"] == pytest.approx((0.25 + 0.25 + 0.2) / 3)
    assert m["by_task"]["CV_Bench_Distance"]["n"] == 3 and m["notes"] == []


def test_a_missing_source_leaves_its_combined_figures_out_and_says_why():
    m = cv_bench_metrics([_s("Count", "COCO", True, 4), _s("Depth", "Omni3D", False), _s("Depth", "SUN", True)])
    assert m["2d"] is None and m["overall"] is None and m["3d"]["accuracy"] == 0.0
    assert "2D accuracy needs ADE20K and COCO; no ADE20K question was scored" in m["notes"]
    assert any("source 'SUN'" in note for note in m["notes"])
    assert m["by_task"]["CV_Bench_Depth"]["n"] == 2  # counted in its task, in no source
    assert cv_bench_metrics([])["overall"] is None and cv_bench_metrics([])["notes"] == []
