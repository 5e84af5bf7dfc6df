"""The drawn box scenes, readers and benchmark images the box tests share (a module, not a test
file: test_markers_boxes_*.py, test_markers_nets_*.py and test_marker_recordings.py import it).

read_boxes is the shipped reader without the corner reader or the outline verifier unless a test
passes them; BOXES, STYLE, noisy, outlines_only and corners_of draw the scenes and set the
corner finder's readings (OracleFinder); SetVerifier is an outline verifier with a set
probability; benchmark_image draws an image of benchmarks/box_accuracy.py's sequence, and
read_with_recorded_networks and all_placed_right_and_then_without read one with the networks'
recorded outputs (marker_recordings)."""

import cv2
import numpy as np
import pytest
from marker_oracles import OracleFinder
from marker_recordings import recorded_finder, recorded_reader
from rule_patch import patch_everywhere

from adapters.markers.draw.render import MarkerStyle
from adapters.markers.general.boxes.read import read_boxes as shipped_read_boxes
from adapters.markers.general.nets.corner_finder import CORNER_CLASSES
from adapters.markers.labels import FAR_CORNER


def read_boxes(rgb, labels, finder, classifier=None, reader=None, verifier=None):
    """shipped_read_boxes, without the corner reader or the outline verifier unless a test passes
    them: most box tests set the finder's readings (OracleFinder) and check the rules that weigh
    them, and a reader would read the unlabelled outlines they draw as no label's corner."""
    return shipped_read_boxes(rgb, labels, finder, classifier, reader, verifier)


BOXES = {"A": (40.3, 50.6, 190.2, 170.4), "B": (75.8, 30.2, 230.5, 150.7)}  # overlapping, every side >= 5 px apart


def noisy(seed=0, h=220, w=280):
    rng = np.random.default_rng(seed)
    field = rng.normal(128, 30, (h // 4 + 1, w // 4 + 1, 3))
    field = np.kron(field, np.ones((4, 4, 1)))[:h, :w] + rng.normal(0, 6, (h, w, 3))
    return np.clip(field, 0, 255).astype(np.uint8)


def outlines_only(image, boxes, width=2, colour=(255, 0, 0)):
    """The boxes' outlines without their labels: the parser then has only the finder's readings
    (no word at a corner for label_word to read), which the assignment tests need."""
    image = image.copy()
    for x0, y0, x1, y1 in boxes.values():
        cv2.rectangle(image, (round(x0 * 16), round(y0 * 16)), (round(x1 * 16), round(y1 * 16)), colour, width,
                      cv2.LINE_AA, 4)
    return image


def corners_of(boxes, score=0.9, far=0.8):
    """Oracle proposals at every box's top-left (its label) and bottom-right corner."""
    out = []
    for label, (x0, y0, x1, y1) in boxes.items():
        out += [(x0, y0, {label: score}), (x1, y1, {FAR_CORNER: far})]
    return OracleFinder(out, CORNER_CLASSES)


STYLE = MarkerStyle(ring_width=2, label_height=12)


def read_with_recorded_networks(seed, index):
    """(markers, missing, true boxes) of read_boxes on benchmark image `index` at `seed`, with the
    corner finder's and corner reader's recorded outputs (marker_recordings) and the shipped
    outline verifier."""
    drawn, boxes, _ = benchmark_image(seed, index)
    markers, missing, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(),
                                               reader=recorded_reader())
    return markers, missing, boxes


def all_placed_right_and_then_without(seed, index, name, undone):
    """Asserts that every box of that benchmark image is placed within 2 px; then (markers,
    missing, true boxes) read again with `name` set to `undone`."""
    markers, missing, boxes = read_with_recorded_networks(seed, index)
    assert not missing and all(max(abs(np.subtract(m.box, boxes[l]))) <= 2.0 for l, m in markers.items())
    with pytest.MonkeyPatch.context() as patch:
        patch_everywhere(patch, name, undone)
        return read_with_recorded_networks(seed, index)


class SetVerifier:
    """An outline verifier whose probability is set (the same for every rectangle); it accepts
    none where the hand rules reject one (its ACCEPTANCE is never reached), so that only the last
    label's weaker acceptance (thresholds.LAST_ACCEPTANCE, verifier_outlines) can use it."""

    def __init__(self, p):
        self.p = p

    def probability(self, measures):
        return self.p

    def accepts(self, measures, reason):
        return False


def benchmark_image(seed, index):
    """(drawn, boxes, style) of image `index` in benchmarks/box_accuracy.py's sequence at `seed`
    (320x240), its photo backgrounds cropped from the held-out photographs (benchmark_sample)."""
    from adapters.markers.draw.scenes import BOX_LABEL_SETS, benchmark_case
    from tests.benchmark_sample import benchmark_inputs
    photos, fonts = benchmark_inputs()
    rng = np.random.default_rng(seed)
    for _ in range(index + 1):
        labels = list(BOX_LABEL_SETS[int(rng.integers(len(BOX_LABEL_SETS)))])
        drawn, boxes, style, _ = benchmark_case(rng, labels, photos, 240, 320, fonts, boxes=True)
    return drawn, boxes, style
