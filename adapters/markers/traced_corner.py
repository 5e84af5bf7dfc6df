"""Where a box's far corner may lie, traced along its top and left sides from its top-left corner.

The corner finder proposes the far corners it sees. One drawn where another box's line goes on
(seed 14 image 130: B's bottom side lies on A's top side) or at another box's corner (seed 9
image 2: A's bottom-right corner on B's top side) reads less as a corner, and is proposed a few
px off or not at all; the box is then never fitted. From its top-left corner, a box's top side
runs right to its right side and its left side down to its bottom side: where their ink first
stops is a guess at the far corner, which fit_outline then measures as it measures a proposed one.
Only the first stop: a side may run on through another box's line a few px past its own end
(seed 12 image 183: A's bottom side on C's top side, D's top side 4 px below), and the rectangle
to that line passes the rules as a box borrowing its sides would.

Why by hand: following one stroke of a known colour along a known row is a few lines over what
box_outline already measures; contour and line detectors see the scene's edges as well.
"""

from __future__ import annotations

import numpy as np

from .box_outline import MIN_SIDE, SEARCH, Side, _alike, _Line, side_candidates, tolerance

START = 16  # px next to the top-left corner where its two sides are looked for
END_GAP = 3  # px not inked in a row where a side's ink stops (fewer: JPEG, a busy scene)


def traced_far_corner(lab: np.ndarray, x0: float, y0: float) -> tuple[float, float] | None:
    """A guess (x1, y1) at the far corner of a box whose top-left corner is (x0, y0) on an
    (H, W, 3) Lab image: where its top and left sides' ink first stops, as centre lines (half a
    stroke in from the ink's end); None where no top and left side of one colour start there, or
    one stops less than MIN_SIDE px on."""
    top = side_candidates(lab, y0, x0, x0 + START)
    left = side_candidates(lab, x0, y0, y0 + START, transposed=True)
    pairs = [(a, b) for a in top for b in left if _alike(a.lab, b.lab, min(a.width, b.width))
             and abs(a.pos - y0) <= SEARCH and abs(b.pos - x0) <= SEARCH]
    if not pairs:
        return None
    # a box's two sides are of one colour; a label's glyphs or a scene edge beside one is not
    top_side, left_side = min(pairs, key=lambda pair: float(np.linalg.norm(np.subtract(pair[0].lab, pair[1].lab))))
    x1 = _stops(lab, top_side, left_side, transposed=False)
    y1 = _stops(lab, left_side, top_side, transposed=True)
    return None if x1 is None or y1 is None else (x1, y1)


def _stops(lab: np.ndarray, side: Side, across: Side, transposed: bool) -> float | None:
    """The centre line of the side ending `side` (a horizontal stroke, vertical when
    `transposed`): its ink followed from the side `across` it at its start to where END_GAP px
    in a row are not inked (or the image's border), half a stroke in; None when under MIN_SIDE px on."""
    limit = lab.shape[0] if transposed else lab.shape[1]
    width = (side.width + across.width) / 2
    colour = (np.asarray(side.lab) + np.asarray(across.lab)) / 2
    line = _Line(lab, side.pos, transposed, colour, tolerance(width, min(side.contrast, across.contrast)))
    start = int(round(across.pos))
    inked = np.concatenate([line.inked(np.arange(start, limit)), np.zeros(END_GAP, bool)])  # past the border: none
    # the first END_GAP positions in a row not inked; the ink stops just before them
    gap_starts = np.flatnonzero(np.convolve(~inked, np.ones(END_GAP, int), mode="valid") == END_GAP)
    end = start + int(gap_starts[0]) - 1 - (width - 1) / 2
    return float(end) if end - across.pos >= MIN_SIDE else None
