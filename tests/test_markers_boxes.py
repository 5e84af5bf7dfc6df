"""Drawn boxes: the outline fit (box_outline), the rules that turn corner proposals into labelled
boxes (parse_box, with set proposals), the corner finder's training data and script, and the
parser's box path end to end."""

import dataclasses

import cv2
import numpy as np
import pytest
from PIL import Image
from adapters.markers import MarkerError, find_markers
from rule_patch import patch_everywhere
from adapters.markers.boxes.read import read_boxes as shipped_read_boxes
from adapters.markers.boxes.label_word import something_written
from adapters.markers.boxes.thin_line import Line
from adapters.markers.boxes.measure import crosses_at_top_left
from adapters.markers.boxes.fit import fit_outline
from adapters.markers.boxes.strokes import side_candidates
from adapters.markers.nets.centre_finder import Proposal
from adapters.markers.nets.corner_finder import BOX_LABELS, CORNER_CLASSES, CornerFinder
from adapters.markers.nets.corner_reader import CLASSES as READER_CLASSES
from adapters.markers.nets.patch_reader import NONE as READER_NONE
from adapters.markers.thresholds import BOX_DARK
from adapters.markers.colour import to_lab
from adapters.markers.draw.render import MarkerStyle, draw_boxes
from adapters.markers.draw.scenes import FAR_CORNER, box_training_scene, jpeg, random_boxes
from adapters.questions import MCQuestion, QuestionSource
from train.markers_corners import CornerStream, main as train_main

from marker_recordings import recorded_finder, recorded_reader
from marker_oracles import OracleFinder, OracleReader, trained_and_continued
from adapters.markers.boxes.elimination import _apart_from, _word_overrode_networks, by_permutation
from adapters.markers.boxes.final_checks import BORROWED_FAR_CORNER, _owns_its_far_corner
from adapters.markers.boxes.geometry import on_another_side
from adapters.markers.boxes.outline import Outline
from adapters.markers.boxes.outlines_at_corner import _a_label_box_unseen, _centred_on_ink, _off_its_stroke, _past_a_seen_far_corner, _short_of_a_seen_far_corner, _the_finders_line_on_ink, its_own_box, near_the_finders_corners
from adapters.markers.boxes.traced_far_corner import traced_far_corner
from adapters.markers.thresholds import FAR_MIN_SCORE, FAR_SEEN, LEARNED_FIT
from adapters.markers.boxes import outlines_at_corner as boxes_outlines_at_corner_module
from adapters.markers import find as find_module


def read_boxes(rgb, labels, finder, classifier=None, reader=None, verifier=None):
    """shipped_read_boxes, without the corner reader or the outline verifier unless a test passes
    them: most tests here set the finder's readings (OracleFinder) and check the rules that weigh
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
    (no word at a corner for box_label to read), which the assignment tests need."""
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


@pytest.mark.parametrize("width", [1, 2, 3, 4])
@pytest.mark.parametrize("polarity", ["colour", "box"])
def test_outline_fit_recovers_each_box_from_a_rough_guess(width, polarity):
    style = MarkerStyle(colour=(230, 20, 20), ring_width=width, polarity=polarity, label_height=12)
    image = jpeg(draw_boxes(noisy(width), BOXES, style), 85)
    lab = to_lab(image)
    rng = np.random.default_rng(width)
    for truth in BOXES.values():
        outline = fit_outline(lab, tuple(np.add(truth, rng.uniform(-2.5, 2.5, 4))))
        assert outline is not None and outline.sides_seen == 4
        assert max(abs(np.subtract(outline.box, truth))) <= 1.0


def test_a_side_is_ambiguous_only_beside_another_line_of_its_own_colour():
    """The rule picking a side's stroke among candidates (nearest), on the candidates
    two benchmark boxes gave: a thin fringe of the stroke blended with a dark scene, and a fringe
    piece overlapping a wide stroke, are no rivals (both once refused the side); a second line of
    the same colour 4 px away is."""
    from adapters.markers.boxes.outline import Side
    from adapters.markers.boxes.strokes import _nearest as nearest
    yellow = (87.0, -8.0, 84.0)
    stroke = Side(228.1, 4.1, yellow, 81.0)
    blended = Side(225.5, 1.6, (52.0, -12.0, 33.0), 59.0)
    assert nearest([stroke, blended], np.array(yellow), 4.0, 227.5) == stroke
    red = (43.6, 70.0, 12.0)
    wide, fringe = Side(89.4, 4.9, (47.0, 74.0, 19.0), 34.9), Side(91.5, 2.7, (39.0, 60.0, -2.0), 26.6)
    assert nearest([wide, fringe], np.array(red), 4.5, 89.6) == wide
    twin = Side(232.4, 4.1, (85.0, -6.0, 80.0), 75.0)  # another box's side, the finder's guess between them
    assert nearest([stroke, twin], np.array(yellow), 4.0, 230.3) is None


def test_the_rectangle_between_two_crossing_boxes_is_not_a_box():
    image = draw_boxes(noisy(1), BOXES, MarkerStyle(ring_width=2))
    lab = to_lab(image)
    a, b = BOXES["A"], BOXES["B"]
    between = (b[0], a[1], a[2], b[3])  # where B's left and bottom sides cross A's top and right sides
    assert fit_outline(lab, between) is None
    assert fit_outline(lab, tuple(np.add(a, 30))) is None  # plain scene: nothing drawn there


def stroke_scene(seed):
    """Lab of a noisy scene with a 5 px cyan stroke on rows 50-54 (centre line 52) over columns
    10-69, and that ink colour."""
    rng = np.random.default_rng(seed)
    lab = to_lab(np.clip(rng.normal(128, 45, (120, 160, 3)), 0, 255).astype(np.uint8)).copy()
    ink = to_lab(np.array([[[0, 220, 255]]], np.uint8))[0, 0]
    lab[50:55, 10:70] = ink
    return lab, ink


@pytest.mark.parametrize("seed", range(6))
def test_lines_crossing_a_side_neither_widen_nor_pull_its_stroke(seed):
    """Two other boxes' sides, 9 px wide, cross the stroke (40% of its measured length): their
    columns are left out of its profile (they once made a side 2 px off on the benchmark)."""
    lab, ink = stroke_scene(seed)
    for c0 in (20, 45):
        lab[38:66, c0:c0 + 9] = ink
    side = side_candidates(lab, 52.0, 10.0, 69.0)[0]
    assert abs(side.pos - 52.0) <= 0.2 and abs(side.width - 5.0) <= 0.3


@pytest.mark.parametrize("crossed", [False, True])
def test_the_centre_line_from_the_search_profile_is_the_one_measured_afresh(crossed):
    """side_candidates hands its per-row medians to _centre_line, which then needs none of its
    own: the centre and width are exactly those measured from the pixels (with crossing lines,
    measured again without their columns)."""
    from adapters.markers.boxes.strokes import _centre_line
    lab, ink = stroke_scene(3)
    if crossed:
        lab[38:66, 30:39] = ink
    first, a, b = 35, 14, 65
    profile = np.median(lab[first:70, a:b + 1], axis=1)
    for top, stroke in ((50, 5), (49, 7), (51, 3), (44, 2)):
        assert _centre_line(lab, top, stroke, a, b, profile, first) == _centre_line(lab, top, stroke, a, b)


def test_a_line_touching_a_side_alongside_is_measured():
    lab, ink = stroke_scene(0)
    line = Line(lab, 52.0, False, ink, 20.0)
    along = np.arange(14, 66)
    assert line.alongside(along, 2.5) < 0.05
    lab[56:60, 10:50] = ink  # another box's side, 1 px below the stroke, along 40 of its 60 px
    assert line.alongside(along, 2.5) > 0.5


def test_a_narrow_side_with_a_line_touching_it_is_not_placed():
    """A box of 6 px strokes whose right side measures 3 px, with another line of its colour 2 px
    beside it along most of it: the outline is drawn (and counts at its corner) but merged, so A
    is missing; without the touching line it is placed. (On the benchmark such a side was fitted
    on the far half of the merged band, 2 px off.)"""
    image = np.clip(np.random.default_rng(0).normal(128, 20, (220, 280, 3)), 0, 255).astype(np.uint8)
    red = (230, 20, 20)
    for rows, cols in ((slice(50, 56), slice(40, 203)), (slice(150, 156), slice(40, 203)),
                       (slice(50, 156), slice(40, 46)), (slice(50, 156), slice(200, 203))):
        image[rows, cols] = red
    finder = OracleFinder([(42.5, 52.5, {"A": 0.9}), (201.0, 152.5, {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A"], finder)
    assert not missing and max(abs(np.subtract(markers["A"].box, (42.5, 52.5, 201.0, 152.5)))) <= 0.5
    image[60:150, 205:208] = red
    markers, missing, outlines = read_boxes(image, ["A"], finder)
    assert not markers and "merges with another line of its colour" in missing["A"]
    assert [o.merged for o in outlines] == [True]


def test_a_box_cut_by_the_border_is_fitted_on_the_sides_in_the_image():
    image = draw_boxes(noisy(2), {"A": (120.4, 60.3, 290.0, 160.6)}, MarkerStyle(colour=(0, 80, 255), ring_width=3))
    outline = fit_outline(to_lab(image), (121.0, 59.0, 279.0, 161.0))  # the right side is past the border
    assert outline is not None and outline.sides_seen == 3
    assert max(abs(np.subtract(outline.box[:2], (120.4, 60.3)))) <= 1.0 and abs(outline.y1 - 160.6) <= 1.0


def test_a_side_just_inside_the_border_is_not_taken_for_a_cut_off_box():
    truth = (60.4, 50.3, 200.2, 236.6)  # the bottom side 2.4 px from the last row
    image = draw_boxes(noisy(11, h=240), {"A": truth}, MarkerStyle(ring_width=2))
    outline = fit_outline(to_lab(image), (60.0, 50.0, 200.0, 239.0))  # tried with the border standing in
    assert outline is not None and max(abs(np.subtract(outline.box, truth))) <= 1.0  # (too near the border to verify)


def test_boxes_are_placed_where_the_corners_and_outlines_agree():
    image = draw_boxes(noisy(3), BOXES, MarkerStyle(ring_width=2, polarity="box"))
    markers, missing, outlines = read_boxes(image, ["A", "B"], corners_of(BOXES))
    assert not missing and len(outlines) == 2
    for label, truth in BOXES.items():
        assert max(abs(np.subtract(markers[label].box, truth))) <= 1.0
        assert markers[label].xy == pytest.approx(((truth[0] + truth[2]) / 2, (truth[1] + truth[3]) / 2), abs=1.0)


def test_doubtful_corners_leave_the_label_missing_with_the_reason():
    image = outlines_only(noisy(4), BOXES)
    a, b = BOXES["A"], BOXES["B"]
    two_a = OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"A": 0.8}),
                          (a[2], a[3], {FAR_CORNER: 0.9}), (b[2], b[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], two_a)
    assert not markers and "A may as well be (76, 30)" in missing["A"] and "no box corner read as B" in missing["B"]
    one_corner = OracleFinder([(a[0], a[1], {"A": 0.9, "B": 0.6}), (a[2], a[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], one_corner)
    assert not markers and "is in doubt" in missing["A"] and "no box corner read as B" in missing["B"]


def test_the_word_written_at_a_corner_takes_away_a_label_it_clearly_is_not():
    """The same doubtful finder as above, with the labels drawn: the glyph classifier reads "B"
    at B's corner, so A is no longer in doubt there (box_label); B, which the finder read nowhere,
    then takes the one labelled corner left by elimination."""
    image = draw_boxes(noisy(4), BOXES, MarkerStyle(ring_width=2))
    a, b = BOXES["A"], BOXES["B"]
    two_a = OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"A": 0.8}),
                          (a[2], a[3], {FAR_CORNER: 0.9}), (b[2], b[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], two_a)
    assert not missing and max(abs(np.subtract(markers["A"].box, a))) <= 1.0
    assert markers["B"].source == "elimination" and max(abs(np.subtract(markers["B"].box, b))) <= 1.0


def test_a_corner_the_finder_reads_faintly_is_placed_when_its_word_reads_clearly():
    """The finder reads B at B's corner with 0.3, too little to beat leaving B unplaced; the word
    written there reads clearly as B, which settles it (and without the word it stays missing)."""
    b = BOXES["B"]
    faint = OracleFinder([(b[0], b[1], {"B": 0.3}), (b[2], b[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    image = draw_boxes(noisy(4), {"B": b}, MarkerStyle(ring_width=2, label_height=12))
    markers, missing, _ = read_boxes(image, ["B"], faint)
    assert not missing and max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    markers, missing, _ = read_boxes(outlines_only(noisy(4), {"B": b}), ["B"], faint)
    assert not markers and "may as well be unplaced" in missing["B"]


@pytest.mark.parametrize("polarity", ["colour", "box"])
def test_a_box_labelled_with_another_letter_is_not_taken_for_the_label_the_finder_reads(polarity):
    decoy = (40.3, 60.6, 170.2, 180.4)
    scene = np.clip(np.random.default_rng(13).normal(150, 8, (220, 280, 3)), 0, 255).astype(np.uint8)
    image = draw_boxes(scene, {"F": decoy}, MarkerStyle(ring_width=2, polarity=polarity, label_height=12))
    finder = OracleFinder([(decoy[0], decoy[1], {"B": 0.9}), (decoy[2], decoy[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert not markers and "the word at (40, 61): F reads as another label or letter" in missing["B"]


def test_a_corner_read_as_two_labels_goes_to_the_one_not_plain_elsewhere():
    boxes = {**BOXES, "C": (20.5, 120.3, 120.4, 200.6)}
    image = draw_boxes(noisy(10), boxes, MarkerStyle(ring_width=2))
    (a, b, c) = (boxes[k] for k in "ABC")
    finder = OracleFinder([(a[0], a[1], {"A": 0.95}), (b[0], b[1], {"B": 0.65, "C": 0.6}), (c[0], c[1], {"C": 0.95}),
                           *((box[2], box[3], {FAR_CORNER: 0.9}) for box in (a, b, c))], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B", "C"], finder)
    assert not missing
    assert max(abs(np.subtract(markers["B"].box, b))) <= 1.0 and max(abs(np.subtract(markers["C"].box, c))) <= 1.0
    # without C's own corner, the corner read as B and C is B's or C's: neither is placed
    finder.proposals = [p for p in finder.proposals if p[:2] != (c[0], c[1])]
    markers, missing, _ = read_boxes(image, ["A", "B", "C"], finder)
    assert set(markers) == {"A"} and "in doubt" in missing["B"]


def unsure_at_b(*extra):
    """The finder reads A plainly at A's corner, and a label at B's corner without telling which
    (A 0.3, B 0.3: B alone does not beat leaving it unplaced); `extra` (x, y, scores) added."""
    a, b = BOXES["A"], BOXES["B"]
    return OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"A": 0.3, "B": 0.3}), *extra,
                         *((box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values())], CORNER_CLASSES)


STYLE = MarkerStyle(ring_width=2, label_height=12)
# B's label written as an "I": a word the glyph classifier reads as one straight stroke (as a
# small B whose bowls are lost), which neither backs nor contradicts any label
UNCLEAR_B = {"A": BOXES["A"], "I": BOXES["B"]}


def test_the_last_label_goes_to_the_one_labelled_corner_left_in_the_boxes_style():
    image = draw_boxes(noisy(4), UNCLEAR_B, STYLE)
    markers, missing, _ = read_boxes(image, ["A", "B"], unsure_at_b())
    assert not missing and markers["B"].source == "elimination" and markers["B"].confidence <= 0.5
    assert max(abs(np.subtract(markers["B"].box, BOXES["B"]))) <= 1.0 and markers["A"].source == "parsed"
    # with C asked too, two labels are left: B's corner is named B (0.3) rather than C (read
    # nowhere) by _by_permutation; read as B and C alike, neither is named
    markers, missing, _ = read_boxes(image, ["A", "B", "C"], unsure_at_b())
    assert set(markers) == {"A", "B"} and markers["B"].source == "elimination" and "C" in missing
    a, b = BOXES["A"], BOXES["B"]
    b_or_c = OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"A": 0.3, "B": 0.3, "C": 0.3}),
                           *((box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values())], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B", "C"], b_or_c)
    assert set(markers) == {"A"} and "tells no label apart" in missing["B"]
    # nothing written at B's corner (an unlabelled rectangle there): not placed either
    image = outlines_only(draw_boxes(noisy(4), {"A": BOXES["A"]}, STYLE), {"B": BOXES["B"]}, colour=STYLE.colour)
    markers, missing, _ = read_boxes(image, ["A", "B"], unsure_at_b())
    assert set(markers) == {"A"} and "no other corner read as a label" in missing["B"]


def test_the_last_label_read_faintly_inside_its_box_is_placed_by_elimination():
    """B's box reaches the top border, so its label is written inside it, in its colour: no word
    the glyph classifier reads, and the finder reads B there at 0.4 only (it reads some such
    corners of the benchmark's below 0.5). With A placed, that corner is the one left: B is placed by
    elimination. Read at 0.3, below ELIMINATION_EVIDENCE, it is still the one corner left, and its
    box takes nothing from A's (_apart_from): placed; beside a second such corner (an
    unlabelled rectangle with something unclear written at it, read as faintly), it stays missing."""
    boxes = {"A": BOXES["A"], "B": (75.8, 6.4, 230.5, 150.7)}
    image = draw_boxes(noisy(4), boxes, STYLE)
    a, b = boxes["A"], boxes["B"]

    def reading_b(score):
        return OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"B": score}),
                             *((box[2], box[3], {FAR_CORNER: 0.9}) for box in boxes.values())], CORNER_CLASSES)

    markers, missing, _ = read_boxes(image, ["A", "B"], reading_b(0.4))
    assert not missing and markers["B"].source == "elimination" and markers["A"].source == "parsed"
    assert max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    markers, missing, _ = read_boxes(image, ["A", "B"], reading_b(0.3))
    assert not missing and markers["B"].source == "elimination"
    assert max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    decoy = (236.4, 168.3, 272.6, 208.2)
    image = draw_boxes(image, {"I": decoy}, STYLE)
    finder = OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"B": 0.3}), (decoy[0], decoy[1], {"B": 0.2}),
                           *((box[2], box[3], {FAR_CORNER: 0.9}) for box in (*boxes.values(), decoy))], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert set(markers) == {"A"} and "no other corner read as a label" in missing["B"]


