"""Whether a box's sides lie on their strokes (stroke_band), and read_boxes' last check with it: a
placed box with a side off the middle of its stroke is refused rather than answered."""

import dataclasses

import numpy as np
import pytest
from box_scenes import BOXES, STYLE, benchmark_image, noisy
from marker_recordings import recorded_finder, recorded_reader

from adapters.markers.colour import to_lab
from adapters.markers.draw.render import draw_boxes
from adapters.markers.general.boxes.final_checks import _onto_its_strokes
from adapters.markers.general.boxes.fit import fit_outline
from adapters.markers.general.boxes.read import read_boxes
from adapters.markers.general.boxes.stroke_band import (
    _bands,
    _beside_unplaceable_ink,
    _between_bands,
    _off_sides,
    _on_its_core,
    off_its_strokes,
    onto_strokes,
    stroke_across,
)
from adapters.markers.general.thresholds import MAX_OFF_BAND
from adapters.markers.types import Marker

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

    assert _onto_its_strokes(lab, marker(fitted.box), [fitted]) == marker(fitted.box)
    moved = _onto_its_strokes(lab, marker((fitted.x0 + 2.0, *fitted.box[1:])), [fitted])
    assert moved is not None and max(abs(np.subtract(moved.box, fitted.box))) <= 0.75
    assert moved.xy == pytest.approx(((moved.box[0] + moved.box[2]) / 2, (moved.box[1] + moved.box[3]) / 2))
    assert _onto_its_strokes(lab, marker((fitted.x0 + 3.0, *fitted.box[1:])), [fitted]) is None
    off = marker((fitted.x0 + 3.0, *fitted.box[1:]))
    assert _onto_its_strokes(lab, off, []) == off


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


@pytest.mark.parametrize("seed, index, label, placed", [(7, 45, "D", False), (18, 125, "B", True)])
def test_a_box_placed_with_a_side_on_a_scene_edge_beside_its_stroke_is_moved_onto_it_or_refused(seed, index, label,
                                                                                             placed):
    """box_accuracy.py's image 45 at seed 7 and 125 at seed 18: a side is fitted
    3.8 and 2.4 px off, on a scene's edge beside its stroke, and the image was answered with it.
    Now image 125's side moves onto its stroke (within MAX_MOVE), and seed 7's box, whose side
    lies farther, is refused, saying why; every box placed is right."""
    _placed_right_or_refused_off_its_stroke(seed, index, label, placed)


@pytest.mark.parametrize("width", [1, 2])
def test_a_side_between_two_lines_of_its_colour_is_not_moved_onto_either(width):
    """A box's side with another line of its colour 6 px beside it (another box's parallel side):
    fitted on either line, it is on its stroke; fitted 2 px from its own line, with nothing else
    near, it is moved onto it; fitted in the gap between the two lines, the bands cannot say which
    line is its own, so it stays where it was fitted (a move onto the nearer line had answered
    seed 199 image 93 with A's bottom side on C's top line)."""
    style = dataclasses.replace(STYLE, ring_width=width)
    x0, y0, x1, y1 = A
    beside = (x0 - 20.0, y1 + 6.0, x1 + 20.0, y1 + 60.0)  # its top side 6 px below A's bottom side
    lab = to_lab(draw_boxes(noisy(4), {"A": A, "B": beside}, style))
    fitted = fit_outline(lab, A)
    assert fitted is not None and abs(fitted.y1 - y1) <= 0.75
    assert not off_its_strokes(lab, fitted, fitted) and onto_strokes(lab, fitted, fitted) is fitted
    above = dataclasses.replace(fitted, y1=y1 - 2.0)  # nothing but its own line near: moved onto it
    assert abs(onto_strokes(lab, above, fitted).y1 - y1) <= 0.75
    between = dataclasses.replace(fitted, y1=y1 + 3.0)
    assert _between_bands(_bands(lab, between, 1, fitted))
    assert 1 not in _off_sides(lab, between, fitted)
    assert onto_strokes(lab, between, fitted) is between
    on_the_other = dataclasses.replace(fitted, y1=y1 + 6.0)  # a side on B's line: no gap, not between
    assert not _between_bands(_bands(lab, on_the_other, 1, fitted))


