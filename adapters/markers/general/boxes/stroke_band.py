"""Whether a box's sides lie on their strokes: the band of ink across each side, row by row.

A drawn side's line is the middle of its stroke. A rectangle whose side lies well off the middle
of the band of ink beside it was put there by something other than the stroke: a corner finder's
corner under a label's dark box, or a fit that took a scene's edge. A band wider than the box's
other strokes is the side merged with another line of its colour, and its middle says nothing
of where the side lies, and so does a band too faint or too wide to bound (a 1 px line blended
away from the box's colour, a scene of that colour). A side off a band that does say where its
stroke is moves onto the band's middle, when that is near (a fit on JPEG's fringe or a scene's
edge beside the stroke). A side lying in the gap between two bands stays where it was fitted
(either may be its own), and one fitted off the ink beside a band that cannot say where its stroke
lies is off its strokes, with no move. No library measures this: a few means over the pixels
measure.measure_outline judges.

    off_its_strokes(lab, outline, style) -> bool        some side off its stroke
    onto_strokes(lab, outline, style) -> Outline | None  such sides moved onto their strokes' middles
    stroke_across(lab, outline, side, style) -> (px off, band width) | None
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from adapters.markers.general.boxes.measure import side_line
from adapters.markers.general.boxes.outline import Outline, tolerance
from adapters.markers.general.thresholds import (
    BAND_SHARE,
    BESIDE_GAP,
    BLIND_GAP,
    CORE_SHARE,
    MAX_MOVE,
    MAX_OFF_BAND,
    MIN_INKED,
    MIN_SIDE,
    OFF_GAP,
    ON_CORE,
    STROKE_REACH,
    WIDER_BAND,
)


def off_its_strokes(lab: np.ndarray, outline: Outline, style: Outline) -> bool:
    """Whether a side of `outline` lies over MAX_OFF_BAND px off the middle of its band of ink
    (_off_sides), or off the ink beside a band that cannot say where its stroke is
    (_beside_unplaceable_ink)."""
    return bool(_off_sides(lab, outline, style)) or _beside_unplaceable_ink(lab, outline, style)


def onto_strokes(lab: np.ndarray, outline: Outline, style: Outline) -> Outline | None:
    """`outline` with each side off the middle of its band (_off_sides) moved onto it, or None
    where such a side lies over MAX_MOVE px away, a side lies off the ink beside a band that cannot
    say where its stroke is (_beside_unplaceable_ink) or the moved outline is judged off its
    strokes again; `outline` itself when no side is off."""
    if _beside_unplaceable_ink(lab, outline, style):
        return None
    off = _off_sides(lab, outline, style)
    if not off:
        return outline
    if any(abs(px) > MAX_MOVE for px in off.values()):
        return None
    box = list(outline.box)
    for side, px in off.items():
        box[(1, 3, 0, 2)[side]] += px  # side top, bottom, left, right -> box coordinate y0, y1, x0, x1
    moved = replace(outline, x0=box[0], y0=box[1], x1=box[2], y1=box[3], measures=None)
    return None if off_its_strokes(lab, moved, moved if style is outline else style) else moved


def _off_sides(lab: np.ndarray, outline: Outline, style: Outline) -> dict[int, float]:
    """side -> px from its line to the middle of its band of ink, for each side of `outline` over
    MAX_OFF_BAND px off a band that says where its stroke is (MIN_INKED, ending inside the rows
    searched) and is no wider than the narrowest of `style`'s (the box's own, or a placed box's
    in the same style) by more than WIDER_BAND: its own stroke, which the side missed. A wider
    band is the side merged with another line, whose middle is not the side's (as merged_band.refit_merged
    judges a side's run against the narrowest side's). Not a side on the core of its band
    (_on_its_core), nor one between two bands (_between_bands), which one band alone does not place."""
    sides = [_bands(lab, outline, side, style) for side in range(4)]
    own = [_nearest_band(bands) for bands in sides]
    narrowest = _narrowest(lab, outline, style, own)
    if narrowest is None:
        return {}
    return {side: band.off for side, (band, bands) in enumerate(zip(own, sides))
            if band is not None and abs(band.off) > MAX_OFF_BAND and band.width <= narrowest + WIDER_BAND
            and band.inked >= MIN_INKED and band.bounded and not _on_its_core(bands)
            and not _between_bands(bands)}


def _narrowest(lab: np.ndarray, outline: Outline, style: Outline, own: list[_Band | None]) -> int | None:
    """The narrowest band of `style`'s sides (`own`: `outline`'s bands, where `style` is `outline`),
    None where no side has one. (A median would count merged sides, whose bands are several times wider.)"""
    styled = own if style is outline else [_band(lab, style, side, style) for side in range(4)]
    widths = [band.width for band in styled if band is not None]
    return min(widths) if widths else None


def _beside_unplaceable_ink(lab: np.ndarray, outline: Outline, style: Outline) -> bool:
    """Whether a side of `outline` lies off the ink beside a band that cannot say where its stroke
    is (_beside_a_blind_band)."""
    sides = [_bands(lab, outline, side, style) for side in range(4)]
    narrowest = _narrowest(lab, outline, style, [_nearest_band(bands) for bands in sides])
    return narrowest is not None and any(_beside_a_blind_band(bands, narrowest) for bands in sides)


def _beside_a_blind_band(bands: _Bands | None, narrowest: int) -> bool:
    """Whether a side's line (`bands`: the bands across it, _bands) lies on no inked row, over OFF_GAP and at
    most BLIND_GAP px from the near edge of the band nearest it, not between two bands (_between_bands),
    and that band, inked along MIN_INKED of the side, cannot say where the stroke is: wider than
    `narrowest` by more than WIDER_BAND (the side's stroke merged with another line) or running to the
    edge of the rows searched. The fit took the scene beside the band for the side, and no move onto the
    band's middle would be right (a 2 px side merged with another box's side a few px from it into one
    band, fitted just past the band's outer edge)."""
    if bands is None:
        return False
    centre = len(bands.rows) // 2  # index of the side's line's own row
    if any(centre in run for run in bands.runs):
        return False
    nearest = min(bands.runs, key=lambda run: min(abs(bands.rows[run] - bands.across)))
    if not OFF_GAP < min(abs(bands.rows[nearest] - bands.across)) <= BLIND_GAP:
        return False
    if _between_bands(bands):
        return False  # ink on both sides: the side stays where it was fitted (_off_sides)
    if bands.share[nearest].max() < MIN_INKED:
        return False  # a band too faint to say anything (a scene near the box's colour)
    unbounded = nearest[0] == 0 or nearest[-1] == len(bands.rows) - 1
    return unbounded or int(nearest[-1] - nearest[0]) > narrowest + WIDER_BAND


def _on_its_core(bands: _Bands | None) -> bool:
    """Whether a side's line (`bands`: the bands across it, _bands) lies within ON_CORE px of the middle of the
    run of rows through it inked at CORE_SHARE of the best row's share or more: the stroke itself, the
    band around it made wider by a fainter line of the colour beside it. Where every side measured is
    merged so (two boxes' sides 5 px apart, and a third side unseen), the narrowest band is no yardstick,
    and the middle of the band is not the side's (a side fitted on its own stroke would move towards
    another box's parallel side running beside part of it)."""
    if bands is None:
        return False
    row = len(bands.rows) // 2  # the side's line's own row (rounded)
    core = bands.share >= CORE_SHARE * bands.share.max()
    if not core[row]:
        return False
    low, high = row, row
    while low > 0 and core[low - 1]:
        low -= 1
    while high < len(core) - 1 and core[high + 1]:
        high += 1
    return abs((bands.rows[low] + bands.rows[high]) / 2 - bands.across) <= ON_CORE


def stroke_across(lab: np.ndarray, outline: Outline, side: int, style: Outline) -> tuple[float, int] | None:
    """(px from side `side`'s line to the middle of the band of ink nearest it across, the band's
    width in rows less one), or None where the side lies too near the border or is too short.

    Ink is a pixel within the box's tolerance of `style`'s colour; each row (column) across the
    side counts the share of positions along it that are ink, and the band is the run of rows at
    1 / BAND_SHARE of the best row's share or more nearest the side's own. Rows, not each
    position's run through the side's row (merged_band._side_ink): a side 2 px off a 1 px line has
    no ink on its own row to start a run from. No library measures this: a few means over the
    pixels measure.measure_outline judges."""
    band = _band(lab, outline, side, style)
    return None if band is None else (band.off, band.width)


class _Band(NamedTuple):
    """The band of ink across a side: px from the side's line to its middle, its width in rows
    less one, the share of the side its best row inks, and whether it ends inside the rows searched."""

    off: float
    width: int
    inked: float
    bounded: bool


class _Bands(NamedTuple):
    """The rows across a side and their bands of ink: the side's line, the rows (k,), each row's
    share of the side that is ink (k,), and the runs of rows inked at 1 / BAND_SHARE of the best
    row's share or more (index arrays into `rows`)."""

    across: float
    rows: np.ndarray
    share: np.ndarray
    runs: list[np.ndarray]


def _bands(lab: np.ndarray, outline: Outline, side: int, style: Outline) -> _Bands | None:
    """The bands of ink across side `side` of `outline`, within STROKE_REACH px past half `style`'s
    stroke, or None where the side lies too near the border, is too short or crosses no ink."""
    across, start, end, transposed, limit_across, limit_along = side_line(outline.box, side, *lab.shape[:2])
    half = style.width / 2
    reach = int(np.ceil(half)) + STROKE_REACH
    row = int(round(across))
    along = np.arange(int(np.ceil(start + half + 1)), int(np.floor(end - half - 1)) + 1)
    along = along[(along >= 0) & (along < limit_along)]
    if row - reach < 0 or row + reach >= limit_across or len(along) < MIN_SIDE // 2:
        return None
    rows = row + np.arange(-reach, reach + 1)
    pixels = lab[along][:, rows] if transposed else lab[rows][:, along].transpose(1, 0, 2)  # (n, k, 3)
    share = (np.linalg.norm(pixels - np.asarray(style.lab), axis=-1)
             <= tolerance(style.width, style.contrast)).mean(axis=0)  # (k,)
    if share.max() == 0:
        return None
    inked = np.flatnonzero(share >= share.max() / BAND_SHARE)
    return _Bands(across, rows, share, np.split(inked, np.flatnonzero(np.diff(inked) > 1) + 1))


def _band(lab: np.ndarray, outline: Outline, side: int, style: Outline) -> _Band | None:
    """The band of ink nearest side `side` of `outline` across it (stroke_across)."""
    return _nearest_band(_bands(lab, outline, side, style))


def _nearest_band(bands: _Bands | None) -> _Band | None:
    """Of a side's `bands` (_bands), the one nearest its line's own row."""
    if bands is None:
        return None
    rows, share = bands.rows, bands.share
    row = rows[len(rows) // 2]  # the side's line's own row (rounded)
    nearest = min(bands.runs, key=lambda run: min(abs(rows[run] - row)))
    return _Band(float((rows[nearest[0]] + rows[nearest[-1]]) / 2 - bands.across), int(nearest[-1] - nearest[0]),
                 float(share[nearest].max()), bool(nearest[0] > 0 and nearest[-1] < len(rows) - 1))


def _between_bands(bands: _Bands | None) -> bool:
    """Whether a side (`bands`: the bands across it, _bands) lies in the gap between two bands of ink, one on either
    side of its line, each inked along MIN_INKED of the side at least and with its near edge over
    OFF_GAP and at most BESIDE_GAP px from the line: two parallel lines of the box's colour (its own
    side and another box's, or a scene's edge). Which one is its stroke the bands cannot say, so
    the side stays where it was fitted, rather than move onto the nearer (a side fitted between its
    own 1 px line and another box's line a few px away would move onto the other's). Nor is such a
    side refused: a 1 px line's ink often lies a row off its fitted line, and refusing would turn
    away more right boxes than wrong ones."""
    if bands is None:
        return False
    edges = [bands.rows[run] - bands.across for run in bands.runs if bands.share[run].max() >= MIN_INKED]
    below = [-float(e.max()) for e in edges if e.max() < 0]
    above = [float(e.min()) for e in edges if e.min() > 0]
    return (bool(below) and bool(above) and OFF_GAP < min(below) <= BESIDE_GAP
            and OFF_GAP < min(above) <= BESIDE_GAP)
