"""Whether a box's sides lie on their strokes (stroke_band), and read_boxes' last check with it: a
placed box with a side off the middle of its stroke is refused rather than answered."""

import dataclasses

import numpy as np
import pytest

from adapters.markers import parse_box
from adapters.markers.box_outline import fit_outline
from adapters.markers.detect import to_lab
from adapters.markers.render import draw_boxes
from adapters.markers.stroke_band import MAX_OFF_BAND, off_its_strokes, onto_strokes, stroke_across
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


def test_a_placed_box_with_a_side_off_its_stroke_is_moved_onto_it_in_its_fitted_outlines_style():
    """read_boxes' last check takes the style (width, colour, contrast) of the fitted outline
    nearest the marker's box, with the marker's coordinates: a side 2 px off its stroke moves onto
    the stroke's middle, one 3 px off (past MAX_MOVE) refuses the box, and with no fitted outline
    to take the style from, the box stays as it is."""
    image = draw_boxes(noisy(4), BOXES, dataclasses.replace(STYLE, ring_width=3))
    lab = to_lab(image)
    fitted = fit_outline(lab, A)

    def marker(box):
        return Marker("A", ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), 0.9, box=box, ring_width=fitted.width)

    assert parse_box._onto_its_strokes(lab, marker(fitted.box), [fitted]) == marker(fitted.box)
    moved = parse_box._onto_its_strokes(lab, marker((fitted.x0 + 2.0, *fitted.box[1:])), [fitted])
    assert moved is not None and max(abs(np.subtract(moved.box, fitted.box))) <= 0.75
    assert moved.xy == pytest.approx(((moved.box[0] + moved.box[2]) / 2, (moved.box[1] + moved.box[3]) / 2))
    assert parse_box._onto_its_strokes(lab, marker((fitted.x0 + 3.0, *fitted.box[1:])), [fitted]) is None
    off = marker((fitted.x0 + 3.0, *fitted.box[1:]))
    assert parse_box._onto_its_strokes(lab, off, []) == off


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_a_band_that_says_little_judges_no_side(width):
    """A side's band judges it only where its best row is inked along MIN_INKED of the side and the
    band ends inside the rows searched. On a scene of the box's own colour every row is ink: a
    side 2 px off its line is then not judged off (nor moved), where on a noisy scene it is."""
    style = dataclasses.replace(STYLE, ring_width=width, colour=(200, 40, 90))
    fitted = fit_outline(to_lab(draw_boxes(noisy(4), BOXES, style)), A)  # the box's colour, width and contrast
    moved = dataclasses.replace(fitted, y1=fitted.y1 + 2.0)  # its bottom side 2 px below its stroke
    for scene, judged in ((noisy(4), True), (np.full((220, 280, 3), (200, 40, 90), np.uint8), False)):
        lab = to_lab(draw_boxes(scene, BOXES, style))
        assert off_its_strokes(lab, moved, fitted) is judged
        assert (onto_strokes(lab, moved, fitted) is moved) is not judged


@pytest.mark.parametrize("seed, index, label, placed", [(18, 89, "A", False), (18, 125, "B", True)])
def test_a_box_placed_with_a_side_on_a_scene_edge_beside_its_stroke_is_moved_onto_it_or_refused(seed, index, label,
                                                                                             placed):
    """box_accuracy.py's images 89 and 125 at seed 18 (never tuned on before): a side was fitted
    2.9 and 2.4 px off, on a scene's edge beside its stroke, and the image was answered with it.
    Now image 125's side moves onto its stroke (within MAX_MOVE), and image 89's box, whose side
    lies farther, is refused, saying why; every box placed is right."""
    from adapters.markers.corner_finder import default_corner_finder

    drawn, boxes, _ = benchmark_image(seed, index)
    markers, missing, _ = parse_box.read_boxes(drawn, list(boxes), default_corner_finder())  # shipped networks
    assert (label in markers) is placed
    if not placed:
        assert "lies off the middle of its stroke" in missing[label]
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0
