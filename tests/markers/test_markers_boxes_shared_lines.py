"""read_boxes' last look for a box that took another box's line (boxes.shared_lines): a side on another
placed box's line where the corner finder saw its corner elsewhere, or two boxes ending at one
far corner. Boxes that share a line as drawn are placed."""

import numpy as np
import pytest
from box_scenes import benchmark_image
from marker_recordings import recorded_finder, recorded_reader

from adapters.markers.general.boxes.read import read_boxes
from adapters.markers.general.boxes.shared_lines import borrowed_side, shared_sides, shares_far_corner
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.thresholds import MAX_FINDER_OFF, ON_ITS_STROKE, SHARED_LINE

H, W = 240, 320
D = (77.5, 52.9, 303.9, 106.4)  # D's bottom side is the line C's top side was fitted on
C_OWN = (101.3, 103.1, 276.1, 154.2)  # C as drawn: its top side 3.3 px above D's bottom
C_ON_D = (101.3, 106.4, 276.1, 154.2)  # C fitted with D's bottom side for its top


def corners(*boxes, off=(0.0, 0.0)):
    """The finder's proposals at each box's two corners, the first box's top-left moved by `off`."""
    found = []
    for k, (x0, y0, x1, y1) in enumerate(boxes):
        dx, dy = off if k == 0 else (0.0, 0.0)
        found += [Proposal(x0 + dx, y0 + dy, {"A": 0.9}), Proposal(x1, y1, {"far": 0.9})]
    return found


def test_a_side_on_another_boxs_line_is_borrowed_only_where_the_finder_saw_its_corner_elsewhere():
    assert borrowed_side(C_ON_D, [D], corners(C_ON_D, D), H, W) is None  # the finder agrees: a shared line
    assert borrowed_side(C_ON_D, [D], corners(C_OWN, D), H, W) == "top"  # it saw C's corner 3.3 px up
    assert borrowed_side(C_OWN, [D], corners(C_OWN, D), H, W) is None  # C's own line is no other box's
    assert borrowed_side(D, [C_ON_D], corners(D, C_OWN), H, W) is None  # D's corner is where D lies
    # just within and just past the finder's reach
    assert borrowed_side(C_ON_D, [D], corners(C_ON_D, D, off=(0, -(MAX_FINDER_OFF - 0.1))), H, W) is None
    assert borrowed_side(C_ON_D, [D], corners(C_ON_D, D, off=(0, -(MAX_FINDER_OFF + 0.1))), H, W) == "top"
    # along the line the finder's offset does not count for a horizontal side
    assert borrowed_side(C_ON_D, [D], corners(C_ON_D, D, off=(-3.0, 0)), H, W) is None


def test_a_side_fitted_on_another_boxs_thick_stroke_is_on_its_line():
    """A side fitted 1 px off another box's parallel side lies on that box's line where the
    strokes are 6 px wide (within ON_ITS_STROKE x the width; seed 133 image 1's B, on C's
    left side, its own right side 6.6 px away), and not where they are 2 px wide (SAME_LINE)."""
    c_near_d = (C_ON_D[0], D[3] - 1.0, C_ON_D[2], C_ON_D[3])  # the finder saw C's corner 2.3 px above it
    assert SHARED_LINE < 1.0 <= ON_ITS_STROKE * 6.0
    assert borrowed_side(c_near_d, [D], corners(C_OWN, D), H, W, stroke_width=6.0) == "top"
    assert borrowed_side(c_near_d, [D], corners(C_OWN, D), H, W, stroke_width=2.0) is None
    assert borrowed_side(c_near_d, [D], corners(c_near_d, D), H, W, stroke_width=6.0) is None  # the finder agrees


def test_the_other_boxs_own_corner_does_not_vouch_for_a_side_on_its_line():
    """Fresh seed 37 image 99: B's far corner, which the finder did not propose, was traced onto
    A's bottom line, 6 px below B's own bottom side; the proposal nearest B's far corner is A's
    (6 px along the line, 0.4 across), which says where A ends, not B. With it left out, the
    nearest is far off: B borrowed the line. B's own far corner proposed there vouches for it."""
    a = (54.9, 80.7, 267.5, 233.8)
    b = (83.6, 103.7, 273.7, 233.8)
    c = (148.4, 90.8, 208.5, 216.9)
    found = [Proposal(54.7, 80.9, {"A": 0.9}), Proposal(267.6, 234.2, {"far": 0.9}),
             Proposal(83.8, 103.7, {"B": 0.9}), Proposal(148.4, 90.8, {"C": 0.9}), Proposal(208.5, 216.9, {"far": 0.9})]
    assert borrowed_side(b, [a, c], found, H, W) == "bottom"
    assert borrowed_side(b, [a, c], [*found, Proposal(273.5, 234.0, {"far": 0.6})], H, W) is None
    assert borrowed_side(a, [b, c], found, H, W) is None  # A's own far corner is proposed on the line


