"""Read Object_Localization's boxes as BLINK draws them (draw.blink.draw_blink_boxes): box A red,
box B green, each a hollow rectangle with its label's tab filled in its colour at the top-left;
B is drawn first, so A's lines and tab may lie over B's.

One mechanism, per label, on two masks: the label's own colour (`points.ink_map`, strict
enough that orange wood or a pink face is not the box's red) and the colours drawn after it
(which may hide parts of it, and so count neither for nor against it):
1. corners: where a tab-sized block is filled (in its colour, or hidden) with nothing of its
   colour just above or to the left of it. Every drawn box has one; a hidden tab counts, since A
   drawn over B's corner leaves B's corner under A's ink;
2. hypotheses: from each corner, the right side at the ends of the runs of colour along the top
   line (or where a column of colour starts at the top), the bottom likewise from the left side,
   or the image's edge when the line runs out of the image;
3. checks: each side shows its colour along most of what is not hidden, and at least a quarter
   of its length; no side runs on past its corners; the box is hollow and larger than its tab.
   The best-covered hypothesis wins; each side is then the centre of its band of colour (JPEG
   bleeds the colour evenly to both sides).
A label whose colour shows no such box is left to the general reader, with the reason: never a
guess.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from adapters.markers.blink.draw import BOX_COLOURS, BlinkBoxStyle
from adapters.markers.blink.points import BlinkRead, ink_map
from adapters.markers.types import Marker

INK = 0.8  # ink-map value counted as the box's colour (its lines read ~1 after JPEG)


TAB_FILL = 0.6  # the tab's inside is at least this full of ink (its letter leaves the rest)


TAB_MARGIN = 0.8  # and its margins around the letter, each, this full


OUTSIDE_EMPTY = 0.35  # just outside the top-left corner, at most this much of the colour: a corner


LINE_INK = 0.75  # of a side's pixels not hidden by later boxes, at least this share shows its colour


OWN_SHOWING = 0.25  # a side showing less of its length is taken as hidden under a later box


SLIVER = 0.4  # soft ink along a hidden side's neighbour line that shows the side's own sliver


OVERSHOOT = 0.25  # past a corner a side's line has stopped: at most JPEG's one-pixel bleed of colour


HOLLOW = 0.3  # a box is an outline: at most this much of its inside is its colour


MIN_RUN = 12  # px: shorter runs of colour propose no side


SNAP = 3  # px: how far a run may start from the corner it belongs to


def _all_runs(mask: np.ndarray, bridge: int) -> list[list[tuple[int, int]]]:
    """Per row of a 2-D bool array, the (start, end) inclusive of its True runs, gaps up to
    `bridge` joined (a closing along the rows; an odd kernel, so up to bridge + 1 for an even
    bridge), at least MIN_RUN long."""
    size = bridge + 1 + bridge % 2
    # zeros past both ends, so that the closing does not carry a run out to the image's edge
    padded = np.pad(mask.astype(np.uint8), ((0, 0), (size, size)))
    closed = cv2.morphologyEx(padded, cv2.MORPH_CLOSE, np.ones((1, size), np.uint8))[:, size - 1:-size + 1]
    closed[:, 0] = closed[:, -1] = 0
    edges = np.diff(closed.astype(np.int8), axis=1)
    rows_start, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)  # row-major order: the k-th end closes the k-th start
    ends = ends - 1
    keep = ends - starts + 1 >= MIN_RUN
    out: list[list[tuple[int, int]]] = [[] for _ in range(mask.shape[0])]
    for row, start, end in zip(rows_start[keep].tolist(), starts[keep].tolist(), ends[keep].tolist()):
        out[row].append((start, end))
    return out


class _Integral:
    """Counts of a mask's pixels in windows placed at every pixel, from one integral image."""

    def __init__(self, mask: np.ndarray, pad: int) -> None:
        self.pad = pad
        self.height, self.width = mask.shape
        self.sums = cv2.integral(np.pad(mask.astype(np.uint8), pad), sdepth=cv2.CV_32S)

    def window(self, rows: tuple[int, int], cols: tuple[int, int]) -> np.ndarray:
        """(H, W): for every pixel (y, x), how many mask pixels lie in rows y+rows[0] .. y+rows[1]-1
        and columns x+cols[0] .. x+cols[1]-1 (nothing outside the image)."""
        p, H, W, s = self.pad, self.height, self.width, self.sums
        r0, r1, c0, c1 = rows[0] + p, rows[1] + p, cols[0] + p, cols[1] + p
        return (s[r1:r1 + H, c1:c1 + W] - s[r0:r0 + H, c1:c1 + W] - s[r1:r1 + H, c0:c0 + W] + s[r0:r0 + H, c0:c0 + W])


