"""What a puzzle panel shows, measured without weights: its shapes and their attributes.

A panel (a box from `specialists.panels.find_panels`) is cut inside its border; ink is every
pixel darker than the paper or clearly coloured. Each connected blob of ink is one shape:

    measure_panel(rgb, box) -> PanelMeasure
        .shapes   [Shape]: size (filled outline area / panel area), centre (x, y in 0-1 of the
                  panel, y down), colour (mean RGB, its name), filled, edges (polygon corners;
                  0 = round), kind (circle, triangle, square, rectangle, pentagon, hexagon,
                  polygon, star, line, other), heading (degrees from the centre to the farthest
                  corner, 0 = right, 90 = up; a regular polygon's turn within its symmetry;
                  None for round shapes), holes
        .ink      share of the panel inked; .centre the ink's centroid
        .mask     (MASK, MASK) float ink map in [0, 1], what image-level rules compare
        .symmetry (left-right, up-down): IoU of the ink with its mirror image
        .question_mark  the panel holds a "?" (the puzzle's blank); .empty  nothing drawn

Written by hand with OpenCV's contours: no library names a puzzle's shapes; measured only on
rendered puzzles (real MARVEL images were not at hand).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

PAPER_GREY = 200  # a pixel darker than this is ink (anti-aliased edges of black lines included)
CHROMA = 48  # or one whose channels differ this much (a light coloured fill is ink too)
MIN_SHAPE = 0.0012  # a blob smaller than this share of the panel is noise (JPEG, a stray pixel)
MIN_SHAPE_PX = 6
BORDER_MARGIN = 0.05  # the panel's own border: this share of its side is cut on every side
MASK = 32  # side of the ink map image-level rules compare
ROUND = 0.84  # circularity 4 pi A / P^2 above which a blob is round (a hexagon is ~0.91 before approximation)
POLY_EPSILON = 0.035  # polygon approximation tolerance, a share of the outline's length
FILLED = 0.6  # ink / filled outline area above which a shape is drawn filled
OUTLINE_HOLE = 0.15  # and no hole larger than this share of its area
STAR_SOLIDITY = 0.72  # a polygon filling less of its convex hull than this is a star
LINE_ASPECT = 6  # a blob this many times longer than wide is a line
SAME_REACH = 0.15  # a polygon whose corners are all this close to the farthest one's distance is regular

# colour names by RGB (the names fine-grained questions use); the nearest in Lab wins
COLOUR_NAMES = {
    "black": (0, 0, 0), "gray": (128, 128, 128), "white": (255, 255, 255), "red": (220, 30, 30),
    "orange": (245, 140, 20), "yellow": (240, 220, 30), "green": (40, 170, 60), "blue": (30, 80, 220),
    "purple": (140, 50, 180), "pink": (245, 130, 190), "brown": (130, 80, 30),
}
KIND_BY_EDGES = {3: "triangle", 5: "pentagon", 6: "hexagon"}


def lab(rgb: tuple[float, float, float]) -> np.ndarray:
    """An RGB colour (0-255) in CIE Lab (L 0-100)."""
    pixel = np.asarray(rgb, np.float32).reshape(1, 1, 3) / 255.0
    return cv2.cvtColor(pixel, cv2.COLOR_RGB2LAB).reshape(3)


_NAMED_LAB = {name: lab(rgb) for name, rgb in COLOUR_NAMES.items()}


def colour_name(rgb: tuple[float, float, float]) -> str:
    """The nearest named colour in CIE Lab."""
    value = lab(rgb)
    return min(_NAMED_LAB, key=lambda name: float(np.linalg.norm(_NAMED_LAB[name] - value)))


def colour_distance(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """Euclidean distance in CIE Lab (about 2.3 is a just-noticeable difference)."""
    return float(np.linalg.norm(lab(a) - lab(b)))


@dataclass(frozen=True)
class Shape:
    """One blob of ink in a panel; geometry in shares of the panel's side (y grows downwards)."""

    size: float
    centre: tuple[float, float]
    box: tuple[float, float, float, float]
    colour: tuple[float, float, float]
    colour_name: str
    filled: bool
    edges: int
    kind: str
    heading: float | None  # degrees; within 0 to 360 / fold for a regular polygon
    fold: int  # 1: the heading points at one farthest corner; k: a regular k-gon's turn; 0: round
    holes: int

    def to_json(self) -> dict:
        return {"kind": self.kind, "edges": self.edges, "colour": self.colour_name, "filled": self.filled,
                "size": round(self.size, 4), "centre": [round(v, 3) for v in self.centre],
                "heading": None if self.heading is None else round(self.heading, 1), "holes": self.holes}


