"""Where a box's far corner may lie, traced along its top and left sides from its top-left corner.

The corner finder proposes the far corners it sees. One drawn where another box's line goes on
(its bottom side on another box's top side) or at another box's corner (its bottom-right corner
on another box's top side) reads less as a corner, and is proposed a few px off or not at all;
the box is then never fitted. From its top-left corner, a box's top side
runs right to its right side and its left side down to its bottom side: where their ink first
stops is a guess at the far corner, which fit_outline then measures as it measures a proposed one.
Only the first stop: a side may run on through another box's line a few px past its own end
(its bottom side on another box's top side, a third box's top side a few px below), and the rectangle
to that line passes the rules as a box borrowing its sides would. Nor where the ink stops under a
label's dark box (hidden there, not ended), or past two lines of the colour merged into one band
whose far line goes on past the traced side, out of the box: that is another box's line, the
box's own side is the near one, and the rules would pass the rectangle on the far one.

Why by hand: following one stroke of a known colour along a known row is a few lines over what
thin_line.Line already measures; contour and line detectors see the scene's edges as well.
"""

from __future__ import annotations

import numpy as np

from adapters.markers.general.boxes.outline import Side, _alike, tolerance
from adapters.markers.general.boxes.strokes import side_candidates
from adapters.markers.general.boxes.thin_line import Line
from adapters.markers.general.thresholds import (
    AT_CORNER,
    BAND_SLACK,
    BOX_DARK,
    END_GAP,
    LABEL_BOX_DARK,
    LABEL_BOX_MARGIN,
    MIN_SIDE,
    SEARCH,
    START,
)


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
    # a box's two sides meet at its corner: where a pair does, bands of the scene a few px off
    # are not its sides, however alike their colours (two stripes of a gradient a few px off can
    # be more alike than a thin box's own sides through the corner)
    at_corner = [(a, b) for a, b in pairs if abs(a.pos - y0) <= AT_CORNER and abs(b.pos - x0) <= AT_CORNER]
    # a box's two sides are of one colour; a label's glyphs or a scene edge beside one is not
    top_side, left_side = min(at_corner or pairs,
                              key=lambda pair: float(np.linalg.norm(np.subtract(pair[0].lab, pair[1].lab))))
    x1 = _stops(lab, top_side, left_side, transposed=False)
    y1 = _stops(lab, left_side, top_side, transposed=True)
    return None if x1 is None or y1 is None else (x1, y1)


def _stops(lab: np.ndarray, side: Side, across: Side, transposed: bool) -> float | None:
    """The centre line of the side ending `side` (a horizontal stroke, vertical when
    `transposed`): its ink followed from the side `across` it at its start to where END_GAP px
    in a row are not inked (or the image's border), half a stroke in; None when that is under
    MIN_SIDE px on, under a label's dark box, or past two merged lines whose far one goes on out
    of the box (see the module doc)."""
    limit = lab.shape[0] if transposed else lab.shape[1]
    width = (side.width + across.width) / 2
    colour = (np.asarray(side.lab) + np.asarray(across.lab)) / 2
    line = Line(lab, side.pos, transposed, colour, tolerance(width, min(side.contrast, across.contrast)))
    start = int(round(across.pos))
    inked = np.concatenate([line.inked(np.arange(start, limit)), np.zeros(END_GAP, bool)])  # past the border: none
    # the first END_GAP positions in a row not inked; the ink stops just before them
    stop = start + int(np.flatnonzero(np.convolve(~inked, np.ones(END_GAP, int), mode="valid") == END_GAP)[0])
    end = stop - 1 - (width - 1) / 2
    if end - across.pos < MIN_SIDE or _under_a_label_box(line, stop, limit, width):
        return None
    # two lines of the colour merged where the side stops: the far one is the box's side unless it
    # goes on past the traced side, out of the box (another box's line; the box's side is then the
    # near one, and the rules would pass the rectangle on the far one)
    if _run_back_from(line, side.pos + width / 2 + 3, stop) > width + BAND_SLACK and \
            _run_back_from(line, side.pos - width / 2 - 3, stop) >= width / 2:
        return None
    return float(end)


def _under_a_label_box(line: Line, stop: int, limit: int, width: float) -> bool:
    """Whether the END_GAP positions from `stop` on (up to `limit`, the image's length along them)
    are dark (a label's box) across the stroke and LABEL_BOX_MARGIN px past it (a box's top side
    under the label at another box's corner: a stop there would take that box's left side for its
    right side). Judged over the stretch as a whole, not per position as Line.under_label_boxes does:
    requiring every position dark misses a label's box a pixel past a blurred stop, and any
    position takes a dark stretch of a photograph for one. Where the scene outside the box beside the
    stroke is as dark just before the stop, the darkness past it is the scene's."""
    past = np.arange(stop, min(stop + END_GAP, limit))
    reach = int(np.ceil(width / 2)) + LABEL_BOX_MARGIN
    rows = [r for r in range(line.row - reach, line.row + reach + 1) if 0 <= r < line.limit]
    if not len(past) or float((line.pixels(past, rows)[..., 0] < BOX_DARK).mean()) < LABEL_BOX_DARK:
        return False
    # as dark outside the box beside the stroke just before it stops (above a top side, left of a
    # left side: the box's far side runs inside it) is a dark scene, not a label's box starting
    # there (a gradient darkening across the stop is as dark on both sides of it)
    before = np.arange(max(stop - 2 * END_GAP - 1, 0), max(stop - 1, 0))
    outside = [r for r in rows if r < line.row - width / 2 - 1]
    return not (len(before) and outside and
                float((line.pixels(before, outside)[..., 0] < BOX_DARK).mean()) >= LABEL_BOX_DARK)


def _run_back_from(line: Line, across: float, stop: int) -> int:
    """How many positions in a row are inked on the line parallel to `line` at `across`, back
    from `stop` (the run may end a pixel short of it)."""
    row = Line(line.lab, across, line.transposed, line.colour, line.tau)
    if not 0 <= row.row < line.limit:
        return 0
    back = row.inked(np.arange(max(stop - 40, 0), stop))[::-1]
    first = 0 if back[:1].any() else 1
    return int(np.argmin(np.append(back[first:], False)))
