"""Panels of an abstract visual reasoning puzzle (MARVEL's), found without weights.

A puzzle is a grid of bordered panels (the context, one of them the blank to fill) above a row of
bordered choice panels, drawn apart or as one frame whose cells share their borders. The panels
are the outermost closed rectangles of dark ink of a panel's size, a frame its cells tile giving
way to the cells; shapes drawn inside a panel cover little of it and are not counted. Rows are panels whose
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
TILED = 0.8  # an outline whose direct children cover this much of it is a grid of them


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


def _children(box: tuple[int, int, int, int], boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """The boxes directly inside `box` (inside no other box that is inside it)."""
    inside = [b for b in boxes if b != box and _inside(b, box)]
    return [b for b in inside if not any(o != b and _inside(b, o) for o in inside)]


def _area(box: tuple[int, int, int, int]) -> int:
    return (box[2] - box[0]) * (box[3] - box[1])


def _panels_of(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """The panels among nested outlines: the outermost ones, except that an outline its direct
    children tile (a grid drawn as one frame with shared borders) gives way to them. A shape
    drawn inside a panel covers little of it, so the panel stays."""
    panels = []
    todo = [b for b in boxes if not any(o != b and _inside(b, o) for o in boxes)]
    while todo:
        box = todo.pop()
        children = _children(box, boxes)
        if len(children) >= 2 and sum(_area(c) for c in children) >= TILED * _area(box):
            todo.extend(children)
        else:
            panels.append(box)
    return panels


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
        if w < least or h < least or w * h > MAX_AREA * width * height or not 1 / 3 <= w / h <= 3:
            continue
        if cv2.contourArea(contour) < RECTANGULAR * w * h:
            continue
        if len(cv2.approxPolyDP(contour, 0.02 * cv2.arcLength(contour, True), True)) != 4:
            continue
        box = (x, y, x + w, y + h)
        if any(_iou(box, other) >= SAME for other in boxes):
            continue
        boxes.append(box)
    outermost = _panels_of(boxes)
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