@dataclass(frozen=True)
class PanelMeasure:
    box: tuple[int, int, int, int]
    shapes: tuple[Shape, ...]
    ink: float
    centre: tuple[float, float] | None
    symmetry: tuple[float, float]
    question_mark: bool
    mask: np.ndarray = field(repr=False, compare=False)
    crop: np.ndarray = field(repr=False, compare=False)  # the (h, w, 3) uint8 interior

    @property
    def count(self) -> int:
        return len(self.shapes)

    @property
    def empty(self) -> bool:
        return not self.shapes

    @property
    def main(self) -> Shape | None:
        """The largest shape (what "the shape in choice 2" means when the panel has several)."""
        return max(self.shapes, key=lambda s: s.size) if self.shapes else None

    def to_json(self) -> dict:
        return {"box": list(self.box), "count": self.count, "ink": round(self.ink, 4), "question_mark": self.question_mark,
                "symmetry": [round(v, 3) for v in self.symmetry], "shapes": [s.to_json() for s in self.shapes]}


def ink_mask(rgb: np.ndarray) -> np.ndarray:
    """(H, W) bool: pixels darker than the paper or clearly coloured."""
    rgb = rgb.astype(np.int32)
    grey = (rgb[..., 0] * 299 + rgb[..., 1] * 587 + rgb[..., 2] * 114) // 1000
    chroma = rgb.max(axis=2) - rgb.min(axis=2)
    return (grey < PAPER_GREY) | (chroma > CHROMA)


