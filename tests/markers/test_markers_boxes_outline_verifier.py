"""The outline verifier: what the hand rules measure and why they reject, where read_boxes asks
for a second opinion (with a stand-in verifier, so the wiring is checked apart from the network's
skill), the network's features and threshold, its training script, and the shipped weights."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from box_scenes import BOXES, noisy, outlines_only, read_boxes
from marker_oracles import OracleFinder
from rule_patch import patch_everywhere

from adapters.markers.colour import to_lab
from adapters.markers.draw.scenes import FAR_CORNER, box_training_scene
from adapters.markers.general.boxes.fit import fit_outline
from adapters.markers.general.boxes.measure import measure_outline, rejection
from adapters.markers.general.boxes.outline_verifier import (
    ACCEPTANCE,
    FEATURES,
    SIDE_FEATURES,
    OutlineVerifier,
    OutlineVerifierNet,
    default_outline_verifier,
    features,
)
from adapters.markers.general.nets.corner_finder import CORNER_CLASSES
from adapters.markers.general.thresholds import LEARNED_FIT, MIN_COVERAGE, STROKE_FIT
from train.markers_outline_verifier import main as train_main
from train.markers_outline_verifier import strict_threshold

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # outline_verifier_validation

A, B = BOXES["A"], BOXES["B"]
RED = np.array([255, 0, 0])


class Yes:
    """A verifier that accepts every rectangle it is asked about, and keeps what it was asked."""

    def __init__(self) -> None:
        self.asked = []

    def accepts(self, measures, reason):
        self.asked.append((measures.box, reason))
        return True


def gapped(image, scene, box, fraction=0.45):
    """`image` with the middle `fraction` of `box`'s top side painted over by `scene`."""
    x0, y0, x1, _ = box
    a, b = int(x0 + (x1 - x0) * (1 - fraction) / 2), int(x1 - (x1 - x0) * (1 - fraction) / 2)
    out = image.copy()
    out[int(y0) - 3:int(y0) + 4, a:b] = scene[int(y0) - 3:int(y0) + 4, a:b]
    return out