def test_a_faintly_read_corner_left_for_the_last_label_must_take_nothing_from_the_placed_boxes():
    """_apart_from, the guard on a corner elimination takes below ELIMINATION_EVIDENCE: the finder
    reads such a corner barely, so only where the rectangle borrows nothing from a placed box is
    it the box drawn with the last label (benchmark seed 93 image 0: the rectangle from where B's
    left side crosses C's top to C's far corner, C's own outline merged and no candidate)."""
    def outline(x0, y0, x1, y1, tees=0):
        return Outline(x0, y0, x1, y1, 2.0, (50.0, 70.0, 60.0), 40.0, 1.0, 4, tees=tees)

    placed = [outline(40.3, 50.6, 190.2, 170.4)]
    assert _apart_from(outline(75.8, 6.4, 230.5, 150.7), placed, 240, 320)
    assert not _apart_from(outline(75.8, 6.4, 230.5, 150.7, tees=1), placed, 240, 320)  # a T at a corner
    assert not _apart_from(outline(120.4, 51.2, 260.3, 210.5), placed, 240, 320)  # corner on A's top
    assert not _apart_from(outline(41.1, 90.4, 100.5, 200.3), placed, 240, 320)  # corner on A's left
    assert not _apart_from(outline(75.8, 6.4, 189.6, 171.3), placed, 240, 320)  # A's far corner
    assert not _apart_from(outline(60.2, 80.5, 250.1, 170.9), placed, 240, 320)  # bottom on A's bottom


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


def placed_right_by_elimination(seed, index, label):
    """Asserts that every box of that benchmark image is placed within 2 px, `label`'s by elimination."""
    markers, missing, boxes = read_with_recorded_networks(seed, index)
    assert not missing and markers[label].source == "elimination"
    for other, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[other]))) <= 2.0, other


def test_of_two_corners_left_for_the_last_label_the_one_apart_from_the_placed_boxes_is_its_own():
    """Benchmark seed 1 image 165: B placed; two corners read as A start an outline in B's style,
    A's own (finder 0.93) and one where A's left side meets B's top line, its rectangle sharing A's
    far corner and running along B's top (0.49). Elimination takes A's own box, the only one that
    takes nothing from B's; when it cannot tell them apart that way (_apart_from undone), A stays
    missing."""
    placed_right_by_elimination(1, 165, "A")
    with pytest.MonkeyPatch.context() as patch:
        patch_everywhere(patch, "_apart_from", lambda *args: False)
        markers, missing, _ = read_with_recorded_networks(1, 165)
        assert set(markers) == {"B"} and "2 corners read as a label start an outline" in missing["A"]


def test_the_last_label_the_finder_barely_reads_at_the_one_corner_left_is_placed():
    """Benchmark seed 64 image 176: A, B and C placed; at D's corner the finder reads the asked
    labels at 0.31 together (the reader sees "none" there), under ELIMINATION_EVIDENCE. It is the one
    corner left that starts an outline in their style with something written, and D's box takes
    nothing from theirs: placed by elimination, within 2 px. Without the faint corners, D is missing.
    Seed 93 image 0: C's own outline has a side merged with B's, and the corner reader reads C there
    (0.99): elimination takes it, settled, within 2 px. Not reading C there (READER_READS out of
    reach), the one faint corner left for C starts the rectangle from where B's left side crosses
    C's top to C's far corner; the guard leaves C missing, and without it C is placed 73 px off."""
    placed_right_by_elimination(64, 176, "D")
    placed_right_by_elimination(93, 0, "C")
    with pytest.MonkeyPatch.context() as patch:
        patch_everywhere(patch, "READER_READS", 1.01)
        markers, missing, _ = read_with_recorded_networks(93, 0)
        assert set(markers) == {"A", "B", "D"} and "C" in missing
        patch_everywhere(patch, "_apart_from", lambda *args: True)
        markers, _, boxes = read_with_recorded_networks(93, 0)
        assert max(abs(np.subtract(markers["C"].box, boxes["C"]))) > 50
        patch_everywhere(patch, "_apart_from", lambda *args: False)
        markers, missing, _ = read_with_recorded_networks(64, 176)
        assert set(markers) == {"A", "B", "C"} and "no other corner read as a label" in missing["D"]


def test_where_the_corner_reader_reads_the_label_left_lines_crossing_at_its_corner_do_not_stop_it():
    """Benchmark seed 82 image 143: A, B and C placed; D's glyph, written above its corner, carries
    its left side on upwards, and a reddish scene beside it the top side to the left, so the corner
    looks like two lines crossing (crosses_at_top_left), which elimination turns away.
    The corner reader, taught such crossings as "none", reads D there at 0.98 (READER_READS): D is
    placed by elimination, within 2 px, and missing without that reading.
    Seed 108 image 21: A placed. B's corner lies on D's bottom side, which runs on past it to the
    left, so it too looks like a crossing, and the naming of the two corners left (D's, read as B
    and D alike, and C's, as B, C and D) could not tell B, C and D apart. With B's corner among them (the
    reader reads B there at 0.98), the naming of the three tells all three, each within 2 px;
    without it, all three are missing."""
    placed_right_by_elimination(82, 143, "D")
    markers, missing, boxes = read_with_recorded_networks(108, 21)
    assert not missing and {markers[l].source for l in "BCD"} == {"elimination"}
    assert all(max(abs(np.subtract(m.box, boxes[l]))) <= 2.0 for l, m in markers.items())
    with pytest.MonkeyPatch.context() as patch:
        patch_everywhere(patch, "READER_READS", 1.01)
        markers, missing, _ = read_with_recorded_networks(82, 143)
        assert set(markers) == {"A", "B", "C"} and "no other corner read as a label" in missing["D"]
        markers, missing, _ = read_with_recorded_networks(108, 21)
        assert set(markers) == {"A"} and all("tells no label apart" in missing[l] for l in "BCD")


def test_a_label_only_the_corner_reader_sees_lets_elimination_take_the_last_corner():
    """B's outline is drawn bare: box_label finds nothing written at its corner, as at a small
    label written inside a box over its thick left side, which leaves a pixel or two of the glyph
    past the stroke (benchmark seed 14 image 179). Where the corner reader sees a label there
    (its "none" at most READER_WRITTEN) without telling which, that corner is the one left for B;
    where it sees none there as surely as an unlabelled rectangle's corner, B stays missing."""
    image = outlines_only(draw_boxes(noisy(4), {"A": BOXES["A"]}, STYLE), {"B": BOXES["B"]}, colour=STYLE.colour)
    a, b = BOXES["A"], BOXES["B"]

    def reader(none_at_b):
        unsure = (1.0 - none_at_b) / 2
        return OracleReader({(a[0], a[1]): {"A": 0.95, READER_NONE: 0.05},
                             (b[0], b[1]): {"A": unsure, "B": unsure, READER_NONE: none_at_b}}, READER_CLASSES)

    markers, missing, _ = read_boxes(image, ["A", "B"], unsure_at_b(), reader=reader(0.05))
    assert not missing and markers["B"].source == "elimination" and markers["A"].source == "parsed"
    assert max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    for none_at_b in (0.2, 0.9):  # a decoy rectangle's corner reads none at 0.108 and more
        markers, missing, _ = read_boxes(image, ["A", "B"], unsure_at_b(), reader=reader(none_at_b))
        assert set(markers) == {"A"} and "no other corner read as a label" in missing["B"]


def test_elimination_takes_the_last_corners_own_box_where_two_outlines_start_there(monkeypatch):
    """Benchmark seed 1 image 91: A, B and C placed, D in doubt (finder 0.39, B 0.45, at its
    corner; reader 0.77). D's corner is the one left, but two outlines start there: its own and
    one to another box's far corner, which _its_own_box tells apart. Elimination takes that own box
    (within 2 px, as every box placed); asked of every outline starting there, it found none."""
    drawn, boxes, _ = benchmark_image(1, 91)
    labels = sorted(boxes)
    finder, reader = recorded_finder(), recorded_reader()
    markers, _, _ = shipped_read_boxes(drawn, labels, finder, reader=reader)  # (the shipped verifier too)
    assert markers["D"].source == "elimination"
    for label, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[label]))) <= 2.0, label
    patch_everywhere(monkeypatch, "its_own_box", lambda found, *args: found)
    markers, missing, _ = shipped_read_boxes(drawn, labels, finder, reader=reader)
    assert set(markers) == {"A", "B", "C"} and "no other corner read as a label" in missing["D"]


def test_a_corner_the_reader_is_sure_of_and_the_finder_reads_faintly_but_there_most_is_placed():
    """Benchmark seed 5 image 188: the finder read D faintly at its corner (0.09; B 0.2 there), the
    corner reader surely (0.99). The geometric mean (0.3) did not beat leaving D unplaced
    decisively, the only rival, and the asked labels' scores there add up to too little for
    elimination. Where the reader reads the label at READER_SURE and the finder reads it at that
    corner at least as much as at any other corner it proposed, the corner is settled; where the
    reader is less sure, or the finder reads the label more elsewhere, the label is in doubt, and
    only elimination places it there (the one corner left that starts an outline, read faintly:
    _apart_from)."""
    image = outlines_only(noisy(4), BOXES)
    a, b = BOXES["A"], BOXES["B"]

    def finder(*extra):
        return OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"A": 0.16, "B": 0.09}), *extra,
                             *((box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values())], CORNER_CLASSES)

    def reader(b_reads):
        return OracleReader({(a[0], a[1]): {"A": 0.98, READER_NONE: 0.02},
                             (b[0], b[1]): {"B": b_reads, READER_NONE: 1.0 - b_reads}}, READER_CLASSES)

    markers, missing, _ = read_boxes(image, ["A", "B"], finder(), reader=reader(0.99))
    assert not missing and markers["B"].source == "parsed" and max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    markers, missing, _ = read_boxes(image, ["A", "B"], finder(), reader=reader(0.9))
    assert not missing and markers["B"].source == "elimination" and max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    markers, missing, _ = read_boxes(image, ["A", "B"], finder((250.0, 20.0, {"B": 0.3})), reader=reader(0.99))
    assert not missing and markers["B"].source == "elimination" and max(abs(np.subtract(markers["B"].box, b))) <= 1.0


def test_a_word_misread_as_another_letter_does_not_take_a_label_the_corner_reader_settles():
    """B's label is written as an "R" (the glyph classifier misreads small Bs as R, P or F: fresh
    seed 40 image 85, where the finder read B 0.33 and the corner reader 0.98 at B's corner). The
    word's veto took B off its only corner. Where the corner reader reads B at READER_SURE and the
    finder reads it there at MIN_EVIDENCE and more than anywhere else, the veto does not stand
    (`_weighed_by_word`'s `settled`); with the reader less sure, or the finder reading B more at
    another corner, it does."""
    a, b = BOXES["A"], BOXES["B"]
    image = draw_boxes(draw_boxes(noisy(4), {"A": a}, STYLE), {"R": b}, STYLE)

    def finder(*extra):
        return OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"B": 0.33}), *extra,
                             *((box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values())], CORNER_CLASSES)

    def reader(b_reads):
        return OracleReader({(a[0], a[1]): {"A": 0.98, READER_NONE: 0.02},
                             (b[0], b[1]): {"B": b_reads, READER_NONE: 1.0 - b_reads}}, READER_CLASSES)

    markers, missing, _ = read_boxes(image, ["A", "B"], finder(), reader=reader(0.98))
    assert not missing and max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    for weaker in (read_boxes(image, ["A", "B"], finder(), reader=reader(0.9)),
                   read_boxes(image, ["A", "B"], finder((250.0, 20.0, {"B": 0.4})), reader=reader(0.98))):
        markers, missing, _ = weaker
        assert set(markers) == {"A"} and "reads as another label or letter" in missing["B"]


class SetVerifier:
    """An outline verifier whose probability is set (the same for every rectangle); it accepts
    none where the hand rules reject one (its ACCEPTANCE is never reached), so that only the last
    label's weaker acceptance (last_box.LAST_ACCEPTANCE) can use it."""

    def __init__(self, p):
        self.p = p

    def probability(self, measures):
        return self.p

    def accepts(self, measures, reason):
        return False


def test_the_last_labels_box_drawn_too_little_for_the_rules_is_placed_when_the_verifier_finds_it_likely():
    """B's bottom side is drawn along 60% of its length only (the rules need 65%: a faint stretch
    over a scene of its colour). A is placed and the finder reads B plainly at B's corner: a
    rectangle from there that the verifier finds likelier than not drawn (last_box) is B's box;
    one it finds unlikely, or whose far corner the finder is unsure of, is not, and B stays missing
    with the reason."""
    from adapters.markers.thresholds import LAST_ACCEPTANCE
    base = noisy(4)
    image = draw_boxes(base, BOXES, STYLE)
    x0, _, x1, y1 = BOXES["B"]
    gap = slice(int(x0 + 0.3 * (x1 - x0)), int(x0 + 0.7 * (x1 - x0)))
    image[int(y1) - 3:int(y1) + 4, gap] = base[int(y1) - 3:int(y1) + 4, gap]  # 40% of B's bottom side gone
    finder = corners_of(BOXES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder, verifier=SetVerifier(LAST_ACCEPTANCE + 0.1))
    assert not missing and markers["B"].source == "elimination" and markers["A"].source == "parsed"
    assert max(abs(np.subtract(markers["B"].box, BOXES["B"]))) <= 1.0
    markers, missing, _ = read_boxes(image, ["A", "B"], finder, verifier=SetVerifier(LAST_ACCEPTANCE - 0.1))
    assert set(markers) == {"A"} and "no rectangle from a corner read as B is likely drawn" in missing["B"]
    # nor where the finder is unsure of the far corner (a proposal 9 px off a 1 px box's own, at 0.11)
    markers, missing, _ = read_boxes(image, ["A", "B"], corners_of(BOXES, far=0.3),
                                     verifier=SetVerifier(LAST_ACCEPTANCE + 0.1))
    assert set(markers) == {"A"} and "no rectangle from a corner read as B is likely drawn" in missing["B"]
    # without the verifier, the rules' verdict stands
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert set(markers) == {"A"} and "no box corner read as B starts a drawn outline" in missing["B"]


