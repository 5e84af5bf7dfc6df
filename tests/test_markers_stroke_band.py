"""Whether a box's sides lie on their strokes (stroke_band), and read_boxes' last check with it: a
placed box with a side off the middle of its stroke is refused rather than answered."""

import dataclasses

import numpy as np
import pytest

from adapters.markers import parse_box
from adapters.markers.box_outline import fit_outline
from adapters.markers.detect import to_lab
from adapters.markers.render import draw_boxes
from adapters.markers.stroke_band import MAX_OFF_BAND, off_its_strokes, stroke_across
from adapters.markers.types import Marker

from test_markers_boxes import BOXES, STYLE, benchmark_image, noisy

A = BOXES["A"]


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_a_fitted_side_lies_on_its_band_and_a_side_moved_off_it_does_not(width):
    image = draw_boxes(noisy(4), BOXES, dataclasses.replace(STYLE, ring_width=width))
    lab = to_lab(image)
    fitted = fit_outline(lab, A)
    assert fitted is not None and not off_its_strokes(lab, fitted, fitted)
    for side in range(4):
        off, _ = stroke_across(lab, fitted, side, fitted)
        assert abs(off) <= 0.75
    moved = dataclasses.replace(fitted, y0=fitted.y0 - 3.0)  # the top side 3 px above its stroke
    off, _ = stroke_across(lab, moved, 0, fitted)
    assert off == pytest.approx(3.0, abs=0.75) and off > MAX_OFF_BAND
    assert off_its_strokes(lab, moved, fitted)


def test_a_placed_box_with_a_side_off_its_stroke_is_judged_in_its_fitted_outlines_style():
    """read_boxes' last check takes the style (width, colour, contrast) of the fitted outline
    nearest the marker's box, with the marker's coordinates."""
    image = draw_boxes(noisy(4), BOXES, dataclasses.replace(STYLE, ring_width=3))
    lab = to_lab(image)
    fitted = fit_outline(lab, A)

    def marker(box):
        return Marker("A", ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), 0.9, box=box, ring_width=fitted.width)

    assert not parse_box._side_off_its_band(lab, marker(fitted.box), [fitted])
    assert parse_box._side_off_its_band(lab, marker((fitted.x0 + 3.0, *fitted.box[1:])), [fitted])
    assert not parse_box._side_off_its_band(lab, marker(fitted.box), [])


@pytest.mark.parametrize("seed, index, label", [(18, 89, "A"), (18, 125, "B")])
def test_a_box_placed_with_a_side_on_a_scene_edge_beside_its_stroke_is_refused(seed, index, label):
    """box_accuracy.py's images 89 and 125 at seed 18 (never tuned on before): a side was fitted
    2.9 and 2.4 px off, on a scene's edge beside its stroke, and the image was answered with it.
    Now the box is refused, saying why, and every box placed is right."""
    from adapters.markers.corner_finder import default_corner_finder

    drawn, boxes, _ = benchmark_image(seed, index)
    markers, missing, _ = parse_box.read_boxes(drawn, list(boxes), default_corner_finder())  # shipped networks
    assert label not in markers and "lies off the middle of its stroke" in missing[label]
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0