def interior(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The box less its border band."""
    x0, y0, x1, y1 = box
    margin = max(2, round(BORDER_MARGIN * min(x1 - x0, y1 - y0)))
    return x0 + margin, y0 + margin, x1 - margin, y1 - margin


def _polygon_edges(contour: np.ndarray) -> int:
    return len(cv2.approxPolyDP(contour, POLY_EPSILON * cv2.arcLength(contour, True), True))


def _heading(outer: np.ndarray, cx: float, cy: float) -> tuple[float, int]:
    """(degrees, k): the angle (0 = right, 90 = up) from the centroid to the farthest corner, k = 1;
    where all k corners are about as far (a regular polygon: which one is farthest is
    rasterisation's whim), the polygon's turn within its symmetry, 0 to 360 / k."""
    corners = cv2.approxPolyDP(outer, POLY_EPSILON * cv2.arcLength(outer, True), True).reshape(-1, 2).astype(np.float64)
    reach = np.hypot(corners[:, 0] - cx, corners[:, 1] - cy)
    regular = reach.min() >= (1 - SAME_REACH) * reach.max()
    far = corners if regular else corners[[int(np.argmax(reach))]]
    angles = np.arctan2(-(far[:, 1] - cy), far[:, 0] - cx)  # y down: up is +90 degrees
    fold = len(far)
    # the k-fold circular mean of the corners' angles (each corner's noise averages out), back
    # in degrees within the polygon's own turn, 0 to 360 / k
    mean = math.degrees(math.atan2(np.sin(fold * angles).sum(), np.cos(fold * angles).sum())) % 360
    return mean / fold, fold


def _shape(component: np.ndarray, crop: np.ndarray, side: float) -> Shape:
    """component: (h, w) uint8 0/1 of one blob in the panel crop; side: the panel's side in px."""
    contours, hierarchy = cv2.findContours(component, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    outer = max((c for c, h in zip(contours, hierarchy[0]) if h[3] < 0), key=cv2.contourArea)
    inner = [cv2.contourArea(c) for c, h in zip(contours, hierarchy[0]) if h[3] >= 0]
    holes = sum(1 for a in inner if a > 0.02 * cv2.contourArea(outer))
    area = max(cv2.contourArea(outer), float(component.sum()))
    perimeter = max(cv2.arcLength(outer, True), 1e-6)
    circularity = 4 * math.pi * area / perimeter**2
    hull_area = max(cv2.contourArea(cv2.convexHull(outer)), 1e-6)
    (_, _), (rw, rh), _ = cv2.minAreaRect(outer)
    ink = float(component.sum())
    # an outline encloses a hole of most of its area (a small one's stroke may still be most of its ink)
    filled = ink / max(area, 1.0) >= FILLED and max(inner, default=0.0) < OUTLINE_HOLE * area
    moments = cv2.moments(component, binaryImage=True)
    cx, cy = moments["m10"] / max(moments["m00"], 1), moments["m01"] / max(moments["m00"], 1)
    vertices = _polygon_edges(outer)
    if max(rw, rh) > LINE_ASPECT * max(min(rw, rh), 1.0):
        kind, edges = "line", 1
    elif circularity >= ROUND and vertices > 6:
        kind, edges = "circle", 0
    elif area / hull_area < STAR_SOLIDITY and vertices >= 8:
        kind, edges = "star", vertices
    elif vertices == 4:
        aspect = max(rw, rh) / max(min(rw, rh), 1.0)
        kind, edges = ("square" if aspect < 1.25 else "rectangle"), 4
    else:
        kind, edges = KIND_BY_EDGES.get(vertices, "polygon" if vertices > 6 else "other"), vertices
    heading, fold = None, 0
    if kind not in ("circle",):
        heading, fold = _heading(outer, cx, cy)
    pixels = crop[component.astype(bool)]
    colour = tuple(float(v) for v in np.median(pixels, axis=0))
    x, y, w, h = cv2.boundingRect(outer)
    height, width = component.shape
    return Shape(size=area / (width * height), centre=(cx / width, cy / height),
                 box=(x / width, y / height, (x + w) / width, (y + h) / height), colour=colour,
                 colour_name=colour_name(colour), filled=filled, edges=edges, kind=kind, heading=heading, fold=fold,
                 holes=holes)


def is_question_mark(shapes: tuple[Shape, ...], masks: list[np.ndarray]) -> bool:
    """A "?" drawn in a panel: a dark hook with a dot under it (one or two blobs, no colour);
    the hook is no simple shape (not round, not a closed outline, not a triangle or
    quadrilateral), the dot sits below it within its width, and the two stand taller than wide."""
    if not 1 <= len(shapes) <= 2 or any(s.colour_name not in ("black", "gray") for s in shapes):
        return False
    hook = max(shapes, key=lambda s: s.size)
    x0, y0, x1, y1 = hook.box
    if hook.holes or hook.kind in ("circle", "triangle", "square", "rectangle", "line"):
        return False
    if len(shapes) == 1:  # the dot merged into the hook: a stroke taller than wide
        return (y1 - y0) > 1.2 * (x1 - x0) and not hook.filled
    dot = min(shapes, key=lambda s: s.size)
    tall = (max(y1, dot.box[3]) - y0) > 1.1 * (max(x1, dot.box[2]) - min(x0, dot.box[0]))
    return tall and dot.centre[1] > y1 - 0.02 and x0 - 0.05 <= dot.centre[0] <= x1 + 0.05 and dot.size < 0.5 * hook.size


def measure_panel(rgb: np.ndarray, box: tuple[int, int, int, int]) -> PanelMeasure:
    """The shapes and attributes of the panel `box` (x0, y0, x1, y1) of an (H, W, 3) uint8 image."""
    x0, y0, x1, y1 = interior(box)
    crop = np.ascontiguousarray(rgb[max(y0, 0):y1, max(x0, 0):x1])
    if crop.size == 0:
        raise ValueError(f"panel {box} has no interior")
    ink = ink_mask(crop).astype(np.uint8)
    height, width = ink.shape
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    least = max(MIN_SHAPE_PX, MIN_SHAPE * width * height)
    side = float(min(width, height))
    shapes, masks = [], []
    for label in range(1, n):
        if stats[label, cv2.CC_STAT_AREA] < least:
            continue
        component = (labels == label).astype(np.uint8)
        shapes.append(_shape(component, crop, side))
        masks.append(component)
    kept = np.zeros_like(ink)
    for component in masks:
        kept |= component
    small = cv2.resize(kept.astype(np.float32), (MASK, MASK), interpolation=cv2.INTER_AREA)
    total = float(kept.sum())
    if total:
        ys, xs = np.nonzero(kept)
        centre = (float(xs.mean()) / width, float(ys.mean()) / height)
        mirror_lr = (kept & kept[:, ::-1]).sum() / max((kept | kept[:, ::-1]).sum(), 1)
        mirror_ud = (kept & kept[::-1, :]).sum() / max((kept | kept[::-1, :]).sum(), 1)
    else:
        centre, mirror_lr, mirror_ud = None, 1.0, 1.0
    ordered = tuple(sorted(shapes, key=lambda s: (round(s.centre[1], 1), s.centre[0])))  # reading order
    return PanelMeasure(box=tuple(int(v) for v in box), shapes=ordered, ink=total / (width * height), centre=centre,
                        symmetry=(float(mirror_lr), float(mirror_ud)),
                        question_mark=is_question_mark(ordered, masks), mask=small, crop=crop)