def test_the_last_labels_likely_rectangle_is_refused_when_it_is_not_the_only_one():
    """A line of the boxes' colour 12 px below B's bottom side, as long, makes a second rectangle
    from B's corner that the rules turn away for its sides stopping short of its far corner, and
    the set verifier finds it as likely as B's own: which is B's box cannot be told, and B stays
    missing."""
    from adapters.markers.thresholds import LAST_ACCEPTANCE
    base = noisy(4)
    image = draw_boxes(base, BOXES, STYLE)
    x0, _, x1, y1 = BOXES["B"]
    gap = slice(int(x0 + 0.3 * (x1 - x0)), int(x0 + 0.7 * (x1 - x0)))
    image[int(y1) - 3:int(y1) + 4, gap] = base[int(y1) - 3:int(y1) + 4, gap]
    cv2.line(image, (int(x0), int(y1) + 12), (int(x1), int(y1) + 12), STYLE.colour, STYLE.ring_width, cv2.LINE_AA)
    finder = OracleFinder([*corners_of(BOXES).proposals, (x1, y1 + 12.0, {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder, verifier=SetVerifier(LAST_ACCEPTANCE + 0.1))
    assert set(markers) == {"A"} and "2 rectangles from corners read as B are likely drawn" in missing["B"]


def test_the_last_labels_corner_whose_outline_the_rules_pass_is_not_asked_again():
    """B's outline is drawn whole but bare, and the finder reads B there at 0.3 only: the rules
    pass the outline, the assignment leaves B in doubt and elimination finds nothing written.
    The verifier is not asked to overrule that (another rectangle from the same corner, likely to
    it, once took a corner left in doubt: benchmark seed 5 image 100); B stays missing, saying why."""
    image = outlines_only(draw_boxes(noisy(4), {"A": BOXES["A"]}, STYLE), {"B": BOXES["B"]}, colour=STYLE.colour)
    a, b = BOXES["A"], BOXES["B"]
    finder = OracleFinder([(a[0], a[1], {"A": 0.9}), (b[0], b[1], {"B": 0.3}),
                           *((box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values())], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder, verifier=SetVerifier(0.99))
    assert set(markers) == {"A"} and "a corner read as B starts an outline the rules pass" in missing["B"]


def test_elimination_refuses_a_decoy_or_an_outline_in_another_style():
    decoy = (236.4, 168.3, 272.6, 208.2)  # clear of the other boxes, labelled "L" (as unclear as B's "I")
    image = draw_boxes(noisy(4), {**UNCLEAR_B, "L": decoy}, STYLE)
    finder = unsure_at_b((decoy[0], decoy[1], {"A": 0.3, "B": 0.3}), (decoy[2], decoy[3], {FAR_CORNER: 0.9}))
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert set(markers) == {"A"} and "2 corners read as a label start an outline in the placed boxes' style" in missing["B"]
    # B's own box drawn in another colour than A's is not a box of this question's drawing
    image = draw_boxes(draw_boxes(noisy(4), {"A": BOXES["A"]}, STYLE), {"I": BOXES["B"]},
                       dataclasses.replace(STYLE, colour=(0, 90, 255)))
    markers, missing, _ = read_boxes(image, ["A", "B"], unsure_at_b())
    assert set(markers) == {"A"} and "no other corner read as a label" in missing["B"]


@pytest.mark.parametrize("top", [50.6, 5.4])  # the label above the corner, or inside the box (no room above)
@pytest.mark.parametrize("polarity", ["colour", "box"])
def test_something_is_written_at_a_labelled_corner_and_nothing_at_an_unlabelled_one(top, polarity):
    box = (40.3, top, 190.2, 170.4)
    style = MarkerStyle(ring_width=2, label_height=9, polarity=polarity)
    labelled, bare = draw_boxes(noisy(5), {"B": box}, style), outlines_only(noisy(5), {"B": box}, colour=style.colour)
    for image, written in ((labelled, True), (bare, False)):
        lab = to_lab(image)
        assert something_written(lab, fit_outline(lab, box)) is written


@pytest.mark.parametrize("polarity", ["colour", "box"])
def test_a_tall_label_written_inside_a_box_with_room_above_for_a_small_one_is_seen(polarity):
    """The top side is 17 px below the border: a 9 px label would fit above, a 17 px one does not
    and is written inside the box (draw_boxes), so both places are looked at."""
    box = (40.3, 17.2, 190.2, 170.4)
    style = MarkerStyle(ring_width=1, label_height=17, polarity=polarity)
    labelled, bare = draw_boxes(noisy(5), {"A": box}, style), outlines_only(noisy(5), {"A": box}, 1, style.colour)
    for image, written in ((labelled, True), (bare, False)):
        lab = to_lab(image)
        assert something_written(lab, fit_outline(lab, box)) is written


def test_the_top_left_corner_of_the_rectangle_between_crossing_boxes_is_a_crossing():
    tall, wide = (100.3, 40.4, 200.6, 200.2), (40.5, 100.6, 260.3, 160.4)
    lab = to_lab(outlines_only(noisy(6), {"T": tall, "W": wide}))
    outline = fit_outline(lab, tall)
    assert outline is not None and not crosses_at_top_left(lab, outline)
    between = dataclasses.replace(outline, x0=tall[0], y0=wide[1], x1=tall[2], y1=wide[3])
    assert crosses_at_top_left(lab, between)


def test_a_label_corner_with_no_outline_is_missing_not_guessed():
    image = noisy(5)  # nothing drawn: the corners are the finder's mistake
    markers, missing, _ = read_boxes(image, ["A", "B"], corners_of(BOXES))
    assert not markers and all("starts a drawn outline" in missing[label] for label in "AB")


def test_one_outline_read_from_two_corners_is_neither_labels():
    a = BOXES["A"]
    image = outlines_only(noisy(12), {"A": a})
    finder = OracleFinder([(a[0], a[1], {"A": 0.9}), (a[0] + 2.5, a[1] + 2.0, {"B": 0.9}), (a[2], a[3], {FAR_CORNER: 0.9})],
                          CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert not markers and "also read as B" in missing["A"] and "also read as A" in missing["B"]


def test_the_far_corner_may_be_the_border():
    truth = (150.3, 40.4, 279.0, 120.5)  # the right side lies on the last column: cut in half
    image = draw_boxes(noisy(6), {"A": truth}, MarkerStyle(ring_width=3))
    # the far corner is proposed a little inside (the finder sees only its inner half); its x is
    # taken from the border instead, as no stroke stands out there on both sides
    finder = OracleFinder([(150.3, 40.4, {"A": 0.9}), (276.0, 121.0, {FAR_CORNER: 0.7})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A"], finder)
    assert not missing and max(abs(np.subtract(markers["A"].box, truth)[[0, 1, 3]])) <= 1.0


def localization_question(image, idx="val_Object_Localization_1"):
    pil = Image.fromarray(image)
    return MCQuestion(idx, "Object_Localization", "Which box fits the car best?", ("Box A", "Box B"), None,
                      QuestionSource("blink", "val"), _image_loader=lambda: [pil])


def test_parser_reads_boxes_for_object_localization(monkeypatch):
    image = draw_boxes(noisy(7), BOXES, MarkerStyle(ring_width=3))
    monkeypatch.setattr(find_module, "default_corner_finder", lambda: corners_of(BOXES))
    found = find_markers(localization_question(image))
    for label, truth in BOXES.items():
        assert max(abs(np.subtract(found.marker("image_1", label).box, truth))) <= 1.0
    assert set(found.to_json()["image_1"]["A"]) >= {"xy", "box", "confidence"}


def test_without_corner_finder_weights_the_error_says_what_to_do(monkeypatch):
    monkeypatch.setattr(find_module, "default_corner_finder", lambda: None)
    with pytest.raises(MarkerError, match=r"train\.markers_corners.*--markers FILE") as caught:
        find_markers(localization_question(noisy(8), idx="val_Object_Localization_2"))
    assert caught.value.missing == {"image_1": ["A", "B"]}


def test_random_boxes_keep_apart_and_inside():
    rng = np.random.default_rng(0)
    for _ in range(50):
        boxes = list(random_boxes(rng, ["A", "B", "C"], 240, 320).values())
        for i, a in enumerate(boxes):
            assert 3 <= a[0] < a[2] <= 317 and 3 <= a[1] < a[3] <= 237 and a[2] - a[0] >= 30
            for b in boxes[i + 1:]:
                assert min(abs(a[k] - b[k]) for k in range(4)) >= 5 and np.hypot(a[0] - b[0], a[1] - b[1]) >= 25


def test_training_scene_marks_every_corner():
    scene = box_training_scene(np.random.default_rng(1), ["hershey-simplex"])
    labelled = [p for p in scene.points if p[2] in BOX_LABELS]
    assert [p[2] for p in labelled] == sorted(p[2] for p in labelled) and labelled[0][2] == "A"
    assert sum(p[2] == FAR_CORNER for p in scene.points) >= len(labelled)  # decoy rectangles' far corners too


def test_corner_training_script_writes_weights_with_their_record(tmp_path):
    finder, _ = trained_and_continued(train_main, CornerFinder, tmp_path / "corners.safetensors",
                                      ["--batch", "2", "--width", "4"])
    assert finder.net.classes == CORNER_CLASSES and finder.record["images"] == 4
    assert all(set(p.scores) == set(CORNER_CLASSES) for p in finder.find(noisy(9, 101, 130), min_score=0.0))


def test_corner_training_with_any_labels_draws_them_from_a_to_d_and_records_it(tmp_path):
    stream, rng = CornerStream(0, ["hershey-simplex"], any_labels=True), np.random.default_rng(3)
    drawn = [stream.style_fixed(rng)["labels"] for _ in range(200)]
    assert sum("D" in labels for labels in drawn) > 0.5 * sum("A" in labels for labels in drawn)  # 1 in 4 A's else
    scene = stream.scene(rng, ["hershey-simplex"], **stream.style_fixed(rng))
    assert all(label in "ABCD" for _, _, label in scene.points if label in BOX_LABELS)
    rng, untouched = np.random.default_rng(4), np.random.default_rng(4)
    assert CornerStream(0, ["hershey-simplex"]).style_fixed(rng) == {} and rng.uniform() == untouched.uniform()
    finder, _ = trained_and_continued(train_main, CornerFinder, tmp_path / "corners.safetensors",
                                      ["--batch", "2", "--width", "4", "--any-labels"])
    assert finder.record["any_labels"] is True


def adversarial_scene(seed, decoy_letter):
    """Boxes A, B (a near miss of A: every side moved 6-12 px) and C (running into the border),
    an unlabelled rectangle of the same colour, and with `decoy_letter` a same-colour rectangle
    labelled with a letter that is no label ("F"); JPEG. Returns (image, true boxes)."""
    rng = np.random.default_rng(seed)
    a = (float(rng.uniform(20, 60)), float(rng.uniform(25, 50)), float(rng.uniform(150, 200)), float(rng.uniform(120, 160)))
    b = tuple(float(v) for v in np.add(a, rng.uniform(6, 12, 4) * rng.choice([-1, 1], 4)))
    c = (float(rng.uniform(200, 230)), float(rng.uniform(150, 170)), 279.0, float(rng.uniform(200, 215)))
    style = MarkerStyle(colour=(230, 20, 20), ring_width=int(rng.integers(1, 5)), polarity=str(rng.choice(["colour", "box"])),
                        label_height=float(rng.uniform(9, 15)))
    image = draw_boxes(noisy(20 + seed), {"A": a, "B": b, "C": c}, style)
    if decoy_letter:
        image = draw_boxes(image, {"F": (5.0, 170.0, 60.0, 210.0)}, style)
    cv2.rectangle(image, (230, 20), (270, 120), style.colour, style.ring_width)  # unlabelled, same colour
    return jpeg(image, 85), {"A": a, "B": b, "C": c}


def right_or_missing(image, truth):
    from adapters.markers.nets.corner_finder import default_corner_finder
    markers, missing, _ = read_boxes(image, sorted(truth), default_corner_finder(), reader=True, verifier=True)
    assert set(markers) | set(missing) == set(truth)
    return all(max(abs(np.subtract(markers[label].box, box))) <= 2.0 for label, box in truth.items() if label in markers)


@pytest.mark.parametrize("seed", range(6))
def test_adversarial_boxes_are_right_or_missing_never_wrong(seed):
    """With the shipped corner finder: a near-miss box, an unlabelled rectangle of the same
    colour, a box running into the border; every label comes back within 2 px of its box or
    missing, never elsewhere."""
    assert right_or_missing(*adversarial_scene(seed, decoy_letter=False))


def test_a_rectangle_labelled_with_a_non_label_letter_is_never_read_as_a_box():
    """The corner finder alone read the "F" rectangle as B or C on some of these images; the
    word at its corner, read as F, takes those labels away (box_label)."""
    assert all(right_or_missing(*adversarial_scene(seed, decoy_letter=True)) for seed in range(6))


def test_a_corner_a_few_px_from_another_boxs_crossing_line_is_fitted():
    """B's right side crosses A's top side 9 px above B's top-right corner: a crossing, not B's
    line running on past its corner (which the first run-on rule took it for)."""
    boxes = {"A": (120.4, 40.3, 260.2, 200.6), "B": (60.6, 49.5, 200.3, 160.4)}
    image = jpeg(draw_boxes(noisy(14), boxes, MarkerStyle(colour=(230, 20, 20), ring_width=4)), 90)
    outline = fit_outline(to_lab(image), tuple(np.add(boxes["B"], (1.0, -1.0, 1.0, 1.0))))
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["B"]))) <= 1.0


def test_a_line_going_on_between_two_parallel_lines_still_runs_on():
    """The rectangle from A's top-left corner to where B's left side meets A's bottom side,
    with C's top side 6 px above and D's bottom side 6 px below A's bottom side: A's bottom side
    runs on past that corner, and the parallel lines on both sides do not make it a crossing."""
    a = (40.3, 50.4, 240.6, 150.5)
    boxes = {"A": a, "B": (140.2, 20.6, 270.5, 200.3), "C": (150.4, 156.6, 260.3, 210.2), "D": (160.5, 20.5, 250.6, 144.4)}
    image = draw_boxes(noisy(15), boxes, MarkerStyle(colour=(230, 20, 20), ring_width=2))
    assert fit_outline(to_lab(image), (a[0], a[1], 140.2, a[3])) is None


def test_a_box_ending_a_few_px_short_of_the_border_is_not_taken_for_one_cut_off_there():
    """Its bottom side 4 px inside the border is hidden (painted over by the scene): with the
    border standing in for it, the left and right sides would have to run into the border."""
    truth = (60.4, 50.3, 200.2, 214.6)  # h = 220: the sides end 3 px short of the last row
    scene = noisy(16)
    image = draw_boxes(scene, {"A": truth}, MarkerStyle(ring_width=2))
    image[211:219, 63:198] = scene[211:219, 63:198]  # the bottom side hidden between the sides
    assert fit_outline(to_lab(image), (60.0, 50.0, 200.0, 219.0)) is None


@pytest.mark.parametrize("width", [1, 2, 3])
@pytest.mark.parametrize("left", [True, False])
def test_a_box_whose_near_side_is_hidden_a_few_px_inside_the_border_is_not_taken_for_one_cut_off_there(width, left):
    """The corner finder puts the top-left corner on the border, and the left (top) side, drawn
    4.6 px inside it, is hidden by the scene: a box cut off there would have its bottom (right)
    side run into the border, and this one stops 4 px short. (Only the far sides were checked
    once, and 2 and 3 px boxes here were taken at the border.)"""
    truth = (4.6, 50.3, 200.2, 170.6) if left else (60.3, 4.6, 200.2, 170.6)
    scene = noisy(16)
    image = outlines_only(scene, {"A": truth}, width=width)
    if left:
        image[46:175, 2:8] = scene[46:175, 2:8]
    else:
        image[2:8, 56:205] = scene[2:8, 56:205]
    approx = (0.4, 50.0, 200.0, 170.0) if left else (60.0, 0.4, 200.0, 170.0)
    assert fit_outline(to_lab(image), approx) is None


def test_a_side_partly_hidden_under_another_boxs_label_box_is_fitted():
    """B's label, light text on a dark box, is written over a third of A's top side: that stretch
    is hidden, not missing (the coverage check once refused A)."""
    boxes = {"A": (60.3, 60.4, 130.5, 180.6), "B": (84.2, 76.3, 240.4, 200.2)}
    image = draw_boxes(noisy(18), boxes, MarkerStyle(colour=(255, 220, 0), ring_width=2, polarity="box", label_height=18))
    outline = fit_outline(to_lab(image), boxes["A"])
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["A"]))) <= 1.0


def test_a_side_lost_in_a_long_dark_stretch_of_scene_is_not_excused():
    """A dark stretch longer than any label's box (a shadow, a window) where the side should be is
    not a label hiding it: the side is missing there. (Excusing every dark stretch once let a
    scene's dark edges pass for a box's sides.)"""
    box = (60.3, 60.4, 210.5, 180.6)
    image = draw_boxes(noisy(18), {"A": box}, MarkerStyle(colour=(255, 220, 0), ring_width=2, label_height=12))
    image[50:72, 90:145] = 15  # 55 px of dark scene over the top side (37% of it: more than MIN_COVERAGE lets go)
    assert fit_outline(to_lab(image), box) is None
    image = draw_boxes(noisy(18), {"A": box}, MarkerStyle(colour=(255, 220, 0), ring_width=2, label_height=12))
    image[50:72, 90:112] = 15  # 22 px: a label's box
    assert fit_outline(to_lab(image), box) is not None


def test_a_box_whose_side_lies_on_another_boxs_line_is_fitted():
    """A's bottom side and B's top side 1.4 px apart merge into one line that runs on past A's
    bottom-right corner (a T: A's right side ends on it). Any run-on once refused A; only a
    crossing (both lines going on) or a T whose sides do not both reach the corner does now."""
    boxes = {"A": (25.9, 31.7, 117.1, 77.0), "B": (40.9, 75.6, 264.8, 174.6)}
    image = jpeg(draw_boxes(noisy(19), boxes, MarkerStyle(colour=(255, 40, 0), ring_width=4, label_height=14)), 85)
    lab = to_lab(image)
    outline = fit_outline(lab, tuple(np.add(boxes["A"], (0.8, -0.6, -1.0, 0.7))))
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["A"]))) <= 1.0


@pytest.mark.parametrize("width, seed", [(2, 1), (3, 0)])
def test_of_two_outlines_at_a_corner_the_one_with_its_corners_to_itself_is_the_box(width, seed, monkeypatch):
    """A inside B, its left side 22 px right of B's (the benchmark's seed 5, image 85). From B's
    corner a second rectangle runs to A's left side: its top and bottom sides are B's lines, which
    go on past its right corners (two T's). B's own outline has none, so it is B's box (before:
    "2 drawn outlines start at the corner read as B", 24 boxes over the benchmark's 8 seeds)."""
    boxes = {"B": (106.4, 130.3, 212.6, 230.2), "A": (128.6, 146.2, 184.3, 223.4)}
    image = jpeg(draw_boxes(noisy(seed, h=240, w=320), boxes, MarkerStyle(colour=(0, 200, 0), ring_width=width)), 85)
    lab = to_lab(image)
    b, borrowed = boxes["B"], (106.4, 130.3, 128.6, 230.2)
    own, other = fit_outline(lab, b), fit_outline(lab, borrowed)
    assert own is not None and other is not None and own.tees == 0 and other.tees == 2
    finder = OracleFinder([(b[0], b[1], {"B": 0.9}), (b[2], b[3], {FAR_CORNER: 0.9}),
                           (borrowed[2], borrowed[3], {FAR_CORNER: 0.5})], CORNER_CLASSES)
    markers, missing, outlines = read_boxes(image, ["B"], finder)
    assert not missing and len(outlines) == 2 and max(abs(np.subtract(markers["B"].box, b))) <= 1.0
    patch_everywhere(monkeypatch, "its_own_box", lambda found, *rest: found)  # the rule undone
    markers, missing, _ = read_boxes(image, ["B"], finder)
    assert not markers and "2 drawn outlines start at the corner read as B" in missing["B"]


def test_a_t_where_the_other_line_goes_on_a_few_px_is_not_a_corner():
    """The rectangle from A's top-left corner to where B's left side crosses A's bottom side, B's
    left side going on 6.5 px below it to B's own corner: the short stub makes it a crossing of
    two boxes' lines, not a corner of A's (a benchmark image once had it accepted)."""
    a, b = (21.7, 62.3, 201.4, 223.1), (183.4, 71.1, 265.1, 229.6)
    image = draw_boxes(noisy(20, h=240, w=320), {"A": a, "B": b}, MarkerStyle(colour=(0, 220, 255), ring_width=3))
    lab = to_lab(image)
    assert fit_outline(lab, a) is not None
    assert fit_outline(lab, (a[0], a[1], b[0], a[3])) is None


def test_a_t_whose_sides_do_not_reach_the_corner_is_not_a_corner():
    """A's top-left corner with B's bottom-right corner, on a dark scene: the rectangle's top side
    (A's) stops 16 px short of its top-right corner, where B's right side goes on upwards. Near a
    corner a dark scene passes for a label's dark box hiding the side, so only the rule that a
    T's two sides must both be drawn up to the corner refuses it (once let through on a
    benchmark photo)."""
    scene = np.clip(np.random.default_rng(0).normal((45, 38, 32), 6, (240, 320, 3)), 0, 255).astype(np.uint8)
    a, b = (30.4, 149.3, 140.9, 235.3), (64.5, 112.5, 156.5, 197.8)
    style = MarkerStyle(colour=(255, 40, 0), ring_width=4, polarity="box", label_height=14)
    image = jpeg(draw_boxes(scene, {"A": a, "B": b}, style), 85)
    assert fit_outline(to_lab(image), (a[0], a[1], b[2], b[3])) is None


def test_a_thin_line_blended_with_a_busy_scene_counts_as_drawn():
    """1 px anti-aliased boxes on procedural textures, JPEG 80: where the line's pixels are a blend
    of its colour and the scene beside it (not near either), they count as drawn. Colour distance
    alone found 4 of these 12 boxes, the blend with the sides' median colour 6, the blend with the
    line's fitted look over each scene (ThinLineColour) 11; none found may be off."""
    from adapters.synthetic.textures import procedural_texture
    found = 0
    for seed in range(12):
        box = (40.3 + seed, 50.6, 210.2, 170.4 - seed)
        style = MarkerStyle(colour=(230, 20, 20), ring_width=1, polarity="box", label_height=12)
        image = jpeg(draw_boxes(procedural_texture(np.random.default_rng(seed), 220, 280), {"A": box}, style), 80)
        outline = fit_outline(to_lab(image), box)
        if outline is not None:
            assert max(abs(np.subtract(outline.box, box))) <= 1.0, seed
            found += 1
    assert found >= 10


