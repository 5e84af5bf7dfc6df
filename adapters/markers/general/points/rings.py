"""Find drawn circles (marker rings) in any colour.

Circles: a matched "ring" filter on the Lab image. For each radius r a ring kernel averages the
colour on the circle, a disc kernel the colour inside and an annulus kernel the colour just
outside; a drawn ring is uniform along the circle (low variance) and differs from both sides.
No hue is assumed: red, green, grey or white rings all stand out this way. Peaks are verified one
by one: the ring colour is read off the circle, the pixels of that colour near the circle are
fitted with a circle (robust least squares), and the fit must cover most angles, be thin and
leave the inside mostly free of that colour.

The label words beside each circle are found by words.py (two polarities) and read by
nets.glyphs.GlyphClassifier.

    find_circles(rgb, lab=None) -> [Circle]   strongest first
    verify_circle(rgb, lab, x, y, r, min_contrast) -> Circle | None   one ring checked and refined
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from adapters.markers.colour import to_lab
from adapters.markers.general.thresholds import MAX_CANDIDATES, RING_MIN_CONTRAST

RADII = tuple(np.arange(4.0, 17.0, 1.0))  # ring kernels; drawn radii 5-15 px, with a margin


@dataclass(frozen=True)
class Circle:
    """A verified drawn circle: centre (x, y), radius r and ring width in px, ring colour (RGB),
    contrast (Lab units to its surroundings), angular coverage in [0, 1] and outer radius (where
    the ring's pixels end)."""

    x: float
    y: float
    r: float
    width: float
    colour: tuple[int, int, int]
    lab: tuple[float, float, float]
    contrast: float
    coverage: float
    outer: float


@functools.lru_cache(maxsize=32)
def _ring_kernel(r: float) -> np.ndarray:
    """Anti-aliased circle of radius r, 1.6 px wide, summing to 1."""
    half = int(np.ceil(r + 1))
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    ring = np.clip(1.0 - np.abs(np.hypot(xx, yy) - r) / 0.8, 0, 1)
    return ring / ring.sum()


def _box_mean(image: np.ndarray, half: int) -> np.ndarray:
    side = 2 * half + 1
    return cv2.boxFilter(image, -1, (side, side), normalize=True, borderType=cv2.BORDER_REFLECT)


def ring_response(lab: np.ndarray, radii=RADII) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel: best ring score over radii (H, W) and the radius giving it (H, W).

    score = min(|ring mean - inside mean|, |ring mean - outside mean|) - std along the ring.
    Inside / outside are squares (box filters, O(1) per pixel) standing in for the disc inside
    the ring and the annulus around it: the squares' corners reach a little further, which only
    matters for the outside band, where a label may then count a little more.
    """
    # planar arithmetic (one contiguous (H, W) array per channel): numpy reductions over a
    # trailing axis of 3 are several times slower than three element-wise adds
    L, A, B = cv2.split(lab)
    stack = cv2.merge([L, A, B, L * L + A * A + B * B])
    best = np.full(lab.shape[:2], -np.inf, np.float32)
    best_r = np.zeros(lab.shape[:2], np.float32)
    boxes: dict[int, list[np.ndarray]] = {}

    def box(half: int) -> list[np.ndarray]:
        if half not in boxes:
            boxes[half] = cv2.split(_box_mean(lab, half))
        return boxes[half]

    for r in radii:
        on = cv2.split(cv2.filter2D(stack, -1, _ring_kernel(float(r)), borderType=cv2.BORDER_REFLECT))
        var = on[3] - (on[0] * on[0] + on[1] * on[1] + on[2] * on[2])
        inside = box(max(1, int((r - 2.5) / np.sqrt(2.0))))
        small, big = int(np.ceil(r + 2.5)), int(np.ceil(r + 4.5))
        n_small, n_big = (2 * small + 1) ** 2, (2 * big + 1) ** 2
        wb, ws = n_big / (n_big - n_small), n_small / (n_big - n_small)
        outside = [b * wb - s * ws for b, s in zip(box(big), box(small))]
        d_in = sum((m - i) ** 2 for m, i in zip(on[:3], inside))
        d_out = sum((m - o) ** 2 for m, o in zip(on[:3], outside))
        score = np.sqrt(np.minimum(d_in, d_out)) - np.sqrt(np.maximum(var, 0))
        better = score > best
        best[better] = score[better]
        best_r[better] = r
    return best, best_r


def _peaks(score: np.ndarray, threshold: float, limit: int) -> list[tuple[int, int]]:
    """(x, y) of local maxima (3x3) above threshold, strongest first."""
    dilated = cv2.dilate(score, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((score >= dilated) & (score > threshold))
    order = np.argsort(-score[ys, xs])[: limit * 4]
    picked: list[tuple[int, int]] = []
    for i in order:
        x, y = int(xs[i]), int(ys[i])
        if all((x - px) ** 2 + (y - py) ** 2 > 4 for px, py in picked):
            picked.append((x, y))
        if len(picked) >= limit:
            break
    return picked


def _fit_circle(xs: np.ndarray, ys: np.ndarray, weights: np.ndarray) -> tuple[float, float, float]:
    """Weighted algebraic (Kasa) circle fit -> (cx, cy, r)."""
    a = np.stack([xs, ys, np.ones_like(xs)], 1) * weights[:, None]
    b = (xs ** 2 + ys ** 2) * weights
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    return float(cx), float(cy), float(np.sqrt(max(sol[2] + cx ** 2 + cy ** 2, 0)))


def verify_circle(rgb: np.ndarray, lab: np.ndarray, x: int, y: int, r: float,
                  min_contrast: float = RING_MIN_CONTRAST) -> Circle | None:
    """Check a ring-filter peak and refine it, or None when it is not a drawn circle (its ring
    must differ from its surroundings by min_contrast Lab units)."""
    H, W = lab.shape[:2]
    half = int(np.ceil(r + 8))
    x0, y0, x1, y1 = max(0, x - half), max(0, y - half), min(W, x + half + 1), min(H, y + half + 1)
    patch = lab[y0:y1, x0:x1]
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d = np.hypot(xx - x, yy - y)
    on_ring = np.abs(d - r) <= 0.7
    if on_ring.sum() < 6:
        return None
    colour = np.median(patch[on_ring], axis=0)
    dist = np.linalg.norm(patch - colour, axis=2)
    around = (d <= r - 2.5) | ((d >= r + 2.5) & (d <= r + 5))
    background = float(np.median(dist[around])) if around.any() else 0.0
    if background < min_contrast:
        return None
    tau = float(np.clip(0.45 * background, 6.0, 35.0))
    member = dist < tau
    cx, cy, rr = float(x), float(y), float(r)
    band = 2.8
    for _ in range(3):
        d = np.hypot(xx - cx, yy - cy)
        sel = member & (np.abs(d - rr) <= band)
        if sel.sum() < 8:
            return None
        weights = np.clip(1.0 - dist[sel] / tau, 0.05, 1.0)
        cx, cy, rr = _fit_circle(xx[sel], yy[sel], weights)
        if not 3.0 <= rr <= 18.0 or np.hypot(cx - x, cy - y) > 3.5:
            return None
        band = 2.3
    d = np.hypot(xx - cx, yy - cy)
    sel = member & (np.abs(d - rr) <= band)
    resid = d[sel] - rr
    # the ring's radial extent: offsets where most angles are of the ring colour (a label beside
    # the ring covers a minority of angles, so it does not widen this)
    offsets = np.arange(-4.0, 4.01, 0.5)
    radial = d - rr
    frac = np.array([member[np.abs(radial - o) <= 0.25].mean() if (np.abs(radial - o) <= 0.25).any() else 0.0
                     for o in offsets])
    inside_ring = offsets[frac >= 0.5]
    if len(inside_ring) == 0:
        return None
    width = float(inside_ring.max() - inside_ring.min() + 0.5)
    outer = float(rr + inside_ring.max() + 0.25)
    if np.sqrt(np.mean(resid ** 2)) > 0.45 * width + 0.7:
        return None
    # angular coverage, over the angles whose ring point lies inside the image
    angles = np.arctan2(yy[sel] - cy, xx[sel] - cx)
    bins = np.floor((angles + np.pi) / (2 * np.pi) * 36).astype(int) % 36
    centres = (np.arange(36) + 0.5) / 36 * 2 * np.pi - np.pi
    px, py = cx + rr * np.cos(centres), cy + rr * np.sin(centres)
    visible = (px >= 0) & (px <= W - 1) & (py >= 0) & (py <= H - 1)
    if visible.sum() < 18:
        return None
    hit = np.zeros(36, bool)
    hit[bins] = True
    coverage = float((hit & visible).sum() / visible.sum())
    if coverage < 0.75:
        return None
    inner = d <= rr - width / 2 - 1.5
    if inner.sum() >= 3 and member[inner].mean() > 0.35:
        return None  # a filled disc or a blob of the ring colour, not a ring
    pure = _pure_colour(patch, np.abs(d - rr) <= 1.0, around & ~member, colour)
    rgb_colour = tuple(int(v) for v in np.median(rgb[y0:y1, x0:x1][pure], axis=0))
    lab_colour = tuple(float(v) for v in np.median(patch[pure], axis=0))
    return Circle(cx, cy, rr, width, rgb_colour, lab_colour, background, coverage, outer)


def _pure_colour(patch: np.ndarray, band: np.ndarray, scene: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """(h, w) bool: the ring pixels whose colour best shows the drawn one.

    A 1 px anti-aliased ring is seen as a blend with the scene: its median colour depends on the
    background, so two rings of one question can differ by more than STYLE_COLOUR. The pixels
    in the ring band that lie beyond that median on the line from the scene's colour to it (and
    not far off the line) are the ones the line was centred on; their median is the drawn colour.
    """
    if not scene.any():
        return band
    scene_colour = np.median(patch[scene], axis=0)
    t, off_line, length2 = colour_line(patch, scene_colour, colour)
    if float(length2) <= 1e-3:  # the ring has the scene's colour: nothing to extrapolate
        return band
    pure = band & (t >= 1.0) & (off_line < 0.5 * np.sqrt(length2))
    return pure if pure.sum() >= 5 else band


def colour_line(patch: np.ndarray, start: np.ndarray, end: np.ndarray):
    """Where each (h, w, 3) pixel lies on the colour line from `start` to `end` ((3,) or
    (h, w, 3) each): (t (h, w): 0 at start, 1 at end; off_line (h, w): distance from the line;
    length2: squared length of the line, floored at 1e-3)."""
    towards = end - start
    length2 = np.maximum((towards ** 2).sum(axis=-1), 1e-3)
    offset = patch - start
    t = (offset * towards).sum(axis=-1) / length2
    off_line = np.sqrt(np.maximum((offset ** 2).sum(axis=-1) - t ** 2 * length2, 0))
    return t, off_line, length2


def find_circles(rgb: np.ndarray, lab: np.ndarray | None = None, min_contrast: float = RING_MIN_CONTRAST,
                 limit: int = MAX_CANDIDATES) -> list[Circle]:
    """Every drawn circle in an (H, W, 3) uint8 RGB image, strongest first (duplicates merged).

    min_contrast / limit: the ring filter's peak threshold and how many peaks are verified."""
    lab = to_lab(rgb) if lab is None else lab
    score, radius = ring_response(lab)
    found: list[Circle] = []
    for x, y in _peaks(score, min_contrast, limit):
        # the ring filter's radius is a whole pixel: a 1 px ring whose centre sits half a pixel
        # off the peak is missed by the colour sample at that radius, so half a pixel either
        # side is tried before the peak is given up
        r = float(radius[y, x])
        circle = (verify_circle(rgb, lab, x, y, r, min_contrast) or verify_circle(rgb, lab, x, y, r - 0.5, min_contrast)
                  or verify_circle(rgb, lab, x, y, r + 0.5, min_contrast))
        if circle is None:
            continue
        if any(np.hypot(circle.x - c.x, circle.y - c.y) < 2.5 and abs(circle.r - c.r) < 3 for c in found):
            continue
        found.append(circle)
    return found