def test_sides_share_a_line_only_side_by_side_and_away_from_the_border():
    beside = (10.0, 106.4, 60.0, 150.0)  # on D's bottom line, but not along D (ends before x 77)
    assert borrowed_side(beside, [D], corners(C_OWN, D), H, W) is None
    cut = (101.3, 30.0, 276.1, 239.0)  # a bottom side on the image's last row is not drawn
    other = (20.0, 40.0, 200.0, 239.0)
    assert borrowed_side(cut, [other], [Proposal(101.3, 30.0, {"A": 0.9})], H, W) is None
    assert borrowed_side(C_ON_D, [D], [], H, W) is None  # no finder: nothing to tell it by


def test_the_sides_a_box_shares_with_others_are_named():
    assert shared_sides(C_ON_D, [D], H, W) == ["top"]  # C's top side on D's bottom line
    assert shared_sides((10.0, 106.4, 60.0, 150.0), [D], H, W) == []  # on D's line, but not along D
    assert shared_sides((101.3, 30.0, 276.1, 239.0), [(20.0, 40.0, 200.0, 239.0)], H, W) == []  # the border


def test_two_boxes_ending_at_one_far_corner_share_it_unless_cut_off_by_the_border():
    a = (132.4, 68.3, 175.2, 188.3)
    assert shares_far_corner((104.6, 102.3, 175.2, 188.5), [a], H, W)
    assert not shares_far_corner((104.3, 102.2, 162.5, 155.3), [a], H, W)
    assert not shares_far_corner((10.0, 20.0, 319.0, 100.0), [(50.0, 30.0, 319.0, 100.5)], H, W)


@pytest.mark.parametrize("seed, index, refused, why", [
    (26, 38, ["C"], "bottom side of the box read as C lies on another box's line"),
    (21, 125, ["B"], "ends at another box's far corner"),
])
def test_a_box_that_took_another_boxs_line_is_refused(seed, index, refused, why):
    """box_accuracy.py's images that answered with a box wrong (seeds 21 and 26
    before): a side fitted on another box's line 3.2 px from its own, or a box run on to another
    box's far corner. Now each such box is refused, saying why, and every box placed is right.
    (At 21/125 A was refused too, as ending at one far corner with B, until a box whose outline
    passed the rules with its corners to itself owned it against B's, which only the outline
    verifier accepted: _owns_its_far_corner.)"""
    drawn, boxes, _ = benchmark_image(seed, index)
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    for label in refused:
        assert label not in markers
    assert why in missing[refused[-1]]
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


@pytest.mark.parametrize("seed, index, refused", [(22, 198, {"C"}), (16, 12, set()), (37, 99, set()), (50, 93, set())])
def test_images_that_once_took_another_boxs_line_place_no_box_wrong(seed, index, refused):
    """Four more images whose box took another box's line, each refused by this check with the box
    networks before photographs: 22/198's C and 16/12's D (a side on another box's line 3.2 px
    from its own), 37/99's B (once a dark scene no longer stopped the far corner's trace) and
    50/93's C (once a side off its stroke was moved onto it, where its right side lay on D's line,
    8.7 px from its own, and the finder proposed a far corner there). The photo-trained networks
    put those corners right: every box is placed right, but 22/198's C, refused before the check
    (its corner starts an outline the rules pass, and the naming left it unplaced)."""
    drawn, boxes, _ = benchmark_image(seed, index)
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert set(markers) | set(missing) == set(boxes)
    assert set(missing) == refused
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0


def test_boxes_that_share_a_line_as_drawn_are_placed():
    """Seed 9 image 6: A's bottom side and B's top side are one line, and both boxes are placed."""
    drawn, boxes, _ = benchmark_image(9, 6)
    markers, missing, _ = read_boxes(drawn, list(boxes), recorded_finder(), reader=recorded_reader())
    assert not missing and set(markers) == set(boxes)
    assert abs(markers["A"].box[3] - markers["B"].box[1]) <= 0.6  # the line they share
    for name, marker in markers.items():
        assert max(abs(np.subtract(marker.box, boxes[name]))) <= 2.0
