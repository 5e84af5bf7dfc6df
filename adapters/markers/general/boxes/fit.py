"""Fit a drawn box's outline near where the corner finder put it.

Given an approximate box (x0, y0, x1, y1), within a few px, `fit_outline` takes each side's stroke
from the candidates on its median colour profile (strokes.side_candidates: taken along the side's
whole length, so a 1 px anti-aliased line on a noisy scene stands out of the noise), of the one
colour and width the sides share (strokes.common_colour), and measures and verifies the rectangle
on them (measure.measure_outline and measure.verify; a thin box's sides also against its fitted
look over the scene, thin_line.ThinLineColour). A side on or past the image's border is not
searched. Where a choice is in doubt or fails, other strokes are tried: where a side's profile shows two
strokes of the box's look a few px apart, the one the rules pass the box on (_told_apart); where a
stronger stroke a few px off won a side, those within NEAR_GUESS px of the guess; where a side's
chosen stroke is drawn along too little of it, a stroke nearer the guess found on half the side
(_with_drawn_sides), or one found on either half where the whole side shows none (strokes.on_a_half;
the rules alone then judge); and a stroke that looks cut by the image's border is taken whole where
the sides beside it stop short of the border (_whole_at_border). The outline's types are in
outline.py, the measures and the rules' verdict in measure.py, a thin line's look in thin_line.py
and the stroke candidates in strokes.py.

Why by hand: OpenCV's contours and Hough lines see edges, not strokes. A box drawn over a busy
scene shares its edges with the scene, and two overlapping boxes make one contour; what is needed
here is a 1-D search across one known side, which no library offers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, NamedTuple

import numpy as np

from adapters.markers.general.boxes.measure import Rejections, measure_outline, rejection, verify
from adapters.markers.general.boxes.outline import (
    Outline,
    OutlineMeasures,
    Side,
    SideMeasures,
    Verifier,
    _alike,
    _visible,
)
from adapters.markers.general.boxes.strokes import (
    _nearest,
    alike_strokes,
    at_border,
    band_edge_for_fringe,
    common_colour,
    edge_of_band,
    in_band,
    on_a_half,
    on_each_half,
    side_candidates,
    strokes_at,
    with_far_half,
)
from adapters.markers.general.boxes.thin_line import ThinLineColour, thin_line_colour
from adapters.markers.general.thresholds import (
    COLOUR_SPREAD,
    MIN_COVERAGE,
    MIN_SIDE,
    NARROWER,
    NEAR_GUESS,
    OWN_STROKE_COVERAGE,
    OWN_STROKE_WIDER,
    SEARCH,
    STRONG,
    THIN,
    WIDTH_SPREAD,
)


def fit_outline(lab: np.ndarray, approx: tuple[float, float, float, float],
                verifier: Verifier | None = None) -> Outline | None:
    """The drawn box near `approx` (x0, y0, x1, y1), each side within SEARCH px, or None when its
    sides are not found, unlike each other, or not drawn as a box's (see module doc; `verifier`
    may overrule that last verdict, see measure.verify).

    A side whose approximate position is on or past the image's border is taken as cut off there:
    it is not searched, and the box keeps the approximate coordinate."""
    H, W = lab.shape[:2]
    x0, y0, x1, y1 = approx
    if x1 - x0 < MIN_SIDE or y1 - y0 < MIN_SIDE:
        return None
    options: list[list[Side] | None] = []  # per side (top, bottom, left, right): None = cut off by the border
    for across, start, end, transposed, limit in ((y0, x0, x1, False, H), (y1, x0, x1, False, H),
                                                  (x0, y0, y1, True, W), (x1, y0, y1, True, W)):
        if not _visible(across, 1, limit):
            options.append(None)
            continue
        candidates = side_candidates(lab, across, start, end, transposed)
        if (not transposed and across == y0) or (transposed and across == x0):
            # the labelled corner's sides: a label written inside the box hides the start of both,
            # and over more than half a short side its dark box is what the side's median profile
            # shows; the side's far half shows the stroke
            candidates = with_far_half(candidates, side_candidates(lab, across, (start + end) / 2, end, transposed))
        if not candidates:
            return None
        options.append(candidates)
    common = common_colour([o for o in options if o is not None])
    if common is None:
        return None
    found: list[Side | None] = []
    untold: tuple[int, list[Side]] | None = None  # a side whose strokes cannot be told apart, and them
    rules_only = False  # a side found on half its length (on_a_half): no second opinion then
    for candidates, approximately, (start, end, transposed, limit) in zip(
            options, (y0, y1, x0, x1), ((x0, x1, False, H), (x0, x1, False, H), (y0, y1, True, W), (y0, y1, True, W))):
        if candidates is None:
            # cut off by the border, or drawn just inside it: a side of the box's colour there is the side
            inside = SEARCH if approximately < limit / 2 else limit - 1 - SEARCH
            near_border = _nearest(side_candidates(lab, inside, start, end, transposed), *common)
            found.append(near_border)
            continue
        side = _nearest(candidates, *common, approximately)
        if side is not None:  # a stroke window on the fringe of a band two strokes wide is the band's edge
            side = band_edge_for_fringe(candidates, *common, approximately, side) or side
        else:
            side = edge_of_band(candidates, *common, approximately)
        if side is None and not alike_strokes(candidates, *common):
            side = on_a_half(lab, approximately, start, end, transposed, common)
            # a stroke on half a side makes rectangles measurable that were not (a box's corner
            # to another box's far corner, its side drawn on half): the rules alone judge them
            rules_only |= side is not None
        if side is not None and not side.banded and in_band(candidates, *common, side):
            side = replace(side, banded=True)
        if side is None:
            strokes = strokes_at(candidates, *common, approximately)
            if len(strokes) < 2 or untold is not None:
                return None
            untold = (len(found), strokes)
        found.append(side)
    if untold is not None:  # told apart by which stroke the rules pass the box on
        return _told_apart(lab, found, *untold, approx, verifier if isinstance(verifier, Rejections) else None)
    verifier = None if rules_only else verifier
    rectangle = _rectangle_on_sides(lab, found, approx)
    measures = rectangle.measure(lab) if rectangle is not None else None  # the refit below looks at them too
    if measures is not None and rejection(measures) == "border":
        rectangle, measures = _whole_at_border(lab, found, approx, rectangle, measures)
    outline = verify(measures, verifier) if rectangle is not None and rectangle.alike else None
    if outline is None:
        # a stronger stroke of the box's colour a few px off (another box's side, seen on the far
        # half of a side past a label's box) can win a side from a weaker one where the corner
        # finder put it: the rectangle on the strokes within NEAR_GUESS px of the guess is tried too
        near = [side if candidates is None or side is None or abs(side.pos - guess) <= NEAR_GUESS
                else _nearest([c for c in candidates if abs(c.pos - guess) <= NEAR_GUESS], *common, guess) or side
                for candidates, guess, side in zip(options, (y0, y1, x0, x1), found)]
        if any(a is not b for a, b in zip(near, found)):
            outline = _outline_on_sides(lab, near, approx, verifier)
    if outline is None:
        outline = _with_drawn_sides(lab, options, found, measures, common, approx, verifier)
    return _with_banded_sides(outline, found)


def _with_banded_sides(outline: Outline | None, found: list[Side | None]) -> Outline | None:
    """`outline` naming (Outline.banded) its sides that lie on a banded Side of `found` (top,
    bottom, left, right): where the fit kept that stroke for the side."""
    if outline is None:
        return None
    banded = tuple(name for name, at, side in zip(("top", "bottom", "left", "right"), (1, 3, 0, 2), found)
                   if side is not None and side.banded and abs(outline.box[at] - side.pos) < 0.01)
    return replace(outline, banded=banded) if banded else outline


class _Rectangle(NamedTuple):
    """The rectangle on chosen side strokes, as measure_outline takes it."""

    box: tuple[float, float, float, float]
    width: float
    colour: np.ndarray
    contrast: float
    narrower: list[bool]
    model: ThinLineColour | None
    alike: bool  # every side's stroke is of the box's colour and width

    def measure(self, lab: np.ndarray) -> OutlineMeasures | None:
        return measure_outline(lab, self.box, self.width, self.colour, self.contrast, self.narrower, self.model)


def _rectangle_on_sides(lab: np.ndarray, found: list[Side | None],
                        approx: tuple[float, float, float, float], cut_by_border: bool = True) -> _Rectangle | None:
    """The rectangle on the strokes `found` for its sides (top, bottom, left, right; None for a
    side cut off by the image's border, which keeps `approx`'s coordinate), or None when they are
    too few to make one. cut_by_border: a stroke reaching the border is taken as cut there
    (strokes.at_border); else every stroke is taken as whole, at its measured centre."""
    H, W = lab.shape[:2]
    x0, y0, x1, y1 = approx
    top, bottom, left, right = found
    drawn = [s for s in found if s is not None]
    if len(drawn) < 2 or not (top or bottom) or not (left or right):
        return None
    width = float(np.median([s.width for s in drawn]))
    pos = [(at_border(s, width, limit) if cut_by_border else s.pos) if s is not None else v
           for s, v, limit in zip(found, (y0, y1, x0, x1), (H, H, W, W))]
    colour = np.median(np.array([s.lab for s in drawn]), axis=0)
    alike = all(_alike(s.lab, colour, width) and abs(s.width - width) <= WIDTH_SPREAD for s in drawn)
    box = (pos[2], pos[0], pos[3], pos[1])
    # per side (top, bottom, left, right, as measure_outline takes them): measured narrower than the box
    narrower = [s is not None and width - s.width > NARROWER for s in found]
    model = thin_line_colour(lab, box) if width <= THIN else None
    return _Rectangle(box, width, colour, min(s.contrast for s in drawn), narrower, model, alike)


def _whole_at_border(lab: np.ndarray, found: list[Side | None], approx: tuple[float, float, float, float],
                     rectangle: _Rectangle, measures: OutlineMeasures) -> tuple[_Rectangle, OutlineMeasures]:
    """The rectangle on the strokes `found` with none taken as cut by the border, and its
    measures, where it passes the rules; else `rectangle` and its `measures`, which the rules
    rejected for "border" (a side beside one taken as cut stops short of the border).

    That rejection says the stroke taken as cut is whole: JPEG spreads a 1-2 px stroke's colour
    over about 4 px, so a whole stroke drawn 3 px from the border looks as if it reached it, and
    at_border moves it by up to 1 px to where the box's measured width puts a cut stroke's
    centre; then it lies past what measure_outline sees, and the sides beside it have to run on
    into the border. (The box's own outline is then rejected, and the box may be placed on
    another box's side.)"""
    whole = _rectangle_on_sides(lab, found, approx, cut_by_border=False)
    if whole is None or whole.box == rectangle.box or not whole.alike:
        return rectangle, measures
    whole_measures = whole.measure(lab)
    if whole_measures is None or rejection(whole_measures) is not None:
        return rectangle, measures
    return whole, whole_measures


def _outline_on_sides(lab: np.ndarray, found: list[Side | None], approx: tuple[float, float, float, float],
                      verifier: Verifier | None = None) -> Outline | None:
    """The verified Outline on the strokes `found` for its sides (as _rectangle_on_sides), or
    None when they are too few, unlike each other, or not drawn as a box's (measure.verify)."""
    rectangle = _rectangle_on_sides(lab, found, approx)
    if rectangle is None or not rectangle.alike:
        return None
    return verify(rectangle.measure(lab), verifier)


def _measured_on_sides(lab: np.ndarray, found: list[Side | None],
                       approx: tuple[float, float, float, float]) -> OutlineMeasures | None:
    """What is measured of the rectangle on the strokes `found`, alike or not."""
    rectangle = _rectangle_on_sides(lab, found, approx)
    return None if rectangle is None else rectangle.measure(lab)


def _drawn_along(side: SideMeasures | None) -> bool:
    return side is not None and side.coverage >= MIN_COVERAGE and side.reaches_corners


def _with_drawn_sides(lab: np.ndarray, options: list[list[Side] | None], found: list[Side | None],
                      measures: OutlineMeasures | None, common: tuple[np.ndarray, float],
                      approx: tuple[float, float, float, float], verifier: Verifier | None = None) -> Outline | None:
    """The outline where the rectangle on the strokes `found` fails only for sides drawn along
    too little of their length (rejection's "coverage"): each such side moved to a stroke of the
    box's colour and width (`common`) nearer where the corner finder put it (`approx`) that is
    drawn along it, or None when some side has no such stroke. `options`: each side's candidates
    (None: cut off by the border). `measures`: what was measured of the rectangle on `found`.

    A side's median profile over its whole length can hide its own stroke where something lies
    beside part of it (a line or patch of the box's colour merging with it into a band too wide
    for the box's stroke, a label's box): then another stroke of the box's colour a few px away,
    drawn along a little of the side, is chosen, and the box fails. So each such side's
    candidates are searched on each half of it too, and the one nearest the guess that is drawn
    along the side is taken. Only nearer the guess than the failed stroke: moving a side away
    from where the finder put it can fit a rectangle from one box's corner to another box's far
    corner on a noisy scene. And only to a strong stroke (STRONG x the strongest of the box's look
    there, as strokes.strokes_at): a faint scene edge on half of a 1 px side over a photograph,
    near a guess itself a few px off, can pass in its place. Where no stroke nearer the guess is
    drawn along a thin box's side, and the failed stroke is alike the box only at a thin line's
    spread, the one stroke of the box's own colour drawn along it is taken, however far from the
    guess (_the_one_own_colour_stroke)."""
    if any(side is None for side, candidates in zip(found, options) if candidates is not None):
        return None
    if measures is None or rejection(measures) != "coverage":
        return None
    colour, width = common
    x0, y0, x1, y1 = approx
    spans = ((y0, x0, x1, False), (y1, x0, x1, False), (x0, y0, y1, True), (x1, y0, y1, True))
    chosen = list(found)
    for k, (side, candidates) in enumerate(zip(measures.sides, options)):
        if candidates is None or side is None or _drawn_along(side):
            continue
        guess, start, end, transposed = spans[k]
        alike = alike_strokes([*candidates, *on_each_half(lab, guess, start, end, transposed)], colour, width)
        strongest = max((c.contrast for c in alike), default=0.0)
        nearer: list[Side] = []
        for c in alike:
            if (abs(c.pos - guess) < abs(found[k].pos - guess) and abs(c.pos - found[k].pos) >= 1.0
                    and c.contrast >= STRONG * strongest and not any(abs(c.pos - other.pos) < 1.0 for other in nearer)):
                nearer.append(c)

        def measured_there(stroke: Side) -> SideMeasures | None:
            measured = _measured_on_sides(lab, [*chosen[:k], stroke, *chosen[k + 1:]], approx)
            return None if measured is None else measured.sides[k]

        def drawn_there(stroke: Side) -> bool:
            return _drawn_along(measured_there(stroke))

        drawn = next((c for c in sorted(nearer, key=lambda c: abs(c.pos - guess)) if drawn_there(c)), None)
        if drawn is None and width <= THIN and not _of_own_colour(found[k], colour) and all(
                _of_own_colour(other, colour) for j, other in enumerate(found) if j != k and other is not None):
            drawn = _the_one_own_colour_stroke(alike, colour, width, strongest, found[k], measured_there)
        if drawn is None:
            return None
        chosen[k] = drawn
    return _outline_on_sides(lab, chosen, approx, verifier)


def _the_one_own_colour_stroke(alike: list[Side], colour, width: float, strongest: float, failed: Side,
                               measured_there: Callable[[Side], SideMeasures | None]) -> Side | None:
    """The one strong stroke of the box's own colour (_of_own_colour) drawn along all of a side
    (OWN_STROKE_COVERAGE; `measured_there`: the side measured on a stroke) where the stroke chosen
    for it (`failed`) was alike the box only at a thin line's spread and drawn along too little of
    it; None where none is, or several are (two boxes' parallel sides).
    _with_drawn_sides asks this of thin boxes (THIN) whose other sides are of the box's own colour.

    A scene edge beside a 1 px side (a dark line, a shadow), far off the box's colour, lies
    nearer the finder's guess than the side itself when the guess is 1-3 px off, and is chosen
    (a side fitted on a dark edge a few px from its stroke). The side's own stroke is farther
    from the guess, so _with_drawn_sides, which moves a side only nearer it, never tries it.
    Where the box's colour is itself a blend (a wide box measured narrower than drawn, its colour
    far off its strokes'), "its own colour" says nothing, and a side moved so can fit one box's
    corner to another's far corner, beside its own outline. And a stroke over OWN_STROKE_WIDER px
    wider than the box's (`width`) is two thin strokes merged (two boxes' parallel sides a few px
    apart, one band). A box's own stroke measures about its box's width and is drawn along all of
    its side; another box's line on part of the side is not (the rectangle from where another
    box's side meets this one to its far corner can pass the rules beside the box's own outline)."""
    own: list[Side] = []  # one per stroke: the whole side's candidates and its halves' find it again
    for c in sorted(alike, key=lambda c: -c.contrast):
        if (_of_own_colour(c, colour) and c.contrast >= STRONG * strongest and abs(c.pos - failed.pos) >= 1.0
                and c.width <= width + OWN_STROKE_WIDER and not any(abs(c.pos - other.pos) < 1.0 for other in own)):
            own.append(c)
    drawn = [c for c in own if _drawn_along(side := measured_there(c)) and side.coverage >= OWN_STROKE_COVERAGE]
    return drawn[0] if len(drawn) == 1 else None


def _of_own_colour(stroke: Side, colour) -> bool:
    """Whether `stroke` is of the box's `colour` (Lab) within COLOUR_SPREAD, as a wide stroke must
    be, not only within a thin line's spread (COLOUR_SPREAD_THIN)."""
    return float(np.linalg.norm(np.subtract(stroke.lab, colour))) <= COLOUR_SPREAD


def _told_apart(lab: np.ndarray, found: list[Side | None], k: int, strokes: list[Side],
                approx: tuple[float, float, float, float], rejections: Rejections | None = None) -> Outline | None:
    """The outline with side `k` on the one of `strokes` (lines of the box's look a few px apart
    where the corner finder put it, which its profile cannot tell apart: strokes.strokes_at) on which the
    rules pass the rectangle, or None where they pass it on none or on several. A scene edge beside
    a thin side, in a photograph or noise, can look like the box's stroke on the side's median
    profile without being drawn along the side in the box's colour; two boxes' parallel sides a
    few px apart are both drawn, and stay untold. The rules alone judge (no second opinion from
    the outline verifier): which stroke is the side is what is in doubt. Where they pass none,
    `rejections` (if given) keeps each rectangle they rejected in its `untold`."""
    rejected = Rejections()  # (accepts none: the rules alone judge)
    passing = [outline for outline in (_outline_on_sides(lab, [*found[:k], stroke, *found[k + 1:]], approx, rejected)
                                       for stroke in strokes) if outline is not None]
    if not passing and rejections is not None:
        rejections.untold += rejected.rejected
    return passing[0] if len(passing) == 1 else None
