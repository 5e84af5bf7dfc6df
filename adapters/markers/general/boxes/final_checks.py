"""The final checks on a question's placed boxes, judged together once every label is placed or not.

check_placed_boxes moves each box's sides that lie off their strokes onto them (stroke_band) and
refuses a box that cannot be moved so, that borrowed another placed box's line or far corner
(shared_lines), or whose side taken at one edge of two touching strokes lies on another box's
side. to_its_own_far_corner moves a box refused for another box's far corner to its own, where the
outline verifier finds that rectangle drawn, and rechecked_box then judges again a box refused
with it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from adapters.markers.general.boxes.geometry import (
    _same,
    box_marker,
    fitted_outline,
    fitted_within,
    parallel_sides,
    settled_outline,
    within_learned_fit,
)
from adapters.markers.general.boxes.outline import Outline
from adapters.markers.general.boxes.shared_lines import borrowed_side, shared_sides, shares_far_corner
from adapters.markers.general.boxes.stroke_band import onto_strokes
from adapters.markers.general.boxes.verifier_outlines import ProbabilityVerifier, between_seen_corners
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.thresholds import ALONG_ANOTHER, COVERAGE_LEAD, FAR_SEEN, SAME_BOX, SAME_LINE
from adapters.markers.types import Marker

BORROWED_FAR_CORNER = "ends at another box's far corner"  # check_placed_boxes's reason for a borrowed far corner


def rechecked_box(lab: np.ndarray, refused: Marker, markers: dict[str, Marker], outlines: list[Outline],
                  proposals: Sequence[Proposal]) -> Marker | None:
    """`refused` (as placed before check_placed_boxes, which refused it for ending at another box's
    far corner) where check_placed_boxes, with it and the placed boxes `markers`, refuses none and
    moves none of them, else None. Asked once a box that shared its far corner has moved to its own
    (to_its_own_far_corner): two boxes ending at one far corner are both refused, and once the
    borrower has moved, the box that owns the corner ends there alone."""
    looked, refused_again = check_placed_boxes(lab, {**markers, refused.label: refused}, outlines, proposals)
    if refused_again or any(looked[label].box != marker.box for label, marker in markers.items()):
        return None
    return looked[refused.label]


def check_placed_boxes(lab: np.ndarray, markers: dict[str, Marker], outlines: list[Outline],
               proposals: Sequence[Proposal]) -> tuple[dict[str, Marker], dict[str, str]]:
    """(`markers` with each box's sides that lie off the middle of their strokes moved onto them,
    label -> why for each box these checks, on all of them, refuse): a side off its stroke that
    cannot be moved (_onto_its_strokes); a moved box with a side on another placed box's line (a
    fit that missed one side's stroke may have taken another box's line for another side, where
    the finder proposed a far corner on that line); ending at another placed box's far corner; on
    another placed box's line where the finder saw its corner elsewhere (shared_lines.borrowed_side);
    a side taken at one edge of two touching strokes on another box's side (_banded_side_on_another).
    The first reason found is
    given, and each box is judged against every box placed, so two boxes sharing a far corner
    are both refused, unless one of them owns it (_owns_its_far_corner): that one is judged
    without the boxes that borrowed it."""
    H, W = lab.shape[:2]
    on_strokes = {label: _onto_its_strokes(lab, marker, outlines) for label, marker in markers.items()}
    # each box as its outline was fitted, where a refit or a move since put it elsewhere
    as_fitted = {label: o.box for label, m in markers.items() if (o := fitted_outline(m.box, outlines)) is not None
                 and 0 < max(abs(np.subtract(o.box, m.box))) <= SAME_BOX}
    moved = {label: m for label, m in on_strokes.items() if m is not None and m is not markers[label]}
    markers = {**markers, **moved}
    refused = {}
    for label, marker in markers.items():
        # another box is judged where its outline was fitted too: two sides fitted on one stroke
        # band may be moved apart (one box's side fitted on another's, and the other refit a px
        # off it: the two no longer share a line, and the box that borrowed it would pass)
        others = [m.box for other, m in markers.items() if other != label]
        others += [box for other, box in as_fitted.items() if other != label]
        if _owns_its_far_corner(marker.box, others, outlines, H, W):
            # the boxes borrowing its far corner are refused below, on their own turn; their sides
            # on its lines, and their far corner where the finder saw its own, are no sign here
            others = [other for other in others if not shares_far_corner(marker.box, [other], H, W)]
        if on_strokes[label] is None:
            refused[label] = (f"a side of the box read as {label} lies off the middle of its stroke: it was fitted "
                              "on something else, and where it lies is unclear")
        elif label in moved and (shared := shared_sides(marker.box, others, H, W)):
            refused[label] = (f"a side of the box read as {label} was fitted off the middle of its stroke, and its "
                              f"{' and '.join(shared)} side lies on another box's line: it may have taken that line "
                              "for its own")
        elif shares_far_corner(marker.box, others, H, W):
            refused[label] = (f"the box read as {label} {BORROWED_FAR_CORNER}: which of the two boxes "
                              "ends there is unclear")
        elif (side := borrowed_side(marker.box, others, proposals, H, W, marker.ring_width or 0.0)) is not None:
            refused[label] = (f"the {side} side of the box read as {label} lies on another box's line, but the corner "
                              "finder saw its corner elsewhere: it may have taken the other box's line for its own")
        elif (side := _banded_side_on_another(marker.box, outlines, others)) is not None:
            refused[label] = (f"the {side} side of the box read as {label} was taken at one edge of two touching "
                              "strokes, and another box's side lies there too: which stroke is whose is unclear")
    return markers, refused


def to_its_own_far_corner(lab: np.ndarray, refused: Marker, markers: dict[str, Marker], read: Sequence[Proposal],
                           found_per_corner: Sequence[list[Outline]], fits_at: Sequence[dict],
                           fars: Sequence[Proposal], outlines: list[Outline], proposals: Sequence[Proposal],
                           weighing: ProbabilityVerifier) -> Marker | None:
    """`refused`'s box moved to its own far corner, where check_placed_boxes refused it for ending
    at another box's (`markers`: the boxes it placed), or None. From the corner of `read` whose
    outlines (`found_per_corner`) it was placed on, the one rectangle to a far corner the finder
    sees, not another placed box's, that the rules turned away and the verifier finds drawn
    (verifier_outlines.between_seen_corners, on the rules' fits there, `fits_at`), is its box,
    where check_placed_boxes, with it and the placed boxes, refuses none and moves none. The rules
    can reject a box's own rectangle for a crossing or coverage and pass the one to another box's
    far corner, and read_boxes asks between_seen_corners only at corners that start no outline."""
    H, W = lab.shape[:2]
    placed = [m.box for m in markers.values()]
    for corner, found, fits in zip(read, found_per_corner, fits_at):
        if fitted_within(refused.box, found) is None:
            continue
        elsewhere = [o for o in outlines if not any(o is f for f in found)]
        # within LEARNED_FIT only: the corner reader need not be sure of the label at this corner
        own = [o for o in between_seen_corners(corner, fits, fars, weighing, FAR_SEEN, within_learned_fit, SAME_BOX,
                                               elsewhere)
               if not shares_far_corner(o.box, placed, H, W) and not any(_same(o, f) for f in found)]
        if len(own) != 1:
            return None
        moved = box_marker(refused.label, settled_outline(lab, own[0]), refused.confidence, source=refused.source)
        looked, refused_again = check_placed_boxes(lab, {**markers, refused.label: moved}, outlines + own, proposals)
        if refused_again or any(looked[l].box != m.box for l, m in markers.items()):
            return None
        return looked[refused.label]
    return None


def _owns_its_far_corner(box: tuple[float, float, float, float], others: list[tuple[float, float, float, float]],
                         outlines: list[Outline], H: int, W: int) -> bool:
    """Whether `box`, ending at the far corner of some of `others` (shared_lines.shares_far_corner),
    is the one box that ends there: its fitted outline (fitted_within, within SAME_BOX px) passed
    the rules with no line going on past its corners (Outline.tees), and every other box ending
    there was fitted with such a T or accepted only by the outline verifier. A rectangle from one
    box's corner to another's far corner runs its sides into that box's lines, and they meet at T's
    (one or two at the borrowing rectangle, none at the box whose corner it is).

    Where every box ending there is clean, or none is, the one drawn along its sides by
    COVERAGE_LEAD more than every other owns it (Outline.coverage, its least drawn side's): the
    borrowing rectangle runs a side on past where its own box's side ends, where little is drawn.
    Otherwise which box ends there stays unclear. A box fitted with a T never owns it by coverage
    from one fitted without: where a borrowing rectangle with T's and the owner's own thin outline
    over a texture were both accepted by the verifier only, the borrower, drawn along more of its
    sides, would take the corner and be placed on the other box's lines."""
    own = fitted_within(box, outlines)
    sharing = [fitted_within(other, outlines) for other in others if shares_far_corner(box, [other], H, W)]
    if own is None or not sharing or any(o is None for o in sharing):
        return False

    def clean(outline: Outline) -> bool:
        return not outline.tees and not outline.learned

    if clean(own) and not any(clean(o) for o in sharing):
        return True
    if own.tees and any(not o.tees for o in sharing):
        return False
    return (all(clean(o) == clean(own) for o in sharing)
            and all(own.coverage >= o.coverage + COVERAGE_LEAD for o in sharing))


def _banded_side_on_another(box: tuple[float, float, float, float], outlines: list[Outline],
                            others: list[tuple[float, float, float, float]]) -> str | None:
    """The side of `box` that its fitted outline (fitted_within, within SAME_BOX px) took at
    one edge of two touching strokes (Outline.banded) and that lies within SAME_LINE px of a
    parallel side of one of `others`, side by side along ALONG_ANOTHER of its length; None if none
    does. The other stroke of the two is another box's side, so two boxes on one edge of them
    cannot both be right (the finder can put a box's corner on the other box's stroke, and the
    fit then takes its side at that stroke's edge)."""
    fitted = fitted_within(box, outlines)
    if fitted is None or not fitted.banded:
        return None
    return next((name for other in others for name, across, other_across, alongside, length in parallel_sides(box, other)
                 if name in fitted.banded and abs(across - other_across) < SAME_LINE
                 and alongside >= ALONG_ANOTHER * length), None)


def _onto_its_strokes(lab: np.ndarray, marker: Marker, outlines: list[Outline]) -> Marker | None:
    """`marker` with each side of its box that lies off the middle of its stroke moved onto it
    (stroke_band.onto_strokes), or None where such a side cannot be moved; judged in the style
    of the fitted outline nearest it (its own, or its own before a refit moved a side; a box
    between the finder's corners is no fitted outline, and a question's boxes share a style).
    Sides fitted on a scene's edge or JPEG's fringe beside the stroke lie up to about 3 px off; a
    band that says where the stroke is puts them within a px of it. (Unlike
    outlines_at_corner._off_its_stroke, which of two fits of one side is on its stroke, this judges
    one box's sides alone.)"""
    if not outlines:
        return marker
    fitted = fitted_outline(marker.box, outlines)
    outline = replace(fitted, x0=marker.box[0], y0=marker.box[1], x1=marker.box[2], y1=marker.box[3],
                      measures=None)
    moved = onto_strokes(lab, outline, outline)
    if moved is None:
        return None
    if moved is outline:  # no side off its stroke
        return marker
    return replace(marker, xy=((moved.x0 + moved.x1) / 2, (moved.y0 + moved.y1) / 2), box=moved.box)
