"""The box corner reader: its network and training script's file, the shipped weights on drawn
boxes, and read_boxes' rule for weighing its readings with the finder's (tested with oracle
probabilities, so the rule is checked apart from the network's skill)."""

import numpy as np
import pytest
import torch
from box_scenes import BOXES, noisy, outlines_only
from marker_oracles import OracleFinder, OracleReader, grey, trained_and_continued

from adapters.markers.draw.render import MarkerStyle, draw_boxes
from adapters.markers.draw.scenes import (
    ANY_BOX_LABELS,
    BOX_LABEL_SETS,
    CROSSING_AT_LABEL,
    FAR_CORNER,
    _crossings,
    box_training_scene,
)
from adapters.markers.general.boxes.read import read_boxes
from adapters.markers.general.nets.corner_finder import BOX_LABELS, CORNER_CLASSES
from adapters.markers.general.nets.corner_reader import (
    CLASSES,
    PATCH,
    CornerReader,
    CornerReaderNet,
    default_corner_reader,
)
from adapters.markers.general.nets.patch_reader import NONE
from train.markers_corner_reader import CornerPatchStream
from train.markers_corner_reader import main as train_main
from train.markers_reader import SMALL_LABEL_HEIGHT

A, B = BOXES["A"], BOXES["B"]
FARS = [(A[2], A[3], {FAR_CORNER: 0.9}), (B[2], B[3], {FAR_CORNER: 0.9})]
# the finder reads both corners as either label, nearly alike: on its own it cannot tell them apart
UNSURE_FINDER = OracleFinder([(A[0], A[1], {"A": 0.45, "B": 0.35}), (B[0], B[1], {"A": 0.35, "B": 0.4}), *FARS],
                             CORNER_CLASSES)


def test_network_maps_corner_patches_to_box_label_logits():
    logits = CornerReaderNet(width=8)(torch.zeros(3, 6, PATCH, PATCH))
    assert logits.shape == (3, len(CLASSES)) and CLASSES == (*BOX_LABELS, NONE)


def test_training_script_writes_weights_with_their_record(tmp_path):
    reader, _ = trained_and_continued(train_main, CornerReader, tmp_path / "corners.safetensors",
                                      ["--batch", "8", "--width", "8"])
    assert reader.net.width == 8 and reader.record["classes"] == list(CLASSES)
    assert reader.record["crossing_at_label"] == CROSSING_AT_LABEL  # which crossings it was taught as none
    probs = reader.probabilities(grey(), [(50, 60), (120, 100)])
    assert probs.shape == (2, len(CLASSES)) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)


def test_any_label_scenes_draw_every_label_about_as_often_and_small_ones_when_asked():
    stream = CornerPatchStream(0, ["hershey-simplex"], any_labels=True, small_labels=1.0)
    rng = np.random.default_rng(0)
    drawn, counts = [], dict.fromkeys(ANY_BOX_LABELS, 0)
    for _ in range(400):
        fixed = stream.style_fixed(rng)
        drawn.append(fixed)
        for label in fixed["labels"]:
            counts[label] += 1
    # as many boxes as BOX_LABEL_SETS draws, but D (1 scene in 4 there) as common as A (every scene there)
    assert {len(f["labels"]) for f in drawn} == {len(s) for s in BOX_LABEL_SETS}
    assert ANY_BOX_LABELS == ("A", "B", "C", "D") and min(counts.values()) > 0.8 * max(counts.values())
    low, high = SMALL_LABEL_HEIGHT
    assert all(low <= f["label_height"] <= high and f["polarity"] == "colour" for f in drawn)
    scene = stream.scene(rng, ["hershey-simplex"], **drawn[0])  # the box scene takes the labels and the style
    assert sorted(label for _, _, label in scene.points if label in BOX_LABELS) == drawn[0]["labels"]
    assert scene.style.label_height == drawn[0]["label_height"]
    plain = CornerPatchStream(0, ["hershey-simplex"])  # the default: BOX_LABEL_SETS, every style random, no draw
    rng, untouched = np.random.default_rng(1), np.random.default_rng(1)
    assert plain.style_fixed(rng) == {} and rng.uniform() == untouched.uniform()


def test_reader_training_records_its_label_options_and_refuses_a_fraction_past_one(tmp_path):
    reader, _ = trained_and_continued(train_main, CornerReader, tmp_path / "corners.safetensors",
                                      ["--batch", "8", "--width", "8", "--any-labels", "--small-labels", "0.5"])
    assert reader.record["any_labels"] is True and reader.record["small_labels"] == 0.5
    with pytest.raises(SystemExit):
        train_main(["--small-labels", "1.5", "--output", str(tmp_path / "never.safetensors")])


def test_missing_weights_name_the_command_that_makes_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="train.markers_corner_reader"):
        CornerReader.load(tmp_path / "absent.safetensors")


def test_crossings_are_where_one_boxs_horizontal_side_meets_anothers_vertical_side():
    assert sorted(_crossings([A, B])) == [(B[0], A[1]), (A[2], B[3])]  # A's top x B's left, B's bottom x A's right
    assert _crossings([A, (250.0, 10.0, 270.0, 40.0)]) == []  # apart


