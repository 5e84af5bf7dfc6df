"""The outlines that start at one candidate top-left corner, and which of them is its box.

candidate_corners and far_corners pick the finder's proposals to try as top-left and far corners;
outlines_from fits an outline from a corner to every far corner (to the image's border, or to a far
corner traced along its sides, where needed), with the outline verifier a second opinion where the
rules pass none; near_the_finders_corners says whether such a verifier-only outline lies near
enough the finder's corners to be their box; its_own_box chooses among several outlines from one
corner.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from adapters.markers.general.boxes.fit import fit_outline
from adapters.markers.general.boxes.geometry import _same, same_corner, within_learned_fit
from adapters.markers.general.boxes.measure import Rejections
from adapters.markers.general.boxes.merged_band import off_centre
from adapters.markers.general.boxes.outline import SIDE_AT, Outline, Verifier
from adapters.markers.general.boxes.outline_verifier import ACCEPTANCE
from adapters.markers.general.boxes.traced_far_corner import traced_far_corner
from adapters.markers.general.boxes.verifier_outlines import ProbabilityVerifier
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.corner_finder import BOX_LABELS
from adapters.markers.general.thresholds import (
    BORDER_CORNER_COVERAGE,
    BORDER_NEAR,
    CORNER_FIT,
    DECISIVE,
    FAR_MIN_SCORE,
    FAR_SEEN,
    LABEL_BOX_MAX,
    LEARNED_FIT,
    MAX_CORNERS,
    MIN_EVIDENCE,
    MIN_SIDE,
    ON_STROKE,
    SAME_BOX,
    SEEN_ACCEPTANCE,
    STROKE_FIT,
    TRACED_COVERAGE,
)
from adapters.markers.labels import FAR_CORNER


def candidate_corners(proposals: Sequence[Proposal], wanted: Sequence[str]) -> list[Proposal]:
    """The proposals read_boxes weighs as top-left corners: those reading at least MIN_EVIDENCE as
    one of `wanted`, strongest first, at most MAX_CORNERS."""
    read = [p for p in proposals if max((p.scores[l] for l in wanted), default=0) >= MIN_EVIDENCE]
    return sorted(read, key=lambda p: -max(p.scores[l] for l in wanted))[:MAX_CORNERS]


def far_corners(proposals: Sequence[Proposal]) -> list[Proposal]:
    """The proposals read_boxes tries as bottom-right corners (FAR_MIN_SCORE or more)."""
    return [p for p in proposals if p.scores[FAR_CORNER] >= FAR_MIN_SCORE]


def outlines_from(lab: np.ndarray, corner: Proposal, fits: dict[tuple[float, float], tuple[bool, Rejections]],
                   fars: list[Proposal], W: int, H: int, verifier: Verifier | None = None) -> list[Outline]:
    """Every distinct verified outline from `corner` to a proposed bottom-right corner.

    A box cut off by the image's border has its far corner on or past the border, where the
    finder sees only part of it: a proposed far corner within BORDER_NEAR px of the border that
    gives no outline is tried again with its x, its y or both on the border, and the image's
    corner is tried when no corner gave one, by the rules or by `verifier`. (Not every corner: a
    box 8 px from the border, with another box's side between it and the border, passes with the
    border standing in for its side.)

    Where the hand rules pass no outline from the corner, every rectangle is tried again with
    `verifier` allowed to overrule them (as measure.verify would, on what the first pass kept:
    Rejections): only there, so that a rectangle it accepts never competes with an outline the
    rules passed, and only where the outline lies near both proposed corners
    (near_the_finders_corners).

    Where a corner starts no outline to any far corner proposed, one traced along its sides
    (traced_far_corner) is tried, unless it is no larger than a label's box with no far corner read
    there (_a_label_box_unseen); where the rules turn it away, the verifier weighs it after every
    proposed far corner (a box's own rectangle, traced where the finder reads no far corner, can
    fail the rules on a faint stretch and still look drawn), where each side is drawn along
    TRACED_COVERAGE of its length. A traced outline, or one only the verifier accepted with a T, is
    not taken where it ran on past a far corner the finder reads (_past_a_seen_far_corner).
    Of two outlines that are one side fitted twice on one stroke, the one off the stroke's ink is
    dropped (_off_its_stroke).

    fits: filled with each far corner tried -> (whether the rules passed an outline there, what
    they rejected), for the verifier's later looks (verifier_outlines.last_label_box and
    between_seen_corners)."""
    found: list[Outline] = []

    def tried(x1: float, y1: float, second_opinion: Verifier | None, min_coverage: float = 0.0,
              traced: bool = False) -> bool:
        if x1 < corner.x + MIN_SIDE or y1 < corner.y + MIN_SIDE:
            return False
        if second_opinion is None:
            rejected = Rejections()
            outline = fit_outline(lab, (corner.x, corner.y, x1, y1), rejected)
            fits[(x1, y1)] = (outline is not None, rejected)
        else:  # the first pass found nothing, so it tried every far corner this one tries
            outline = fits[(x1, y1)][1].overruled_by(second_opinion)
        if outline is None or abs(outline.x0 - corner.x) > CORNER_FIT or abs(outline.y0 - corner.y) > CORNER_FIT:
            return False
        if second_opinion is not None and not near_the_finders_corners(
                lab, outline, (corner.x, corner.y, x1, y1), _corners_seen(corner, x1, y1, fars)):
            return False
        if outline.coverage < min_coverage:
            return False
        if (traced or (second_opinion is not None and outline.tees)) and _past_a_seen_far_corner(outline, fars):
            return False
        if traced and _short_of_a_seen_far_corner(outline, fars):
            return False
        if not any(_same(outline, o) for o in found):
            found.append(outline)
        return True

    passes = (None, verifier) if verifier is not None else (None,)
    traced = None  # the far corner traced along the corner's sides, where no proposed one gave an outline
    for second_opinion in passes:
        for p in fars:
            if not tried(p.x, p.y, second_opinion):
                near_x, near_y = p.x >= W - 1 - BORDER_NEAR, p.y >= H - 1 - BORDER_NEAR
                any([near_x and tried(W - 1.0, p.y, second_opinion),
                     near_y and tried(p.x, H - 1.0, second_opinion)]) or (
                    near_x and near_y and tried(W - 1.0, H - 1.0, second_opinion))
        if not found and second_opinion is None:
            traced = traced_far_corner(lab, corner.x, corner.y)
            if traced is not None and _a_label_box_unseen(corner, traced, fars):
                traced = None
        # the verifier weighs the traced rectangle too, after every proposed far corner
        if not found and traced is not None and (second_opinion is None or traced in fits):
            tried(*traced, second_opinion, min_coverage=TRACED_COVERAGE, traced=True)
        if found:
            break
    # the image's corner last: its outline has two sides unseen, so a box's own far corner that
    # only the verifier accepts comes first (a thin box's strokes over a scene of their colour
    # seem to go on past its far corners, and the rectangle to the image's corner would pass the
    # rules in their stead) (with two sides seen to stand for four, both must be drawn along
    # BORDER_CORNER_COVERAGE of their length: a 1 px box over a texture of its colour finds ink
    # along most of any stretch, and its sides run on to the border would pass)
    for second_opinion in passes if not found else ():
        if tried(W - 1.0, H - 1.0, second_opinion, min_coverage=BORDER_CORNER_COVERAGE):
            break
    # a side near the border also passes with the border standing in for it: the border's
    # outline is the same box, and the one with the side seen is where it is drawn
    found = [o for o in found if not any(_border_twin(o, other, W, H) for other in found if other is not o)]
    return [o for o in found if not any(_off_its_stroke(lab, o, other) for other in found if other is not o)]


def _a_label_box_unseen(corner: Proposal, far: tuple[float, float], fars: Sequence[Proposal]) -> bool:
    """Whether a far corner traced from `corner` (traced_far_corner) spans no more than a label's box
    (LABEL_BOX_MAX px each way) where the finder proposes no far corner (none of `fars` within
    CORNER_FIT px). A trace stops where its stroke fades into a scene of its colour, or at the
    label's dark box below the corner; the small rectangle there may pass the rules, cut from the
    box's corner (a large box placed as the few px round its own label, or round its label's box
    written inside it). A box that small has a far corner the finder sees."""
    x1, y1 = far
    return x1 - corner.x <= LABEL_BOX_MAX and y1 - corner.y <= LABEL_BOX_MAX and _far_read_at(x1, y1, fars) == 0.0


def _past_a_seen_far_corner(outline: Outline, fars: Sequence[Proposal]) -> bool:
    """Whether `outline` ends where the finder reads no box's far corner (none of `fars` at
    FAR_SEEN within CORNER_FIT px) after running past one it does read: a far corner at FAR_SEEN
    on its right or bottom side, over CORNER_FIT px short of its end. Asked of outlines the rules
    did not pass as a proposed far corner's: a traced one, or one only the verifier accepted with
    a T at a corner (Outline.tees). Where a box's own outline fails, its sides may run on, along a
    scene's band or blob of its colour or up to another box's line, to a rectangle that passes
    (traced along a blob to another box's side, or a side run on to another box's line, a T the
    verifier accepts). A box's side drawn on through another box's line meets it at a crossing,
    which the finder may read as a far corner too; that outline has no T and stays."""
    if _far_read_at(outline.x1, outline.y1, fars) >= FAR_SEEN:
        return False
    return any(abs(p.x - outline.x1) <= CORNER_FIT and outline.y0 + MIN_SIDE <= p.y < outline.y1 - CORNER_FIT
               or abs(p.y - outline.y1) <= CORNER_FIT and outline.x0 + MIN_SIDE <= p.x < outline.x1 - CORNER_FIT
               for p in fars if p.scores[FAR_CORNER] >= FAR_SEEN)


def _short_of_a_seen_far_corner(outline: Outline, fars: Sequence[Proposal]) -> bool:
    """Whether a traced `outline` ends where the finder reads no box's far corner, with a side going
    on past its corners (Outline.tees) towards one it does read: a far corner at FAR_SEEN on the line
    of its bottom side further right, or of its right side further down (within CORNER_FIT px across,
    over CORNER_FIT px on). The trace stopped where another box's line crosses its box, and the
    rectangle there borrows that line (traced from a box's corner to where another box's side
    crosses its bottom side, far short of its own far corner); the mirror of
    _past_a_seen_far_corner."""
    if not outline.tees or _far_read_at(outline.x1, outline.y1, fars) >= FAR_SEEN:
        return False
    return any(abs(p.y - outline.y1) <= CORNER_FIT and p.x > outline.x1 + CORNER_FIT
               or abs(p.x - outline.x1) <= CORNER_FIT and p.y > outline.y1 + CORNER_FIT
               for p in fars if p.scores[FAR_CORNER] >= FAR_SEEN)


def _far_read_at(x: float, y: float, proposals: Sequence[Proposal]) -> float:
    """How strongly the finder reads a box's far corner at (x, y): its strongest proposal's
    FAR_CORNER score within CORNER_FIT px; 0 where it proposes none there."""
    return max((p.scores.get(FAR_CORNER, 0.0) for p in proposals if max(abs(p.x - x), abs(p.y - y)) <= CORNER_FIT),
               default=0.0)


def _corners_seen(corner: Proposal, x1: float, y1: float, fars: Sequence[Proposal]) -> tuple[bool, bool]:
    """Whether the finder sees `corner` as a labelled one and a far corner at (x1, y1), each at FAR_SEEN."""
    return (max(corner.scores.get(label, 0.0) for label in BOX_LABELS) >= FAR_SEEN,
            _far_read_at(x1, y1, fars) >= FAR_SEEN)


def near_the_finders_corners(lab: np.ndarray, outline: Outline, proposed: tuple[float, float, float, float],
                              seen: tuple[bool, bool]) -> bool:
    """Whether an outline only the verifier accepted lies near enough the finder's corners
    `proposed` (x0, y0, x1, y1) to be their box: within LEARNED_FIT px, or within STROKE_FIT px
    where every side further off than LEARNED_FIT is centred on a run of its ink (ON_STROKE), the
    side moved back to the finder's line is not, and the finder sees the corner it moves from
    (`seen`: its top-left corner, its far corner; STROKE_FIT)."""
    if within_learned_fit(outline, proposed):
        return True
    apart = np.abs(np.subtract(outline.box, proposed))
    if apart.max() > STROKE_FIT:
        return False
    return all(seen[k // 2] and _centred_on_ink(lab, outline, k)
               and not _the_finders_line_on_ink(lab, outline, k, proposed[k]) for k in np.flatnonzero(apart > LEARNED_FIT))


def _centred_on_ink(lab: np.ndarray, outline: Outline, k: int) -> bool:
    """Whether the side at box coordinate `k` (0-3: x0, y0, x1, y1) of `outline` has a run of its
    ink across it centred within ON_STROKE px of its line."""
    off = off_centre(lab, outline, SIDE_AT[k])
    return off is not None and abs(off) <= ON_STROKE


def _the_finders_line_on_ink(lab: np.ndarray, outline: Outline, k: int, proposed: float) -> bool:
    """Whether `outline`'s side at box coordinate `k`, moved to the finder's `proposed` line, is
    centred on a run of its ink too (_centred_on_ink)."""
    return _centred_on_ink(lab, replace(outline, **{("x0", "y0", "x1", "y1")[k]: proposed}), k)


def _off_its_stroke(lab: np.ndarray, outline: Outline, twin: Outline) -> bool:
    """Whether `outline` and `twin` (from one corner) are one box with one side fitted on the same
    stroke twice, and `outline`'s fit is the one off the stroke's ink: the other three sides agree
    (within SAME_BOX), the fourth lies less than a stroke's width apart, and its run of ink is
    centred on `twin`'s fit (within ON_STROKE px) but over ON_STROKE px off `outline`'s. A far
    corner proposed a few px past a wide stroke finds only its fringe at the side search's edge
    (one side of a 6 px stroke fitted on its middle and again 2-3 px off, on its fringe)."""
    apart = [k for k in range(4) if abs(outline.box[k] - twin.box[k]) >= SAME_BOX]
    if len(apart) != 1 or abs(outline.box[apart[0]] - twin.box[apart[0]]) >= max(outline.width, twin.width):
        return False
    side = SIDE_AT[apart[0]]
    off, twin_off = off_centre(lab, outline, side), off_centre(lab, twin, side)
    return off is not None and twin_off is not None and abs(twin_off) <= ON_STROKE < abs(off)


def its_own_box(found: list[Outline], outlines: list[Outline], proposals: Sequence[Proposal] = (),
                 outlines_at: Sequence[list[Outline]] = (), verifier: ProbabilityVerifier | None = None
                 ) -> list[Outline]:
    """Of several outlines starting at one corner, the one that borrows nothing from another box,
    when every other does; else the one ending where the finder sees a box's far corner
    (_at_a_seen_far_corner, among `proposals`); else the one not ending where another corner's
    only outline ends (_not_at_anothers_sole_far_corner, `outlines_at`: the outlines per
    candidate corner); else the one `verifier` finds drawn where it finds no other drawn
    (_the_one_drawn); else all of them (which is the box stays unclear). From a box's corner a
    second rectangle may run to another box's lines: they go on past its corners (a T,
    Outline.tees), or meet at that box's far corner, where an outline from another corner ends
    too (_borrows). The box's own rectangle has its corners to itself. Outlines only the verifier
    accepted are never chosen between: the rules turned each away, so what they measured of its
    corners (its tees) is what failed (the verifier may pass both a box's own outline and one
    running on to another box's side, and a T measured at the first would make the second look
    like the box)."""
    if len(found) < 2 or any(o.learned for o in found):
        return found
    own = [o for o in found if not _borrows(o, outlines)]
    if len(own) == 1:
        return own
    return (_at_a_seen_far_corner(found, proposals) or _not_at_anothers_sole_far_corner(found, outlines_at)
            or _the_one_drawn(found, verifier) or found)


def _the_one_drawn(found: list[Outline], verifier: ProbabilityVerifier | None) -> list[Outline]:
    """[the one of `found` (outlines from one corner, each passed by the rules) that `verifier`
    finds drawn at outline_verifier.ACCEPTANCE where it finds every other under
    SEEN_ACCEPTANCE], or [] (also with no verifier, or an outline not measured as it lies). The
    rules pass a rectangle from a box's corner to where its sides meet other boxes' lines when
    those lines are drawn along all of it; the verifier weighs how such a rectangle's corners and
    sides look, and finds it far less likely drawn than the box's own, which would otherwise be
    left unplaced for two outlines at its corner. Where it finds two drawn, which is the box
    stays unclear."""
    if verifier is None or any(o.measures is None for o in found):
        return []
    drawn = [verifier.probability(o.measures) for o in found]
    best = int(np.argmax(drawn))
    if drawn[best] >= ACCEPTANCE and all(p < SEEN_ACCEPTANCE for k, p in enumerate(drawn) if k != best):
        return [found[best]]
    return []


def _not_at_anothers_sole_far_corner(found: list[Outline], outlines_at: Sequence[list[Outline]]) -> list[Outline]:
    """[the one of `found` (outlines from one corner) that neither has a T at a corner nor ends at
    the far corner of another corner's only outline, where every other of them does], or []. A far
    corner two corners' outlines reach is no sign by itself (its_own_box): from a box's corner
    the rules may pass a rectangle to its own far corner and one to another box's, and from a
    third box's corner one to the first box's far corner as well. A corner whose only outline
    ends at a far corner says whose that is; `outlines_at`: the outlines per candidate corner
    (none given: nothing is told). A box's outline chosen here that does end at another placed
    box's far corner is still refused by the final checks (final_checks.check_placed_boxes,
    unless it owns that corner: final_checks._owns_its_far_corner)."""
    if not outlines_at:
        return []
    sole = [at[0] for at in outlines_at if len(at) == 1 and not any(_same(at[0], o) for o in found)]
    own = [o for o in found if not _borrows(o, sole)]
    return own if len(own) == 1 else []


def _borrows(outline: Outline, others: Sequence[Outline]) -> bool:
    """Whether `outline` borrows from another box: a line goes on past one of its corners (a T,
    Outline.tees), or it ends where one of `others` from another corner ends (within SAME_BOX px)."""
    return bool(outline.tees) or any(not same_corner(outline, other)
                                     and max(abs(outline.x1 - other.x1), abs(outline.y1 - other.y1)) < SAME_BOX
                                     for other in others)


def _at_a_seen_far_corner(found: list[Outline], proposals: Sequence[Proposal]) -> list[Outline]:
    """[the one of `found` whose far corner the finder reads at FAR_SEEN or more and DECISIVE
    times more than every other's], or []. A second rectangle the rules pass from a box's corner
    ends where its sides meet another box's line, or a scene edge: a T or a crossing, which the
    finder reads faintly as a box's far corner, or not at all, where it reads the box's own
    strongly. Each
    far corner is read as the strongest proposal within CORNER_FIT px of it (_far_read_at)."""
    scores = [_far_read_at(o.x1, o.y1, proposals) for o in found]
    best = int(np.argmax(scores))
    if scores[best] >= FAR_SEEN and all(v * DECISIVE <= scores[best] for k, v in enumerate(scores) if k != best):
        return [found[best]]
    return []


def _border_twin(a: Outline, b: Outline, W: int, H: int) -> bool:
    """Whether `a` is `b` with the image's border standing in for a far side of `b`'s."""
    borders = [a.x1 == W - 1.0 and b.x1 != W - 1.0, a.y1 == H - 1.0 and b.y1 != H - 1.0]
    if not any(borders):
        return False
    near = [abs(a.x0 - b.x0) < SAME_BOX, abs(a.y0 - b.y0) < SAME_BOX,
            borders[0] or abs(a.x1 - b.x1) < SAME_BOX, borders[1] or abs(a.y1 - b.y1) < SAME_BOX]
    return all(near)