@pytest.mark.parametrize("colour", [(220, 0, 80), (0, 80, 255), (255, 220, 0)])
def test_a_thin_lines_look_is_fitted_and_jpeg_halves_its_colour_not_its_lightness(colour):
    """A 1 px box on procedural textures: saved losslessly, the fit recovers the drawn colour and
    most of it is seen (alpha >= 0.7); after JPEG 80 (colour averaged over 2x2 pixels) about half
    its colour is left (a, b alpha <= 0.65) but most of its lightness, and the fitted colour keeps
    the drawn hue. The sides' median colour is a blend over one scene, nearer grey than either."""
    from adapters.markers.boxes.thin_line import thin_line_colour
    from adapters.synthetic.textures import procedural_texture
    drawn_lab = to_lab(np.array([[colour]], np.uint8))[0, 0].astype(float)
    hue = np.arctan2(drawn_lab[2], drawn_lab[1])
    for seed in range(2):
        box = (40.3 + seed, 50.6, 210.2, 170.4 - seed)
        image = draw_boxes(procedural_texture(np.random.default_rng(seed), 220, 280), {"A": box},
                           MarkerStyle(colour=colour, ring_width=1, polarity="box", label_height=12))
        lossless = thin_line_colour(to_lab(image), box)
        assert np.linalg.norm(lossless.drawn - drawn_lab) <= 15 and lossless.alpha.min() >= 0.7
        lab = to_lab(jpeg(image, 80))
        fitted = thin_line_colour(lab, box)
        assert fitted.alpha[1] <= 0.65 and fitted.alpha[0] - fitted.alpha[1] >= 0.1
        assert abs(np.angle(np.exp(1j * (np.arctan2(fitted.drawn[2], fitted.drawn[1]) - hue)))) <= np.radians(25)
        median = side_candidates(lab, box[1], box[0], box[2])[0].lab
        assert np.hypot(*fitted.drawn[1:]) > np.hypot(*median[1:])


@pytest.mark.parametrize("colour, width", [((255, 220, 0), 1), ((0, 80, 255), 3)])  # a light and a dark stroke
def test_a_box_whose_own_label_is_written_inside_over_its_left_side_is_fitted(colour, width):
    """With no room above the box, its label (light text on a dark box) is written inside, the
    dark box over the first 40% of the left side: that stretch is hidden, not missing. (The
    coverage check refused such boxes; the excuse for other labels' boxes needs the scene dark
    outside the stroke too, and is off for dark strokes.)"""
    box = (60.3, 6.4, 210.5, 76.6)
    image = draw_boxes(noisy(19), {"A": box}, MarkerStyle(colour=colour, ring_width=width, polarity="box", label_height=18))
    assert image[30, 55:58].mean() > 60  # the label is inside: the scene outside the left side is not dark
    outline = fit_outline(to_lab(image), box)
    assert outline is not None and max(abs(np.subtract(outline.box, box))) <= 1.0


def test_a_side_not_drawn_for_longer_than_a_labels_box_up_to_a_dark_corner_does_not_reach_it():
    """On a dark scene, the rectangle from A's top-left corner to D's bottom-right one (A's top
    side, 40 px of dark scene past A's corner, D's right side) once passed: the corner check
    excused any dark stretch as a label's box hiding the corner, however long."""
    scene = np.clip(noisy(20).astype(np.float32) * 0.15 + 15, 0, 255).astype(np.uint8)  # L < 38 throughout
    boxes = {"A": (40.3, 40.4, 200.5, 200.2), "D": (100.6, 60.7, 240.4, 200.2)}  # one bottom line for both
    lab = to_lab(outlines_only(scene, boxes, colour=(255, 220, 0)))
    assert (lab[..., 0] < 38).mean() > 0.8
    assert fit_outline(lab, boxes["A"]) is not None
    assert fit_outline(lab, (40.3, 40.4, 240.4, 200.2)) is None


def test_a_label_written_inside_a_dark_box_backs_a_faint_corner_reading():
    """With no room above a dark blue box, its label (light text on a dark box) is written inside;
    the word there is read as for a light box, and settles the finder's faint reading."""
    b = (60.3, 8.4, 230.5, 150.6)
    faint = OracleFinder([(b[0], b[1], {"B": 0.3}), (b[2], b[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    image = draw_boxes(noisy(5), {"B": b}, MarkerStyle(colour=(0, 80, 255), ring_width=2, polarity="box", label_height=14))
    markers, missing, _ = read_boxes(image, ["B"], faint)
    assert not missing and max(abs(np.subtract(markers["B"].box, b))) <= 1.0


def test_a_label_whose_word_reads_clearly_at_one_corner_is_not_in_doubt_for_a_reading_elsewhere():
    """The finder reads A at A's corner (its word clearly "A") and, with 0.8, at B's corner too
    (its label unread): a label is written once, so the finder's A at B's corner is the
    confusion, and A is placed (B, with no word at its corner, is not placed by elimination).
    Without the word, A stays in doubt."""
    a, b = BOXES["A"], BOXES["B"]
    finder = OracleFinder([(a[0], a[1], {"A": 0.9}), (a[2], a[3], {FAR_CORNER: 0.9}),
                           (b[0], b[1], {"A": 0.8, "B": 0.4}), (b[2], b[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    style = MarkerStyle(ring_width=2, label_height=12)
    image = draw_boxes(outlines_only(noisy(6), {"B": b}, colour=style.colour), {"A": a}, style)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert max(abs(np.subtract(markers["A"].box, a))) <= 1.0 and "B" in missing
    markers, missing, _ = read_boxes(outlines_only(noisy(6), BOXES, colour=style.colour), ["A", "B"], finder)
    assert "may as well be" in missing["A"]


def test_a_box_drawn_just_inside_the_border_is_fitted_with_its_far_side():
    """The right side 4.7 px left of the last column (w = 320), its 3 px stroke measured about
    5 px wide, is drawn and found: the top and bottom sides end at it, not at the border (they
    were once required to run into the border, as a cut-off box's do)."""
    box = (95.3, 16.8, 315.3, 184.4)
    image = outlines_only(noisy(22, 240, 320), {"A": box}, width=3)
    outline = fit_outline(to_lab(image), box)
    assert outline is not None and max(abs(np.subtract(outline.box, box))) <= 1.0


def test_a_faint_thin_side_is_seen_on_its_stretches_medians():
    """A 1 px line holding 30-70% of the box's colour per pixel (a thin stroke on texture after
    JPEG): too few single pixels pass as ink for the coverage check, but most 8 px stretches'
    per-row medians show it. The same scene with no line shows none."""
    from adapters.markers.thresholds import MIN_COVERAGE, THIN
    from adapters.markers.boxes.outline import tolerance
    rng = np.random.default_rng(4)
    scene = noisy(21)
    colour = np.array([255, 128, 0], np.float32)
    alpha = rng.uniform(0.3, 0.7, (1, 240, 1))
    lined = scene.copy()
    lined[100:101, 20:260] = np.round(scene[100:101, 20:260] * (1 - alpha) + colour * alpha).astype(np.uint8)
    box_lab = to_lab(colour[None, None].astype(np.uint8))[0, 0]
    along = np.arange(30, 250)
    for image, drawn in ((lined, True), (scene, False)):
        line = Line(to_lab(image), 100.0, False, box_lab, tolerance(THIN, 30.0))
        stretches = line.drawn_stretches(along)
        if drawn:
            assert line.inked(along).mean() < MIN_COVERAGE <= stretches.mean()
        else:
            assert stretches.mean() < 0.1


def benchmark_image(seed, index):
    """(drawn, boxes, style) of image `index` in benchmarks/box_accuracy.py's sequence at `seed`
    (320x240). The sequence draws crops of ../shared/data/images, so it needs them."""
    from adapters.markers.draw.scenes import BOX_LABEL_SETS, benchmark_case
    from tests.benchmark_sample import benchmark_inputs
    photos, fonts = benchmark_inputs()
    rng = np.random.default_rng(seed)
    for _ in range(index + 1):
        labels = list(BOX_LABEL_SETS[int(rng.integers(len(BOX_LABEL_SETS)))])
        drawn, boxes, style, _ = benchmark_case(rng, labels, photos, 240, 320, fonts, boxes=True)
    return drawn, boxes, style


def test_a_side_whose_stroke_is_outscored_nearby_is_still_among_the_candidates():
    """box_accuracy.py's image 18 at seed 10: box A's bottom side lies beside a
    wider band of its colour and a scene edge that outscore it. With the 3 strongest candidates
    per side its own stroke was not among them and the box was refused; with 5 it is fitted."""
    drawn, boxes, style = benchmark_image(10, 18)
    assert (style.ring_width, style.polarity) == (4, "box")  # the image described above
    lab = to_lab(drawn)
    x0, y0, x1, y1 = boxes["A"]
    bottom = side_candidates(lab, y1, x0, x1)
    assert any(abs(s.pos - y1) < 1.0 and s.width <= 6 for s in bottom)
    assert all(abs(s.pos - y1) >= 1.0 or s.width > 6 for s in side_candidates(lab, y1, x0, x1, most=3))
    outline = fit_outline(lab, boxes["A"])
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["A"]))) <= 1.0


def test_a_side_drawn_too_little_moves_to_a_stroke_nearer_the_guess_found_on_half_the_side():
    """box_accuracy.py's image 108 at seed 11: on the whole right side's median profile, box A's
    4 px stroke merges with what lies beside part of it into a band 10 px wide, too wide for the
    box's stroke, so the fit took a stroke of its colour 2.6 px inside, drawn along none of the
    side, and the box failed. On each half of the side the stroke stands alone: the side moves
    there. Image 189 at seed 13: the rectangle from D's corner to B's far corner failed the same
    way on B's right side, which lies where the finder put it; moving it 1.8 px further away, to
    a stroke on the noise, passed that rectangle, and D was answered wrong. A side only moves
    nearer the guess, and only to a strong stroke: at seed 16 image 22 a faint scene edge on half
    of B's 1 px left side, nearer a guess itself 3.3 px off, passed in its place. (That side's
    first stroke is alike B only at a thin line's spread, so the one stroke of B's own colour
    drawn along it is tried, and B is fitted on its own left side.)"""
    drawn, boxes, style = benchmark_image(11, 108)
    assert (style.ring_width, style.polarity) == (4, "box")  # the image described above
    outline = fit_outline(to_lab(drawn), boxes["A"])
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["A"]))) <= 1.0
    drawn, boxes, style = benchmark_image(13, 189)
    assert style.ring_width == 1 and abs(boxes["B"][2] - 174.4) < 0.1
    assert fit_outline(to_lab(drawn), (40.6, 82.5, 174.5, 239.0)) is None
    drawn, boxes, style = benchmark_image(16, 22)
    assert style.ring_width == 1 and abs(boxes["B"][0] - 206.2) < 0.1
    outline = fit_outline(to_lab(drawn), (209.5, 125.4, 296.9, 186.7))
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["B"]))) <= 1.0


@pytest.mark.parametrize("seed, index, label, guess", [(102, 34, "A", (99.0, 65.1, 215.0, 202.1)),
                                                        (81, 32, "A", (127.1, 40.6, 256.5, 167.9))])
def test_a_thin_side_fitted_on_a_scene_edge_off_its_colour_moves_to_the_one_stroke_of_its_colour(
        seed, index, label, guess, monkeypatch):
    """box_accuracy.py's image 34 at seed 102 and 32 at seed 81: a 1 px box over a photograph,
    with a scene edge 2.5-2.7 px inside its top side, 45-53 Lab units off the box's colour (alike
    it only at a thin line's spread). The finder's guess (its corners, `guess`) lies nearer the
    edge than the side, so the edge was chosen, drawn along none of the side, and the box failed:
    no outline started at its corner. The one strong stroke of the box's own colour there is its
    side: the box is fitted within 1 px, and with that move undone it is not fitted at all."""
    drawn, boxes, style = benchmark_image(seed, index)
    assert style.ring_width == 1  # the image described above
    outline = fit_outline(to_lab(drawn), guess)
    assert outline is not None and max(abs(np.subtract(outline.box, boxes[label]))) <= 1.0
    patch_everywhere(monkeypatch, "_the_one_own_colour_stroke", lambda *args: None)
    assert fit_outline(to_lab(drawn), guess) is None


def test_a_side_on_the_fringe_of_a_band_two_strokes_wide_moves_to_the_bands_edge():
    """box_accuracy.py's image 11 at seed 12: A's 3 px right side lies 4 px from D's left side, and
    the two make one solid band 8 px wide on the side's profile. A window half on the band's fading
    outer edge scored as a stroke of the box's width, and the side was fitted there, 2.1 px off
    (the image was answered with A wrong). It now takes the band's edge nearest the finder's guess.
    Thin strokes are left as they are: over texture a 1 px line's profile makes such bands of the
    scene, and at seed 14 image 61 the rule lost B's outline (and with it A's, placed by
    elimination)."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(12, 11)
    assert style.ring_width == 3 and abs(boxes["A"][2] - 171.5) < 0.1  # the image described above
    guess = (12.2, 45.2, 171.8, 138.1)  # the corner finder's two corners for A
    outline = fit_outline(to_lab(drawn), guess)
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["A"]))) <= 1.0
    drawn, boxes, style = benchmark_image(14, 61)
    assert style.ring_width == 1
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert not missing
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


@pytest.mark.parametrize("seed, image, label", [(19, 54, "D"), (38, 174, "A")])
def test_a_side_chosen_on_two_touching_strokes_moves_to_their_edge_at_the_finders_guess(seed, image, label):
    """box_accuracy.py's image 54 at seed 19 and 174 at seed 38: the box's 4 px side lies 4-5 px
    from another box's parallel side, and the two strokes touch. On the side's profile they make
    one window 2.5-3 px wider than the box's other sides, within WIDTH_SPREAD, so it was taken as
    the side, centred between the two strokes, 2.0 and 2.3 px off: both images were answered with
    that box wrong. A chosen window over BAND_EXCESS px wider than the box's stroke is now taken
    as two strokes, and the side as its edge nearest the finder's guess (_band_edge_at_guess)."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(seed, image)
    assert style.ring_width == 4  # the images described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert label in markers
    assert max(abs(np.subtract(markers[label].box, boxes[label]))) <= 2.0


