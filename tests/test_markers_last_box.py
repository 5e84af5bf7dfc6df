"""The last label's box where the rules' fit finds none: the rectangle between the corner
finder's own two corners, measured unfitted in the placed boxes' style (drawn_between_corners)."""

import dataclasses

import cv2
import numpy as np
import pytest
from adapters.markers.boxes.fit import fit_outline
from rule_patch import patch_everywhere
from adapters.markers.nets.centre_finder import Proposal
from adapters.markers.colour import to_lab
from adapters.markers.nets.glyphs import default_classifier
from adapters.markers.thresholds import CROSSING_ACCEPTANCE, LAST_ACCEPTANCE, LAST_FAR
from adapters.markers.boxes.verifier_outlines import drawn_between_corners
from adapters.markers.nets.outline_verifier import default_outline_verifier
from adapters.markers.draw.render import draw_boxes
from adapters.markers.draw.scenes import FAR_CORNER
from adapters.markers.thresholds import MAX_OFF_BAND
from adapters.markers.boxes.stroke_band import stroke_across

from marker_recordings import recorded_finder, recorded_reader
from test_markers_boxes import BOXES, STYLE, SetVerifier, benchmark_image, noisy
from adapters.markers.boxes.read import read_boxes
from adapters.markers.thresholds import CORNER_FIT, SAME_BOX

A, B = BOXES["A"], BOXES["B"]
FINDER_OFF = 0.6  # px the finder's corners are off the drawn ones (it puts them within about a px)


def between(image, fars, verifier, b_corner=None, labels=("A", "B")):
    """drawn_between_corners for B, A placed as the rules fit it, the finder reading B at
    `b_corner` (default: B's corner, FINDER_OFF px off) and proposing `fars` [(x, y, far score)]."""
    lab = to_lab(image)
    placed = {"A": fit_outline(lab, A)}
    assert placed["A"] is not None
    x, y = b_corner or (B[0] + FINDER_OFF, B[1] - FINDER_OFF)
    read = [Proposal(A[0], A[1], {"A": 0.9, "B": 0.02}), Proposal(x, y, {"A": 0.03, "B": 0.9})]
    far_corners = [Proposal(fx, fy, {FAR_CORNER: score}) for fx, fy, score in fars]
    return drawn_between_corners("B", list(labels), placed, read, far_corners, lab, verifier, default_classifier(),
                                 CORNER_FIT, SAME_BOX)


def own_fars(b_far=0.9):
    return [(A[2], A[3], 0.9), (B[2] - FINDER_OFF, B[3] + FINDER_OFF, b_far)]


def test_the_rectangle_between_the_finders_corners_is_the_last_labels_box_as_the_finder_puts_it():
    image = draw_boxes(noisy(4), BOXES, STYLE)
    outline, why = between(image, own_fars(), SetVerifier(0.0))  # the rules pass it: no verifier needed
    assert why == "" and not outline.learned
    assert outline.box == pytest.approx((B[0] + FINDER_OFF, B[1] - FINDER_OFF, B[2] - FINDER_OFF, B[3] + FINDER_OFF))
    assert outline.width == pytest.approx(fit_outline(to_lab(image), A).width)  # measured in A's style


def test_no_rectangle_ends_at_a_placed_boxs_far_corner_or_at_one_the_finder_is_unsure_of():
    image = draw_boxes(noisy(4), BOXES, STYLE)
    outline, why = between(image, [(A[2], A[3], 0.9)], SetVerifier(0.99))  # only A's far corner
    assert outline is None and why == "no rectangle between the finder's corners read as B is drawn"
    outline, why = between(image, own_fars(b_far=LAST_FAR - 0.1), SetVerifier(0.99))
    assert outline is None and why == "no rectangle between the finder's corners read as B is drawn"


def test_a_rectangle_drawn_too_little_for_the_rules_needs_the_verifiers_likelier_than_not():
    """40% of B's bottom side is gone: the rules turn the rectangle away for its coverage."""
    base = noisy(4)
    image = draw_boxes(base, BOXES, STYLE)
    x0, _, x1, y1 = B
    gap = slice(int(x0 + 0.3 * (x1 - x0)), int(x0 + 0.7 * (x1 - x0)))
    image[int(y1) - 3:int(y1) + 4, gap] = base[int(y1) - 3:int(y1) + 4, gap]
    outline, why = between(image, own_fars(), SetVerifier(LAST_ACCEPTANCE + 0.1))
    assert why == "" and outline.learned
    outline, why = between(image, own_fars(), SetVerifier(LAST_ACCEPTANCE - 0.1))
    assert outline is None


def test_lines_going_on_past_a_far_corner_need_the_verifiers_full_acceptance():
    """B's bottom side carried on 20 px past its far corner: the rules call that a crossing."""
    image = draw_boxes(noisy(4), BOXES, STYLE)
    _, _, x1, y1 = B
    cv2.line(image, (round(x1 * 16), round(y1 * 16)), (round((x1 + 20) * 16), round(y1 * 16)), STYLE.colour,
             STYLE.ring_width, cv2.LINE_AA, 4)
    cv2.line(image, (round(x1 * 16), round(y1 * 16)), (round(x1 * 16), round((y1 + 20) * 16)), STYLE.colour,
             STYLE.ring_width, cv2.LINE_AA, 4)
    outline, why = between(image, own_fars(), SetVerifier(CROSSING_ACCEPTANCE))
    assert why == "" and outline.learned
    outline, why = between(image, own_fars(), SetVerifier((LAST_ACCEPTANCE + CROSSING_ACCEPTANCE) / 2))
    assert outline is None


