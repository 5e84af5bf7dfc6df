"""The outlines that start at a labelled corner (boxes.outlines_at_corner, traced_far_corner):
which of several outlines at one corner is the box (its_own_box), far corners traced along a
box's sides where the finder proposes none, the image's corner standing in for a far corner, and
outlines only the outline verifier accepts, weighed against the finder's corners."""

import dataclasses

import cv2
import numpy as np
import pytest
from box_scenes import benchmark_image, noisy, outlines_only, read_boxes
from marker_oracles import OracleFinder
from marker_recordings import recorded_finder, recorded_reader
from rule_patch import patch_everywhere

from adapters.markers.colour import to_lab
from adapters.markers.draw.render import MarkerStyle, draw_boxes
from adapters.markers.draw.scenes import FAR_CORNER, jpeg
from adapters.markers.general.boxes import outlines_at_corner as boxes_outlines_at_corner_module
from adapters.markers.general.boxes.fit import fit_outline
from adapters.markers.general.boxes.outlines_at_corner import (
    _a_label_box_unseen,
    _centred_on_ink,
    _off_its_stroke,
    _past_a_seen_far_corner,
    _short_of_a_seen_far_corner,
    _the_finders_line_on_ink,
    its_own_box,
    near_the_finders_corners,
)
from adapters.markers.general.boxes.read import read_boxes as shipped_read_boxes
from adapters.markers.general.boxes.traced_far_corner import traced_far_corner
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.corner_finder import BOX_LABELS, CORNER_CLASSES
from adapters.markers.general.thresholds import BOX_DARK, FAR_MIN_SCORE, FAR_SEEN, LEARNED_FIT


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


def test_of_two_outlines_at_a_corner_one_ending_at_another_boxs_far_corner_is_not_the_box():
    """its_own_box on benchmark seed 8 image 186's outlines: from D's corner one
    outline runs to D's far corner, another to A's, where A's outline (from A's own corner) ends
    too; the first is D's box. With no outline ending there, or a T at the first's corners as
    well, which is D's box stays unclear (both kept)."""
    from adapters.markers.general.boxes.outline import Outline

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
    from adapters.markers.general.boxes.outline import Outline
    from adapters.markers.general.boxes.outline_verifier import ACCEPTANCE
    from adapters.markers.general.thresholds import SEEN_ACCEPTANCE

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
    from adapters.markers.general.boxes.traced_far_corner import traced_far_corner

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
    from adapters.markers.general.boxes.traced_far_corner import traced_far_corner

    boxes = {"A": (60.4, 40.3, 150.6, 100.2), "C": (30.5, 100.6, 200.4, 150.3), "D": (20.3, 110.5, 220.7, 190.2)}
    image = jpeg(draw_boxes(noisy(5), boxes, MarkerStyle(colour=(0, 200, 255), ring_width=width, label_height=12)), 85)
    assert max(abs(np.subtract(traced_far_corner(to_lab(image), 60.6, 40.1), boxes["A"][2:]))) <= 1.5


def test_a_side_whose_ink_stops_under_a_labels_dark_box_is_not_traced_to_there():
    """Another label's dark box over B's top side hides where it ends: traced there, the
    rectangle would take whatever line lies under the box's edge for B's right side (seed 17 image
    60: A's left side). With no label's box there, the same box is traced to its far corner."""
    from adapters.markers.general.boxes.traced_far_corner import traced_far_corner

    box = {"B": (60.4, 60.3, 200.6, 170.2)}
    image = draw_boxes(noisy(6), box, MarkerStyle(colour=(0, 200, 255), ring_width=2, label_height=12))
    assert max(abs(np.subtract(traced_far_corner(to_lab(jpeg(image, 85)), 60.6, 60.1), box["B"][2:]))) <= 2.0
    cv2.rectangle(image, (130, 50), (152, 72), (15, 20, 25), -1)
    assert traced_far_corner(to_lab(jpeg(image, 85)), 60.6, 60.1) is None