@pytest.mark.parametrize("seed, image, refused, kept, ring_width", [(40, 95, "D", "B", 4), (58, 115, "A", "B", 3)])
def test_a_side_at_the_edge_of_or_inside_two_touching_strokes_may_not_lie_on_another_boxs_side(
        seed, image, refused, kept, ring_width):
    """box_accuracy.py's image 95 at seed 40: D's left side lies 2.5 px from B's right side, the
    two strokes one window on the profile, and the finder put D's corner on B's stroke; the rule
    above took D's side at B's edge, 2.6 px off. Image 115 at seed 58 (fresh seeds): A's right
    side lies 6 px from B's, the strokes touching, and the finder put A's far corner on B's; the
    fit kept B's stroke for A's side, 5.5 px off, one window alike the box's stroke inside the
    band the two make. Both sides are marked (Outline.banded: at the band's edge, _band_edge_for_fringe,
    or inside it, _in_band), and two boxes on one stroke of two touching cannot both be right: the
    box is refused with that reason, and the other placed."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(seed, image)
    assert style.ring_width == ring_width  # the images described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert refused not in markers and "two touching strokes" in missing[refused]
    assert max(abs(np.subtract(markers[kept].box, boxes[kept]))) <= 2.0


def test_of_two_strokes_a_sides_profile_cannot_tell_apart_the_side_is_the_one_the_rules_pass_the_box_on():
    """box_accuracy.py's image 0 at seed 10: A's 1 px left side, over a photograph, has a scene
    edge of its look 2.7 px away on the side's median profile, so which stroke is the side could
    not be told and the box was refused. The rules pass the rectangle on one of them only (the
    scene edge is not drawn along the side in the box's colour): that one is the side. Two boxes'
    parallel sides 3.5 px apart both pass, and the side stays untold."""
    from adapters.markers.boxes.strokes import strokes_at
    drawn, boxes, style = benchmark_image(10, 0)
    assert style.ring_width == 1  # the image described above
    lab = to_lab(drawn)
    outline = fit_outline(lab, boxes["A"])
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["A"]))) <= 1.0
    x0, y0, x1, y1 = boxes["A"]
    assert len(strokes_at(side_candidates(lab, x0, y0, y1, True), np.array(outline.lab), outline.width, x0)) == 2
    a, b = (60.3, 50.6, 230.2, 170.4), (63.8, 30.2, 200.5, 200.7)
    assert fit_outline(to_lab(outlines_only(noisy(4, 240, 320), {"A": a, "B": b}, width=1)), a) is None


@pytest.mark.parametrize("width", [1, 2, 4])
def test_a_short_box_whose_label_hides_most_of_its_left_side_is_fitted(width):
    """With no room above a box, its label is written inside the top-left corner; on a box 45 px
    high a 15 px label's dark box covers more than half of the left side, so the side's median
    profile shows the label's box, not the stroke (its far half shows the stroke), and the
    label's box is the box's own, not another label hiding the side (benchmark seed 10, image 102)."""
    box = (23.5, 14.2, 187.7, 58.8)
    scene = np.zeros((120, 220, 3), np.uint8)
    scene[:] = (50, 25, 95)  # a plain dark purple
    style = MarkerStyle(colour=(0, 200, 0), ring_width=width, polarity="box", label_height=15)
    lab = to_lab(jpeg(draw_boxes(scene, {"A": box}, style), 85))
    outline = fit_outline(lab, box)
    assert outline is not None and outline.sides_seen == 4
    assert max(abs(np.subtract(outline.box, box))) <= 1.0


@pytest.mark.parametrize("font", ["dejavusans-bold", "dejavusans"])
def test_a_wide_stroke_whose_label_box_darkens_its_left_sides_colour_is_fitted(font):
    """A 4 px box 60 px high with an 17.5 px label written inside: the label's dark box covers
    enough of the left side that the whole side's median colour is half the stroke's and half
    the label box's, unlike the other sides; its far half finds the same stroke in the box's own
    colour, which is the one to weigh (benchmark seed 9 image 27: the box was left unplaced)."""
    box = (142.7, 7.0, 253.2, 66.7)
    scene = np.zeros((150, 280, 3), np.uint8)
    scene[:] = (85, 75, 45)  # a plain olive brown
    style = MarkerStyle(colour=(230, 20, 20), ring_width=4, polarity="box", label_height=17.5, font=font)
    lab = to_lab(jpeg(draw_boxes(scene, {"A": box}, style), 85))
    outline = fit_outline(lab, box)
    assert outline is not None and max(abs(np.subtract(outline.box, box))) <= 1.0


def words_read_weakly(words, at_a, at_b):
    """BOXES drawn with `words` (A's, B's) written as their labels on a noisy scene, and an oracle
    finder reading `at_a` and `at_b` at their top-left corners (and both far corners at 0.9)."""
    a, b = BOXES["A"], BOXES["B"]
    image = draw_boxes(draw_boxes(noisy(4), {words[0]: a}, STYLE), {words[1]: b}, STYLE)
    fars = [(box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values()]
    return image, OracleFinder([(a[0], a[1], at_a), (b[0], b[1], at_b), *fars], CORNER_CLASSES)


def test_as_many_labelled_corners_as_labels_are_named_by_the_finder_alone_when_one_naming_wins():
    """Both labels written unreadably ("I") and read weakly by the finder (A 0.4 at A's corner,
    B 0.45 at B's): each alone does not beat leaving it unplaced, but two corners start one outline
    each with something written, for two labels, and naming them the other way round reads 12
    times worse: both are placed (`by_permutation`). A third such corner, or corners
    the finder reads alike, leave them missing."""
    a, b = BOXES["A"], BOXES["B"]
    image, weak = words_read_weakly(("I", "I"), {"A": 0.4, "B": 0.15}, {"A": 0.1, "B": 0.45})
    fars = [(box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values()]
    markers, missing, _ = read_boxes(image, ["A", "B"], weak)
    assert not missing and {m.source for m in markers.values()} == {"elimination"}
    assert all(max(abs(np.subtract(markers[l].box, BOXES[l]))) <= 1.0 and markers[l].confidence <= 0.5 for l in BOXES)
    alike = OracleFinder([(a[0], a[1], {"A": 0.3, "B": 0.3}), (b[0], b[1], {"A": 0.3, "B": 0.3}), *fars],
                         CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], alike)
    assert not markers and "tells no label apart" in missing["A"]
    decoy = (236.4, 168.3, 272.6, 208.2)  # a third labelled box clear of the others, read as some label too
    image = draw_boxes(image, {"L": decoy}, STYLE)
    with_decoy = OracleFinder([*weak.proposals, (decoy[0], decoy[1], {"A": 0.3, "B": 0.3}),
                               (decoy[2], decoy[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], with_decoy)
    assert not markers and "3 corners start one outline each" in missing["B"]


def test_fewer_labelled_corners_than_labels_are_named_unless_another_outlined_corner_reads_as_the_label():
    """Three labels asked, C's box not found: the two corners that start one outline each with
    something written are still each some label's, and A 0.4 / B 0.45 name them (C is read
    nowhere). Another corner starting an outline (an unlabelled rectangle) may be a box the naming
    would put elsewhere: read there as C only, it takes nothing from A and B; read there as A at
    more than a third of A's reading, A is not named (B still is)."""
    a, b = BOXES["A"], BOXES["B"]
    image = draw_boxes(draw_boxes(noisy(4), {"I": a}, STYLE), {"I": b}, STYLE)
    fars = [(box[2], box[3], {FAR_CORNER: 0.9}) for box in BOXES.values()]
    weak = [(a[0], a[1], {"A": 0.4, "B": 0.15}), (b[0], b[1], {"A": 0.1, "B": 0.45}), *fars]
    markers, missing, _ = read_boxes(image, ["A", "B", "C"], OracleFinder(weak, CORNER_CLASSES))
    assert set(markers) == {"A", "B"} and set(missing) == {"C"}
    assert all(max(abs(np.subtract(markers[l].box, BOXES[l]))) <= 1.0 and markers[l].source == "elimination"
               for l in BOXES)
    bare = (236.4, 168.3, 272.6, 208.2)
    image = outlines_only(image, {"C": bare}, width=STYLE.ring_width, colour=STYLE.colour)

    def reading_bare(scores):
        return OracleFinder([*weak, (bare[0], bare[1], scores), (bare[2], bare[3], {FAR_CORNER: 0.9})],
                            CORNER_CLASSES)

    markers, missing, _ = read_boxes(image, ["A", "B", "C"], reading_bare({"C": 0.3}))
    assert set(markers) == {"A", "B"} and all(max(abs(np.subtract(markers[l].box, BOXES[l]))) <= 1.0 for l in BOXES)
    markers, missing, _ = read_boxes(image, ["A", "B", "C"], reading_bare({"A": 0.2, "C": 0.3}))
    assert set(markers) == {"B"} and "A is read nearly as much at another corner" in missing["A"]
    # B's box labelled "F" instead: the word there is no label, so that corner is named nothing,
    # and A's corner alone does not tell A from B (0.4 against 0.15)
    image = draw_boxes(draw_boxes(noisy(4), {"I": a}, STYLE), {"F": b}, STYLE)
    finder = OracleFinder([(a[0], a[1], {"A": 0.4, "B": 0.15}), (b[0], b[1], {"A": 0.3, "B": 0.3}), *fars],
                          CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert not markers and "F reads as another label or letter" in missing["B"]
    assert "tells no label apart" in missing["A"]


def test_a_corner_whose_word_denies_the_networks_likeliest_label_is_named_nothing(monkeypatch):
    """A's label cut out by colour as an "8" (benchmark seed 38 image 110: small red text on a red
    gradient): the word takes A off A's corner, though the finder reads A there at 0.8, but not B
    (an 8 is B-like), read there at 0.25. B's corner is read A 0.3 and B 0.25. Naming B at A's
    corner and A at B's would be the best naming left, and both wrong: the corner whose word
    overrode the networks names no label, and with it still starting an outline neither label
    is named elsewhere (`_word_overrode_networks`)."""
    a, b = BOXES["A"], BOXES["B"]
    image, finder = words_read_weakly(("8", "I"), {"A": 0.8, "B": 0.25}, {"A": 0.3, "B": 0.25})
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert not markers and all("tells no label apart" in missing[l] for l in "AB")
    # without the rule, the naming's check against the networks' own (_networks_naming) refuses
    # both; without either, both would be named the wrong way round
    overrode = _word_overrode_networks
    with monkeypatch.context() as undone:
        patch_everywhere(undone, "_word_overrode_networks", lambda *args: False)
        markers, missing, _ = read_boxes(image, ["A", "B"], finder)
        assert not markers and "from where the networks' readings name it" in missing["A"]
        patch_everywhere(undone, "_networks_naming", lambda *args: None)
        markers, _, _ = read_boxes(image, ["A", "B"], finder)
    assert max(abs(np.subtract(markers["B"].box, a))) <= 1.0 and max(abs(np.subtract(markers["A"].box, b))) <= 1.0
    # the rule itself: only a label not yet placed counts (a placed label the networks read here
    # too was their confusion), read at MIN_EVIDENCE or more, and more than every label kept, a
    # placed one too (benchmark seed 8 image 35: the word confirms A, placed at its corner, and
    # takes D off, read there at 0.18)
    read = Proposal(0.0, 0.0, {"A": 0.6, "B": 0.3, "C": 0.1})
    weighed = Proposal(0.0, 0.0, {"A": 0.0, "B": 0.3, "C": 0.0})
    assert overrode(read, weighed, ["A", "B", "C"], set())
    assert not overrode(read, weighed, ["A", "B", "C"], {"A"})  # A is placed
    assert not overrode(read, replace_scores(weighed, B=0.65), ["A", "B", "C"], set())
    assert not overrode(replace_scores(read, A=0.1), replace_scores(weighed, B=0.05), ["A", "B", "C"], set())
    confirmed = Proposal(0.0, 0.0, {"A": 0.65, "B": 0.0, "C": 0.0, "D": 0.0})  # the word reads A, placed here
    assert not overrode(Proposal(0.0, 0.0, {"A": 0.55, "B": 0.27, "C": 0.07, "D": 0.18}), confirmed,
                        ["A", "B", "C", "D"], {"A", "B"})


def replace_scores(proposal, **scores):
    return dataclasses.replace(proposal, scores={**proposal.scores, **scores})


def smooth_scene(seed, h=240, w=320):
    """A gradient with mild noise (a photo's sky or wall): nothing beside a side to compete with it."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([90 + 60 * x / w, 110 + 40 * y / h, 80 + 30 * (x + y) / (w + h)], -1)
    return np.clip(base + rng.normal(0, 4, (h, w, 3)), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("width", [3, 4])
@pytest.mark.parametrize("apart", [5.0, 5.8])
def test_a_side_in_a_band_with_another_boxs_side_a_few_px_away_is_its_edge(width, apart):
    """A near miss of a box, its bottom side moved 5-6 px (benchmark seed 5 image 28): along most
    of B's bottom the two bottoms merge into one band on the median profile, too wide for one
    stroke, and B's bottom is the band's edge where the guess puts it (edge_of_band;
    B was not fitted before). A guess between the two edges fits no box."""
    boxes = {"A": (27.2, 72.2, 236.0, 229.5), "B": (70.9, 106.7, 271.7, 229.5 + apart)}
    image = draw_boxes(smooth_scene(width), boxes, MarkerStyle(colour=(0, 220, 255), ring_width=width, label_height=10))
    lab = to_lab(image)
    b = boxes["B"]
    outline = fit_outline(lab, (b[0] + 1.0, b[1] - 1.0, b[2] + 1.0, b[3] - 0.8))
    assert outline is not None and max(abs(np.subtract(outline.box, b))) <= 0.5
    a = boxes["A"]
    outline = fit_outline(lab, (a[0] + 1.0, a[1] - 1.0, a[2] + 1.0, a[3] + 0.8))
    assert outline is not None and max(abs(np.subtract(outline.box, a))) <= 2.0
    assert fit_outline(lab, (b[0], b[1], b[2], 229.5 + apart / 2)) is None


def test_a_stronger_line_a_few_px_off_does_not_take_a_side_from_the_stroke_where_the_finder_put_it():
    """B's top side over a scene near its colour (weak), and A's top 5.4 px below it along B's far
    half, under A's dark label box (strong there): the far-half search found A's top the stronger
    stroke of the box's colour and took it for B's, which fails B's coverage (benchmark seed 5 image
    10, B missed); the rectangle on the strokes within NEAR_GUESS px of the guess is B."""
    cyan, b, a = (0, 220, 255), (7.1, 51.9, 111.3, 172.3), (74.2, 57.3, 271.7, 214.2)
    image = np.full((240, 320, 3), 128, np.uint8)
    image[40:60, :74] = (60, 180, 200)
    style = MarkerStyle(colour=cyan, ring_width=3, polarity="box", label_height=15.8, box_colour=(25, 36, 16))
    lab = to_lab(draw_boxes(image, {"B": b, "A": a}, style))
    outline = fit_outline(lab, tuple(np.add(b, (0.5, -0.5, 0.5, 0.5))))
    assert outline is not None and max(abs(np.subtract(outline.box, b))) <= 0.5


def test_a_side_on_another_boxs_side_is_told_apart_from_one_line_and_from_a_neighbour():
    """on_another_side on the outlines benchmark seed 9 image 53 gave: A's left side
    fitted on the band it merges into with C's right side (2.4 px apart, 7.6 and 6 px strokes)
    overlaps it; the same line (a box drawn on another's), a parallel side a stroke away, sides
    side by side along a few px only, and a rival outline at A's own corner do not."""
    from adapters.markers.boxes.outline import Outline

    def outline(x0, y0, x1, y1, width):
        return Outline(x0, y0, x1, y1, width, (60.0, 97.0, -60.0), 30.0, 1.0, 4)

    a = outline(96.2, 10.2, 169.8, 110.2, 7.6)
    on_band = outline(51.9, 53.3, 98.6, 174.8, 6.0)
    assert on_another_side(a, [a, on_band])
    assert not on_another_side(a, [outline(51.9, 53.3, 96.7, 174.8, 6.0)])  # 0.5 px: one line
    assert not on_another_side(a, [outline(51.9, 53.3, 103.0, 174.8, 6.0)])  # 6.8 px: two lines
    assert not on_another_side(a, [outline(51.9, 102.0, 98.6, 174.8, 6.0)])  # along 8 px of 100
    assert not on_another_side(a, [outline(97.0, 11.0, 140.0, 60.0, 7.6)])  # a rival at A's corner
    assert on_another_side(a, [outline(122.5, 112.1, 245.6, 186.7, 6.0)])  # B's top side on A's bottom


def test_of_two_outlines_at_a_corner_one_ending_at_another_boxs_far_corner_is_not_the_box():
    """its_own_box on benchmark seed 8 image 186's outlines: from D's corner one
    outline runs to D's far corner, another to A's, where A's outline (from A's own corner) ends
    too; the first is D's box. With no outline ending there, or a T at the first's corners as
    well, which is D's box stays unclear (both kept)."""
    from adapters.markers.boxes.outline import Outline

    def outline(x0, y0, x1, y1, tees=0):
        return Outline(x0, y0, x1, y1, 2.0, (60.0, 97.0, -60.0), 30.0, 0.9, 4, tees=tees)

    own, to_a, a = outline(83.4, 44.2, 223.8, 190.8), outline(83.4, 44.2, 237.3, 207.7), outline(107.3, 55.4, 237.3, 208.0)
    assert its_own_box([own, to_a], [own, to_a, a]) == [own]
    assert its_own_box([to_a, own], [to_a, own, a]) == [own]
    assert its_own_box([own, to_a], [own, to_a]) == [own, to_a]  # no A: nothing borrowed
    teed = outline(83.4, 44.2, 223.8, 190.8, tees=1)
    assert its_own_box([teed, to_a], [teed, to_a, a]) == [teed, to_a]
    assert its_own_box([own], [own, a]) == [own]
    learned = [dataclasses.replace(o, learned=True) for o in (own, to_a)]  # both passed by the verifier only
    assert its_own_box(learned, [*learned, a]) == learned


class DrawnAsNamed:
    """An outline verifier reading each rectangle's probability off its measures, here its name."""

    def __init__(self, probabilities):
        self.probabilities = probabilities

    def probability(self, measures):
        return self.probabilities[measures]

    def accepts(self, measures, reason):
        return False


def test_of_two_outlines_at_a_corner_the_one_the_verifier_finds_drawn_alone_is_the_box():
    """its_own_box, where nothing else tells two outlines apart (both with a T, neither
    ending where another corner's outline ends, no far corner read): the one the outline verifier
    finds drawn at ACCEPTANCE is the box when it finds the other under SEEN_ACCEPTANCE; not when it
    finds both drawn, or neither at ACCEPTANCE, or an outline was not measured as it lies."""
    from adapters.markers.boxes.outline import Outline
    from adapters.markers.nets.outline_verifier import ACCEPTANCE
    from adapters.markers.thresholds import SEEN_ACCEPTANCE

    def outline(x1, y1, name):  # from one corner, with a T at a far corner (the rules passed both)
        return Outline(111.9, 32.8, x1, y1, 5.5, (60.0, 97.0, -60.0), 30.0, 0.9, 4, tees=1, measures=name)

    own, to_b = outline(172.6, 168.7, "own"), outline(190.9, 140.9, "to B")  # benchmark seed 106 image 57's A
    found = [to_b, own]

    def weighed(p_own, p_to_b, outlines=found):
        return its_own_box(outlines, outlines, (), (), DrawnAsNamed({"own": p_own, "to B": p_to_b}))

    assert weighed(0.998, 0.055) == [own]
    assert weighed(ACCEPTANCE, SEEN_ACCEPTANCE - 0.01) == [own]
    assert weighed(0.055, 0.998) == [to_b]
    assert weighed(0.998, SEEN_ACCEPTANCE) == found  # both drawn: unclear
    assert weighed(ACCEPTANCE - 0.01, 0.0) == found  # the box's own not drawn enough
    assert its_own_box(found, found, (), (), None) == found  # no verifier
    unmeasured = [to_b, dataclasses.replace(own, measures=None)]
    assert weighed(0.998, 0.055, unmeasured) == unmeasured


def test_a_box_is_told_from_a_rectangle_to_another_boxs_line_by_the_verifier_end_to_end(monkeypatch):
    """Benchmark seed 106 image 57, with the networks' recorded outputs: from A's corner the rules
    pass A's outline and one to C's line (a T at each), and nothing else tells them apart; the
    verifier finds A's drawn (0.998) and the other not (0.055), so A is placed (every box placed
    within 2 px); without that weighing, A stays unplaced."""
    drawn, boxes, _ = benchmark_image(106, 57)
    labels = sorted(boxes)
    markers, _, _ = shipped_read_boxes(drawn, labels, recorded_finder(), reader=recorded_reader())
    assert "A" in markers
    for label, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[label]))) <= 2.0, label
    patch_everywhere(monkeypatch, "_the_one_drawn", lambda found, verifier: [])
    markers, missing, _ = shipped_read_boxes(drawn, labels, recorded_finder(), reader=recorded_reader())
    assert "A" not in markers and "A" in missing


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_a_far_corner_the_finder_does_not_propose_is_traced_along_the_boxs_sides(width, monkeypatch):
    """A's bottom-right corner lies on B's top side (a T), where the finder proposes no far corner.
    From A's top-left corner its top side runs right to x1 and its left side down to y1: the
    traced corner is fitted as a proposed one would be, and A is placed. Without the tracing, A
    starts no outline and stays missing."""
    from adapters.markers.boxes.traced_far_corner import traced_far_corner

    boxes = {"A": (25.9, 31.7, 117.1, 77.0), "B": (40.9, 75.6, 264.8, 174.6)}
    image = jpeg(draw_boxes(noisy(19), boxes, MarkerStyle(colour=(255, 40, 0), ring_width=width, label_height=14)), 85)
    assert max(abs(np.subtract(traced_far_corner(to_lab(image), 26.3, 31.2), boxes["A"][2:]))) <= 1.5
    finder = OracleFinder([(26.3, 31.2, {"A": 0.9}), (41.2, 75.1, {"B": 0.9}), (264.5, 175.0, {FAR_CORNER: 0.8})],
                          CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert not missing
    for label, box in boxes.items():
        assert max(abs(np.subtract(markers[label].box, box))) <= 2.0
    patch_everywhere(monkeypatch, "traced_far_corner", lambda lab, x, y: None)
    assert "A" in read_boxes(image, ["A", "B"], finder)[1]


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_a_side_is_traced_to_where_its_ink_first_stops_not_through_another_boxs_line_past_it(width):
    """A's bottom side lies on C's top side, and D's top side runs 10 px below: A's left side's ink
    goes on into C's top side and stops there; D's line past the gap is not A's bottom side
    (the rectangle to it would pass the rules as a box borrowing other boxes' lines)."""
    from adapters.markers.boxes.traced_far_corner import traced_far_corner

    boxes = {"A": (60.4, 40.3, 150.6, 100.2), "C": (30.5, 100.6, 200.4, 150.3), "D": (20.3, 110.5, 220.7, 190.2)}
    image = jpeg(draw_boxes(noisy(5), boxes, MarkerStyle(colour=(0, 200, 255), ring_width=width, label_height=12)), 85)
    assert max(abs(np.subtract(traced_far_corner(to_lab(image), 60.6, 40.1), boxes["A"][2:]))) <= 1.5


def test_a_side_whose_ink_stops_under_a_labels_dark_box_is_not_traced_to_there():
    """Another label's dark box over B's top side hides where it ends: traced there, the
    rectangle would take whatever line lies under the box's edge for B's right side (seed 17 image
    60: A's left side). With no label's box there, the same box is traced to its far corner."""
    from adapters.markers.boxes.traced_far_corner import traced_far_corner

    box = {"B": (60.4, 60.3, 200.6, 170.2)}
    image = draw_boxes(noisy(6), box, MarkerStyle(colour=(0, 200, 255), ring_width=2, label_height=12))
    assert max(abs(np.subtract(traced_far_corner(to_lab(jpeg(image, 85)), 60.6, 60.1), box["B"][2:]))) <= 2.0
    cv2.rectangle(image, (130, 50), (152, 72), (15, 20, 25), -1)
    assert traced_far_corner(to_lab(jpeg(image, 85)), 60.6, 60.1) is None


@pytest.mark.parametrize("width", [2, 3, 4])
def test_a_side_stopping_on_a_dark_scene_is_traced_there(width):
    """On a scene as dark as a label's box (fresh seed 36 image 140: a gradient to dark blue, L
    35-39) the darkness past where B's top side stops is the scene's, as dark outside the box just
    before the stop: B is traced to its far corner (it was taken for a label's box hiding the
    side, and B, whose far corner the finder did not propose, was left missing). The label's box
    over a side on a lighter scene still stops the trace (the test above)."""
    from adapters.markers.boxes.traced_far_corner import traced_far_corner

    box = {"B": (60.4, 60.3, 200.6, 170.2)}
    rng = np.random.default_rng(3)
    dark = np.clip(rng.normal((20, 35, 95), 3, (220, 280, 3)), 0, 255).astype(np.uint8)  # L about 16
    assert to_lab(dark)[..., 0].mean() < BOX_DARK  # as dark as a label's box
    image = jpeg(draw_boxes(dark, box, MarkerStyle(colour=(255, 220, 0), ring_width=width, label_height=12)), 85)
    assert max(abs(np.subtract(traced_far_corner(to_lab(image), 60.6, 60.1), box["B"][2:]))) <= 2.0


@pytest.mark.parametrize("width", [3, 4])
def test_where_a_side_stops_past_two_merged_lines_the_far_one_is_traced_unless_it_goes_on_out_of_the_box(width):
    """B's top side stops past a band of two lines 3.3 px apart. When the far one is A's left side
    going on above B (seed 16 image 58), B's right side is the near one, and the rectangle to A's
    line would pass the rules: nothing is traced. When the near one is A's right side going on
    above B (seed 8 image 35's D, its bottom side past A's), the far one is B's; and with A's side
    15 px away there is no band."""
    from adapters.markers.boxes.traced_far_corner import traced_far_corner

    style = MarkerStyle(colour=(0, 80, 255), ring_width=width, label_height=12)
    b = (20.4, 60.3, 110.8, 170.2)
    for a, traced in (((114.1, 30.5, 250.2, 200.4), False), ((40.2, 30.5, 107.5, 200.4), True),
                      ((126.1, 30.5, 250.2, 200.4), True)):
        far = traced_far_corner(to_lab(jpeg(draw_boxes(noisy(7), {"B": b, "A": a}, style), 85)), 20.6, 60.1)
        assert (far is not None and max(abs(np.subtract(far, b[2:]))) <= 2.0) if traced else far is None


def test_a_box_is_traced_on_the_sides_through_its_corner_not_on_scene_bands_beside_it(monkeypatch):
    """box_accuracy.py's image 186 at seed 156: A, a 1 px brown box on a green gradient, whose far
    corner lies 3 px from C's labelled corner. Beside A's corner two stripes of the gradient, 3.5
    px off, are more alike each other than A's thin sides (blended with the scene); traced on
    them, nothing stops where A ends. With the finder seeking all its classes' peaks as one, C's
    corner hides A's far corner, and only the trace can place A: traced on the sides through the
    corner it is placed; allowing no pair at the corner (the old choice by colour alone) leaves it
    missing."""
    from adapters.markers.nets.corner_finder import CornerFinder, default_corner_finder
    from adapters.markers.nets.corner_reader import default_corner_reader

    drawn, boxes, style = benchmark_image(156, 186)
    assert (style.ring_width, sorted(boxes)) == (1, ["A", "B", "C"])  # the image described above
    x0, y0, x1, y1 = boxes["A"]
    far = traced_far_corner(to_lab(drawn), x0, y0)
    assert far is not None and max(abs(np.subtract(far, (x1, y1)))) <= 1.0
    monkeypatch.setattr(CornerFinder, "PEAK_GROUPS", None)
    finder = default_corner_finder()
    assert not any(p.scores[FAR_CORNER] >= FAR_MIN_SCORE and max(abs(p.x - x1), abs(p.y - y1)) <= 4
                   for p in finder.find(drawn))
    markers, missing, _ = shipped_read_boxes(drawn, sorted(boxes), finder, reader=default_corner_reader())
    assert not missing
    for label, box in boxes.items():
        assert max(abs(np.subtract(markers[label].box, box))) <= 2.0, label
    patch_everywhere(monkeypatch, "AT_CORNER", -1.0)
    assert traced_far_corner(to_lab(drawn), x0, y0) is None
    assert "A" in shipped_read_boxes(drawn, sorted(boxes), finder, reader=default_corner_reader())[1]


def test_a_far_corner_beside_another_boxs_labelled_corner_is_proposed_and_its_box_placed(monkeypatch):
    """The same image: the corner finder seeks the far corners' peaks apart from the labels' (as
    shipped), so A's far corner, 3 px from C's labelled corner, is proposed, and A is placed with
    no trace at all. (Both tests ask the finder's own peak search: the shipped networks.)"""
    from adapters.markers.nets.corner_finder import default_corner_finder
    from adapters.markers.nets.corner_reader import default_corner_reader

    drawn, boxes, _ = benchmark_image(156, 186)
    x0, y0, x1, y1 = boxes["A"]
    assert any(p.scores[FAR_CORNER] >= FAR_SEEN and max(abs(p.x - x1), abs(p.y - y1)) <= 2
               for p in default_corner_finder().find(drawn))
    patch_everywhere(monkeypatch, "traced_far_corner", lambda lab, x, y: None)
    markers, missing, _ = shipped_read_boxes(drawn, sorted(boxes), default_corner_finder(),
                                               reader=default_corner_reader())
    assert not missing
    for label, box in boxes.items():
        assert max(abs(np.subtract(markers[label].box, box))) <= 2.0, label


def test_no_far_corner_is_traced_where_no_box_starts_or_its_sides_are_unlike():
    """On a plain noisy scene nothing is traced; where a red top side meets a blue left side (two
    scene lines, not one box's corner) neither is followed."""
    from adapters.markers.boxes.traced_far_corner import traced_far_corner

    image = noisy(4)
    assert traced_far_corner(to_lab(image), 60.0, 50.0) is None
    cv2.line(image, (60, 50), (200, 50), (230, 20, 20), 3)
    cv2.line(image, (60, 50), (60, 160), (20, 20, 230), 3)
    assert traced_far_corner(to_lab(image), 60.0, 50.0) is None


def test_of_two_fits_of_one_side_on_one_stroke_the_one_off_its_ink_is_dropped():
    """Two outlines from one corner that differ only in one side, by less than a stroke's width,
    are that side fitted twice on one stroke: the fit over 1 px off the middle of the stroke's ink
    (its fringe, found at the side search's edge from a far corner proposed past it) is dropped,
    the one centred on it kept. A second line a stroke's width or more away is another box's."""
    box = {"A": (60.4, 40.3, 220.6, 150.2)}
    image = jpeg(draw_boxes(noisy(8), box, MarkerStyle(colour=(0, 220, 255), ring_width=4, label_height=12)), 85)
    lab = to_lab(image)
    on = fit_outline(lab, (60.6, 40.1, 220.4, 150.0))
    assert on is not None and max(abs(np.subtract(on.box, box["A"]))) <= 1.0
    for moved in (2.2, -2.2):
        fringe = dataclasses.replace(on, y1=on.y1 + moved)
        assert _off_its_stroke(lab, fringe, on) and not _off_its_stroke(lab, on, fringe)
    assert not _off_its_stroke(lab, dataclasses.replace(on, y1=on.y1 + 8.0), on)


def test_a_far_corner_proposed_past_a_wide_bottom_side_does_not_leave_the_box_unclear():
    """box_accuracy.py's image 63 at seed 11: from A's corner, the far corners proposed give its
    bottom side at 121.7 (its 6 px stroke's middle) and at 124.1 (the stroke's fringe, the side
    search's window reaching only that far from a far corner 8 px past it). Two outlines at the
    corner left A unplaced; the fringe's is dropped, and A is placed."""
    drawn, boxes, style = benchmark_image(11, 63)
    assert (style.ring_width, len(boxes)) == (4, 2)  # the image described above
    markers, missing, _ = shipped_read_boxes(drawn, ["A", "B"], recorded_finder(), reader=recorded_reader())
    assert not missing
    for label, box in boxes.items():
        assert max(abs(np.subtract(markers[label].box, box))) <= 2.0


def test_a_label_over_another_boxs_label_is_read_at_its_own_corner_only(monkeypatch):
    """A near miss of a box: B's top side at the border, so its label is written inside it, over
    A's label above A's corner (fresh seed 35 image 144's boxes and style). The word search at A's
    corner finds B's label, which reads far more clearly than A's half-hidden one, and took A off
    its corner. B's word belongs to B's corner, where the finder reads B most: at A's corner it
    is read again without it (`each_word_read_once`), and A is placed."""
    a, b = (52.5, 35.4, 267.5, 139.3), (60.4, 3.0, 287.3, 149.2)
    style = MarkerStyle(colour=(0, 200, 0), ring_width=4, font="hershey-complex", label_height=16.5, gap=3.2,
                        polarity="box", box_colour=(43, 14, 15), text_colour=(240, 253, 237))
    image = draw_boxes(noisy(4, 240, 320), {"A": a, "B": b}, style)
    finder = OracleFinder([(a[0], a[1], {"A": 0.6}), (b[0], b[1], {"B": 0.85}),
                           (a[2], a[3], {FAR_CORNER: 0.9}), (b[2], b[3], {FAR_CORNER: 0.9})], CORNER_CLASSES)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert not missing
    assert all(max(abs(np.subtract(markers[l].box, box))) <= 1.0 for l, box in (("A", a), ("B", b)))
    patch_everywhere(monkeypatch, "each_word_read_once", lambda lab, outlines, proposed, readings, *rest: readings)
    markers, missing, _ = read_boxes(image, ["A", "B"], finder)
    assert "A" in missing and "B" in markers  # without it, B's word vetoes A at A's corner


def _parser_with_known_misses(withheld_on: dict[int, int], moved_on: dict[int, int]):
    """read_boxes, then misses made on purpose: on image i of withheld_on, its k-th label is taken
    back to missing; on image i of moved_on, its k-th label's box moves 6 px right (a wrong silent
    box). Images are counted in the order the benchmark parses them."""
    from adapters.markers.boxes.read import read_boxes

    calls = []

    def parse(rgb, labels, finder, **kwargs):
        i = len(calls)
        calls.append(i)
        markers, missing, outlines = read_boxes(rgb, labels, finder, **kwargs)
        markers, missing = dict(markers), dict(missing)
        if i in withheld_on and labels[withheld_on[i]] in markers:
            label = labels[withheld_on[i]]
            del markers[label]
            missing[label] = "withheld by the test"
        if i in moved_on and labels[moved_on[i]] in markers:
            label = labels[moved_on[i]]
            x0, y0, x1, y1 = markers[label].box
            markers[label] = dataclasses.replace(markers[label], box=(x0 + 6, y0, x1 + 6, y1))
        return markers, missing, outlines

    return parse


def test_the_box_benchmark_lists_every_box_it_did_not_find_right(tmp_path):
    """benchmarks/box_accuracy.py's `misses`: one record per box not found right, so the figures
    and the list agree; each names the image's labels and either where the box was placed or why
    not. The misses are made on purpose (a box withheld, a box moved), so the list is exercised
    however well the parser reads. Its CLI writes them as JSON lines. The held-out fonts' boxes
    are also counted per image layout (BLINK's is 2 boxes), and those groups add up to the
    held-out figure."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from adapters.markers.draw.fonts import BUILT_IN_FONTS
    from benchmarks.box_accuracy import evaluate

    # the same sample on every machine: no photographs, only the fonts OpenCV and Pillow bring
    sample = dict(n=12, seed=11, photos=[], fonts=list(BUILT_IN_FONTS))
    read_right = evaluate(**sample)["all"]["right"]
    misses = []
    figures = evaluate(**sample, misses=misses, parse=_parser_with_known_misses({2: 0, 7: 1}, {4: 0}))
    assert len(misses) == figures["all"]["boxes"] - figures["all"]["right"]
    made = {(m["image"], m["why"]) for m in misses if m["image"] in (2, 4, 7)}
    assert {(2, "withheld by the test"), (7, "withheld by the test")} <= made
    moved = [m for m in misses if m["image"] == 4 and m["why"] is None]
    assert len(moved) == 1 and moved[0]["found"][0] == pytest.approx(moved[0]["truth"][0] + 6, abs=2.1)
    assert figures["all"]["right"] == read_right - 3  # the three made misses had been read right
    assert figures["all"]["wrong_silent"] >= 1
    for miss in misses:
        assert miss["label"] in miss["labels"] and len(miss["truth"]) == 4
        assert (miss["found"] is None) == (miss["why"] is not None)
        assert miss["answered"] == (miss["why"] is None and not any(
            m["why"] for m in misses if m["image"] == miss["image"]))
    assert not next(m for m in misses if m["image"] == 2)["answered"]
    held_out_by_layout = {group: c for group, c in figures.items() if group.startswith("held_out_fonts_")}
    assert held_out_by_layout, "seed 11's twelve images draw some held-out fonts"
    for key in ("right", "boxes"):
        assert sum(c[key] for c in held_out_by_layout.values()) == figures["held_out_fonts"][key]
    for group, counts in held_out_by_layout.items():
        per_image = int(group.removeprefix("held_out_fonts_").split("_")[0])
        assert counts["boxes"] % per_image == 0, group
    out = tmp_path / "misses.jsonl"
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, str(root / "benchmarks" / "box_accuracy.py"), "--n", "4", "--seed", "11",
                          "--misses", str(out)], capture_output=True, text=True, check=True)
    printed = json.loads(run.stdout)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == printed["all"]["boxes"] - printed["all"]["right"]


def test_the_words_at_the_corners_may_take_a_label_off_a_corner_in_a_naming_but_not_move_it():
    """box_accuracy.py's image 108 at seed 56 (fresh seeds, never tuned on): B's and C's labels
    are 9 px blobs of a held-out font on a photograph. The word at C's corner read as a "6" took C
    off it, so the only naming of the three corners with a score put C at B's corner, where C is
    read 0.008, and it told B at C's corner: B and C were answered swapped. The networks' own
    readings name B and C right; a label the words move from where they name it is no longer
    told, and both are refused with that reason."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(56, 108)
    assert (style.font, style.label_height < 9.0) == ("hershey-complex", True)  # the image described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert set(missing) == {"B", "C"}
    assert all("move B from where the networks' readings name it" in why for why in missing.values())
    assert max(abs(np.subtract(markers["A"].box, boxes["A"]))) <= 2.0


def test_the_images_corner_stands_in_for_a_far_corner_only_when_the_verifier_passes_none_proposed():
    """box_accuracy.py's image 79 at seed 51 (fresh seeds): C's 1-2 px green strokes lie on a
    green-mottled scene, so at its far corner both lines "went on" past it and the rules rejected
    its outline as crossing. The image's corner, tried next by the rules, passed with two sides
    unseen, and C was answered 30 and 58 px off. The outline verifier's second opinion on the
    proposed far corners now comes first, and it accepts C's own."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(51, 79)
    assert style.ring_width == 1 and boxes["C"][2] < 300  # the image described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert "C" in markers and max(abs(np.subtract(markers["C"].box, boxes["C"]))) <= 2.0


def test_an_outline_to_the_images_corner_needs_both_seen_sides_drawn_nearly_all_along():
    """box_accuracy.py's image 165 at seed 68 (fresh seeds): A is a 1 px green box over a green-
    mottled texture. The rules rejected its own outline (its right side drawn along 79%, not up to
    the corner), and the outline to the image's corner passed, its top side "drawn" along 78% of
    the way to the border by the texture's green, and A was answered 80 and 47 px off. With two
    sides seen standing for four, both must now be drawn along BORDER_CORNER_COVERAGE (90%) of
    their length; A is then placed on its own outline."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(68, 165)
    assert style.ring_width == 1 and boxes["A"][2] < 250  # the image described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0
    assert "A" in markers


def test_a_faint_window_inside_a_band_at_the_border_moves_to_the_bands_edge():
    """box_accuracy.py's image 142 at seed 56 (fresh seeds): C's 5 px right side, drawn 3 px from
    the image's border, touches A's right side, and the two make one band 9.7 px wide on the
    profile. The last 2 px before the border made a faint window (contrast 8, the band's 85) of
    the box's width, the only candidate alike the box's stroke; the side was fitted there and
    moved onto the border, 2.4 px off. A window inside a band with under STRONG times its
    contrast is now taken as the band's edge nearest the finder's guess."""
    drawn, boxes, style = benchmark_image(56, 142)
    assert style.ring_width >= 4 and abs(boxes["C"][2] - 317.0) < 0.1  # the image described above
    outline = fit_outline(to_lab(drawn), (130.2, 37.2, 317.0, 185.6))  # the finder's two corners for C
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["C"]))) <= 1.0


