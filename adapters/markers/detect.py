"""Find drawn circles and the label words beside them, in any colour.

Circles: a matched "ring" filter on the Lab image. For each radius r a ring kernel averages the
colour on the circle, a disc kernel the colour inside and an annulus kernel the colour just
outside; a drawn ring is uniform along the circle (low variance) and differs from both sides.
No hue is assumed: red, green, grey or white rings all stand out this way. Peaks are verified one
by one: the ring colour is read off the circle, the pixels of that colour near the circle are
fitted with a circle (robust least squares), and the fit must cover most angles, be thin and
leave the inside mostly free of that colour.

Labels: text pixels are searched around each circle in two polarities (text in the ring colour;
light text on a dark box: the holes of the dark mask, see box_text_words), grouped into words
and read by glyphs.GlyphClassifier.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

RADII = tuple(np.arange(4.0, 17.0, 1.0))  # ring kernels; drawn radii 5-15 px, with a margin
MIN_CONTRAST = 14.0  # Lab units a ring must differ from both its sides (after the variance penalty)
MAX_CANDIDATES = 60
RING_MARGIN = 1.5  # px past a ring's outer edge that count as ring, not label
# (low, high, join): hysteresis levels of text-likeness and whether 1 px gaps are bridged; the
# strict level separates a glyph from scene blobs of the ring's colour that touch it
# ("cores": opened by a 3x3 cross first, for bold strokes that touch scene specks)
INK_LEVELS = ((0.28, 0.62, True), (0.5, 0.8, False), (0.4, 0.7, "cores"))
# Labels in a dark box: box pixels are darker than BOX_DARK (L, 0-100; drawn boxes have L <= ~20,
# their light text L >= ~85); text-likeness goes from 0 to 1 between the two BOX_LEVELS.
BOX_DARK = 38.0
BOX_LEVELS = (22.0, 70.0)
BOX_TOLERANCE = 12.0  # L units a box's pixels stay within of its median (JPEG noise)


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


@dataclass(frozen=True)
class Word:
    """A group of text pixels: rect (x0, y0, x1, y1) exclusive end, the binary mask inside the rect,
    which polarity found it ("colour" or "box"), and the outer rect of its dark box if any."""

    rect: tuple[int, int, int, int]
    mask: np.ndarray
    polarity: str
    box_rect: tuple[int, int, int, int] | None = None


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8 RGB -> (H, W, 3) float32 Lab (L 0-100, a/b about -128..127)."""
    return cv2.cvtColor(rgb.astype(np.float32) / 255.0, cv2.COLOR_RGB2Lab)


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
                  min_contrast: float = MIN_CONTRAST) -> Circle | None:
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
    t, off_line, length2 = _colour_line(patch, scene_colour, colour)
    if float(length2) <= 1e-3:  # the ring has the scene's colour: nothing to extrapolate
        return band
    pure = band & (t >= 1.0) & (off_line < 0.5 * np.sqrt(length2))
    return pure if pure.sum() >= 5 else band


def _colour_line(patch: np.ndarray, start: np.ndarray, end: np.ndarray):
    """Where each (h, w, 3) pixel lies on the colour line from `start` to `end` ((3,) or
    (h, w, 3) each): (t (h, w): 0 at start, 1 at end; off_line (h, w): distance from the line;
    length2: squared length of the line, floored at 1e-3)."""
    towards = end - start
    length2 = np.maximum((towards ** 2).sum(axis=-1), 1e-3)
    offset = patch - start
    t = (offset * towards).sum(axis=-1) / length2
    off_line = np.sqrt(np.maximum((offset ** 2).sum(axis=-1) - t ** 2 * length2, 0))
    return t, off_line, length2