def test_a_side_on_its_stroke_with_a_fainter_line_beside_it_lies_on_its_core():
    """A 3 px side with another line of its colour 4 px beside it along a third of its length makes
    one band, whose middle lies off the side; the rows inked most are the side's own stroke, whose
    middle is its line (_on_its_core), so the side is not moved off it where the band's width says
    nothing (seed 200 image 30's B, below, whose measured sides were all merged so). A side
    2 px off its stroke is off the stroke's core, and is still moved onto its band."""
    style = dataclasses.replace(STYLE, ring_width=3)
    x0, y0, x1, y1 = A
    length = y1 - y0
    beside = (x0 + 4.0, y1 - length / 3, x1 - 30.0, y1 + 40.0)  # its left side along A's lower third
    lab = to_lab(draw_boxes(noisy(4), {"A": A, "B": beside}, style))
    fitted = fit_outline(lab, A)
    assert fitted is not None and abs(fitted.x0 - x0) <= 0.75
    off, band_width = stroke_across(lab, fitted, 2, fitted)
    assert band_width >= 5 and off > 1.0  # the two strokes make one band, its middle off the side ...
    assert _on_its_core(_bands(lab, fitted, 2, fitted))  # ... and the side lies on its core
    fringe = dataclasses.replace(fitted, x0=fitted.x0 - 2.0)
    assert not _on_its_core(_bands(lab, fringe, 2, fitted))


def test_a_side_beside_a_merged_band_is_off_its_strokes_and_not_moved():
    """Two boxes' parallel 2 px sides 3 px apart make one band of ink, whose middle is neither
    side's. A side fitted 1-2 px past the band's outer edge, on no inked row, is judged off its
    strokes, and not moved onto the band (_beside_a_blind_band: seed 208 image 75's B); fitted
    on its own line, inside the band, it is not judged by this."""
    style = dataclasses.replace(STYLE, ring_width=2)
    x0, y0, x1, y1 = A
    touching = (x0 - 20.0, y1 - 3.0, x1 + 20.0, y1 + 50.0)  # its top side 3 px above A's bottom side
    lab = to_lab(draw_boxes(noisy(4), {"A": A, "B": touching}, style))
    fitted = fit_outline(lab, A)
    assert fitted is not None
    on_its_line = dataclasses.replace(fitted, y1=y1)
    assert not _beside_unplaceable_ink(lab, on_its_line, fitted)
    beside = dataclasses.replace(fitted, y1=y1 + 2.2)
    _, band_width = stroke_across(lab, beside, 1, fitted)
    assert band_width >= 4  # the two strokes' band
    assert _beside_unplaceable_ink(lab, beside, fitted) and off_its_strokes(lab, beside, fitted)
    assert onto_strokes(lab, beside, fitted) is None
    farther = dataclasses.replace(fitted, y1=y1 + 4.0)  # over BLIND_GAP px past it: no judgement of the band's
    assert not _beside_unplaceable_ink(lab, farther, fitted)


@pytest.mark.parametrize("seed, index, label, placed", [(199, 93, "A", True), (200, 30, "B", True),
                                                        (208, 75, "B", False),
                                                        (209, 17, "D", True), (214, 72, "B", True)])
def test_benchmark_boxes_between_or_beside_two_lines_are_placed_right_or_refused(seed, index, label, placed):
    """box_accuracy.py's images 199/93, 200/30 and 208/75 (seed/image):
    each has a side that lies 2.1-3.3 px off when moved onto or fitted beside another
    line of the boxes' colour. 199/93's A, between two lines, stays where it was fitted, 1.6 px
    off; 200/30's B stays on its stroke; 208/75's B, fitted beside a band of two merged lines, is
    refused saying why. 209/17's D and 214/72's B, whose 1 px lines ink no row
    under the boxes' colour beside a band of the scene (2.8 px off, or too faint to say anything),
    are placed as before. Every box placed is right."""
    _placed_right_or_refused_off_its_stroke(seed, index, label, placed)


def _placed_right_or_refused_off_its_stroke(seed, index, label, placed):
    """Benchmark image `index` at `seed`, read with the networks' recorded outputs: `label` is
    placed or not as `placed` says (refused as lying off its stroke), and every box placed lies
    within 2 px."""
    drawn, boxes, _ = benchmark_image(seed, index)
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert (label in markers) is placed
    if not placed:
        assert "lies off the middle of its stroke" in missing[label]
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0