def test_another_boxs_line_is_judged_where_its_outline_was_fitted_too():
    """box_accuracy.py's image 125 at seed 55 (fresh seeds): C's bottom side and D's top side, 4 px
    strokes 4.2 px apart, touch. C's bottom was fitted on D's top line, 4 px off its own, and was
    refused for lying on it (borrowed_line) until the faint-window rule fitted D's top right and a
    refit moved it 1.2 px up, off C's: C was answered. The last look now judges each box against
    the others where their outlines were fitted too: C is refused again, and no box placed is off."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(55, 125)
    assert style.ring_width == 2 and abs(boxes["C"][3] - boxes["D"][1] - 4.2) < 0.1  # the image described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert "C" not in markers and "lies on another box's line" in missing["C"]
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_a_whole_stroke_drawn_3_px_from_the_border_is_not_taken_as_cut_off_there():
    """box_accuracy.py's image 69 at seed 37: C's 2 px right side is drawn at x 317 of 320, whole,
    with the scene in the last column, but JPEG spreads its colour over about 4 px. The fit took
    it as cut by the border and moved it to 317.8, past what is measured as seen; the top side
    then had to run on into the border, stopped short, and C's own outline was rejected ("border"):
    C was answered on A's right side, 6 px off. The rectangle on the stroke's measured centre,
    which the rules pass, is taken instead."""
    drawn, boxes, style = benchmark_image(37, 69)
    assert style.ring_width == 2 and boxes["C"][2] == 317.0  # the image described above
    lab = to_lab(drawn)
    outline = fit_outline(lab, (198.9, 3.0, 317.0, 94.7))  # the finder's two corners for C
    assert outline is not None and not outline.learned
    assert max(abs(np.subtract(outline.box, boxes["C"]))) <= 1.0


def test_a_word_two_corners_may_own_is_not_given_to_one_of_them_on_a_near_tie():
    """box_accuracy.py's image 34 at seed 72 (fresh seeds): D's box starts 16 px from the top, so
    its label is written inside its corner, just above C's corner, over C's own label. The
    networks read D at both corners (0.84 at C's, 0.83 at D's); the word went to C's corner, D was
    placed there and C by elimination at D's, the two swapped. A word read at several corners now
    goes to one only when the networks read its label there WORD_OWNER times more: C and D are
    refused, and no box placed is off."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(72, 34)
    assert style.polarity == "box" and boxes["D"][1] < 16  # the image described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert {"C", "D"} <= set(missing)
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_a_word_its_own_corner_reads_twice_as_much_as_another_goes_to_that_corner():
    """box_accuracy.py's image 12 at seed 77 (fresh seeds): B's word is also found at a corner 32
    px above B's, where the networks read B 0.44, against 0.97 at B's own corner. With the word
    kept at both corners (a margin of DECISIVE, 3, asked for), B and C were refused; at
    WORD_OWNER (2) the word goes to B's corner and all four boxes are placed right."""
    from adapters.markers.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(77, 12)
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert not missing
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


