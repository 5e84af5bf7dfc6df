"""Whether a BLINK-style ring is drawn at a centre, on the ring's own evidence.

BLINK draws a whole ring (cv2.circle, one colour, its radius and thickness known at each scale)
under every label. A label box alone, or a ring score that a blob, a crescent or a red patch can
reach, does not say that a ring is there: another drawing's label box beside a red blob fits
BLINK's geometry as well. So a centre is taken only where the ring itself shows:

- its band (the pixels cv2.circle inks) is ring-coloured over most of its length and on every arc
  of it inside the image (a blob's edge or a crescent covers some arcs, not all);
- its hole and a band just outside it are clearly less ring-coloured than the band (a filled blob
  is as red inside as on its band; a ring drawn over a red as strong as its own does not show).

    ring_evidence(ring_pixels(rgb, colour), (cx, cy), style) -> RingEvidence   (.whole: it is there)
    ring_drawn_near(pixels, (cx, cy), style) -> bool      (a whole ring centred within 1 px)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from adapters.markers.blink.draw import WHITE, BlinkStyle

ARCS = 8  # the band is judged on this many equal arcs: a blob's edge or a crescent leaves some bare


# How much more like the ring's colour a band pixel must be than the scene it is drawn on (the
# medians of its hole and surround) to count as the ring, in levels / 255. A colour by its lead
# over the other channels: BLINK's red (255, 0, 0) leads a light red scene by 25+ levels after
# JPEG, and a red ring drawn on a red as strong does not show. White by lightness: on a light
# scene a white ring stands out by 8-30 levels.
COLOUR_STEP = 25 / 255


WHITE_STEP = 8 / 255


# Share of the band's pixels inside the image that are ring-coloured: JPEG at quality 70-90 blurs
# a 2 px ring's edges, the rest of BLINK's band stays coloured.
BAND_COVERAGE = 0.6


ARC_COVERAGE = 0.3  # share of each arc's pixels that are ring-coloured: a whole ring leaves none bare


ARC_INSIDE = 0.5  # share of an arc's pixels inside the image for that arc to be judged


MIN_ARCS = 3  # arcs inside the image a cut ring needs to be judged at all


# How much more like the ring's colour the band is on average than its hole and the band just
# outside it (levels / 255): a filled blob is as coloured inside, a patch of the ring's colour around.
COLOUR_STANDS_OUT = 25 / 255


WHITE_STANDS_OUT = 10 / 255


WHITE_SPREAD = 30  # grey levels between a pixel's channels past which it is coloured, not white (JPEG adds ~20)


@dataclass(frozen=True)
class RingPixels:
    """How much each pixel looks like the ring's colour ((H, W), 0-1), and by how much a band
    pixel (`step`) and the band on average (`stands_out`) must exceed the ring's hole and surround."""

    likeness: np.ndarray
    step: float
    stands_out: float


def ring_pixels(rgb: np.ndarray, colour: tuple[int, int, int]) -> RingPixels:
    """The ring colour's likeness map of an (H, W, 3) uint8 image, in grey levels / 255: white
    rings by lightness (the darkest channel, less what the channels spread past WHITE_SPREAD),
    others by how far the ring's channel leads the others (BLINK's red (255, 0, 0) after JPEG
    leads by 110-245; a light red scene by less, so a ring drawn on it still shows)."""
    x = rgb.astype(np.float32)
    if tuple(colour) == WHITE:
        low = x.min(axis=2)
        spread = x.max(axis=2) - low
        return RingPixels(np.clip((low - np.maximum(spread - WHITE_SPREAD, 0)) / 255, 0, 1), WHITE_STEP,
                          WHITE_STANDS_OUT)
    k = int(np.argmax(colour))
    others = [x[..., j] for j in range(3) if j != k]
    return RingPixels(np.clip((x[..., k] - np.maximum(*others)) / 255, 0, 1), COLOUR_STEP, COLOUR_STANDS_OUT)