class _Colour:
    """One label's masks and the runs along its rows and columns."""

    def __init__(self, soft: np.ndarray, hidden: np.ndarray, thickness: int):
        own = soft >= INK
        # where a later box's colour touches this one, JPEG mixes the two (4:2:0 halves the
        # chroma): the pixel beside a later line cannot be judged either, so it counts as hidden
        near_later = cv2.dilate(hidden.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        self.soft, self.own, self.hidden, self.later = soft, own, near_later & ~own, hidden
        self.height, self.width = own.shape
        self.half = thickness // 2  # cv2.rectangle's line covers coordinate - half .. + half
        bridge = 2 * thickness + 1  # another box's line crossing this one (JPEG widens it a little)
        either = own | self.hidden
        self.row_runs, self.col_runs = _all_runs(own, bridge), _all_runs(own.T, bridge)
        if self.hidden.any():  # else (box A, drawn last) the runs of own and hidden are the own runs
            self.row_runs_either, self.col_runs_either = _all_runs(either, bridge), _all_runs(either.T, bridge)
        else:
            self.row_runs_either, self.col_runs_either = self.row_runs, self.col_runs
        # lines that start at a given row (column): where a box's far side may begin
        self.cols_starting: dict[int, list[int]] = {}
        self.rows_starting: dict[int, list[int]] = {}
        for lines, starting in ((self.col_runs_either, self.cols_starting), (self.row_runs_either, self.rows_starting)):
            for q, runs in enumerate(lines):
                for a, _ in runs:
                    starting.setdefault(a, []).append(q)
        # running counts along rows (and along columns) of own and hidden pixels: a line's sum in O(1)
        self.counts = {}
        for along_rows, masks in ((True, (own, self.hidden)), (False, (own.T, self.hidden.T))):
            self.counts[along_rows] = tuple(np.pad(m.astype(np.int32).cumsum(1), ((0, 0), (1, 0))) for m in masks)

    def _line(self, p: int, lo: int, hi: int, along_rows: bool) -> tuple[int, int]:
        """(own, hidden) pixel counts on row (column) p from lo to hi - 1."""
        own, hidden = self.counts[along_rows]
        return int(own[p, hi] - own[p, lo]), int(hidden[p, hi] - hidden[p, lo])

    def corners(self, tab: tuple[int, int]) -> list[tuple[int, int]]:
        """(x0, y0) of every tab-filled corner: the body of a tab hanging from (x0, y0) full of
        ink (own or hidden), and little of the colour just above it or to its left."""
        tab_w, tab_h = tab
        h = self.half
        body_rows, body_cols = (self.half + 1, tab_h - 1), (self.half + 1, tab_w - 1)
        pad = max(tab_w, tab_h) + h + 4
        either, own = _Integral(self.own | self.hidden, pad), _Integral(self.own, pad)
        body = either.window(body_rows, body_cols)
        area = (body_rows[1] - body_rows[0]) * (body_cols[1] - body_cols[0])
        gap = (-self.half - 3, -self.half - 1)  # two lines just outside the corner's line
        above = own.window(gap, (0, tab_w))
        left = own.window((0, tab_h), gap)
        ok = ((body >= TAB_FILL * area) & (above < OUTSIDE_EMPTY * 2 * tab_w)
              & (left < OUTSIDE_EMPTY * 2 * tab_h))
        # a filled tab, not two lines side by side: its margins above, left and right of the
        # letter are full too (the letter sits on the tab's bottom margin, a row JPEG smears)
        for rows, cols in (((0, h + 1), (0, tab_w - 1)), ((0, tab_h - 1), (0, h + 1)),
                           ((0, tab_h - 1), (tab_w - 3, tab_w - 1))):
            area = (rows[1] - rows[0]) * (cols[1] - cols[0])
            ok &= either.window(rows, cols) >= TAB_MARGIN * area
        ys, xs = np.nonzero(ok)
        return list(zip(xs.tolist(), ys.tolist()))

    def far_ends(self, x0: int, y0: int, along_rows: bool, minimum: int) -> set[int]:
        """Where the box's far side may be: for along_rows, the right side's x, from runs along
        the top line that start at the corner (own colour, or own and hidden together), runs of
        own colour further along it, and columns whose colour (or hidden) starts at the top line; the image's
        last column when the top line runs out of it. Likewise the bottom's y down the left side."""
        h = self.half
        runs, either, limit = ((self.row_runs, self.row_runs_either, self.width) if along_rows
                               else (self.col_runs, self.col_runs_either, self.height))
        line, start = (y0, x0) if along_rows else (x0, y0)
        ends: set[int] = set()
        for p in range(max(0, line - h), min(len(runs), line + h + 1)):
            for a, b in either[p]:
                if a <= start + SNAP + h and b >= start + minimum:
                    # a run ending under a later line ends somewhere inside that line's band
                    ends.update(range(b - h - 2 * h - 1, b - h + 1))
            for a, b in runs[p]:
                if b >= start + minimum:
                    ends.add(b - h)
        starting = self.cols_starting if along_rows else self.rows_starting
        for a in range(line - h - SNAP, line - h + SNAP + 1):
            ends.update(q for q in starting.get(a, ()) if q >= start + minimum)
        return {limit - 1 if e >= limit - 1 - h else e for e in ends}

    def side(self, fixed: int, lo: int, hi: int, along_rows: bool) -> tuple[int, bool] | None:
        """The line at row (or column) `fixed` from lo to hi as a side: (pixels of its colour on
        the best of its band's rows, whether it is hidden: under a later box's parallel line,
        showing less than OWN_SHOWING of its length), or None when what is not hidden is not
        mostly its colour."""
        limit, span = (self.height, self.width) if along_rows else (self.width, self.height)
        lo, hi = max(0, lo), min(span - 1, hi)
        length = hi - lo + 1
        best = None
        for p in range(fixed - self.half, fixed + self.half + 1):
            if not 0 <= p < limit:
                continue
            mine, under = self._line(p, lo, hi + 1, along_rows)
            visible = length - under
            if mine < LINE_INK * visible:
                continue
            best = (mine, mine < OWN_SHOWING * length) if best is None else max(best, (mine, mine < OWN_SHOWING * length))
        return best

    def stops(self, fixed: int, start: int, stop: int, along_rows: bool) -> bool:
        """The line at `fixed` (each row of its band) has little of the colour between start and
        stop (exclusive): it ended at its corner. Outside the image or hidden, nothing counts."""
        limit, span = (self.height, self.width) if along_rows else (self.width, self.height)
        lo, hi = max(0, min(start, stop)), min(span, max(start, stop))
        for p in range(fixed - self.half, fixed + self.half + 1):  # every row of the line's band
            if not 0 <= p < limit or hi <= lo:
                continue
            mine, under = self._line(p, lo, hi, along_rows)
            visible = (hi - lo) - under
            if visible and mine > OVERSHOOT * visible:
                return False
        return True

    def centre(self, fixed: int, lo: int, hi: int, along_rows: bool, mask: np.ndarray | None = None) -> float:
        """The centre of the band of colour (or of `mask`) around row (or column) `fixed` over lo..hi."""
        mask = self.own if mask is None else mask
        own = mask if along_rows else mask.T
        lo, hi = max(0, lo), min(own.shape[1] - 1, hi)
        cover = {p: float(own[p, lo:hi + 1].mean()) for p in range(fixed - self.half - 2, fixed + self.half + 3)
                 if 0 <= p < own.shape[0]}
        peak = max(cover.values(), default=0.0)
        band = [p for p, c in cover.items() if c >= 0.5 * peak and abs(p - fixed) <= self.half + 1]
        return (band[0] + band[-1]) / 2 if band and peak > 0 else float(fixed)


def _near_side(colour: _Colour, x0: int, y0: int, far: int, along_rows: bool) -> tuple[int, bool] | None:
    """The top (along_rows; `far` = x1) or the left side (`far` = y1) from the corner as a side
    (Colour.side), or None when it fails or runs on past `far`."""
    h = colour.half
    fixed, start = (y0, x0) if along_rows else (x0, y0)
    side = colour.side(fixed, start, far, along_rows)
    if side is None or not colour.stops(fixed, far + h + 2, far + h + 7, along_rows):
        return None
    return side


def _check(colour: _Colour, x0: int, y0: int, x1: int, y1: int, tab: tuple[int, int],
           top: tuple[int, bool], left: tuple[int, bool]) -> tuple[float, set[str]] | None:
    """(score, hidden sides) of the hypothesis, its top and left sides already checked
    (_near_side), when it passes every other check, else None. The score is how many of the
    colour's pixels its sides account for: of the outlines that fit, the one drawn explains the
    most of its colour (a smaller box inside it, closed by a hidden side, leaves its far lines
    unexplained). At most two sides may be hidden (the other two, seen, end at them; a box all
    under another is that other box)."""
    h, W, H = colour.half, colour.width, colour.height
    if x1 - x0 < tab[0] + 4 or y1 - y0 < tab[1] + 4:
        return None  # a box holds its tab with room to spare
    cut_right, cut_bottom = x1 >= W - 1, y1 >= H - 1
    sides = {"top": top, "left": left}
    if not cut_right:
        sides["right"] = colour.side(x1, y0, y1, False)
    if not cut_bottom:
        sides["bottom"] = colour.side(y1, x0, x1, True)
    if any(s is None for s in sides.values()):
        return None
    hidden = {name for name, (_, under) in sides.items() if under}
    if len(hidden) > 2:
        return None
    beyond = (h + 2, h + 7)
    ends = []
    if not cut_right:
        ends += [(x1, y0 - beyond[0], y0 - beyond[1], False), (x1, y1 + beyond[0], y1 + beyond[1], False)]
    if not cut_bottom:
        ends += [(y1, x1 + beyond[0], x1 + beyond[1], True), (y1, x0 - beyond[0], x0 - beyond[1], True)]
    if not all(colour.stops(fixed, a, b, rows) for fixed, a, b, rows in ends):
        return None
    inner = colour.own[y0 + h + 2: y1 - h - 1, x0 + h + 2: x1 - h - 1].copy()
    if inner.size == 0:
        return None
    inner[: tab[1], : tab[0]] = False  # the tab hangs inside the corner
    if float(inner.mean()) >= HOLLOW:
        return None
    return float(sum(pixels for pixels, _ in sides.values())), hidden


def _hidden_side(colour: _Colour, name: str, box: tuple[int, int, int, int], tab: tuple[int, int]) -> float:
    """Where a hidden side lies: at the centre of the later line that hides it (its own band is
    then within a px or two of it, or would show), a px towards a sliver of its own colour seen
    on one side of that line only."""
    x0, y0, x1, y1 = box
    h = colour.half
    along_rows = name in ("top", "bottom")
    fixed, lo, hi = {"top": (y0, x0, x1), "bottom": (y1, x0, x1), "left": (x0, y0, y1), "right": (x1, y0, y1)}[name]
    # along the top and the left side, the tab hangs from the corner: its colour is no sliver
    lo += (tab[0] if along_rows else tab[1]) if name in ("top", "left") else 2 * h + 2
    hi -= 2 * h + 1
    line = colour.centre(fixed, lo, hi, along_rows, colour.later)
    soft = colour.soft if along_rows else colour.soft.T
    # the later line at the image's edge: the side may lie under it or between it and the edge
    # (its sliver there cut off): the middle of that span is within a px or two of either
    if line <= h + 1.5:
        return line / 2
    if line >= soft.shape[0] - 2.5 - h:
        return (line + soft.shape[0] - 1) / 2
    lo, hi = max(0, lo), min(soft.shape[1], hi)
    if hi <= lo:
        return line

    def ink(p: int) -> float:
        return float(soft[p, lo:hi].mean()) if 0 <= p < soft.shape[0] else 0.0

    def sliver(p: int, outward: int) -> bool:
        # the side's colour beside the later line, and clearly more of it than a little further
        # out (where the scene's own colour would show just as much)
        return ink(p) >= SLIVER and ink(p) >= ink(p + 3 * outward) + SLIVER / 2

    centre = int(round(line))
    reach = range(h + 1, 2 * h + 3)  # just past the later line's band, where the side's own band would peek out
    before = any(sliver(centre - d, -1) for d in reach)
    after = any(sliver(centre + d, 1) for d in reach)
    return line + (after - before)


def _find_box(colour: _Colour, tab: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """The best-supported box of this colour with its tab at the top-left: (x0, y0, x1, y1)."""
    best, best_score, best_hidden = None, -1.0, set()
    for x0, y0 in colour.corners(tab):
        # the top and the left side depend on one far end each: checked once per end
        tops = {x1: _near_side(colour, x0, y0, x1, True) for x1 in colour.far_ends(x0, y0, True, tab[0] + 4)}
        lefts = {y1: _near_side(colour, x0, y0, y1, False) for y1 in colour.far_ends(x0, y0, False, tab[1] + 4)}
        for x1, top in tops.items():
            for y1, left in lefts.items():
                if top is None or left is None:
                    continue
                checked = _check(colour, x0, y0, x1, y1, tab, top, left)
                if checked is not None and checked[0] > best_score:
                    best, (best_score, best_hidden) = (x0, y0, x1, y1), checked
    if best is None:
        return None
    x0, y0, x1, y1 = best
    W, H = colour.width, colour.height
    placed = {"left": colour.centre(x0, y0, y1, False), "top": colour.centre(y0, x0, x1, True),
              "right": float(W - 1) if x1 >= W - 1 else colour.centre(x1, y0, y1, False),
              "bottom": float(H - 1) if y1 >= H - 1 else colour.centre(y1, x0, x1, True)}
    for name in best_hidden:
        placed[name] = _hidden_side(colour, name, best, tab)
    return placed["left"], placed["top"], placed["right"], placed["bottom"]


def read_blink_boxes(rgb: np.ndarray, labels: Sequence[str], style: BlinkBoxStyle | None = None) -> BlinkRead:
    """Boxes of `labels` (A and B) drawn in BLINK's style on an (H, W, 3) uint8 image."""
    height, width = rgb.shape[:2]
    style = style or BlinkBoxStyle.for_image(width, height)
    soft = {label: ink_map(rgb, colour) for label, colour in BOX_COLOURS.items()}
    inks = {label: ink >= INK for label, ink in soft.items()}
    read = BlinkRead()
    for label in labels:
        if label not in BOX_COLOURS:
            read.missing[label] = f"BLINK's boxes are A (red) and B (green); {label!r} has no colour"
            continue
        # boxes drawn after this one (labels before it: B first, then A) may cover its lines
        hidden = np.zeros((height, width), bool)
        for other, mask in inks.items():
            if other < label:
                hidden |= mask
        glyph = style.glyph(label)
        tab = (glyph.width + 2 * style.pad + 1, glyph.height + 2 * style.pad + 1)  # as drawn, in px
        found = _find_box(_Colour(soft[label], hidden, style.thickness), tab)
        if found is None:
            read.missing[label] = (f"no {'red' if label == 'A' else 'green'} outline with its label tab at the top-left "
                                   f"corner (BLINK's drawing of box {label})")
            continue
        x0, y0, x1, y1 = found
        read.markers[label] = Marker(label=label, xy=((x0 + x1) / 2, (y0 + y1) / 2), confidence=1.0,
                                     box=(x0, y0, x1, y1), source="blink_style")
    return read
