"""Panels of an abstract visual reasoning puzzle (MARVEL's), found without weights.

A puzzle is a grid of bordered panels (the context, one of them the blank to fill) above a row of
bordered choice panels, drawn apart or as one frame whose cells share their borders. The frames
are the outermost closed rectangles of dark ink (shapes drawn inside a panel are inside one);
each frame's panels are the rectangles between the lines that cross it from border to border
(a shape touching a cell's border crosses no frame; a stroke across one cell would make it much
narrower than the others, and is not taken for a border). Rows are panels whose
centres lie within half a panel's height of each other; the choices are the bottom row.

    find_panels(rgb) -> Panels(rows)   rows top to bottom, each left to right, boxes (x0, y0, x1, y1)

Written with OpenCV's contours by hand since no library finds a puzzle's panels; measured only on
rendered puzzles (real MARVEL images were not at hand), so its figures on the release are unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

INK = 128  # grey level below which a pixel is a drawn line
MIN_SIDE = 0.04  # a panel's side is at least this share of the image's shorter side
MAX_AREA = 0.6  # and it covers at most this share of the image (a frame round the whole puzzle is none)
RECTANGULAR = 0.9  # a panel's outline fills its bounding box this much (a circle fills ~0.79)
SAME = 0.8  # two outlines overlapping this much (IoU) are one panel's (a thick border's two edges)
FRAME_ASPECT = 8  # a frame of panels in a row may be this long (a panel alone is at most PANEL_ASPECT)
PANEL_ASPECT = 3
LINE_FULL = 0.95  # a line across a frame is ink along this much of it
EVEN_CELLS = 0.6  # a frame's cells are about equal: none narrower than this share of their median


@dataclass(frozen=True)
class Panels:
    rows: list[list[tuple[int, int, int, int]]]

    @property
    def context(self) -> int:
        return sum(len(row) for row in self.rows[:-1])

    @property
    def choices(self) -> int:
        return len(self.rows[-1]) if self.rows else 0

    @property
    def total(self) -> int:
        return sum(len(row) for row in self.rows)


def _iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return inner[0] >= outer[0] and inner[1] >= outer[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def _separators(profile: np.ndarray, border: int) -> list[int]:
    """Centres of the runs of a frame's full-length lines (ink fraction >= LINE_FULL along the
    frame), away from its own border; runs that would cut off a cell much narrower than the
    others (a stroke drawn from border to border inside one cell) are dropped."""
    full = np.flatnonzero(profile >= LINE_FULL)
    full = full[(full > border) & (full < len(profile) - 1 - border)]
    centres = [int(run.mean()) for run in np.split(full, np.flatnonzero(np.diff(full) > 1) + 1) if len(run)]
    while centres:
        edges = [0, *centres, len(profile) - 1]
        sizes = np.diff(edges)
        narrow = int(np.argmin(sizes))
        if sizes[narrow] >= EVEN_CELLS * np.median(sizes):
            break
        # drop the separator between the narrowest cell and its narrower neighbour
        neighbour = narrow - 1 if narrow == len(sizes) - 1 or (narrow > 0 and sizes[narrow - 1] < sizes[narrow + 1]) else narrow + 1
        centres.pop(min(narrow, neighbour))
    return centres


def _cells(box: tuple[int, int, int, int], ink: np.ndarray) -> list[tuple[int, int, int, int]]:
    """A panel, or the cells of a frame drawn with shared borders: the rectangles between the
    lines that cross it from border to border (a shape touching a cell's border does not)."""
    x0, y0, x1, y1 = box
    inside = ink[y0:y1, x0:x1].astype(bool)
    border = max(2, round(0.03 * min(x1 - x0, y1 - y0)))
    xs = [x0, *(x0 + c for c in _separators(inside.mean(axis=0), border)), x1]
    ys = [y0, *(y0 + c for c in _separators(inside.mean(axis=1), border)), y1]
    return [(xs[i], ys[j], xs[i + 1], ys[j + 1]) for j in range(len(ys) - 1) for i in range(len(xs) - 1)]


def find_panels(rgb: np.ndarray) -> Panels:
    """The panels of an (H, W, 3) uint8 puzzle image, in rows (see the module's doc)."""
    gray = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY)
    height, width = gray.shape
    ink = (gray < INK).astype(np.uint8)
    contours, _ = cv2.findContours(ink, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    least = MIN_SIDE * min(height, width)
    boxes: list[tuple[int, int, int, int]] = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w < least or h < least or w * h > MAX_AREA * width * height or not 1 / FRAME_ASPECT <= w / h <= FRAME_ASPECT:
            continue
        if cv2.contourArea(contour) < RECTANGULAR * w * h:
            continue
        if len(cv2.approxPolyDP(contour, 0.02 * cv2.arcLength(contour, True), True)) != 4:
            continue
        box = (x, y, x + w, y + h)
        if any(_iou(box, other) >= SAME for other in boxes):
            continue
        boxes.append(box)
    frames = [b for b in boxes if not any(o != b and _inside(b, o) for o in boxes)]
    outermost = [cell for box in frames for cell in _cells(box, ink)]
    outermost = [b for b in outermost if 1 / PANEL_ASPECT <= (b[2] - b[0]) / (b[3] - b[1]) <= PANEL_ASPECT]
    if not outermost:
        return Panels([])
    heights = np.median([b[3] - b[1] for b in outermost])
    rows: list[list[tuple[int, int, int, int]]] = []
    for box in sorted(outermost, key=lambda b: (b[1] + b[3]) / 2):
        centre = (box[1] + box[3]) / 2
        if rows and abs(centre - np.mean([(b[1] + b[3]) / 2 for b in rows[-1]])) <= heights / 2:
            rows[-1].append(box)
        else:
            rows.append([box])
    return Panels([sorted(row) for row in rows])