@pytest.mark.parametrize("width", [2, 3, 4])
def test_a_side_stopping_on_a_dark_scene_is_traced_there(width):
    """On a scene as dark as a label's box (seed 36 image 140: a gradient to dark blue, L
    35-39) the darkness past where B's top side stops is the scene's, as dark outside the box just
    before the stop: B is traced to its far corner (it was taken for a label's box hiding the
    side, and B, whose far corner the finder did not propose, was left missing). The label's box
    over a side on a lighter scene still stops the trace (the test above)."""
    from adapters.markers.general.boxes.traced_far_corner import traced_far_corner

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
    from adapters.markers.general.boxes.traced_far_corner import traced_far_corner

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
    from adapters.markers.general.nets.corner_finder import CornerFinder, default_corner_finder
    from adapters.markers.general.nets.corner_reader import default_corner_reader

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
    from adapters.markers.general.nets.corner_finder import default_corner_finder
    from adapters.markers.general.nets.corner_reader import default_corner_reader

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
    from adapters.markers.general.boxes.traced_far_corner import traced_far_corner

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
    """box_accuracy.py's image 137 at seed 83: from A's corner, the far corners proposed give its
    bottom side at 177.1 (its 6 px stroke's middle) and at 179.2 (the stroke's fringe, the side
    search's window reaching only that far from a far corner 7.7 px past it). Two outlines at the
    corner left A unplaced; the fringe's is dropped (_off_its_stroke), and A is placed."""
    drawn, boxes, style = benchmark_image(83, 137)
    assert (style.ring_width, len(boxes)) == (4, 2)  # the image described above
    markers, missing, _ = shipped_read_boxes(drawn, ["A", "B"], recorded_finder(), reader=recorded_reader())
    assert not missing
    for label, box in boxes.items():
        assert max(abs(np.subtract(markers[label].box, box))) <= 2.0


def test_the_images_corner_stands_in_for_a_far_corner_only_when_the_verifier_passes_none_proposed():
    """box_accuracy.py's image 79 at seed 51: C's 1-2 px green strokes lie on a
    green-mottled scene, so at its far corner both lines "went on" past it and the rules rejected
    its outline as crossing. The image's corner, tried next by the rules, passed with two sides
    unseen, and C was answered 30 and 58 px off. The outline verifier's second opinion on the
    proposed far corners now comes first, and it accepts C's own."""
    from adapters.markers.general.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(51, 79)
    assert style.ring_width == 1 and boxes["C"][2] < 300  # the image described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert "C" in markers and max(abs(np.subtract(markers["C"].box, boxes["C"]))) <= 2.0


def test_an_outline_to_the_images_corner_needs_both_seen_sides_drawn_nearly_all_along():
    """box_accuracy.py's image 165 at seed 68: A is a 1 px green box over a green-
    mottled texture. The rules rejected its own outline (its right side drawn along 79%, not up to
    the corner), and the outline to the image's corner passed, its top side "drawn" along 78% of
    the way to the border by the texture's green, and A was answered 80 and 47 px off. With two
    sides seen standing for four, both must now be drawn along BORDER_CORNER_COVERAGE (90%) of
    their length; A is then placed on its own outline."""
    from adapters.markers.general.boxes.read import read_boxes
    drawn, boxes, style = benchmark_image(68, 165)
    assert style.ring_width == 1 and boxes["A"][2] < 250  # the image described above
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0
    assert "A" in markers