def test_two_drawn_rectangles_from_the_corner_leave_the_label_missing():
    """A line of the boxes' colour 12 px below B's bottom side, as long, with its own far corner
    proposed: two rectangles are drawn between the finder's corners, and which is B's is unclear."""
    image = draw_boxes(noisy(4), BOXES, STYLE)
    x0, _, x1, y1 = B
    cv2.line(image, (round(x0 * 16), round((y1 + 12) * 16)), (round(x1 * 16), round((y1 + 12) * 16)), STYLE.colour,
             STYLE.ring_width, cv2.LINE_AA, 4)
    outline, why = between(image, [*own_fars(), (x1, y1 + 12, 0.9)], SetVerifier(0.99))
    assert outline is None and why == "2 rectangles between the finder's corners read as B are drawn"


def test_the_word_at_the_rectangles_corner_must_not_read_as_another_letter():
    """B's box labelled "F" (a letter that is no label asked): the rectangle is drawn, but what is
    written at its corner says it is not B's."""
    image = draw_boxes(noisy(4), {"A": A, "F": B}, STYLE)
    outline, why = between(image, own_fars(), SetVerifier(0.99))
    assert outline is None and why == "the word at the corner of the rectangle between the finder's corners read as B reads as F"


@pytest.mark.parametrize("seed, index, label", [(5, 35, "B")])
def test_the_last_box_the_rules_fit_on_the_wrong_lines_is_placed_between_the_finders_corners(seed, index, label,
                                                                                             monkeypatch):
    """box_accuracy.py's image 35 at seed 5 (B's top side 6.5 px above A's, B's label over A's
    line): the rules fit B's sides on the other lines there and turn the rectangle away. A is
    placed, and the rectangle between the finder's corners for B is drawn in A's style: B is placed
    within 2 px. With drawn_between_corners stubbed out, B stays missing. (Image 7 at seed 13, B's
    top side under both labels' dark boxes, was placed this way too; the rules now pass B's own
    outline there: test_markers_boxes' one label's box hiding nearly half a side.)"""
    drawn, boxes, style = benchmark_image(seed, index)
    assert (len(boxes), style.ring_width) == (2, 3)  # the images described above
    markers, missing, _ = read_boxes(drawn, ["A", "B"], recorded_finder(), reader=recorded_reader())
    assert not missing and markers[label].source == "elimination"
    for name, box in boxes.items():
        assert max(abs(np.subtract(markers[name].box, box))) <= 2.0
    patch_everywhere(monkeypatch, "drawn_between_corners", lambda *args: (None, "stubbed"))
    markers, missing, _ = read_boxes(drawn, ["A", "B"], recorded_finder(), reader=recorded_reader())
    assert set(markers) == {"A"} and "stubbed" in missing[label]


# (stroke width, px the finder's corner lies right of B's left side, whether the rectangle passes all
# but the band check: the rules with the shipped verifier and the word at its corner)
OFF_CORNERS = [(1, 2.0, True), (1, 3.0, True), (2, 2.0, False), (2, 3.0, True), (3, 2.0, False), (3, 3.0, False),
               (4, 2.0, True), (4, 3.0, False)]


@pytest.mark.parametrize("width, off, only_the_band_tells", OFF_CORNERS)
def test_a_rectangle_from_a_corner_the_finder_put_off_the_stroke_is_never_placed(width, off, only_the_band_tells,
                                                                                 monkeypatch):
    """The finder's corner for B `off` px right of B's left side (as under a label's dark box: fresh
    seed 17 image 140). The rectangle from there is refused: by the rules with the shipped verifier,
    the word at its corner, or for its left side lying off the band of ink beside it. Where only
    that band check refuses it, the rectangle passes without it."""
    style = dataclasses.replace(STYLE, ring_width=width)
    image = draw_boxes(noisy(4), BOXES, style)
    corner = (B[0] + off, B[1] - FINDER_OFF)
    outline, why = between(image, own_fars(), default_outline_verifier(), b_corner=corner)
    assert outline is None
    if only_the_band_tells:
        assert why == "a side of the rectangle between the finder's corners read as B lies off its stroke"
        patch_everywhere(monkeypatch, "off_its_strokes", lambda *args: False)
        outline, _ = between(image, own_fars(), default_outline_verifier(), b_corner=corner)
        assert outline is not None and outline.x0 - B[0] == pytest.approx(off)


@pytest.mark.parametrize("width, gap", [(3, 1), (3, 2), (4, 1)])
def test_a_side_merged_with_another_line_may_lie_off_the_merged_bands_middle(width, gap):
    """A line of the boxes' colour `gap` px above B's top side, longer than it: the two merge into
    one band, whose middle lies over MAX_OFF_BAND px from B's top side. The band is wider than A's
    strokes, so it says nothing of where B's side lies: the rectangle is B's box."""
    style = dataclasses.replace(STYLE, ring_width=width)
    image = draw_boxes(noisy(4), BOXES, style)
    x0, y0, x1, _ = B
    line_y = y0 - width - gap
    cv2.line(image, (round((x0 - 30) * 16), round(line_y * 16)), (round((x1 + 30) * 16), round(line_y * 16)),
             style.colour, width, cv2.LINE_AA, 4)
    outline, why = between(image, own_fars(), SetVerifier(0.99))
    assert why == "" and max(abs(np.subtract(outline.box, B))) <= 1.0
    lab = to_lab(image)
    off, band = stroke_across(lab, outline, 0, fit_outline(lab, A))
    assert abs(off) > MAX_OFF_BAND and band > 2 * width