@dataclass(frozen=True)
class RingEvidence:
    """What the pixels say of a ring at one centre: share of the band ring-coloured (inside the
    image), the least covered arc's share, the mean likeness of the band, the hole and the
    surround, how many arcs were judged, and the band's required lead."""

    coverage: float
    weakest_arc: float
    band: float
    hole: float
    surround: float
    arcs: int
    stands_out: float

    @property
    def whole(self) -> bool:
        return (self.arcs >= MIN_ARCS and self.coverage >= BAND_COVERAGE and self.weakest_arc >= ARC_COVERAGE
                and self.band - max(self.hole, self.surround) >= self.stands_out)


@lru_cache(maxsize=64)
def _masks(radius: int, thickness: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(band, hole, surround, arc index) over a (k, k) window centred on the ring: the pixels
    cv2.circle inks, the middle of the hole, a band 2-3 px outside (JPEG smears the ring's
    colour a pixel each way), and each pixel's arc (0..ARCS-1) by its angle."""
    half = radius + thickness + 4
    size = 2 * half + 1
    band = np.zeros((size, size), np.uint8)
    cv2.circle(band, (half, half), radius, 1, thickness, cv2.LINE_8)
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1]
    d = np.hypot(xx, yy)
    inner, outer = radius - thickness / 2.0, radius + thickness / 2.0
    hole = d <= max(1.0, inner - 2.0)
    surround = (d >= outer + 1.5) & (d <= outer + 3.0)
    arc = (np.floor((np.arctan2(yy, xx) + np.pi) / (2 * np.pi) * ARCS).astype(int)) % ARCS
    return band.astype(bool), hole, surround, arc


def ring_evidence(pixels: RingPixels, centre: tuple[int, int], style: BlinkStyle) -> RingEvidence:
    """The evidence of a ring of `style` centred at integer `centre` (ring_pixels of the image);
    pixels past the image's edge do not count."""
    band, hole, surround, arc = _masks(style.radius, style.ring_thickness)
    half = band.shape[0] // 2
    cx, cy = centre
    H, W = pixels.likeness.shape
    window = np.full(band.shape, np.nan, np.float32)
    x0, y0, x1, y1 = max(0, cx - half), max(0, cy - half), min(W, cx + half + 1), min(H, cy + half + 1)
    if x0 < x1 and y0 < y1:
        window[y0 - (cy - half):y1 - (cy - half), x0 - (cx - half):x1 - (cx - half)] = pixels.likeness[y0:y1, x0:x1]
    inside = ~np.isnan(window)

    def seen(mask: np.ndarray) -> np.ndarray:
        return window[mask & inside]

    # the scene the ring is drawn on, read from its hole and just outside it
    scene = max((float(np.median(seen(m))) for m in (hole, surround) if seen(m).size), default=0.0)
    coloured = inside & (np.nan_to_num(window) >= scene + pixels.step)
    shares = []
    for k in range(ARCS):
        on_arc = band & (arc == k)
        judged = on_arc & inside
        if judged.sum() >= ARC_INSIDE * on_arc.sum():
            shares.append(float(coloured[judged].mean()))
    band_seen = band & inside
    return RingEvidence(coverage=float(coloured[band_seen].mean()) if band_seen.any() else 0.0,
                        weakest_arc=min(shares) if shares else 0.0,
                        band=float(seen(band).mean()) if seen(band).size else 0.0,
                        hole=float(seen(hole).mean()) if seen(hole).size else 0.0,
                        surround=float(seen(surround).mean()) if seen(surround).size else 0.0,
                        arcs=len(shares), stands_out=pixels.stands_out)


def ring_drawn_near(pixels: RingPixels, centre: tuple[int, int], style: BlinkStyle) -> bool:
    """Whether a whole ring of `style` is centred within a pixel of `centre`: a centre read from
    a ring score or a label box may be a pixel off the one cv2.circle drew around."""
    cx, cy = centre
    return any(ring_evidence(pixels, (cx + dx, cy + dy), style).whole for dy in (0, -1, 1) for dx in (0, -1, 1))
