"""Boxes drawn into an image as coloured outlines (CV-Bench marks the objects a question names with
red, blue and green boxes), found by their colour: no model, no weights.

A pixel is of a colour when its hue lies in the colour's band and it is saturated and bright
(HSV with OpenCV's 0-180 hue). Each connected piece of those pixels is a candidate. Its sides are
the outermost rows and columns that the colour covers across most of the piece (specks of the
scene touching a line widen the piece, not those rows); the drawn box is the candidate whose
rectangle has its four sides covered while its middle is not: an outline. A red object of the
scene fills its rectangle and is passed over; a piece too small to be a box, too.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

# hue bands (OpenCV: 0-180), red wrapping round 0
HUES: dict[str, tuple[tuple[int, int], ...]] = {
    "red": ((0, 8), (172, 180)), "orange": ((9, 20),), "yellow": ((21, 35),), "green": ((40, 85),),
    "blue": ((100, 130),), "purple": ((131, 160),),
}
MIN_SATURATION = 120  # a drawn line is a saturated colour; JPEG softens it a little
MIN_VALUE = 90
MIN_SIDE = 6  # px: a smaller piece is a speck, not a box
MIN_SIDE_COVER = 0.6  # share of each side's length the outline must cover (JPEG and overlaps leave gaps)
MAX_MIDDLE_FILL = 0.3  # share of the middle half an outline may cover (a filled object covers it all)
SIDE_BAND = 3  # px from the rectangle's edge in which a side's pixels are looked for


def colour_mask(rgb: np.ndarray, colour: str) -> np.ndarray:
    """(H, W, 3) uint8 RGB -> (H, W) bool: the pixels of `colour` (one of HUES)."""
    if colour not in HUES:
        raise ValueError(f"unknown box colour {colour!r}; known: {', '.join(HUES)}")
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
    hue, saturation, value = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    in_band = np.zeros(hue.shape, bool)
    for low, high in HUES[colour]:
        in_band |= (hue >= low) & (hue <= high)
    return in_band & (saturation >= MIN_SATURATION) & (value >= MIN_VALUE)


def _side_cover(piece: np.ndarray) -> float:
    """The least-covered side of a piece's rectangle: the share of its length with a piece pixel
    within SIDE_BAND of that edge. piece: (h, w) bool, cropped to its bounding rectangle."""
    band = min(SIDE_BAND, *piece.shape)
    top, bottom = piece[:band].any(axis=0), piece[-band:].any(axis=0)
    left, right = piece[:, :band].any(axis=1), piece[:, -band:].any(axis=1)
    return float(min(top.mean(), bottom.mean(), left.mean(), right.mean()))


def _middle_fill(piece: np.ndarray) -> float:
    h, w = piece.shape
    middle = piece[h // 4: h - h // 4, w // 4: w - w // 4]
    return float(middle.mean()) if middle.size else 1.0


def find_outline_box(image: Image.Image | np.ndarray, colour: str) -> tuple[float, float, float, float] | None:
    """The box drawn in `colour` as (x0, y0, x1, y1) pixels (the outline's outer edge, x1 and y1
    exclusive), or None when the image holds no outline of that colour."""
    rgb = np.asarray(image.convert("RGB") if isinstance(image, Image.Image) else image, dtype=np.uint8)
    mask = colour_mask(rgb, colour)
    # a one-pixel closing joins an outline broken by JPEG ringing at its corners
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    best, best_score = None, 0.0
    for label in range(1, count):
        x, y, w, h, _ = stats[label]
        if w < MIN_SIDE or h < MIN_SIDE:
            continue
        piece = labels[y:y + h, x:x + w] == label
        rows = np.flatnonzero(piece.mean(axis=1) >= MIN_SIDE_COVER)
        columns = np.flatnonzero(piece.mean(axis=0) >= MIN_SIDE_COVER)
        if len(rows) < 2 or len(columns) < 2:
            continue
        top, bottom, left, right = int(rows[0]), int(rows[-1]) + 1, int(columns[0]), int(columns[-1]) + 1
        if bottom - top < MIN_SIDE or right - left < MIN_SIDE:
            continue
        rectangle = piece[top:bottom, left:right]
        cover = _side_cover(rectangle)
        if cover < MIN_SIDE_COVER or _middle_fill(rectangle) > MAX_MIDDLE_FILL:
            continue
        score = cover * (bottom - top + right - left)  # the most complete, then the largest outline
        if score > best_score:
            best, best_score = (float(x + left), float(y + top), float(x + right), float(y + bottom)), score
    return best
