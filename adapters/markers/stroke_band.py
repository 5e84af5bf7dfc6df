"""Whether a box's sides lie on their strokes: the band of ink across each side, row by row.

A drawn side's line is the middle of its stroke. A rectangle whose side lies well off the middle
of the band of ink beside it was put there by something other than the stroke: a corner finder's
corner under a label's dark box, or a fit that took a scene's edge. A band wider than the box's
other strokes is the side merged with another line of its colour, and its middle says nothing
of where the side lies. No library measures this: a few means over the pixels box_outline judges.

    off_its_strokes(lab, outline, style) -> bool        some side off its stroke
    stroke_across(lab, outline, side, style) -> (px off, band width) | None
"""

from __future__ import annotations

import numpy as np

from .box_outline import MIN_SIDE, Outline, side_line, tolerance

# px a side may lie off the middle of its band of ink: fresh seed 17 image 140's rectangle between
# the finder's corners had its top side 1.9 px off the band; a rectangle right within 2 px lay
# 1.4 px off (seed 14 image 173)
MAX_OFF_BAND = 1.5
WIDER_BAND = 1  # px (whole rows) a band of ink is wider than the box's narrowest when another line merges
STROKE_REACH = 4  # px past half the stroke searched across a side for its band of ink
# a row inked along this many times less of the side than the best row is still in its band: a
# stroke mostly under labels' boxes (seed 13 image 18: 0.28 of its rows) beside a row another
# line inks more (0.65)
BAND_SHARE = 3


def off_its_strokes(lab: np.ndarray, outline: Outline, style: Outline) -> bool:
    """Whether a side of `outline` lies over MAX_OFF_BAND px off the middle of its band of ink where
    that band is no wider than the narrowest of `style`'s (the box's own, or a placed box's in the
    same style) by more than WIDER_BAND: its own stroke, which the side missed. A wider band is
    the side merged with another line, whose middle is not the side's (as merged_side judges a
    side's run against the narrowest side's)."""
    own = [stroke_across(lab, outline, side, style) for side in range(4)]
    styled = own if style is outline else [stroke_across(lab, style, side, style) for side in range(4)]
    widths = [band[1] for band in styled if band is not None]
    if not widths:
        return False
    narrowest = min(widths)  # (a median counts merged sides: seed 9 image 102's, 8-12 rows against 3)
    return any(band is not None and abs(band[0]) > MAX_OFF_BAND and band[1] <= narrowest + WIDER_BAND for band in own)


def stroke_across(lab: np.ndarray, outline: Outline, side: int, style: Outline) -> tuple[float, int] | None:
    """(px from side `side`'s line to the middle of the band of ink nearest it across, the band's
    width in rows less one), or None where the side lies too near the border or is too short.

    Ink is a pixel within the box's tolerance of `style`'s colour; each row (column) across the
    side counts the share of positions along it that are ink, and the band is the run of rows at
    1 / BAND_SHARE of the best row's share or more nearest the side's own. Rows, not each
    position's run through the side's row (merged_side._side_ink): a side 2 px off a 1 px line has
    no ink on its own row to start a run from. No library measures this: a few means over the
    pixels box_outline judges."""
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
    runs = np.split(inked, np.flatnonzero(np.diff(inked) > 1) + 1)
    nearest = min(runs, key=lambda run: min(abs(run - reach)))
    return float((rows[nearest[0]] + rows[nearest[-1]]) / 2 - across), int(nearest[-1] - nearest[0])
