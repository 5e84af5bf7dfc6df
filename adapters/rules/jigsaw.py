"""Jigsaw: which candidate is the blacked-out corner (BLINK: lower right) of the first image?

`jigsaw.seam_continuity` needs no weights. A photograph is locally continuous, so the piece cut
from it continues the pixels next to the hole: its top rows carry on from the rows above the
hole, its left columns from the columns to the left. The rule finds the hole (the near-black
rectangle in the lower-right corner), resizes each candidate to it, and scores how well the
candidate's border strips continue the image's strips beside the hole, in value and in
gradient; the smoother seam wins. Another corner named in the prompt is handled by mirroring
the picture and the pieces so that corner becomes the lower right.

The strips skip the first pixels next to the hole: JPEG smears the black into them.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver
from adapters.rules.choices import image_options

DARK = 16  # a pixel whose brightest channel is below this is part of the blacked-out corner
PIECE_DARK = 40  # looser: confirming a corner of known size only needs most of it dark
JPEG_MARGIN = 2  # pixels beside the hole skipped: JPEG bleeds the black into them
STRIP = 3  # rows (columns) compared on each side of the seam
GRADIENT_WEIGHT = 0.5  # how much the gradient's continuity counts beside the value's


def find_hole(image: np.ndarray) -> tuple[int, int]:
    """(x0, y0): where the blacked-out lower-right rectangle begins, in an (H, W, 3) uint8 image.

    The rectangle [y0:, x0:] that best separates dark from not dark: it maximises the sum of
    (dark - 1/2) over its pixels, so it grows by a row or column exactly while more than half
    of that row or column is dark along the whole hole. Dark picture content next to the hole
    spans only part of an edge and stays out. Raises QuestionError when the corner is not dark.
    """
    dark = (image.max(axis=2) < DARK).astype(np.float64)
    height, width = dark.shape
    # gain[y, x] = sum of (dark - 0.5) over [y:, x:]: a 2D suffix sum, every corner at once
    gain = np.flip(np.flip(dark - 0.5, (0, 1)).cumsum(0).cumsum(1), (0, 1))
    y0, x0 = np.unravel_index(int(np.argmax(gain)), gain.shape)
    y0, x0 = int(y0), int(x0)
    hole = dark[y0:, x0:]
    if gain[y0, x0] <= 0 or min(hole.shape) < 3 or hole.mean() < 0.9:
        raise QuestionError("the first image has no blacked-out lower-right corner to fill")
    return x0, y0


def hole_from_pieces(image: np.ndarray, pieces: list[np.ndarray]) -> tuple[int, int] | None:
    """(x0, y0) when every piece has one size that fits the image and the corner of that size
    is mostly dark (the pieces were cut at the hole's size); None otherwise."""
    sizes = {piece.shape[:2] for piece in pieces}
    height, width = image.shape[:2]
    if len(sizes) != 1:
        return None
    piece_h, piece_w = sizes.pop()
    if not (3 <= piece_h < height and 3 <= piece_w < width):
        return None
    corner = image[height - piece_h:, width - piece_w:].max(axis=2) < PIECE_DARK
    return (width - piece_w, height - piece_h) if corner.mean() >= 0.5 else None


def seam_cost(image: np.ndarray, piece: np.ndarray, x0: int, y0: int) -> float:
    """How badly `piece` (resized to the hole) continues `image` across the hole's top and left
    edges: mean absolute jump in value plus GRADIENT_WEIGHT x jump in gradient, per channel
    level (0-255), each edge weighted by its length. Lower is smoother."""
    height, width = image.shape[:2]
    hole_h, hole_w = height - y0, width - x0
    piece = cv2.resize(piece, (hole_w, hole_h), interpolation=cv2.INTER_AREA if piece.shape[0] > hole_h else cv2.INTER_LINEAR)
    img, pc = image.astype(np.float32), piece.astype(np.float32)
    costs, weights = [], []
    gap = JPEG_MARGIN
    if y0 - gap - STRIP >= 0 and hole_h > STRIP + 1:
        above = img[y0 - gap - STRIP: y0 - gap, x0:]  # (STRIP, hole_w, 3), nearest row last
        top = pc[:STRIP]
        costs.append(_edge_cost(above, top))
        weights.append(hole_w)
    if x0 - gap - STRIP >= 0 and hole_w > STRIP + 1:
        left = img[y0:, x0 - gap - STRIP: x0 - gap].transpose(1, 0, 2)  # (STRIP, hole_h, 3)
        first_columns = pc[:, :STRIP].transpose(1, 0, 2)
        costs.append(_edge_cost(left, first_columns))
        weights.append(hole_h)
    if not costs:
        raise QuestionError("the hole reaches the image's edge: no border to compare the pieces with")
    return float(np.average(costs, weights=weights))


def _edge_cost(outside: np.ndarray, inside: np.ndarray) -> float:
    """outside: strips before the seam, nearest last; inside: strips after it, nearest first;
    both (STRIP, L, 3). The value jump compares the strips' means next to the seam; the
    gradient jump compares the step across each side."""
    value = np.abs(inside[0] - outside[-1]).mean()
    gradient = np.abs((inside[1] - inside[0]) - (outside[-1] - outside[-2])).mean()
    return float(value + GRADIENT_WEIGHT * gradient)


_CORNER = re.compile(r"\b(upper|top|lower|bottom)[\s-]+(left|right)\b", re.IGNORECASE)


def missing_corner(question: MCQuestion) -> tuple[bool, bool]:
    """(at the bottom, at the right) of the corner the prompt says is missing; BLINK's is the
    lower right, which is also assumed when the prompt names none."""
    match = _CORNER.search(question.question or question.prompt)
    if match is None:
        return True, True
    return match.group(1).lower() in ("lower", "bottom"), match.group(2).lower() == "right"


def to_lower_right(image: np.ndarray, bottom: bool, right: bool) -> np.ndarray:
    """Mirror an image so the missing corner sits at the lower right (pieces mirrored alike
    keep their seams)."""
    if not bottom:
        image = image[::-1]
    if not right:
        image = image[:, ::-1]
    return np.ascontiguousarray(image)


class JigsawSeam(Solver):
    """`jigsaw.seam_continuity`: the candidate whose borders continue the image beside the hole."""

    rule = "jigsaw.seam_continuity"

    def decide(self, question: MCQuestion) -> Decision:
        images = question.images
        if len(images) < 3:
            raise QuestionError(f"{question.idx}: Jigsaw needs the picture and two pieces, got {len(images)} image(s)")
        bottom, right = missing_corner(question)
        picture = to_lower_right(np.asarray(images[0].convert("RGB")), bottom, right)
        pieces = {letter: to_lower_right(np.asarray(images[index].convert("RGB")), bottom, right)
                  for letter, index in image_options(question).items()}
        # the pieces' own size places the hole exactly when they were cut at it; else find it
        corner = hole_from_pieces(picture, list(pieces.values()))
        x0, y0 = corner if corner is not None else find_hole(picture)
        costs = {letter: seam_cost(picture, piece, x0, y0) for letter, piece in pieces.items()}
        details = {"corner": f"{'lower' if bottom else 'upper'} {'right' if right else 'left'}",
                   "hole_xywh_mirrored": [x0, y0, picture.shape[1] - x0, picture.shape[0] - y0],
                   "hole_from": "piece size" if corner is not None else "dark corner", "seam_cost": costs}
        return Decision.from_scores({letter: -cost for letter, cost in costs.items()}, self.rule, details)
