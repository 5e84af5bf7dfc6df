"""Read Object_Localization's boxes as BLINK draws them (blink_draw.draw_blink_boxes): box A red,
box B green, each a hollow rectangle with its label's tab filled in its colour at the top-left.

Per label, in its colour's ink map (`blink_style.ink_map`, strict enough that orange wood or a
pink face is not the box's red):
1. straight runs of ink, along rows and along columns, at least MIN_SIDE long (gaps as wide as
   the other box's lines, which cross them, are bridged);
2. a left side is a column run whose top carries the label's tab (a filled block of the colour);
   a row run leaving it at its top or bottom proposes the right side, which must be there as a
   column run ending where the left side does (or be the image's edge when the box runs past
   it), with the bottom present or cut by the image (the top may lie under the other box's
   line: A is drawn over B);
3. a box is larger than its tab (the tab alone, a filled block, is no box);
4. each side is the centre of its band of runs (JPEG bleeds the colour evenly to both sides).
Filled coloured regions have no thin straight runs at their corners, so they propose nothing.
A label whose colour shows no such box is left to the general reader, with the reason: never a
guess.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .blink_draw import BOX_COLOURS, BlinkBoxStyle
from .blink_style import BlinkRead, ink_map
from .types import Marker

INK = 0.8  # ink-map value counted as the box's colour (its lines read ~1 after JPEG)
SIDE_COVER = 0.6  # a side's runs must cover this much of its length
TAB_FILL = 0.6  # the tab's corner must be at least this full of ink
MIN_SIDE = 12  # px: shorter runs are not box sides
SNAP = 3  # px: how far a run may start from the corner it belongs to
OWN_COVER = 0.25  # a side partly under another box's line must still show this much of its own colour


def _runs(line: np.ndarray, bridge: int) -> list[tuple[int, int]]:
    """(start, end) inclusive of the True runs of a 1-D bool array, gaps up to `bridge` joined,
    at least MIN_SIDE long."""
    idx = np.flatnonzero(line)
    if len(idx) == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) > bridge + 1)
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    ends = np.concatenate((idx[breaks], [idx[-1]]))
    return [(int(a), int(b)) for a, b in zip(starts, ends) if b - a + 1 >= MIN_SIDE]


def _coverage(runs: list[tuple[int, int]], start: float, end: float) -> float:
    """How much of [start, end] the runs cover."""
    length = max(1.0, end - start)
    covered = sum(max(0.0, min(b, end) - max(a, start)) for a, b in runs)
    return covered / length


def _band(positions: list[int]) -> tuple[float, int]:
    """(centre, width) of a band of line positions (consecutive rows or columns)."""
    return (positions[0] + positions[-1]) / 2, positions[-1] - positions[0] + 1


def _side(lines: dict[int, list[tuple[int, int]]], near: int, start: float, end: float, limit: int,
          under: dict[int, list[tuple[int, int]]] | None = None) -> list[int]:
    """Positions within SNAP + 2 of `near` whose runs cover most of [start, end]: a side's band.
    under: runs of this colour or of the boxes drawn over it; a side may lie partly under them,
    but must show at least OWN_COVER of its length in its own colour."""
    band = []
    for p in range(max(0, near - SNAP - 2), min(limit, near + SNAP + 3)):
        own = _coverage(lines[p], start, end)
        if own >= SIDE_COVER or (under is not None and own >= OWN_COVER and _coverage(under[p], start, end) >= SIDE_COVER):
            band.append(p)
    return band


def _find_box(mask: np.ndarray, over: np.ndarray, tab: tuple[int, int], tab_size: tuple[int, int],
              thickness: int) -> tuple[tuple[float, float, float, float], float] | None:
    """The best-supported box outline with its tab in `mask`: ((x0, y0, x1, y1), score).

    Proposed from the left side (a column run whose top carries the tab), the right side from a
    row run leaving the left side at the top or the bottom; the top may be hidden under the
    other box's line (A is drawn over B) or the bottom cut by the image, not both."""
    height, width = mask.shape
    bridge = 2 * thickness + 1  # the other box's line crossing this one (JPEG widens it a little)
    rows = {y: _runs(mask[y], bridge) for y in range(height)}
    cols = {x: _runs(mask[:, x], bridge) for x in range(width)}
    either = mask | over  # this box's colour or the colour of the boxes drawn over it
    under = ({y: _runs(either[y], bridge) for y in range(height)}, {x: _runs(either[:, x], bridge) for x in range(width)},
             {y: _runs(over[y], bridge) for y in range(height)})
    tab_w, tab_h = tab
    rows_under, cols_under, _ = under
    best, tried = None, set()
    for x, runs in cols.items():
        for ya, own_end in runs:
            if own_end - ya < tab_h + 4:
                continue
            # the tab: filled with the colour, but for where the other box's line crosses it
            own_fill = mask[ya:ya + tab_h, x:x + tab_w].mean()
            if own_fill < TAB_FILL and (own_fill < 0.35 or either[ya:ya + tab_h, x:x + tab_w].mean() < TAB_FILL):
                continue
            # the left side may continue under the other box's line: its end there is a candidate too
            ends = {own_end} | {b for a, b in cols_under[x] if a <= ya + SNAP and b > own_end + SNAP}
            for yb, y in ((end, y) for end in sorted(ends) for y in (ya, end)):
                for dy in range(-SNAP, SNAP + 1):
                    for xa, xb in rows.get(y + dy, []):
                        if abs(xa - x) > SNAP or xb - xa < tab_w + 4 or (x, ya // 2, yb // 2, xb // 2) in tried:
                            continue
                        tried.add((x, ya // 2, yb // 2, xb // 2))
                        found = _verify(rows, cols, under, x, ya, xb, yb, (height, width), thickness, tab_size)
                        if found is None:
                            continue
                        (bx0, by0, bx1, by1), score = found
                        # a box holds its tab with room to spare, and is hollow
                        if bx1 - bx0 < 1.8 * tab_w or by1 - by0 < 1.8 * tab_h:
                            continue
                        if not _hollow(mask, found[0], tab, thickness) or (best is not None and score <= best[1]):
                            continue
                        if not _tab_inside(either, found[0], tab, thickness):
                            continue
                        best = found
    return best


def _last_band(positions: list[int]) -> list[int]:
    """The last run of consecutive positions (the band nearest below a search start)."""
    if not positions:
        return []
    band = [positions[-1]]
    for p in reversed(positions[:-1]):
        if p != band[0] - 1:
            break
        band.insert(0, p)
    return band


def _tab_bottom(cols: dict[int, list[tuple[int, int]]], xa: int, ya: int, tab_size: tuple[int, int]) -> float:
    """The last row of the tab below (xa, ya): where its columns' runs stop, on the median column."""
    ends = []
    for x in range(xa + 2, xa + tab_size[0] - 2):
        for a, b in cols.get(x, []):
            if a <= ya + SNAP and b >= ya:
                ends.append(min(b, ya + tab_size[1] + SNAP))
    return float(np.median(ends)) if ends else float(ya + tab_size[1] - 1)


def _verify(rows, cols, under, xa, ya, xb, yb, shape, thickness: int,
            tab_size: tuple[int, int]) -> tuple[tuple[float, float, float, float], float] | None:
    """The right side present (or cut by the image's right edge), the top or the bottom present
    (or the bottom cut): the box along the centres of its sides' bands."""
    height, width = shape
    rows_under, cols_under, rows_over = under
    right = [] if xb >= width - 2 else _side(cols, xb, ya, yb, width, cols_under)
    if not right and xb < width - 2:
        return None
    # the right side's runs must end where the left side's does: a left side cut short by the
    # other box's line would otherwise put the bottom too high
    if right and not any(abs(b - yb) <= SNAP for x in right for a, b in cols[x] if b >= ya):
        return None
    # the top: the nearest full band at or above the left side's start (another box's line over
    # the corner can cut the left side's first pixels off)
    reach = SNAP + 2 + 2 * thickness
    top_rows = [y for y in range(max(0, ya - reach), min(height, ya + SNAP + 3)) if _coverage(rows[y], xa, xb) >= SIDE_COVER]
    top = _last_band(top_rows)
    bottom = [] if yb >= height - 2 else _side(rows, yb, xa, xb, height, rows_under)
    if not bottom and yb < height - 2:
        return None
    left = _side(cols, xa, ya, yb, width, cols_under)
    if not left:
        return None
    widths = [_band(band)[1] for band in (left, right, bottom) if band]
    half = (min(widths) - 1) / 2  # a band as wide as the drawn line; the top may be thickened by the tab
    x0 = _band(left)[0]
    x1 = _band(right)[0] if right else float(width - 1)
    if top and _band(top)[1] <= min(widths) + 1:
        y0 = _band(top)[0]
    else:
        # only a line drawn over it may hide the top (B's, under A's): then the tab's bottom
        # edge still shows where it is; otherwise this is not BLINK's drawing
        hidden = any(_coverage(rows_over[y], xa + tab_size[0], xb) >= SIDE_COVER
                     for y in range(max(0, ya - reach), min(height, ya + SNAP + 3)))
        if not hidden:
            return None
        y0 = _tab_bottom(cols, xa, ya, tab_size) - (tab_size[1] - 1)
    y1 = _band(bottom)[0] if bottom else (float(height - 1) if yb >= height - 2 else yb - half)
    # BLINK's tab hangs inside the box from its top line, and nothing of the box's colour runs on
    # above that line (a label written above a box is another drawing style)
    if ya < y0 - (min(widths) + SNAP):
        return None
    return (x0, y0, x1, y1), (x1 - x0) + (y1 - y0)


def _tab_inside(either: np.ndarray, box: tuple[float, float, float, float], tab: tuple[int, int], line: int) -> bool:
    """BLINK's tab fills the box's top-left corner inside its lines (a label written outside the
    box, another style, leaves that corner empty)."""
    x0, y0 = int(round(box[0])) + line, int(round(box[1])) + line
    body = either[y0: y0 + tab[1] - line, x0: x0 + tab[0] - line]
    return body.size > 0 and float(body.mean()) >= TAB_FILL


def _hollow(mask: np.ndarray, box: tuple[float, float, float, float], tab: tuple[int, int], line: int) -> bool:
    """An outline, not a filled block: little ink inside it, away from its lines and its tab."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    inner = mask[y0 + line + 1: y1 - line, x0 + line + 1: x1 - line].copy()
    if inner.size == 0:
        return False
    inner[: tab[1] + 2, : tab[0] + 2] = False  # the tab hangs inside the corner
    return float(inner.mean()) < 0.3


def read_blink_boxes(rgb: np.ndarray, labels: Sequence[str], style: BlinkBoxStyle | None = None) -> BlinkRead:
    """Boxes of `labels` (A and B) drawn in BLINK's style on an (H, W, 3) uint8 image."""
    height, width = rgb.shape[:2]
    style = style or BlinkBoxStyle.for_image(width, height)
    read = BlinkRead()
    for label in labels:
        colour = BOX_COLOURS.get(label)
        if colour is None:
            read.missing[label] = f"BLINK's boxes are A (red) and B (green); {label!r} has no colour"
            continue
        mask = ink_map(rgb, colour) >= INK
        # boxes drawn after this one (labels before it: B first, then A) may cover its lines
        over = np.zeros_like(mask)
        for other, other_colour in BOX_COLOURS.items():
            if other < label:
                over |= ink_map(rgb, other_colour) >= INK
        glyph = style.glyph(label)
        # the tab as drawn (inclusive rows and columns), and a little inside its edges to test its fill
        tab_size = (glyph.width + 2 * style.pad + 1, glyph.height + 2 * style.pad + 1)
        tab = (tab_size[0] - 3, tab_size[1] - 3)
        found = _find_box(mask, over, tab, tab_size, style.thickness)
        if found is None:
            read.missing[label] = (f"no {'red' if label == 'A' else 'green'} outline with its label tab at the top-left "
                                   f"corner (BLINK's drawing of box {label})")
            continue
        (x0, y0, x1, y1), _ = found
        read.markers[label] = Marker(label=label, xy=((x0 + x1) / 2, (y0 + y1) / 2), confidence=1.0,
                                     box=(x0, y0, x1, y1), source="blink_style")
    return read
