"""What is measured of a candidate rectangle, and the hand rules' verdict on it, kept apart so that
the outline verifier can weigh the same measures where the rules say no.

measure_outline measures each side inside the image (how much of it is drawn, up to its corners,
how far it runs on past them, what labels' boxes hide); rejection says why the rules turn it away,
or None: every side drawn in one colour along most of its length and up to its corners, no two
lines crossing at a corner other than the labelled top-left one, and one line going on past a
corner (a T: a side on another box's line) only where both sides are drawn up to it. verify makes
the Outline, with a Verifier's second opinion; Rejections keeps what the rules rejected for a later one.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from adapters.markers.general.boxes.outline import (
    Outline,
    OutlineMeasures,
    SideMeasures,
    Verifier,
    _alike,
    _visible,
    tolerance,
)
from adapters.markers.general.boxes.thin_line import Line, ThinLineColour
from adapters.markers.general.thresholds import (
    BOX_DARK,
    INTO_BORDER,
    LABEL_BOX_MAX,
    MAX_ALONGSIDE,
    MAX_HIDDEN,
    MAX_RUN_ON,
    MIN_COVERAGE,
    MIN_REACH,
    MIN_SIDE,
    REACH,
    T_STUB,
    THIN,
)


def crosses_at_top_left(lab: np.ndarray, outline: Outline) -> bool:
    """Whether both lines at `outline`'s top-left corner go on past it (its top side to the
    left, its left side upwards): two boxes' lines crossing there, the corner of the rectangle
    between two overlapping boxes rather than a drawn box's own corner. (rejection leaves this
    corner unchecked, as the label is written there; a label above or inside the corner does
    not carry the top side on to the left, so one line going on is not a crossing.)"""
    H, W = lab.shape[:2]
    half, tau = outline.width / 2, tolerance(outline.width, outline.contrast)
    colour = np.asarray(outline.lab)
    top = Line(lab, outline.y0, False, colour, tau).run_on(outline.x0, -1, half, W)
    left = Line(lab, outline.x0, True, colour, tau).run_on(outline.y0, -1, half, H)
    return min(top, left) > MAX_RUN_ON


def side_line(box: tuple[float, float, float, float], side: int, height: int, width: int
              ) -> tuple[float, float, float, bool, int, int]:
    """Side `side` (0 top, 1 bottom, 2 left, 3 right) of `box` in an image `height` x `width`:
    (across: its row or column, start and end along it, transposed: a vertical side, the image's
    extent across it, and along it)."""
    x0, y0, x1, y1 = box
    across, start, end, transposed = ((y0, x0, x1, False), (y1, x0, x1, False),
                                      (x0, y0, y1, True), (x1, y0, y1, True))[side]
    return (across, start, end, transposed, *((width, height) if transposed else (height, width)))


def measure_outline(lab: np.ndarray, box, width: float, colour: np.ndarray, contrast: float,
                    narrower: Sequence[bool] = (False,) * 4, model: ThinLineColour | None = None
                    ) -> OutlineMeasures | None:
    """The OutlineMeasures of the rectangle `box` in `colour`, or None when a side inside the
    image is too short to measure (under MIN_SIDE // 2 px between its corners)."""
    H, W = lab.shape[:2]
    x0, y0, x1, y1 = box
    half = width / 2
    tau = tolerance(width, contrast)
    # (across: row or column of the side, from, to along it, transposed: a vertical side)
    spans = [(y0, x0, x1, False), (y1, x0, x1, False), (x0, y0, y1, True), (x1, y0, y1, True)]
    sides: list[SideMeasures | None] = []
    for (across, start, end, transposed), narrow in zip(spans, narrower):
        limit_across, limit_along = (W, H) if transposed else (H, W)
        if not _visible(across, width, limit_across):
            sides.append(None)
            continue
        line = Line(lab, across, transposed, colour, tau, model)
        # the border stands in for the far side (as fit_outline judged it: a side drawn 2 px inside
        # the border, its stroke wider than that gap, was found there and is seen)
        cut_off = not _visible(end, 1, limit_along)
        # the labelled corner is on the top and left sides; with no room above, the label is
        # written inside the box, its dark box over the left side's start
        labelled_corner = not transposed and across == y0 or transposed and across == x0
        # a side running from a cut-off near side (x0 or y0 on the border) must start at the border
        # too, as the far one must end there (the labelled corner's own sides are not checked: the
        # label is written there)
        cut_at_start = not labelled_corner and not _visible(start, 1, limit_along)
        # a side of a box cut off by the border runs up to the image's last row (column)
        last = limit_along - 1 if cut_off else int(np.floor(end - half - 1))
        along = np.arange(0 if cut_at_start else int(np.ceil(start + half + 1)), last + 1)
        along = along[(along >= 0) & (along < limit_along)]
        if len(along) < MIN_SIDE // 2:
            return None
        # single pixels of the box's colour say where a side ends and what colour it is; a thin
        # side counts as drawn along its length on its stretches' medians too (drawn_stretches)
        inked = line.inked(along)
        hit = (inked | line.drawn_stretches(along)) if width <= THIN else inked
        # the left side's own label (written inside the box, over the side's start) is a label's
        # box too: it is excused first, so that MAX_HIDDEN bounds what other labels' boxes hide
        own = line.under_own_label(along, hit) if transposed and labelled_corner else np.zeros_like(hit)
        hidden = line.under_label_boxes(along, hit, half) & ~own if colour[0] >= BOX_DARK + 10 else np.zeros_like(hit)
        seen = ~(hidden | own)
        # the top-left corner needs no reach: the label is written over it (inside the box when there
        # is no room above), and the corner finder saw that corner with its label
        reaches = _reaches_corners(hit, line.lightness(along), float(colour[0]), check_start=not labelled_corner)
        # a side ending a few px short of the border is a whole box's, its far side unseen
        into_border = not (cut_off and inked[-REACH:].mean() < INTO_BORDER
                           or cut_at_start and inked[:REACH].mean() < INTO_BORDER)
        sides.append(SideMeasures(
            length=len(along),
            coverage=float(hit[seen].mean()) if seen.any() else 0.0,
            inked=float(inked[seen].mean()) if seen.any() else 0.0,
            hidden=float(hidden.mean()), own_hidden=float(own.mean()),
            reach=(float(hit[:REACH].mean()), float(hit[-REACH:].mean())),
            # drawn up to each end, with no excuse for a dark stretch (unlike _reaches_corners): a T
            # is let through on this, and a dark scene at a corner must not pass for a label's box
            inked_reach=(float(inked[:REACH].mean()), float(inked[-REACH:].mean())),
            reaches_corners=reaches, into_border=into_border,
            run_on=tuple(line.run_on(corner_at, sign, half, limit_along) for sign, corner_at in ((-1, start), (1, end))),
            alongside=line.alongside(along, half) if narrow and width > THIN else 0.0,
            # (a side drawn nowhere: the scene's colour along it)
            colour=tuple(float(v) for v in np.median(line.pixels(
                along[inked] if inked.any() else along[hit] if hit.any() else along), axis=0))))
    return OutlineMeasures(tuple(float(v) for v in box), float(width), tuple(float(v) for v in colour),
                           float(contrast), float(tau), model is not None, tuple(sides))


def rejection(measures: OutlineMeasures) -> str | None:
    """Why the measured rectangle is not a drawn box by the hand rules, or None when it is:
    "hidden" (labels' boxes hide too much of a side), "border" (a side stops short of the border
    where the box is cut off), "coverage" (a side drawn along too little of its length or not up
    to its corners), "crossing" (lines going on past a corner), "sides" (fewer than two seen) or
    "colour" (sides unlike in colour)."""
    width = measures.width
    seen = [s for s in measures.sides if s is not None]
    left = measures.sides[2]
    if any(_too_hidden(s) for s in seen):
        return "hidden"
    # the left side's own label and other labels' boxes together leave too little of it to judge
    if left is not None and round((1 - left.hidden - left.own_hidden) * left.length) < MIN_SIDE // 2:
        return "hidden"
    if not all(s.into_border for s in seen):
        return "border"
    if any(s.coverage < MIN_COVERAGE or not s.reaches_corners for s in seen):
        return "coverage"
    # a box's lines stop at its corners: two lines going on past one are crossing (the rectangle
    # between two overlapping boxes' crossings); one line going on is another box's line, a T
    # where a side of this box lies on it, which counts only when both sides are drawn right up
    # to the corner (one box's corner with another's far corner leaves a gap there). Not checked
    # at the top-left corner: the label is written there, and the corner finder read the corner
    # with its label.
    if lines_cross(measures):
        return "crossing"
    if len(seen) < 2:
        return "sides"
    measured = measures.measured_colour()
    if any(not _alike(s.colour, measured, width) for s in seen):
        return "colour"
    return None


def _too_hidden(side: SideMeasures) -> bool:
    """Whether other labels' dark boxes hide too much of a side to judge it: more than MAX_HIDDEN
    of it, unless that is one label's box at most (LABEL_BOX_MAX px) and MIN_SIDE px of the side
    are left to see. One label's box hides nearly half of a short side."""
    hidden = side.hidden * side.length
    left = (1 - side.hidden - side.own_hidden) * side.length
    return side.hidden > MAX_HIDDEN and (hidden > LABEL_BOX_MAX or left < MIN_SIDE)


def lines_cross(measures: OutlineMeasures) -> bool:
    """Whether lines go on past one of the rectangle's unlabelled corners as two boxes' lines
    crossing do (rejection's "crossing": both go on, or one does where the sides stop short of it)."""
    return any(max(a, b) > MAX_RUN_ON and not (drawn_up_to and min(a, b) <= T_STUB)
               for a, b, drawn_up_to in measures.corners())


def outline_of(measures: OutlineMeasures, learned: bool = False) -> Outline:
    """The Outline of measured sides (whether they pass or not; `learned`: a verifier passed them)."""
    seen = [s for s in measures.sides if s is not None]
    tees = sum(max(a, b) > MAX_RUN_ON for a, b, _ in measures.corners())
    merged = any(s.alongside > MAX_ALONGSIDE for s in seen)
    return Outline(*measures.box, measures.width, tuple(float(v) for v in measures.measured_colour()),
                   measures.contrast, min(s.coverage for s in seen), len(seen), merged, tees, learned,
                   measures=measures)


class Rejections:
    """A Verifier that accepts nothing and keeps what the rules rejected, (measures, reason) in
    the order asked, so that another verifier's second opinion can be had later without fitting
    the same rectangles again (outlines_at_corner.outlines_from)."""

    def __init__(self) -> None:
        self.rejected: list[tuple[OutlineMeasures, str]] = []
        # the rectangles on each of a side's strokes the rules could not tell apart and rejected
        # every one of (_told_apart): kept apart, since the second opinion at ACCEPTANCE is never
        # asked which stroke is the side; verifier_outlines.between_seen_corners asks it where
        # both corners are seen
        self.untold: list[tuple[OutlineMeasures, str]] = []

    def accepts(self, measures: OutlineMeasures, reason: str) -> bool:
        self.rejected.append((measures, reason))
        return False

    def overruled_by(self, verifier: Verifier) -> Outline | None:
        """The first rejected rectangle `verifier` accepts (as verify would have returned it), or None."""
        for measures, reason in self.rejected:
            if verifier.accepts(measures, reason):
                return outline_of(measures, learned=True)
        return None


def verify(measures: OutlineMeasures | None, verifier: Verifier | None = None) -> Outline | None:
    """The Outline of a measured rectangle (measure_outline), or None when some visible side is
    not of its colour along most of its length or up to its corners, or two lines cross at a
    corner (rejection), unless `verifier` accepts what was measured (the Outline is then
    `learned`); None too for no measures (a side too short to measure)."""
    if measures is None:
        return None
    reason = rejection(measures)
    if reason is None:
        return outline_of(measures)
    if verifier is not None and verifier.accepts(measures, reason):
        return outline_of(measures, learned=True)
    return None


def _reaches_corners(hit: np.ndarray, lightness: np.ndarray, own_lightness: float, check_start: bool = True) -> bool:
    """Whether a side (hit: (n,) drawn along it; lightness: (n,) L on its centre line) is drawn
    up to both its corners, as a box's side is. A side of the rectangle between two overlapping
    boxes stops short of a corner where it meets the other box's line (a T, not a corner). A
    stretch covered by another label's dark box is excused: it is darker than BOX_DARK where the
    line is not, and no longer than a label's box (LABEL_BOX_MAX px from the corner to where the
    side is drawn; a dark scene goes on further). check_start: whether the start (the end nearer
    0) is checked too."""
    # each end's zone, and the side read from that end towards the other
    ends = [(slice(0, REACH), hit)] if check_start else []
    ends.append((slice(-REACH, None), hit[::-1]))
    for zone, towards_corner in ends:
        if hit[zone].mean() >= MIN_REACH:
            continue
        # a label's box is at most LABEL_BOX_MAX px long: a longer stretch not drawn up to the
        # corner is a dark scene the side does not reach through
        undrawn = int(np.argmax(towards_corner)) if towards_corner.any() else len(hit)
        hidden = ((lightness[zone] < BOX_DARK).mean() >= MIN_REACH and own_lightness >= BOX_DARK + 10
                  and undrawn <= LABEL_BOX_MAX)
        if not hidden:
            return False
    return True