def test_training_scenes_mark_decoy_corners_and_crossings_as_no_label():
    """The reader learns "none" where two boxes' lines cross and at decoy rectangles' corners;
    the labels' corners keep their labels."""
    crossings = labels = 0
    for seed in range(12):
        scene = box_training_scene(np.random.default_rng(seed), ["hershey-simplex"])
        labels += sum(p[2] in BOX_LABELS for p in scene.points)
        unlabelled = [(x, y) for x, y, c in scene.points if c is None]
        crossings += len(unlabelled)
        corners = [(x, y) for x, y, c in scene.points if c in BOX_LABELS]
        assert all(min(np.hypot(x - cx, y - cy) for cx, cy in corners) > 0 for x, y in unlabelled)
    assert crossings > 0 and labels >= 24


@pytest.mark.parametrize("seed", [13, 90])  # scenes with a box's labelled corner on another box's line
def test_a_crossing_at_a_labelled_corner_is_not_taught_as_no_label(seed):
    """Where a box's corner lies on another box's line, the two lines cross beside its label: that
    point is the labelled corner to the reader, so only crossings further off are taught "none"."""
    scene = box_training_scene(np.random.default_rng(seed), ["hershey-simplex"])
    corners = [(x, y) for x, y, c in scene.points if c in BOX_LABELS]
    boxes = [r for r in scene.rectangles if (r[0], r[1]) in corners]
    taught_none = {(x, y) for x, y, c in scene.points if c is None}
    near_label = lambda x, y: min(np.hypot(x - cx, y - cy) for cx, cy in corners) <= CROSSING_AT_LABEL
    crossings = _crossings(boxes)
    assert any(near_label(x, y) for x, y in crossings)
    assert {(x, y) for x, y in crossings if not near_label(x, y)} <= taught_none
    assert not any(near_label(x, y) for x, y in taught_none)


@pytest.mark.parametrize("polarity", ["colour", "box"])
def test_the_shipped_reader_reads_each_boxs_label_at_its_corner_and_none_elsewhere(polarity):
    reader = default_corner_reader()
    assert reader is not None, "weights/corner_reader.safetensors ships with the repository"
    image = draw_boxes(noisy(5), BOXES, MarkerStyle(ring_width=2, label_height=13, polarity=polarity))
    probs = reader.probabilities(image, [A[:2], B[:2], A[2:], B[2:], (150.0, 110.0)])
    read = [CLASSES[i] for i in probs.argmax(axis=1)]
    assert read == ["A", "B", NONE, NONE, NONE]
    assert probs[0, CLASSES.index("A")] > 0.8 and probs[1, CLASSES.index("B")] > 0.8


def test_a_sure_reader_tells_apart_corners_the_finder_reads_alike():
    image = outlines_only(noisy(4), BOXES)  # no word for the glyph classifier: the readers decide
    markers, missing, _ = read_boxes(image, ["A", "B"], UNSURE_FINDER, reader=None)
    assert not markers and all("in doubt" in why or "tells no label apart" in why for why in missing.values())
    sure = OracleReader({A[:2]: {"A": 0.97, NONE: 0.03}, B[:2]: {"B": 0.96, NONE: 0.04}}, CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], UNSURE_FINDER, reader=sure)
    assert not missing
    for label, truth in BOXES.items():
        assert max(abs(np.subtract(markers[label].box, truth))) <= 1.0


def test_a_label_needs_both_the_finder_and_the_reader():
    """The reader alone swapped two crowded labels on the benchmark: a corner the reader reads as
    no label, or as a label the finder does not read there, is not that label's by its reading.
    (Where that corner is the one left for the last label, elimination places it there: the label
    may be hidden or illegible, and the reader reads such labels as none.)"""
    image = draw_boxes(noisy(4), BOXES, MarkerStyle(ring_width=2))
    finder = OracleFinder([(A[0], A[1], {"A": 0.9}), (B[0], B[1], {"B": 0.9}), *FARS], CORNER_CLASSES)
    none_at_a = OracleReader({A[:2]: {NONE: 0.98, "A": 0.02}, B[:2]: {"B": 0.97}}, CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder, reader=none_at_a)
    assert markers["B"].source == "parsed" and markers["A"].source == "elimination" and not missing
    assert max(abs(np.subtract(markers["A"].box, A))) <= 1.0
    swapped = OracleReader({A[:2]: {"B": 0.98, NONE: 0.02}, B[:2]: {"A": 0.98, NONE: 0.02}}, CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder, reader=swapped)
    assert not markers and set(missing) == {"A", "B"}


def test_the_finder_and_the_reader_sure_together_outweigh_a_misread_word():
    """The glyph classifier reads the word at A's corner clearly as "F" (drawn there, as a
    misreading would look). With the finder alone, or the reader unsure, the word takes A off the
    corner; the finder and the reader both sure of A outweigh it (WORD_OVERRULED)."""
    image = draw_boxes(noisy(4), {"F": A}, MarkerStyle(ring_width=2, label_height=14))
    finder = OracleFinder([(A[0], A[1], {"A": 0.9}), FARS[0]], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A"], finder, reader=None)
    assert not markers and "F reads as another label or letter" in missing["A"]
    unsure = OracleReader({A[:2]: {"A": 0.5, NONE: 0.5}}, CLASSES)
    markers, missing, _ = read_boxes(image, ["A"], finder, reader=unsure)
    assert not markers and "F reads as another label or letter" in missing["A"]
    sure = OracleReader({A[:2]: {"A": 0.97, NONE: 0.03}}, CLASSES)
    markers, missing, _ = read_boxes(image, ["A"], finder, reader=sure)
    assert not missing and max(abs(np.subtract(markers["A"].box, A))) <= 1.0