@pytest.mark.parametrize("row, limit, beside", [(100, 240, [97, 103]), (237, 240, [234, 239]), (238, 240, [235, 235]),
                                                (2, 240, [0, 5]), (1, 240, [4, 4])])
def test_the_scene_beside_a_stroke_near_the_border_is_sampled_on_the_rows_inside_the_image(row, limit, beside):
    """_Line samples the scene BESIDE (2) px past its 3-row band on each side; where that row lies
    past the border, the last row inside it past the band, and where the band reaches the border,
    the other side's row on both."""
    lab = np.zeros((limit, 50, 3), np.float32)
    assert Line(lab, row, False, np.zeros(3), 10.0).beside() == beside


def test_a_thin_side_3_px_from_the_border_is_judged_against_the_scene_on_its_inner_side():
    """box_accuracy.py's image 121 at seed 72 (fresh seeds): B's 1 px yellow right side lies at
    x 317 of 320 over a yellowish texture; its colour blends with the scene, so only the tests
    against the scene beside it find it drawn. Those needed a scene column 2 px past the stroke's
    band on both sides, x 320 is past the border, and the side was judged drawn nowhere (coverage
    0). Sampled in the last column instead, B's outline passes the rules."""
    drawn, boxes, style = benchmark_image(72, 121)
    assert style.ring_width == 1 and boxes["B"][2] == 317.0  # the image described above
    outline = fit_outline(to_lab(drawn), boxes["B"])
    assert outline is not None and not outline.learned
    assert max(abs(np.subtract(outline.box, boxes["B"]))) <= 1.0


def test_a_side_half_hidden_by_one_labels_box_is_found_on_its_other_half_and_judged_there():
    """box_accuracy.py's image 98 at seed 73 (fresh seeds): A's dark label box covers 23 px of B's
    48 px right side. The side's median colour over its whole length is no stroke of B's look, so
    no rectangle was fitted; and with 0.48 of the side hidden (MAX_HIDDEN: 0.4) the rules turned
    it away. The stroke is found on the side's lower half, and one label's box may hide up to
    LABEL_BOX_MAX px where MIN_SIDE px are left to see: both boxes are placed within 2 px. Image 7
    at seed 13 (B's top side under both labels' boxes) is placed by the rules too."""
    from adapters.markers.boxes.read import read_boxes
    for seed, index in ((73, 98), (13, 7)):
        drawn, boxes, style = benchmark_image(seed, index)
        markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
        assert not missing and markers["B"].source == "parsed"
        for name, marker in markers.items():
            assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_one_labels_box_may_hide_most_of_a_short_side_but_not_of_a_long_one():
    """_too_hidden: a side hidden over more than MAX_HIDDEN is too hidden to judge unless that is
    one label's box (LABEL_BOX_MAX px at most) and MIN_SIDE px of it are left to see."""
    from adapters.markers.boxes.outline import SideMeasures
    from adapters.markers.boxes.measure import _too_hidden

    def side(length, hidden, own=0.0):
        return SideMeasures(length, 1.0, 1.0, hidden, own, (1.0, 1.0), (1.0, 1.0), True, True, (0.0, 0.0), 0.0,
                            (50.0, 60.0, 40.0))

    assert not _too_hidden(side(100, 0.4))  # MAX_HIDDEN itself
    assert not _too_hidden(side(48, 0.48))  # 23 px: one label's box
    assert _too_hidden(side(100, 0.48))  # 48 px: more than one label's box hides
    assert _too_hidden(side(40, 0.45, own=0.3))  # 10 px left to see


def test_of_two_outlines_at_a_corner_the_one_ending_where_the_finder_sees_a_far_corner_is_the_box():
    """_its_own_box: where neither of two outlines starting at one corner borrows another box's
    corner, the one whose far corner the finder reads at FAR_SEEN and DECISIVE times more than the
    other's is the box; a near tie, or a faint reading, leaves both (the box unclear)."""
    from adapters.markers.boxes.outline import Outline

    own = Outline(20.0, 30.0, 120.0, 90.0, 2.0, (50.0, 60.0, 40.0), 40.0, 1.0, 4)
    running_on = dataclasses.replace(own, x1=80.0, y1=110.0)  # to a T on another line
    def far(x, y, score):
        return Proposal(x, y, {**{label: 0.0 for label in BOX_LABELS}, FAR_CORNER: score})
    assert its_own_box([own, running_on], [own, running_on],
                                  [far(120.5, 89.6, 0.95), far(80.0, 111.0, 0.2)]) == [own]
    assert its_own_box([own, running_on], [own, running_on], [far(120.5, 89.6, 0.95)]) == [own]
    for proposals in ([far(120.5, 89.6, 0.95), far(80.0, 111.0, 0.5)], [far(120.5, 89.6, 0.4)], []):
        assert its_own_box([own, running_on], [own, running_on], proposals) == [own, running_on]


def test_a_rectangle_from_a_boxs_corner_to_a_t_on_another_line_does_not_leave_the_box_unclear():
    """box_accuracy.py's image 171 at seed 75 (fresh seeds): from B's corner the rules pass B's own
    outline and a rectangle ending where a scene edge meets a line, 3 px off the corner. Neither
    borrows another box's corner, and B was refused as unclear; the finder reads B's own far
    corner at 0.98 and the other end at 0.13. All three boxes are placed within 2 px."""
    drawn, boxes, style = benchmark_image(75, 171)
    markers, missing, outlines = shipped_read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert sum(max(abs(o.x0 - boxes["B"][0]), abs(o.y0 - boxes["B"][1])) < 4 for o in outlines) == 2
    assert not missing
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_of_two_boxes_ending_at_one_far_corner_the_one_with_its_corners_to_itself_owns_it():
    """_owns_its_far_corner: a box ending at another's far corner owns it where its outline passed
    the rules with no T at a corner and the other's has one (or only the verifier accepted it);
    where both or neither do, the one drawn along its sides by COVERAGE_LEAD more owns it, and
    otherwise neither does."""
    from adapters.markers.boxes.outline import Outline

    own = Outline(20.0, 30.0, 120.0, 90.0, 2.0, (50.0, 60.0, 40.0), 40.0, 1.0, 4)
    borrower = dataclasses.replace(own, x0=50.0, y0=10.0, tees=2)
    outlines = [own, borrower]
    assert _owns_its_far_corner(own.box, [borrower.box], outlines, 240, 320)
    assert not _owns_its_far_corner(borrower.box, [own.box], outlines, 240, 320)
    learned = dataclasses.replace(borrower, tees=0, learned=True)
    assert _owns_its_far_corner(own.box, [learned.box], [own, learned], 240, 320)
    clean = dataclasses.replace(borrower, tees=0)
    assert not _owns_its_far_corner(own.box, [clean.box], [own, clean], 240, 320)
    assert not _owns_its_far_corner(dataclasses.replace(own, tees=1).box, [borrower.box],
                                              [dataclasses.replace(own, tees=1), borrower], 240, 320)
    # both clean, or both learned: the one drawn more along its sides, by COVERAGE_LEAD
    less_drawn = dataclasses.replace(clean, coverage=0.89)
    assert _owns_its_far_corner(own.box, [less_drawn.box], [own, less_drawn], 240, 320)
    assert not _owns_its_far_corner(less_drawn.box, [own.box], [own, less_drawn], 240, 320)
    nearly_as_drawn = dataclasses.replace(clean, coverage=0.95)
    assert not _owns_its_far_corner(own.box, [nearly_as_drawn.box], [own, nearly_as_drawn], 240, 320)
    own_learned, borrower_learned = (dataclasses.replace(own, learned=True, coverage=0.88),
                                     dataclasses.replace(borrower, tees=0, learned=True, coverage=0.72))
    assert _owns_its_far_corner(own_learned.box, [borrower_learned.box], [own_learned, borrower_learned],
                                          240, 320)
    assert not _owns_its_far_corner(borrower_learned.box, [own_learned.box],
                                              [own_learned, borrower_learned], 240, 320)
    # a learned box does not outdraw a clean one: where only one is clean, the T's decide
    drawn_learned, less_drawn_clean = dataclasses.replace(own, learned=True), dataclasses.replace(clean, coverage=0.72)
    assert not _owns_its_far_corner(drawn_learned.box, [less_drawn_clean.box],
                                              [drawn_learned, less_drawn_clean], 240, 320)
    # both learned, the one with T's drawn more: it does not own the corner by coverage (nor the other)
    borrower_drawn = dataclasses.replace(borrower, learned=True, coverage=1.0)
    assert not _owns_its_far_corner(borrower_drawn.box, [own_learned.box],
                                              [own_learned, borrower_drawn], 240, 320)
    assert not _owns_its_far_corner(own_learned.box, [borrower_drawn.box],
                                              [own_learned, borrower_drawn], 240, 320)


def test_a_box_refused_with_the_one_that_borrowed_its_far_corner_is_judged_again_once_that_one_moves():
    """Fresh seed 226 image 179 (two 1 px boxes over a texture, labels in a held-out font): B's
    rectangle to A's far corner (its top and left sides meeting A's lines at two T's) and A's own
    were both accepted only by the verifier, B's drawn along more of its sides. B took the corner
    and was placed on A's far corner, 7 and 9 px off, and A was refused. Now neither owns it; B
    moves to its own far corner (_to_its_own_far_corner), and A, judged again (_judged_again), is
    placed: both within 2 px. Not judged again, A stays refused."""
    markers, missing, boxes = all_placed_right_and_then_without(226, 179, "rechecked_box", lambda *args: None)
    assert set(markers) == {"B"} and BORROWED_FAR_CORNER in missing["A"]
    assert max(abs(np.subtract(markers["B"].box, boxes["B"]))) <= 2.0


def test_a_box_whose_far_corner_another_borrowed_is_placed_and_the_borrower_refused():
    """box_accuracy.py's image 181 at seed 0: C's far corner is not proposed, and its outline runs
    from its corner to B's far corner, its sides meeting B's lines at two T's. Both B and C were
    refused as ending at one far corner; B's outline has its corners to itself, so B is placed
    within 2 px (judged without C, whose bottom side lies on B's), and C stays refused."""
    drawn, boxes, style = benchmark_image(0, 181)
    markers, missing, _ = shipped_read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert set(missing) == {"C"} and "far corner" in missing["C"]
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_of_two_clean_boxes_ending_at_one_far_corner_the_one_drawn_along_all_its_sides_is_placed():
    """Benchmark seed 63 image 36: C's outline runs from its corner to B's far corner, 20 px left of
    its own and 23 px below it, with no T at a corner; B's own outline has none either, so T's tell neither. C's
    rectangle is drawn along its sides less (0.89, the least drawn side's) than B's (1.0), by
    COVERAGE_LEAD: B is placed within 2 px and C stays refused. Without that lead, both are refused."""
    markers, missing, boxes = read_with_recorded_networks(63, 36)
    assert set(missing) == {"C"} and "far corner" in missing["C"]
    assert all(max(abs(np.subtract(m.box, boxes[l]))) <= 2.0 for l, m in markers.items())
    with pytest.MonkeyPatch.context() as patch:
        patch_everywhere(patch, "COVERAGE_LEAD", 1.01)
        markers, missing, _ = read_with_recorded_networks(63, 36)
        assert set(missing) == {"B", "C"} and all("far corner" in missing[l] for l in "BC")


def test_a_box_refused_for_a_borrowed_far_corner_moves_to_its_own_where_the_verifier_finds_it_drawn():
    """Benchmark seed 104 image 9: the rules reject B's own rectangle for a crossing and pass the
    one from B's corner to another box's far corner, so the last look refuses B for ending there.
    The finder sees B's own far corner (0.95), and the verifier finds the rectangle to it drawn
    (0.95): B moves there (_to_its_own_far_corner), within 2 px, with every other box as it was.
    Without that step, B stays refused for the borrowed far corner."""
    _, missing, _ = all_placed_right_and_then_without(104, 9, "to_its_own_far_corner", lambda *args: None)
    assert set(missing) == {"B"} and BORROWED_FAR_CORNER in missing["B"]


def test_the_naming_takes_a_corners_own_box_where_two_outlines_start_there():
    """Fresh benchmark seed 153 image 167 (two boxes): B's corner starts its own outline and one to
    A's far corner; A's corner starts one. Both labels are in doubt at their corners (_assign), so
    the naming decides, and it is given each corner's own box (_its_own_box): B's corner is named
    with B's own outline alone, and A and B are placed within 2 px. Given every outline found at
    B's corner, the naming took only A's corner, and both labels were left in doubt."""
    given = []
    naming = by_permutation

    def spy(labels, markers, proposed, corners, readings, label_seen, outlines_at, *rest):
        given.append([[o.box for o in found] for found in outlines_at])
        return naming(labels, markers, proposed, corners, readings, label_seen, outlines_at, *rest)

    with pytest.MonkeyPatch.context() as patch:
        patch_everywhere(patch, "by_permutation", spy)
        markers, missing, boxes = read_with_recorded_networks(153, 167)
    assert not missing and all(m.source == "elimination" for m in markers.values())
    assert all(max(abs(np.subtract(m.box, boxes[l]))) <= 2.0 for l, m in markers.items())
    at_b = [found for found in given[0] if found and max(abs(np.subtract(found[0][:2], boxes["B"][:2]))) <= 2.0]
    assert len(at_b) == 1 and len(at_b[0]) == 1 and max(abs(np.subtract(at_b[0][0], boxes["B"]))) <= 2.0


def test_of_two_outlines_at_a_corner_the_one_not_ending_at_another_corners_only_outline_is_the_box():
    """_its_own_box: A's corner reaches A's far corner and B's; D's corner reaches A's far corner
    too, so both of A's outlines end where another corner's outline ends. B's corner has one
    outline only, which says the far corner it reaches is B's: A's outline to it borrows it, and
    A's own is the box. Where the other corner's outlines are two, nothing is told."""
    from adapters.markers.boxes.outline import Outline

    def outline(x0, y0, x1, y1):
        return Outline(x0, y0, x1, y1, 2.0, (50.0, 60.0, 40.0), 40.0, 1.0, 4)

    a_own, a_to_b = outline(96.0, 74.0, 247.0, 184.0), outline(96.0, 74.0, 265.5, 202.5)
    b_own = outline(107.5, 103.0, 265.5, 202.5)
    d_own, d_to_a = outline(78.0, 40.0, 221.5, 171.0), outline(78.0, 40.0, 247.0, 184.0)
    outlines = [a_own, a_to_b, b_own, d_own, d_to_a]
    found = [a_own, a_to_b]
    assert its_own_box(found, outlines, [], [found, [b_own], [d_own, d_to_a]]) == [a_own]
    assert its_own_box(found, outlines, [], [found, [b_own, outline(107.5, 103.0, 300.0, 220.0)],
                                                        [d_own, d_to_a]]) == found
    assert its_own_box(found, outlines, [], [found, [b_own], [d_to_a]]) == found  # both end at a sole one


def test_a_box_whose_corner_reaches_two_far_corners_each_reached_from_another_corner_is_placed():
    """box_accuracy.py's image 11 at seed 90: from A's corner the rules pass A's own outline and one
    to B's far corner, and from D's corner one to A's far corner too; A was refused as unclear. B's
    corner has one outline: A's outline to B's far corner borrows it, and all four are placed."""
    drawn, boxes, style = benchmark_image(90, 11)
    markers, missing, _ = shipped_read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert not missing
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_a_band_of_the_scene_at_the_border_does_not_take_the_place_of_a_thin_side_inside_it():
    """A stroke against the image's border is scored against the scene on one side only, so a band
    of the scene there can outscore a thin side drawn a few px inside it. Where a stroke with the
    scene on both sides is alike the box's colour too, the one at the border must be alike it at
    the wide strokes' (tight) spread; a side cut by the border, with nothing else alike, is kept."""
    from adapters.markers.thresholds import COLOUR_SPREAD, COLOUR_SPREAD_THIN
    from adapters.markers.boxes.outline import Side
    from adapters.markers.boxes.strokes import strokes_at
    orange = (62.0, 18.0, 45.0)
    off = (54.0, 20.0, 45.0 - (COLOUR_SPREAD + COLOUR_SPREAD_THIN) / 2)  # alike only at the thin spread
    at_border = Side(0.5, 1.7, off, 42.0, one_sided=True)
    inside = Side(2.9, 2.5, (63.0, 18.0, 40.0), 19.5)
    assert strokes_at([at_border, inside], orange, 2.5, 3.0) == [inside]
    assert strokes_at([at_border], orange, 2.5, 3.0) == [at_border]  # cut by the border: still the side
    alike_at_border = Side(0.5, 1.7, (60.0, 18.0, 44.0), 42.0, one_sided=True)
    assert strokes_at([alike_at_border, inside], orange, 2.5, 0.5) == [alike_at_border]