def find_circles(rgb: np.ndarray, lab: np.ndarray | None = None, min_contrast: float = MIN_CONTRAST,
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


def _hysteresis(soft: np.ndarray, low: float, high: float) -> np.ndarray:
    """Pixels > low that connect (8-neighbours) to a pixel > high: faint stroke pixels (a 1 px
    stroke loses most of its colour to JPEG) count when they touch clear ones."""
    n, comp = cv2.connectedComponents((soft > low).astype(np.uint8), connectivity=8)
    seeded = np.zeros(n, bool)
    seeded[np.unique(comp[soft > high])] = True
    seeded[0] = False
    return seeded[comp]


def _words_from_mask(soft: np.ndarray, origin: tuple[int, int], polarity: str, box_rect=None) -> list[Word]:
    """Group text pixels into glyph components and horizontally adjacent runs of them.

    soft: (h, w) text-likeness in [0, 1] (0 where text cannot be); each Word carries it,
    restricted to its components, as its mask.
    """
    words: list[Word] = []
    for low, high, join in INK_LEVELS:
        words.extend(_words_at_level(soft, origin, polarity, box_rect, low, high, join))
    return words


def _words_at_level(soft, origin, polarity, box_rect, low, high, join) -> list[Word]:
    ox, oy = origin
    mask = _hysteresis(soft, low, high).astype(np.uint8)
    if join == "cores":
        # strokes >= 3 px wide: keep what grows back from the eroded cores, which cuts scene
        # specks hanging on a glyph by a thin neck (they would change its shape and extent)
        cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
        mask = cv2.dilate(cv2.erode(mask, cross), cross) & mask
    joined = cv2.dilate(mask, np.ones((2, 2), np.uint8)) if join is True else mask
    n, comp_ids, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if 4 <= h <= 48 and w <= 60 and area >= 6:
            comps.append((x, y, x + w, y + h, i))
    comps.sort()
    groups: list[list[tuple[int, int, int, int]]] = [[c] for c in comps]
    # runs of glyphs on one line (REF drawn with gaps between its letters)
    for i, a in enumerate(comps):
        for b in comps[i + 1:]:
            ha, hb = a[3] - a[1], b[3] - b[1]
            overlap = min(a[3], b[3]) - max(a[1], b[1])
            gap = b[0] - a[2]
            if -1 <= gap <= 0.6 * max(ha, hb) and overlap >= 0.6 * min(ha, hb) and 0.6 <= ha / hb <= 1.6:
                run = [a, b]
                # extend to a third glyph (REF)
                for c in comps:
                    if c[0] > b[0]:
                        hc = c[3] - c[1]
                        if -1 <= c[0] - b[2] <= 0.6 * max(hb, hc) and min(b[3], c[3]) - max(b[1], c[1]) >= 0.6 * min(hb, hc):
                            groups.append([a, b, c])
                            break
                groups.append(run)
    words = []
    for group in groups:
        x0, y0 = min(g[0] for g in group), min(g[1] for g in group)
        x1, y1 = max(g[2] for g in group), max(g[3] for g in group)
        member = np.isin(comp_ids[y0:y1, x0:x1], [g[4] for g in group])
        words.append(Word((x0 + ox, y0 + oy, x1 + ox, y1 + oy), soft[y0:y1, x0:x1] * member, polarity, box_rect))
    return words


def _background_without_ink(patch: np.ndarray, ink: np.ndarray, contrast: float, sigma: float = 5.0) -> np.ndarray:
    """(h, w, 3) Lab -> (h, w, 3) Lab estimate of the scene behind drawings of colour `ink`.

    A Gaussian average over pixels weighted by how unlike the ink they are (0 below 35% of the
    ring's contrast to its surroundings, 1 above 75%): bold strokes, which defeat a median, drop
    out of their own background. Where a neighbourhood has no such pixel, a 5x5 median stands in.
    """
    dist = np.sqrt(((patch - ink) ** 2).sum(axis=2))
    weight = np.clip((dist - 0.35 * contrast) / (0.4 * contrast), 0, 1).astype(np.float32)
    norm = cv2.GaussianBlur(weight, (0, 0), sigma)
    summed = cv2.GaussianBlur(patch * weight[..., None], (0, 0), sigma)
    background = summed / np.maximum(norm, 1e-6)[..., None]
    median = np.dstack([cv2.medianBlur(np.ascontiguousarray(patch[..., i]), 5) for i in range(3)])
    return np.where((norm > 0.05)[..., None], background, median).astype(np.float32)


def colour_text_words(lab: np.ndarray, circle: Circle, circles: list[Circle], reach: int,
                      drop: np.ndarray | None = None) -> list[Word]:
    """Words written in the ring's colour within `reach` px of `circle`, ring pixels excluded
    (and the pixels `drop`, an (H, W) bool mask, marks: a drawn box's strokes).

    A pixel is text when its colour lies well on the way from the local background (see
    _background_without_ink) towards the ring colour, and not far off that line: thin anti-aliased or
    JPEG-smeared strokes keep that, while a fixed colour distance loses them on backgrounds close
    to the ring colour.
    """
    H, W = lab.shape[:2]
    x0, y0 = max(0, int(circle.x - reach)), max(0, int(circle.y - reach))
    x1, y1 = min(W, int(circle.x + reach) + 1), min(H, int(circle.y + reach) + 1)
    patch = lab[y0:y1, x0:x1]
    background = _background_without_ink(patch, np.float32(circle.lab), circle.contrast)
    t, off_line, length2 = _colour_line(patch, background, np.float32(circle.lab))
    on_line = (off_line < 0.5 * np.sqrt(length2) + 4) & (length2 > MIN_CONTRAST ** 2)
    soft = np.clip(t / 0.72, 0, 1).astype(np.float32) * on_line
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    for c in circles:  # drop every given ring (and its inside) so only the text is left
        # 1.5 px past the ring's measured edge: its anti-aliased, JPEG-smeared rim would
        # otherwise join a label drawn 1-4 px away (the label loses at most a sliver)
        soft[np.hypot(xx - c.x, yy - c.y) <= c.outer + RING_MARGIN] = 0
    if drop is not None:
        soft[drop[y0:y1, x0:x1]] = 0
    # a word touching the search window's edge (where that is not the image's edge) is cut:
    # a part of something further away (a neighbour's ring cut to a "C"), never this circle's
    # label, which lies well inside the window; the other circle's own search sees it whole
    return [w for w in _words_from_mask(soft, (x0, y0), "colour")
            if not ((x0 > 0 and w.rect[0] == x0) or (y0 > 0 and w.rect[1] == y0)
                    or (x1 < W and w.rect[2] == x1) or (y1 < H and w.rect[3] == y1))]


def box_text_words(lab: np.ndarray, circle: Circle, reach: int, circles: list[Circle] | None = None,
                   drop: np.ndarray | None = None) -> list[Word]:
    """Light words on dark filled rectangles within `reach` px of `circle`.

    Text first: the glyphs of a boxed label are light regions wholly enclosed by dark pixels
    (the box pads the text on every side), so they are the holes of the dark mask. Dark scene
    pixels touching the box do not change its holes, which is why this beats finding the box as
    a dark component. The box itself is then measured around each word (`_box_around`): a frame
    of dark pixels of about equal width on every side. Pixels of the given rings (default:
    `circle`'s own) count as light, so a dark ring's inside is never a hole; so do the pixels
    `drop` (an (H, W) bool mask) marks.
    """
    H, W = lab.shape[:2]
    x0, y0 = max(0, int(circle.x - reach)), max(0, int(circle.y - reach))
    x1, y1 = min(W, int(circle.x + reach) + 1), min(H, int(circle.y + reach) + 1)
    light = np.ascontiguousarray(lab[y0:y1, x0:x1, 0])
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    ring = np.zeros(light.shape, bool)
    for c in circles or [circle]:
        ring |= np.abs(np.hypot(xx - c.x, yy - c.y) - c.r) <= c.width / 2 + 1.0
    if drop is not None:
        ring |= drop[y0:y1, x0:x1]
    dark = (light < BOX_DARK) & ~ring
    # holes: 4-connected light regions not reaching the crop's edge (8-connectivity would let a
    # JPEG-lightened pixel of a thin pad join the text to the scene diagonally)
    n, comp = cv2.connectedComponents((~dark).astype(np.uint8), connectivity=4)
    edge = np.unique(np.concatenate([comp[0], comp[-1], comp[:, 0], comp[:, -1]]))
    hole = np.ones(n, bool)
    hole[edge] = False
    hole[0] = False  # label 0: the dark pixels themselves
    holes = hole[comp]
    if not holes.any():
        return []
    allowed = cv2.dilate(holes.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool) & ~ring
    soft = np.clip((light - BOX_LEVELS[0]) / (BOX_LEVELS[1] - BOX_LEVELS[0]), 0, 1).astype(np.float32) * allowed
    words = []
    for word in _words_from_mask(soft, (x0, y0), "box"):
        rect = _box_around(light, dark, word.rect, (x0, y0))
        if rect is not None:
            words.append(Word(word.rect, word.mask, "box", rect))
    return words


def _box_around(light: np.ndarray, dark: np.ndarray, rect, origin) -> tuple[int, int, int, int] | None:
    """The dark box padding the text at `rect` (image coords), or None when there is none.

    A drawn box pads its text's ink by max(2, round(cap height / 4)) px on every side
    (render._label_patch). From each side of the text we walk outwards while the strip next to
    it keeps the box's own lightness (within BOX_TOLERANCE of the strip 1 px out), at most one
    pixel past the expected pad, so dark scene touching the box cannot inflate it; every
    side not cut by the crop's edge must reach the expected pad less one pixel.
    """
    ox, oy = origin
    h, w = dark.shape
    tx0, ty0, tx1, ty1 = rect[0] - ox, rect[1] - oy, rect[2] - ox, rect[3] - oy
    expected = max(2, int(round(0.25 * (ty1 - ty0))))
    sides = ("left", "top", "right", "bottom")

    def strip(side: str, offset: int) -> np.ndarray | None:
        if side == "left":
            i = tx0 - offset - 1
            return light[ty0:ty1, i] if i >= 0 else None
        if side == "right":
            i = tx1 + offset
            return light[ty0:ty1, i] if i < w else None
        if side == "top":
            i = ty0 - offset - 1
            return light[i, tx0:tx1] if i >= 0 else None
        i = ty1 + offset
        return light[i, tx0:tx1] if i < h else None

    # the box's lightness: the strips 1 px out from the text's ink (0 px out is anti-aliased)
    near = [s for s in (strip(side, 1) for side in sides) if s is not None]
    if not near:
        return None
    level = float(np.median(np.concatenate(near)))
    if level >= BOX_DARK:
        return None
    pads = []
    for side in sides:
        pad = 0
        while pad <= expected:
            values = strip(side, pad)
            if values is None:
                pad = expected  # cut by the crop's (image's) edge: take the drawn pad
                break
            # the first strip touches the text's anti-aliased edge: only ask it to be dark
            if pad == 0:
                if np.median(values) >= BOX_DARK:
                    break
            elif (np.abs(values - level) <= BOX_TOLERANCE).mean() < 0.7:
                break
            pad += 1
        if pad < expected - 1:
            return None
        pads.append(pad)
    left, top, right, bottom = pads
    return (rect[0] - left, rect[1] - top, rect[2] + right, rect[3] + bottom)
