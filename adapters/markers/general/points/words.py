"""The label words around a circle: text pixels found in two polarities and grouped into words.

Text in the ring's colour (`colour_text_words`): pixels well on the way from the local background
to the ring colour, every given ring cut away. Light text on a dark filled box
(`box_text_words`): the holes of the dark mask, the box then measured around each word. Text
pixels are grouped into glyphs and runs of glyphs on one line (REF) at each of INK_LEVELS.

    colour_text_words(lab, circle, circles, reach) / box_text_words(lab, circle, reach) -> [Word]
    Word: rect (x0, y0, x1, y1), mask (h, w) text coverage in [0, 1], polarity, box_rect

nets.glyphs.GlyphClassifier reads the masks; points and boxes parsers both use these words.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from adapters.markers.general.points.rings import Circle, colour_line
from adapters.markers.general.thresholds import (
    BOX_DARK,
    BOX_LEVELS,
    BOX_TOLERANCE,
    INK_LEVELS,
    RING_MARGIN,
    RING_MIN_CONTRAST,
)


@dataclass(frozen=True)
class Word:
    """A group of text pixels: rect (x0, y0, x1, y1) exclusive end, the binary mask inside the rect,
    which polarity found it ("colour" or "box"), and the outer rect of its dark box if any."""

    rect: tuple[int, int, int, int]
    mask: np.ndarray
    polarity: str
    box_rect: tuple[int, int, int, int] | None = None


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
    t, off_line, length2 = colour_line(patch, background, np.float32(circle.lab))
    on_line = (off_line < 0.5 * np.sqrt(length2) + 4) & (length2 > RING_MIN_CONTRAST ** 2)
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
    (draw.render._label_patch). From each side of the text we walk outwards while the strip next to
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