def test_a_thin_top_side_3_px_from_the_border_over_noise_is_not_placed_on_the_border():
    """box_accuracy.py's image 139 at seed 91 (first run of seeds 91-100): C's 1 px orange top side
    lies at y 3 over noise; the top two rows, scored against the rows below them only, outscored it
    (contrast 42 against 19.5) and C was placed on the border, 2.9 px off, in an image answered in
    full. It is fitted on its own stroke now, and every box is placed within 2 px."""
    drawn, boxes, style = benchmark_image(91, 139)
    assert style.ring_width == 1 and boxes["C"][1] == 3.0  # the image described above
    outline = fit_outline(to_lab(drawn), boxes["C"])
    assert outline is not None and max(abs(np.subtract(outline.box, boxes["C"]))) <= 1.0
    markers, missing, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    assert not missing
    for label, box in boxes.items():
        assert max(abs(np.subtract(markers[label].box, box))) <= 2.0, label


def test_a_traced_rectangle_no_larger_than_a_labels_box_needs_a_far_corner_the_finder_reads():
    """A trace stops where its stroke fades into the scene or at a label's dark box, so a small
    traced rectangle where the finder reads no far corner is not tried (_a_label_box_unseen); a
    large one is, and so is a small one the finder reads a far corner at."""
    corner = Proposal(40.0, 33.0, {"A": 0.9})
    far_at = lambda x, y: Proposal(x, y, {FAR_CORNER: 0.6})
    assert _a_label_box_unseen(corner, (56.3, 50.0), [far_at(210.5, 165.1)])
    assert not _a_label_box_unseen(corner, (56.3, 50.0), [far_at(57.0, 51.5)])  # read there
    assert not _a_label_box_unseen(corner, (110.0, 50.0), [])  # wider than a label's box
    assert not _a_label_box_unseen(corner, (56.3, 100.0), [])  # taller than a label's box


@pytest.mark.parametrize("seed, index, label", [(110, 174, "A"), (105, 195, "B")])
def test_a_box_is_not_cut_down_to_a_small_traced_rectangle_at_its_corner(seed, index, label, monkeypatch):
    """box_accuracy.py's image 174 at seed 110 (a 2-box image) and 195 at seed 105 (first run of
    seeds 101-110): the outline from the labelled corner to the far corner the finder reads passed
    neither the rules nor the verifier, so the corner's sides were traced. The trace stopped after
    16-20 px (A's 1 px green stroke fading into a green scene; B's trace running round its own
    label's dark box, written inside the box), and that rectangle passed the rules: placed 145-154
    px off in images answered in full. Untried, the verifier's pass runs and both are placed
    within 2 px. (B's outline now passes the rules, one side moved to its stroke of the box's own
    colour, _the_one_own_colour_stroke, so that move is undone too; and B's small
    rectangle, a T at each far side, stops short of the far corner the finder reads, which
    _short_of_a_seen_far_corner now refuses too, so that is undone as well.)"""
    if (seed, index) == (105, 195):
        patch_everywhere(monkeypatch, "_the_one_own_colour_stroke", lambda *args: None)
        patch_everywhere(monkeypatch, "_short_of_a_seen_far_corner", lambda *args: False)
    _placed_right_and_off_with_the_rule_undone(seed, index, label, "_a_label_box_unseen", 100, monkeypatch)


def _placed_right_and_off_with_the_rule_undone(seed, index, label, rule, off, monkeypatch):
    """Benchmark image `index` at `seed` has every box placed within 2 px, `label`'s among them,
    and `label`'s more than `off` px off with the predicate `rule` never firing."""
    drawn, boxes, _ = benchmark_image(seed, index)
    labels = sorted(boxes)
    markers, _, _ = shipped_read_boxes(drawn, labels, recorded_finder(), reader=recorded_reader())
    for placed, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[placed]))) <= 2.0, placed
    assert label in markers
    patch_everywhere(monkeypatch, rule, lambda *args: False)
    undone, _, _ = shipped_read_boxes(drawn, labels, recorded_finder(), reader=recorded_reader())
    assert max(abs(np.subtract(undone[label].box, boxes[label]))) > off


def test_an_outline_not_passed_by_the_rules_may_not_run_past_a_far_corner_the_finder_reads():
    """An outline ending where the finder reads no far corner, with one it reads (FAR_SEEN) on its
    right or bottom side short of its end, ran on past the box's end (_past_a_seen_far_corner,
    asked of traced outlines and verifier-only ones with a T); ending at a far corner it reads,
    or passing one only near its own end, or off its sides, it did not."""
    from adapters.markers.boxes.outline import Outline
    outline = Outline(76.0, 72.0, 194.6, 112.6, 2.0, (90.0, 0.0, 80.0), 40.0, 0.9, 4)
    far_at = lambda x, y, score=0.94: Proposal(x, y, {FAR_CORNER: score})
    assert _past_a_seen_far_corner(outline, [far_at(170.3, 112.7)])  # on its bottom side
    assert _past_a_seen_far_corner(outline, [far_at(194.0, 95.0)])  # on its right side
    assert not _past_a_seen_far_corner(outline, [far_at(170.3, 112.7, 0.3)])  # not seen
    assert not _past_a_seen_far_corner(outline, [far_at(170.3, 112.7), far_at(194.0, 113.0)])  # own seen
    assert not _past_a_seen_far_corner(outline, [far_at(192.0, 112.0)])  # near its own end
    assert not _past_a_seen_far_corner(outline, [far_at(170.3, 140.0)])  # off its sides


def test_a_traced_outline_with_a_t_may_not_stop_short_of_a_far_corner_the_finder_reads():
    """A traced outline ending where the finder reads no far corner, with a side going on past its
    corners (a T) towards one it reads (FAR_SEEN) further along its bottom or right side's line,
    stopped where another box's line crosses its box (_short_of_a_seen_far_corner); with no T, or
    the far corner not seen, off those lines or at its own end, it did not."""
    from adapters.markers.boxes.outline import Outline
    outline = Outline(27.6, 86.4, 65.1, 146.3, 1.0, (60.0, 90.0, -60.0), 40.0, 0.9, 4, tees=2)
    far_at = lambda x, y, score=0.97: Proposal(x, y, {FAR_CORNER: score})
    assert _short_of_a_seen_far_corner(outline, [far_at(247.2, 146.1)])  # on its bottom side's line
    assert _short_of_a_seen_far_corner(outline, [far_at(64.0, 200.0)])  # on its right side's line
    assert not _short_of_a_seen_far_corner(dataclasses.replace(outline, tees=0), [far_at(247.2, 146.1)])
    assert not _short_of_a_seen_far_corner(outline, [far_at(247.2, 146.1, 0.3)])  # not seen
    assert not _short_of_a_seen_far_corner(outline, [far_at(247.2, 170.0)])  # off its lines
    assert not _short_of_a_seen_far_corner(outline, [far_at(247.2, 146.1), far_at(65.0, 146.0)])  # own seen


def test_a_box_is_not_traced_short_to_where_another_box_crosses_it(monkeypatch):
    """box_accuracy.py's image 17 at fresh seed 206 (first run 2026-11-30): A's own outline fails the
    rules, and the trace from its corner stopped where C's left side crosses A's bottom side, a
    rectangle borrowing C's line, 182 px short of A's far corner, which the finder reads at 0.97;
    the image was answered with it. A is now placed within 2 px, as is every box."""
    _placed_right_and_off_with_the_rule_undone(206, 17, "A", "_short_of_a_seen_far_corner", 100, monkeypatch)


@pytest.mark.parametrize("seed, index, label", [(112, 51, "B"), (117, 89, "D")])
def test_a_box_is_not_run_on_past_the_far_corner_the_finder_reads(seed, index, label, monkeypatch):
    """box_accuracy.py's image 51 at seed 112 and 89 at seed 117 (first run of seeds 111-120):
    the rules turned away the box's own outline (B's top side runs on along a yellow blob; D's
    fit drifted onto other strokes), and B was traced along the blob to C's left side, D accepted
    by the verifier down to A's bottom line: 23 and 15 px past the far corner the finder reads
    (0.94, 0.98), in images answered in full. Both are placed within 2 px now, as is every box."""
    _placed_right_and_off_with_the_rule_undone(seed, index, label, "_past_a_seen_far_corner", 10, monkeypatch)


def test_a_verifier_only_outline_with_no_t_through_a_crossing_the_finder_reads_as_a_far_corner_stays():
    """box_accuracy.py's image 158 at seed 102: A's 1 px right side runs through B's bottom side,
    a crossing the finder reads as a far corner (0.79), on to A's own far corner (read 0.25).
    Only the verifier accepts A's outline, and it has no T: asking _past_a_seen_far_corner of
    every verifier-only outline refused A, placed right."""
    drawn, boxes, _ = benchmark_image(102, 158)
    markers, _, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    assert max(abs(np.subtract(markers["A"].box, boxes["A"]))) <= 2.0


def test_a_traced_rectangle_the_rules_turn_away_is_weighed_by_the_verifier():
    """box_accuracy.py's image 183 at seed 74: A, a 3 px box whose far corner the finder does not
    read. Traced along A's sides from its corner, the rectangle is A's own, but the rules turn it
    away (a side drawn along too little of its length); the outline verifier finds it drawn. The
    verifier weighed only the rectangles to proposed far corners, so A was left unplaced; it now
    weighs the traced one too, and A is placed within 2 px. The rules alone still place none."""
    from adapters.markers.nets.outline_verifier import default_outline_verifier
    from adapters.markers.boxes.traced_far_corner import traced_far_corner

    drawn, boxes, style = benchmark_image(74, 183)
    assert style.ring_width == 3 and "A" in boxes  # the image described above
    lab, (x0, y0, x1, y1) = to_lab(drawn), boxes["A"]
    finder = recorded_finder()
    assert not any(p.scores[FAR_CORNER] >= FAR_MIN_SCORE and max(abs(p.x - x1), abs(p.y - y1)) <= 4
                   for p in finder.find(drawn))
    far = traced_far_corner(lab, x0, y0)
    assert far is not None and max(abs(np.subtract(far, (x1, y1)))) <= 2.0
    assert fit_outline(lab, (x0, y0, *far)) is None
    markers, _, _ = shipped_read_boxes(drawn, sorted(boxes), finder, reader=recorded_reader())
    assert max(abs(np.subtract(markers["A"].box, boxes["A"]))) <= 2.0
    assert default_outline_verifier() is not None
    _, missing, _ = shipped_read_boxes(drawn, sorted(boxes), finder, reader=recorded_reader(), verifier=None)
    assert "A" in missing


def test_a_traced_rectangle_whose_far_sides_are_barely_drawn_is_not_taken_on_the_verifiers_word(monkeypatch):
    """box_accuracy.py's image 164 at seed 71: A, a 1 px blue box over a green-to-purple scene.
    From A's corner the trace stops 15 px down its left side, and the rectangle there has a
    "bottom side" drawn along a fifth of its length (a scene edge); the verifier finds it drawn
    at 0.97. Every side of a traced rectangle must be drawn along TRACED_COVERAGE of its length,
    so A is not placed on it (it stays unplaced, as before the verifier weighed traced ones)."""
    drawn, boxes, style = benchmark_image(71, 164)
    assert style.ring_width == 1 and "A" in boxes  # the image described above

    def a_read(markers):
        return markers["A"].box if "A" in markers else None

    markers, _, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    assert a_read(markers) is None or max(abs(np.subtract(a_read(markers), boxes["A"]))) <= 2.0
    patch_everywhere(monkeypatch, "TRACED_COVERAGE", 0.0)
    markers, _, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    assert a_read(markers) is not None and max(abs(np.subtract(a_read(markers), boxes["A"]))) > 50


@pytest.mark.parametrize("width", [1, 2, 4, 6])
def test_an_outline_only_the_verifier_accepted_may_lie_off_the_finders_corner_where_it_is_on_its_stroke(width):
    """Past LEARNED_FIT (and within STROKE_FIT) of the finder's corners, a verifier-only outline is
    its box where each side further off is centred on its stroke and the finder's line is not: the
    finder's corner was off. A side fitted as far beside its stroke is not, at any stroke width,
    nor one fitted on another line of its colour where the finder's line lies on a stroke too."""
    box = (40.0, 30.0, 200.0, 150.0)
    lab = to_lab(outlines_only(noisy(7), {"A": box}, width))
    fitted = fit_outline(lab, box)
    assert fitted is not None and max(abs(np.subtract(fitted.box, box))) <= 0.6
    near = near_the_finders_corners
    seen = (True, True)
    assert near(lab, fitted, (40.0, 30.0, 201.5, 150.0), seen)  # within LEARNED_FIT
    assert near(lab, fitted, (40.0, 30.0, 202.6, 150.0), seen)  # the finder's far corner 2.6 px off
    assert near(lab, fitted, (37.4, 30.0, 200.0, 150.0), seen)  # ... or its top-left corner
    # only from a corner the finder sees: the far corner for x1, the labelled one for x0
    assert not near(lab, fitted, (40.0, 30.0, 202.6, 150.0), (True, False))
    assert near(lab, fitted, (40.0, 30.0, 202.6, 150.0), (False, True))
    assert not near(lab, fitted, (37.4, 30.0, 200.0, 150.0), (False, True))
    assert near(lab, fitted, (40.0, 30.0, 201.5, 150.0), (False, False))  # (within LEARNED_FIT, seen or not)
    assert not near(lab, fitted, (40.0, 30.0, 203.6, 150.0), seen)  # past STROKE_FIT
    for shifted in ({"x1": fitted.x1 + 2.6}, {"y0": fitted.y0 - 2.6}):  # a side fitted beside its stroke
        assert not near(lab, dataclasses.replace(fitted, **shifted), box, seen), shifted
    if width == 1:  # (wider strokes 2.6 px apart merge into one band)
        # a second line of the box's colour 2.6 px outside its right side (as a scene edge), where
        # the finder put the side: the fit on the box's own stroke is then no better than its line
        lab = to_lab(outlines_only(noisy(7), {"A": box, "edge": (*box[:2], box[2] + 2.6, box[3])}, width))
        assert _centred_on_ink(lab, fitted, 2) and _the_finders_line_on_ink(lab, fitted, 2, 202.6)
        assert not near(lab, fitted, (40.0, 30.0, 202.6, 150.0), seen)


def test_a_verifier_only_outline_is_taken_past_learned_fit_only_from_a_corner_the_finder_sees(monkeypatch):
    """box_accuracy.py's image 196 at seed 85: four 1 px boxes. From a corner on C's top line that
    the finder reads 0.17 as A, the verifier finds the rectangle on A's sides and C's top line drawn,
    its left side 2.2 px from the finder's line and on A's stroke. The finder barely reads that
    corner, so the fit is not taken past LEARNED_FIT there: every box is placed within 2 px. Taken,
    it is a fifth outline, and A, C and D are left in doubt."""
    drawn, boxes, style = benchmark_image(85, 196)
    assert style.ring_width == 1 and sorted(boxes) == ["A", "B", "C", "D"]  # the image described above
    markers, missing, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    assert not missing
    for placed, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[placed]))) <= 2.0, placed
    near = near_the_finders_corners
    monkeypatch.setattr(boxes_outlines_at_corner_module, "near_the_finders_corners",
                        lambda lab, outline, proposed, seen: near(lab, outline, proposed, (True, True)))
    _, missing, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    assert {"A", "C", "D"} <= set(missing)


def test_a_verifier_only_side_moved_off_the_finders_stroke_is_not_taken():
    """box_accuracy.py's image 13 at seed 116: D, a 1 px box, its left side under the finder's
    line; the rules' fit moved it 2.7 px onto a scene edge of its colour, where the verifier found
    the rectangle drawn at 0.996. That side is centred on ink, but so is the finder's line; and the
    finder reads D at that corner at 0.28 only. Either keeps D unplaced (every box placed is within
    2 px); with neither, D was placed 2.4 px off in an image answered in full."""
    drawn, boxes, style = benchmark_image(116, 13)
    assert style.ring_width == 1 and sorted(boxes) == ["A", "B", "C", "D"]  # the image described above

    def read():
        return shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())

    near = near_the_finders_corners
    for undone in ("line", "seen", "both"):
        with pytest.MonkeyPatch.context() as patch:
            if undone in ("line", "both"):
                patch_everywhere(patch, "_the_finders_line_on_ink", lambda *args: False)
            if undone in ("seen", "both"):
                patch.setattr(boxes_outlines_at_corner_module, "near_the_finders_corners",
                              lambda lab, outline, proposed, seen: near(lab, outline, proposed, (True, True)))
            markers, missing, _ = read()
        if undone == "both":
            assert not missing and max(abs(np.subtract(markers["D"].box, boxes["D"]))) > 2.0
        else:
            assert "D" not in markers, undone
            for placed, marker in markers.items():
                assert max(abs(np.subtract(marker.box, boxes[placed]))) <= 2.0, (undone, placed)


def test_a_verifier_only_outline_on_its_stroke_is_taken_where_the_finders_corner_is_off():
    """box_accuracy.py's image 197 at seed 67: B, a 1 px box whose top-left corner the finder reads
    2.7 px right of B's. The rules turn B's rectangle away (lines cross at a far corner), and the
    verifier finds it drawn at 0.99, but it lay more than LEARNED_FIT from the finder's corner, so
    B was left unplaced. Its left side is centred on its stroke, so B is now placed within 2 px;
    with STROKE_FIT at LEARNED_FIT it is not."""
    drawn, boxes, style = benchmark_image(67, 197)
    assert style.ring_width == 1 and "B" in boxes  # the image described above
    markers, _, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    for placed, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[placed]))) <= 2.0, placed
    assert "B" in markers
    with pytest.MonkeyPatch.context() as patch:
        patch_everywhere(patch, "STROKE_FIT", LEARNED_FIT)
        undone, _, _ = shipped_read_boxes(drawn, sorted(boxes), recorded_finder(), reader=recorded_reader())
    assert "B" not in undone