def test_of_two_outlines_at_a_corner_the_one_ending_where_the_finder_sees_a_far_corner_is_the_box():
    """_its_own_box: where neither of two outlines starting at one corner borrows another box's
    corner, the one whose far corner the finder reads at FAR_SEEN and DECISIVE times more than the
    other's is the box; a near tie, or a faint reading, leaves both (the box unclear)."""
    from adapters.markers.general.boxes.outline import Outline

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
    """box_accuracy.py's image 117 at seed 4: from C's corner the rules pass C's own outline and a
    rectangle on to where C's right side meets D's top line, a T 5.6 px below C's far corner.
    Neither ends at another box's far corner; taken as two boxes alike, C was refused as unclear.
    The finder reads C's own far corner at 0.83 and the T at 0.17, and the rectangle to the T
    borrows D's line (its_own_box). All four boxes are placed within 2 px."""
    drawn, boxes, style = benchmark_image(4, 117)
    markers, missing, outlines = shipped_read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert sum(max(abs(o.x0 - boxes["C"][0]), abs(o.y0 - boxes["C"][1])) < 4 for o in outlines) == 2
    assert not missing
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_of_two_outlines_at_a_corner_the_one_not_ending_at_another_corners_only_outline_is_the_box():
    """_its_own_box: A's corner reaches A's far corner and B's; D's corner reaches A's far corner
    too, so both of A's outlines end where another corner's outline ends. B's corner has one
    outline only, which says the far corner it reaches is B's: A's outline to it borrows it, and
    A's own is the box. Where the other corner's outlines are two, nothing is told."""
    from adapters.markers.general.boxes.outline import Outline

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
    """box_accuracy.py's image 163 at seed 84: from A's corner the rules pass A's own outline and one
    to a T beside C's far corner, and from C's corner one to A's far corner too, so A's own outline
    ends where another corner's does; A was refused as unclear. Against the corners with one
    outline only (B's and D's), A's own outline borrows nothing and the other has a T
    (_not_at_anothers_sole_far_corner): all four are placed (B by elimination)."""
    drawn, boxes, style = benchmark_image(84, 163)
    markers, missing, _ = shipped_read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert not missing
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


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


def test_a_box_is_not_cut_down_to_a_small_traced_rectangle_at_its_corner(monkeypatch):
    """box_accuracy.py's image 174 at seed 110 (a 2-box image): the outline from A's corner to the
    far corner the finder reads passed neither the rules nor the verifier, so the corner's sides
    were traced. The trace stopped after 16-20 px (A's 1 px green stroke fading into a green
    scene), and that rectangle passed the rules: placed 145-154 px off in an image answered in
    full. Untried, the verifier's pass runs and A is placed within 2 px."""
    _placed_right_and_off_with_the_rule_undone(110, 174, "A", "_a_label_box_unseen", 100, monkeypatch)


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
    from adapters.markers.general.boxes.outline import Outline
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
    from adapters.markers.general.boxes.outline import Outline
    outline = Outline(27.6, 86.4, 65.1, 146.3, 1.0, (60.0, 90.0, -60.0), 40.0, 0.9, 4, tees=2)
    far_at = lambda x, y, score=0.97: Proposal(x, y, {FAR_CORNER: score})
    assert _short_of_a_seen_far_corner(outline, [far_at(247.2, 146.1)])  # on its bottom side's line
    assert _short_of_a_seen_far_corner(outline, [far_at(64.0, 200.0)])  # on its right side's line
    assert not _short_of_a_seen_far_corner(dataclasses.replace(outline, tees=0), [far_at(247.2, 146.1)])
    assert not _short_of_a_seen_far_corner(outline, [far_at(247.2, 146.1, 0.3)])  # not seen
    assert not _short_of_a_seen_far_corner(outline, [far_at(247.2, 170.0)])  # off its lines
    assert not _short_of_a_seen_far_corner(outline, [far_at(247.2, 146.1), far_at(65.0, 146.0)])  # own seen


def test_a_box_is_not_traced_short_to_where_another_box_crosses_it(monkeypatch):
    """box_accuracy.py's image 17 at seed 206: A's own outline fails the
    rules, and the trace from its corner stopped where C's left side crosses A's bottom side, a
    rectangle borrowing C's line, 182 px short of A's far corner, which the finder reads at 0.97;
    the image was answered with it. A is now placed within 2 px, as is every box."""
    _placed_right_and_off_with_the_rule_undone(206, 17, "A", "_short_of_a_seen_far_corner", 100, monkeypatch)


@pytest.mark.parametrize("seed, index, label", [(112, 51, "B"), (117, 89, "D")])
def test_a_box_is_not_run_on_past_the_far_corner_the_finder_reads(seed, index, label, monkeypatch):
    """box_accuracy.py's image 51 at seed 112 and 89 at seed 117:
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
    from adapters.markers.general.boxes.outline_verifier import default_outline_verifier
    from adapters.markers.general.boxes.traced_far_corner import traced_far_corner

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