def test_the_rules_measure_every_side_and_name_why_a_rectangle_fails():
    scene = noisy(3)
    image = outlines_only(scene, {"A": A})
    lab = to_lab(image)
    colour = lab[int(round(A[1])), int(A[0] + A[2]) // 2]
    whole = measure_outline(lab, A, 2.0, colour, 40.0)
    assert rejection(whole) is None and all(s.coverage > 0.9 for s in whole.sides)
    broken = measure_outline(to_lab(gapped(image, scene, A)), A, 2.0, colour, 40.0)
    top, *others = broken.sides
    assert rejection(broken) == "coverage"
    assert top.coverage < MIN_COVERAGE and all(s.coverage > 0.9 for s in others)


def test_a_verifier_may_take_a_rectangle_the_rules_turned_away_and_its_outline_says_so():
    scene = noisy(3)
    image = to_lab(gapped(outlines_only(scene, {"A": A}), scene, A))
    assert fit_outline(image, A) is None
    yes = Yes()
    outline = fit_outline(image, A, verifier=yes)
    assert outline is not None and outline.learned and max(abs(np.subtract(outline.box, A))) <= 1.0
    assert [reason for _, reason in yes.asked] == ["coverage"]


def test_read_boxes_asks_the_verifier_only_at_a_corner_that_starts_no_outline_by_the_rules():
    """A is drawn whole and B's top side is broken: the verifier is asked about B's rectangles
    only, A's outline is the rules' own, and without a verifier B stays missing."""
    scene = noisy(4)
    image = gapped(outlines_only(scene, BOXES), scene, B, fraction=0.5)
    finder = OracleFinder([(A[0], A[1], {"A": 0.9}), (B[0], B[1], {"B": 0.9}), (A[2], A[3], {FAR_CORNER: 0.9}),
                           (B[2], B[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert "A" in markers and "B" in missing and "starts a drawn outline" in missing["B"]
    yes = Yes()
    markers, missing, outlines = read_boxes(image, ["A", "B"], finder, verifier=yes)
    assert not missing and max(abs(np.subtract(markers["B"].box, B))) <= 1.0
    assert yes.asked and all(abs(box[0] - B[0]) <= 4 and abs(box[1] - B[1]) <= 4 for box, _ in yes.asked)
    learned = {o.box: o.learned for o in outlines}
    assert learned[markers["B"].box] and not learned[markers["A"].box]


def test_a_learned_outline_stands_only_where_the_finder_put_both_corners(monkeypatch):
    """B's top side is broken, so only the verifier passes its outline: with B's far corner
    proposed 1 px off the drawn one it is placed; 2.6 px off (beyond LEARNED_FIT) too, its right
    side fitted on its stroke (STROKE_FIT); 3.6 px off (beyond STROKE_FIT) it is not, though the
    side search finds it there (placed with STROKE_FIT at 4 px)."""
    scene = noisy(4)
    image = gapped(outlines_only(scene, BOXES), scene, B, fraction=0.5)
    assert 1.0 < LEARNED_FIT < 2.6 < STROKE_FIT < 3.6

    def placed_b(off):
        finder = OracleFinder([(A[0], A[1], {"A": 0.9}), (B[0], B[1], {"B": 0.9}), (A[2], A[3], {FAR_CORNER: 0.9}),
                               (B[2] + off, B[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
        markers, missing, _ = read_boxes(image, ["A", "B"], finder, verifier=Yes())
        assert "A" in markers
        return markers["B"].box if "B" in markers else None

    for off, placed in ((1.0, True), (2.6, True), (3.6, False)):
        box = placed_b(off)
        assert (box is not None) == placed, off
        assert not placed or max(abs(np.subtract(box, B))) <= 1.0
    patch_everywhere(monkeypatch, "STROKE_FIT", 4.0)
    assert max(abs(np.subtract(placed_b(3.6), B))) <= 1.0


def test_the_acceptance_is_the_records_threshold_at_most_ACCEPTANCE():
    net = OutlineVerifierNet(width=4)
    assert OutlineVerifier(net, {"threshold": 0.999}).threshold == ACCEPTANCE
    assert OutlineVerifier(net, {"threshold": 0.5}).threshold == 0.5


def sure_verifier(logit: float) -> OutlineVerifier:
    net = OutlineVerifierNet(width=4)
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.layers[-1].bias.fill_(logit)
    return OutlineVerifier(net, {"threshold": 0.5})


def test_only_coverage_and_crossing_verdicts_may_be_overruled():
    scene = noisy(3)
    lab = to_lab(gapped(outlines_only(scene, {"A": A}), scene, A))
    measures = measure_outline(lab, A, 2.0, lab[int(round(A[3])), int(A[0] + A[2]) // 2], 40.0)
    sure, doubtful = sure_verifier(8.0), sure_verifier(-8.0)
    assert sure.probability(measures) > 0.99 and doubtful.probability(measures) < 0.01
    assert sure.accepts(measures, "coverage") and sure.accepts(measures, "crossing")
    assert not any(sure.accepts(measures, reason) for reason in ("hidden", "border", "sides", "colour"))
    assert not doubtful.accepts(measures, "coverage")


def test_features_are_finite_and_a_side_outside_the_image_reads_as_zeros():
    scene = noisy(5)
    cut = (150.3, 60.4, 279.0, 160.2)  # the right side on the image's last column
    lab = to_lab(outlines_only(scene, {"A": cut}))
    measures = measure_outline(lab, cut, 2.0, lab[60, 200], 40.0)
    row = features(measures)
    assert row.shape == (FEATURES,) and np.isfinite(row).all()
    assert measures.sides[3] is None and not row[3 * SIDE_FEATURES:4 * SIDE_FEATURES].any()
    assert row[0] == row[SIDE_FEATURES] == row[2 * SIDE_FEATURES] == 1.0  # top, bottom, left seen


def test_the_strict_threshold_accepts_no_false_rectangle_it_was_chosen_on():
    probabilities = np.array([0.2, 0.7, 0.9, 0.95, 0.6], np.float32)
    drawn = np.array([False, False, True, True, True])
    threshold = strict_threshold(probabilities, drawn)
    assert 0.7 < threshold <= 0.9 and (probabilities[~drawn] < threshold).all()
    assert (probabilities[drawn] >= threshold).sum() == 2


def test_box_training_scenes_list_every_rectangle_drawn():
    scene = box_training_scene(np.random.default_rng(3), ["hershey-simplex"])
    labelled = [(x, y) for x, y, c in scene.points if c in ("A", "B", "C", "D")]
    assert all(any(abs(r[0] - x) < 1e-6 and abs(r[1] - y) < 1e-6 for r in scene.rectangles) for x, y in labelled)
    fars = [(x, y) for x, y, c in scene.points if c == FAR_CORNER]
    assert len(scene.rectangles) == len(fars)


def test_training_script_writes_weights_with_their_record(tmp_path):
    path = tmp_path / "verifier.safetensors"
    assert train_main(["--output", str(path), "--scenes", "12", "--validation", "6", "--workers", "1",
                       "--width", "8"]) == 0
    verifier = OutlineVerifier.load(path)
    record = verifier.record
    assert verifier.net.width == 8 and len(record["sha256"]) == 64 and record["scenes"] == 12
    assert 0 < verifier.threshold <= 1.0 and record["validation"]["false_accepted"] == 0
    assert record["fit"]["rectangles"] > 0 and record["corner_finder_sha256"]


def test_training_script_fits_again_on_kept_rows_without_reading_a_scene(tmp_path, monkeypatch):
    """--rows keeps what the scenes gave; a second fit on it reads no scene and gives the same
    network, and rows read another way (here another seed) are read again, not reused."""
    import train.markers_outline_verifier as script
    rows, first, second = tmp_path / "rows.npz", tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    common = ["--scenes", "12", "--validation", "6", "--workers", "1", "--width", "8", "--rows", str(rows)]
    assert train_main(["--output", str(first), *common]) == 0 and rows.is_file()

    def no_reading(*args, **kwargs):
        raise RuntimeError("read the scenes again")
    monkeypatch.setattr(script, "harvest", no_reading)
    assert train_main(["--output", str(second), *common]) == 0
    a, b = OutlineVerifier.load(first), OutlineVerifier.load(second)
    assert all(torch.equal(x, y) for x, y in zip(a.net.state_dict().values(), b.net.state_dict().values()))
    assert a.record["fit"] == b.record["fit"] and a.record["photos"] is None
    with pytest.raises(RuntimeError, match="read the scenes again"):
        train_main(["--output", str(second), *common, "--seed", "1"])


def test_missing_weights_name_the_command_that_makes_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="train.markers_outline_verifier"):
        OutlineVerifier.load(tmp_path / "absent.safetensors")


def test_the_shipped_verifier_accepted_no_false_rectangle_of_its_validation_scenes():
    verifier = default_outline_verifier()
    assert verifier is not None, "weights/outline_verifier.safetensors ships with the repository"
    held = verifier.record["validation"]
    assert held["false_accepted"] == 0 and held["drawn_accepted"] > 0 and held["rectangles"] > held["drawn"]
    assert verifier.record["fonts"] and "threshold" in verifier.record


def test_the_validation_benchmark_counts_each_rectangle_once_within_and_without_the_guard(capsys):
    """benchmarks/outline_verifier_validation.py on a few validation scenes: the guard keeps a
    subset, a higher acceptance passes no more rectangles, and every tally adds up."""
    from outline_verifier_validation import guarded_rows  # benchmarks/
    from outline_verifier_validation import main as validation_main
    # a scene where the shipped corner finder's corners ask about 3 rectangles, two within the guard
    rows, drawn, guard = guarded_rows(0, 12051)
    assert len(rows) == len(drawn) == len(guard) == 3 and guard.sum() == 2
    assert validation_main(["--start", "12038", "--scenes", "6", "--workers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    asked, kept = out["asked"], out["within_guard"]
    assert kept["drawn"] <= asked["drawn"] and kept["false"] <= asked["false"] and asked["drawn"] + asked["false"] > 0
    for tally in (asked, kept):
        passed = [tally[k] for k in sorted(k for k in tally if k.startswith("at_"))]
        assert all(a["drawn"] >= b["drawn"] and a["false"] >= b["false"] for a, b in zip(passed, passed[1:]))
        assert passed[0]["drawn"] <= tally["drawn"] and passed[0]["false"] <= tally["false"]
    assert out["acceptance"] == ACCEPTANCE and out["learned_fit_px"] == LEARNED_FIT
