"""Where a box's side lies when another line of its colour touches it along one edge.

Two boxes' parallel sides a stroke's width apart merge into one band, and the side fitted on the
band's profile can be either line's or a mix of both (outline.Outline.merged: up to about 2 px
off). The side's other edge, where only the scene lies beside it, is still sharp: measured as far
from the side's centre as the box's unmerged sides' edges lie from theirs, it says where the
side's centre is. The same measure is a second opinion on outlines the fit did not flag, which
can also sit on a band's fringe. No library measures this; it is a few medians over the pixels
measure.measure_outline already judges.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from adapters.markers.general.boxes.measure import side_line
from adapters.markers.general.boxes.outline import Outline, tolerance
from adapters.markers.general.boxes.thin_line import Line
from adapters.markers.general.thresholds import (
    ALONGSIDE,
    CLEAR_ENDS,
    EDGE_MIN_CONTRAST,
    EDGE_REACH,
    EVEN_PAST,
    MAX_ALONGSIDE,
    MAX_SHIFT,
    MERGED_WIDER,
    MIN_CALIBRATION,
    MIN_WIDTH,
    RUN_ALIKE,
    STEADY,
    UNCLEAR_ENDS,
)


@dataclasses.dataclass(frozen=True)
class _SideInk:
    """The ink run across one side at each position along it: its ends (px from the side's fitted
    centre line), and how often another line of the colour touches it on one side."""

    across: float  # the fitted centre line
    low: np.ndarray  # (n,) offset of the run's first ink row (towards 0) from `across`
    high: np.ndarray  # (n,) offset of its last
    alongside: float  # fraction of positions with another line of the colour on one side only


def _side_ink(lab: np.ndarray, outline: Outline, side: int) -> _SideInk | None:
    """The ink across side `side` (0 top, 1 bottom, 2 left, 3 right), or None when it lies outside
    the image or is too short to measure."""
    across, start, end, transposed, limit_across, limit_along = side_line(outline.box, side, *lab.shape[:2])
    half = outline.width / 2
    reach = int(np.ceil(half)) + ALONGSIDE + EDGE_REACH
    row = int(round(across))
    if row - reach < 0 or row + reach >= limit_across:
        return None
    along = np.arange(int(np.ceil(start + half + 1)), int(np.floor(end - half - 1)) + 1)
    along = along[(along >= 0) & (along < limit_along)]
    if len(along) < 8:
        return None
    colour = np.asarray(outline.lab)
    line = Line(lab, across, transposed, colour, tolerance(outline.width, outline.contrast))
    offsets = np.arange(-reach, reach + 1)
    ink = np.linalg.norm(line.pixels(along, list(row + offsets)) - colour, axis=-1) <= line.tau  # (n, k)
    centre = reach  # index of offset 0
    # the run of ink through the centre row: its ends, scanning out from the centre
    outward_low = ink[:, :centre + 1][:, ::-1]  # centre, centre-1, ...
    outward_high = ink[:, centre:]
    low = -np.argmin(np.concatenate([outward_low, np.zeros((len(along), 1), bool)], axis=1), axis=1) + 1
    high = np.argmin(np.concatenate([outward_high, np.zeros((len(along), 1), bool)], axis=1), axis=1) - 1
    on_centre = ink[:, centre]
    beside = int(round(half + ALONGSIDE))
    below, above = ink[:, centre - beside], ink[:, centre + beside]
    shift = across - row  # the rows are whole pixels; the ends are measured from the fitted line
    return _SideInk(float(across), low[on_centre] - shift, high[on_centre] - shift, float((below != above).mean()))


def off_centre(lab: np.ndarray, outline: Outline, side: int) -> float | None:
    """How far (px) the middle of side `side`'s run of ink across (0 top, 1 bottom, 2 left, 3
    right) lies from its fitted centre line, or None where it cannot be measured."""
    ink = _side_ink(lab, outline, side)
    if ink is None or len(ink.low) < 8:
        return None
    return (float(np.median(ink.low)) + float(np.median(ink.high))) / 2


def refit_merged(lab: np.ndarray, outline: Outline, second_opinion: bool = False) -> Outline | None:
    """`outline` with each side merged with another line of its colour moved to where its free
    edge says its centre is, or None when that cannot be told.

    A side is merged where its run of ink across is wider than the narrowest side's by more than
    MERGED_WIDER px (the other line widens it); the other sides say how far an edge lies from a
    side's centre (at least MIN_CALIBRATION of them). Of a merged side's two ends, the one reaching
    further past those edges is the other line's (UNCLEAR_ENDS apart at least), and the other is
    free; a move over MAX_SHIFT px is no refit of the same side. Two ends reaching past alike by at
    most EVEN_PAST each show a blurred side and no other line: it stays where it was fitted. A
    side with another line beside it along part of its length only (more than MAX_ALONGSIDE, as
    measure.outline_of flags it) whose median run is not wider keeps its place when its ends lie
    where the box's edges do (within UNCLEAR_ENDS each): the line beside it does not reach the
    median. Where its ends do not, but
    its run is as wide as the other sides' (within RUN_ALIKE), the run is its stroke, off the fitted
    line: the side moves to the run's centre (at most MAX_SHIFT), as the fit of a flagged outline.

    second_opinion: `outline` was not flagged merged, so moving it overrides a fit nothing
    doubted. Its stroke must be MIN_WIDTH wide and EDGE_MIN_CONTRAST strong, a merged side's ends
    CLEAR_ENDS apart and its free end STEADY: a faint stroke, a 1 px one, two thin lines a few px
    apart and a side with scene of its colour on both edges all show a free edge that would move
    a right box a px or more. A None then keeps the fit."""
    if second_opinion and (outline.width < MIN_WIDTH or outline.contrast < EDGE_MIN_CONTRAST):
        return None
    inks = [_side_ink(lab, outline, side) for side in range(4)]
    measured = [k for k, ink in enumerate(inks) if ink is not None and len(ink.low) >= 8]
    if len(measured) < MIN_CALIBRATION + 1:
        return None
    runs = {k: float(np.median(inks[k].high - inks[k].low)) for k in measured}
    narrowest = min(runs.values())
    merged = [k for k in measured if runs[k] > narrowest + MERGED_WIDER]
    clean = [inks[k] for k in measured if k not in merged]
    if len(clean) < MIN_CALIBRATION:
        return None
    # how far each edge lies from a side's fitted centre, on this box's unmerged sides
    low_edge = float(np.median([np.median(ink.low) for ink in clean]))
    high_edge = float(np.median([np.median(ink.high) for ink in clean]))

    def past_ends(ink: _SideInk) -> tuple[float, float]:
        """(px its low end, its high end reach past where the box's edges lie)"""
        return low_edge - float(np.median(ink.low)), float(np.median(ink.high)) - high_edge

    box = list(outline.box)
    for k in measured:
        if k not in merged and inks[k].alongside > MAX_ALONGSIDE:
            if max(abs(v) for v in past_ends(inks[k])) <= UNCLEAR_ENDS:
                continue  # the line beside it does not reach the median run: it lies where fitted
            # a run as wide as the other sides' runs is the side's own stroke, off the fitted line
            # (fitted short of a wide stroke, with another box's side a px or two past it); its
            # centre, as far from the box's edges' middle as the fit is off, places it
            others = [runs[j] for j in measured if j != k and j not in merged]
            off = (float(np.median(inks[k].low)) + float(np.median(inks[k].high)) - low_edge - high_edge) / 2
            if second_opinion or abs(runs[k] - float(np.median(others))) > RUN_ALIKE or abs(off) > MAX_SHIFT:
                return None
            box[(1, 3, 0, 2)[k]] = inks[k].across + off
    if not merged and not any(inks[k].alongside > MAX_ALONGSIDE for k in measured):
        return None  # nothing merged to be seen: the fit's flag (Outline.merged) stands
    for k in merged:
        ink = inks[k]
        past_low, past_high = past_ends(ink)
        if abs(past_high - past_low) < (CLEAR_ENDS if second_opinion else UNCLEAR_ENDS):
            if not second_opinion and max(past_low, past_high) <= EVEN_PAST:
                continue  # a blurred side, no other line in its median run: it lies where fitted
            return None
        free = ink.high if past_high < past_low else ink.low
        if second_opinion and np.mean(np.abs(free - np.median(free)) <= 1) < STEADY:
            return None
        # the free end reaches past where a box's edge lies by as much as the fit is off
        centre = ink.across - past_low if past_high > past_low else ink.across + past_high
        if abs(centre - ink.across) > MAX_SHIFT:
            return None
        box[(1, 3, 0, 2)[k]] = centre
    return dataclasses.replace(outline, x0=box[0], y0=box[1], x1=box[2], y1=box[3], merged=False,
                               measures=None)
