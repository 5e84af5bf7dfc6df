"""The first pass on BLINK's point tasks: read BLINK's own drawing (draw/blink.py) exactly.

BLINK draws every point the same way: a hollow ring of one colour and, at a fixed offset above
it (below it at the top edge), a black box holding the label's Hershey glyphs in white. So the
pass looks for exactly that and nothing else:

1. Rings. A ring-colour map (red: R over G and B; white: the darkest channel high) is averaged
   over the ring's band and over its hole and a band just outside; a ring is where the band is
   inked more than both (`_ring_scores`). Every radius the image may carry is tried (one scale
   per image: Relative_Depth's is 1; larger images grow ring and text together). At the measured
   geometry a label box seen whole also implies its ring, for rings that do not stand out. Every
   centre is kept only where a whole ring is drawn (ring_evidence.py): a label box alone, or a
   blob where BLINK's ring would be, is not BLINK's marker.
2. Labels. At each ring, each asked label's box (black, its glyphs white, derived from OpenCV
   4.x: draw/hershey.py) is compared with the pixels where BLINK would have put it, at a few px of
   play and both sides; pixels past the image edge do not count, so a cut box is still read
   from what is left. The fit is the mean squared difference of luma (0 = the drawing itself).
3. Decisions. A label is placed where its box fits well and clearly better than every other
   asked label's; two rings read as one label place neither. One asked label left takes, by
   elimination, the one marker left whose box fits but whose label cannot be read (cut by the
   edge), or else the one whole ring left whose label box the top edge cut almost wholly.

Everything else (markers in other styles, a label this pass cannot tell) is left to the general
parser (points/parse.py): a marker placed here is right or absent, never a guess.

    read_blink_points(rgb, labels, colour) -> BlinkRead(markers, missing, scale)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from adapters.markers.blink.draw import RED, WHITE, BlinkStyle, label_box
from adapters.markers.blink.hershey import FONT_SCALES
from adapters.markers.blink.ring_evidence import RingPixels, ring_drawn_near, ring_pixels
from adapters.markers.types import Marker

# The ring's band must be this much more inked (0-1 map) than its hole and its surroundings; low,
# since a white ring on a light scene barely stands out and the label box decides.
RING_CONTRAST = 0.15


MAX_RINGS = 60  # candidate rings kept per radius (a question draws at most 5 markers)


RADII_READ = 2  # radii whose rings' labels are read (those whose strongest rings stand out most)


SURE_RING = 0.45  # share of a ring's band inside the image for its peak to give the centre


# Mean squared luma difference (0-1) a label's box may show and still be BLINK's drawing: JPEG at
# q75 leaves about 0.001-0.01; another letter's strokes add about 0.1.
BOX_FIT = 0.05


# A label is read when every other asked label's box fits this many times worse (and worse by
# at least LABEL_GAP): the glyphs of two letters differ on about a fifth of the box's pixels.
LABEL_RATIO = 2.5


LABEL_GAP = 0.02


MIN_VISIBLE = 0.12  # share of a box's pixels inside the image for its fit to count (its two lowest rows)


MIN_COLUMNS = 0.8  # share of a box's columns inside the image (the sides shift a label inside)


# share of the glyph's pixels inside the image for its label to be read (a box cut by the top edge
# keeps the glyphs' feet, which tell A from B; less is read only by elimination)
MIN_GLYPH_VISIBLE = 0.25


# a label box seen whole without its ring: this share of its pixels dark, and this share light
BOX_DARK = 0.55


BOX_LIGHT = 0.08


WHITE_SURROUND = 31  # px: the window a white ring is compared with (a ring is 13 px across)


BOX_SEEN = 0.4  # share of a label box inside the image for it alone to imply its ring


# ring scores that mark a centre as not from a sure ring: implied by a label box alone, or a
# ring mostly past the image edge (its peak may be off-centre); the box must then give the centre
BOX_LED = -1.0


CUT_RING = -2.0


ELIMINATION = "blink_style.elimination"  # the source of a marker placed as the last label left, its own unread


ELIMINATION_CONFIDENCE = 0.5  # a marker placed by elimination: no reading of its label backs it


# share of what shows of a label box cut by the top edge that is dark: BLINK's black box, its
# white glyphs' feet taking at most a third of a row
CUT_BOX_DARK = 0.5


@dataclass
class BlinkRead:
    """What the pass found on one image: markers placed, labels left (label -> why), the scale."""

    markers: dict[str, Marker] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    scale: float | None = None


@dataclass(frozen=True)
class _Fit:
    """The best placement of one label's box beside one ring: fit (mean squared luma, 0-1), where
    its drawing lies (x0, y0, x1, y1) inclusive (the box and any glyph ink past it), and whether
    enough of its glyph was inside the image to read it."""

    fit: float
    box: tuple[int, int, int, int]
    readable: bool


def ink_map(rgb: np.ndarray, colour: Sequence[int]) -> np.ndarray:
    """(H, W) float32 in 0-1: how much each pixel looks like the ring colour after JPEG (BLINK's
    red rings read R 170-255, G and B 10-60)."""
    x = rgb.astype(np.float32)
    if tuple(colour) == WHITE:
        low = x.min(axis=2)
        spread = x.max(axis=2) - low
        # white stands out from its surroundings, not above a fixed level: on a light scene the
        # ring's band reads ~245 against ~210 around it (a median over a window several rings wide)
        around = cv2.medianBlur(low.astype(np.uint8), WHITE_SURROUND).astype(np.float32)
        above = np.clip((low - around - 8) / 25, 0, 1)
        return above * np.clip((low - 150) / 60, 0, 1) * np.clip(1 - (spread - 40) / 60, 0, 1)
    # the ring's dominant channel over the others (any saturated colour; red is BLINK's)
    k = int(np.argmax(colour))
    others = [x[..., j] for j in range(3) if j != k]
    return np.clip((x[..., k] - np.maximum(*others) - 40) / 80, 0, 1) * np.clip((x[..., k] - 110) / 50, 0, 1)


def _ring_kernels(style: BlinkStyle) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(band, hole, surround) masks, each (k, k) float32 summing to 1, centred: the pixels
    cv2.circle inks, the middle of the hole, and a band 2-3 px outside the ring (JPEG smears the
    ring's colour one pixel each way)."""
    half = style.radius + style.ring_thickness + 4
    size = 2 * half + 1
    band = np.zeros((size, size), np.uint8)
    cv2.circle(band, (half, half), style.radius, 1, style.ring_thickness, cv2.LINE_8)
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1]
    d = np.hypot(xx, yy)
    inner = style.radius - style.ring_thickness / 2.0
    outer = style.radius + style.ring_thickness / 2.0
    hole = d <= max(1.0, inner - 2.0)
    surround = (d >= outer + 1.5) & (d <= outer + 3.0)
    return tuple((m / m.sum()).astype(np.float32) for m in (band.astype(bool), hole, surround))


def _inside_share(kernel: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """(H, W): the sum of `kernel`'s weights that fall inside an image of `shape` when it is
    centred on each pixel. It depends only on how near each edge a pixel is, so it is filtered
    on a canvas one kernel wide and spread out (the same numbers, at a fraction of the cost of
    filtering a whole image of ones)."""
    half = kernel.shape[0] // 2
    size = 2 * half + 1
    if min(shape) < size:
        return cv2.filter2D(np.ones(shape, np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT)
    small = cv2.filter2D(np.ones((size, size), np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT)

    def index(n: int) -> np.ndarray:
        i = np.arange(n)
        return np.where(i < half, i, np.where(i > n - 1 - half, size - n + i, half))

    return small[np.ix_(index(shape[0]), index(shape[1]))]


def _ring_scores(ink: np.ndarray, style: BlinkStyle) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) ring score at every centre: band mean minus the larger of hole and surround means,
    each over the pixels inside the image (a ring cut by the edge keeps its score); and (H, W)
    the share of the ring's band inside the image."""
    scores = []
    for kernel in _ring_kernels(style):
        weight = _inside_share(kernel, ink.shape)
        mean = cv2.filter2D(ink, -1, kernel, borderType=cv2.BORDER_CONSTANT) / np.maximum(weight, 1e-6)
        scores.append((mean, weight))
    (band, band_w), (hole, _), (surround, _) = scores
    score = band - np.maximum(hole, surround)
    score[band_w < 0.4] = 0  # most of the ring outside the image: not judged
    return score, band_w


def _ring_peaks(scores: tuple[np.ndarray, np.ndarray], style: BlinkStyle) -> list[tuple[int, int, float]]:
    """Local maxima above RING_CONTRAST, strongest first, at least a ring's radius apart. A ring
    mostly past the edge (a corner) is kept with score CUT_RING: its centre is not sure."""
    score, inside = scores
    size = 2 * style.radius + 1
    local = cv2.dilate(score, np.ones((size, size), np.uint8))
    ys, xs = np.nonzero((score >= local) & (score > RING_CONTRAST))
    order = np.argsort(-score[ys, xs])[:MAX_RINGS]
    return [(int(xs[i]), int(ys[i]), float(score[ys[i], xs[i]]) if inside[ys[i], xs[i]] >= SURE_RING else CUT_RING)
            for i in order]


@dataclass(frozen=True)
class _BoxTemplate:
    """One label's drawing relative to its own top-left (x0, y0): luma (h, w) float32 (box 0,
    glyphs 255), known (h, w) bool (the box and the glyphs, which thick text spills past the
    box), ink (h, w) bool (the glyphs), and putText's org within it (org_x, org_y)."""

    luma: np.ndarray
    known: np.ndarray
    ink: np.ndarray
    org_x: int
    org_y: int


def _box_template(style: BlinkStyle, label: str) -> _BoxTemplate:
    g = style.glyph(label)
    bx0, by0, bx1, by1 = label_box(style, label, (0, 0))
    x0, y0 = min(bx0, g.left), min(by0, g.top)
    x1, y1 = max(bx1, g.left + g.ink.shape[1] - 1), max(by1, g.top + g.ink.shape[0] - 1)
    known = np.zeros((y1 - y0 + 1, x1 - x0 + 1), bool)
    known[by0 - y0:by1 - y0 + 1, bx0 - x0:bx1 - x0 + 1] = True
    ink = np.zeros_like(known)
    ink[g.top - y0:g.top - y0 + g.ink.shape[0], g.left - x0:g.left - x0 + g.ink.shape[1]] = g.ink
    known |= ink
    return _BoxTemplate(np.where(ink, np.float32(255), np.float32(0)), known, ink, -x0, -y0)


class _Luma:
    """The image's luma and validity, padded so that boxes past the edge can be compared."""

    def __init__(self, rgb: np.ndarray, pad: int) -> None:
        luma = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
        self.pad = pad
        self.valid = cv2.copyMakeBorder(np.ones(luma.shape, np.float32), pad, pad, pad, pad, cv2.BORDER_CONSTANT, 0)
        self.luma = cv2.copyMakeBorder(luma, pad, pad, pad, pad, cv2.BORDER_CONSTANT, 0)
        self.luma2 = self.luma ** 2

    def fits(self, template: _BoxTemplate, x0: int, y0: int, dx: int, dy: int):
        """Mean squared luma difference (0-1) over the template's known pixels inside the image,
        with its top-left at every (x0 + i, y0 + j), |i| <= dx, |j| <= dy: (2dy+1, 2dx+1) arrays
        (fit, share of the known pixels inside, share of the glyph pixels inside), or None when
        the window leaves the padding."""
        h, w = template.luma.shape
        X, Y = x0 - dx + self.pad, y0 - dy + self.pad
        H, W = self.luma.shape
        if X < 0 or Y < 0 or X + w + 2 * dx > W or Y + h + 2 * dy > H:
            return None
        window = (slice(Y, Y + h + 2 * dy), slice(X, X + w + 2 * dx))
        known = template.known.astype(np.float32)
        # sum over known pixels inside of (luma - t)^2 = luma^2 - 2 luma t + t^2
        count = cv2.matchTemplate(self.valid[window], known, cv2.TM_CCORR)
        sq = cv2.matchTemplate(self.luma2[window], known, cv2.TM_CCORR)
        cross = cv2.matchTemplate(self.luma[window], template.luma, cv2.TM_CCORR)
        t2 = cv2.matchTemplate(self.valid[window], template.luma ** 2, cv2.TM_CCORR)
        glyph_inside = cv2.matchTemplate(self.valid[window], template.ink.astype(np.float32), cv2.TM_CCORR)
        fit = (sq - 2 * cross + t2) / np.maximum(count, 1.0) / 255.0 ** 2
        return fit, count / known.sum(), glyph_inside / max(int(template.ink.sum()), 1)


def _label_fits(luma: _Luma, style: BlinkStyle, labels: Sequence[str], cx: int, cy: int, width: int,
                templates) -> dict[str, _Fit]:
    """Each label's best box beside the ring at (cx, cy): above it (below at the top edge), a
    px or two either way, further sideways where the box meets the left or right edge."""
    fits = {}
    for label in labels:
        template = templates[label]
        ox, oy = template.org_x, template.org_y
        g = style.glyph(label)
        best = None
        for below in (False, True):
            org_y = cy + style.offset + g.height if below else cy - style.offset
            if below and cy - style.offset >= 0 and cy > 2 * style.offset:
                continue  # BLINK writes under the ring only at the top edge
            slack = 2 * style.text_thickness + (0 if _measured(style) else 2)  # inferred offsets vary
            x_nominal = cx - g.width // 2
            near_edge = x_nominal - 1 < slack or x_nominal + g.width + 1 > width - 1 - slack
            dx = g.width // 2 + slack if near_edge else slack
            found = luma.fits(template, x_nominal - ox, org_y - oy, dx, slack)
            if found is None:
                continue
            fit, inside, glyph_inside = found
            # BLINK shifts a label inside at the left and right edges (its box may lose a column
            # or two), and only the top edge cuts it further
            w = template.luma.shape[1]
            lefts = x_nominal - ox - dx + np.arange(fit.shape[1])
            columns_inside = (np.minimum(lefts + w, width) - np.maximum(lefts, 0)) / w
            fit = np.where((inside >= MIN_VISIBLE) & (columns_inside >= MIN_COLUMNS)[None, :], fit, np.inf)
            j, i = np.unravel_index(int(np.argmin(fit)), fit.shape)
            if not np.isfinite(fit[j, i]):
                continue
            x0, y0 = x_nominal - ox - dx + i, org_y - oy - slack + j
            candidate = _Fit(float(fit[j, i]), (x0, y0, x0 + template.luma.shape[1] - 1, y0 + template.luma.shape[0] - 1),
                             bool(glyph_inside[j, i] >= MIN_GLYPH_VISIBLE))
            if best is None or candidate.fit < best.fit:
                best = candidate
        if best is not None:
            fits[label] = best
    return fits


def _centres_below_boxes(dark: np.ndarray, bright: np.ndarray, style: BlinkStyle, labels: Sequence[str],
                         ring_peaks: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Marker centres implied by the label boxes seen (whole, or cut by the top edge: a dark rectangle of the narrowest
    asked label's box size with light glyphs inside), for rings that do not stand out (a white
    ring on a light scene): the centre lies `offset` below the text's baseline, under the box's
    middle. Centres near a ring peak already listed are left out; the others carry the score
    BOX_LED (no ring evidence), so that the fitted box, not this estimate, gives the centre."""
    label = min(labels, key=lambda l: style.glyph(l).width)
    g = style.glyph(label)
    x0, y0, x1, y1 = label_box(style, label, (0, 0))
    size = (x1 - x0 + 1, y1 - y0 + 1)
    # means over the box's pixels inside the image: a box the top edge cuts is judged on its
    # lower rows (the glyphs' feet), as long as enough of it shows to be read
    inside = cv2.boxFilter(np.ones_like(dark), -1, size, borderType=cv2.BORDER_CONSTANT)
    mean_dark = cv2.boxFilter(dark, -1, size, borderType=cv2.BORDER_CONSTANT) / np.maximum(inside, 1e-6)
    mean_bright = cv2.boxFilter(bright, -1, size, borderType=cv2.BORDER_CONSTANT) / np.maximum(inside, 1e-6)
    mean_dark[inside < BOX_SEEN] = 0
    local = cv2.dilate(mean_dark, np.ones((size[1], size[0]), np.uint8))
    ys, xs = np.nonzero((mean_dark >= local) & (mean_dark >= BOX_DARK) & (mean_bright >= BOX_LIGHT))
    order = np.argsort(-mean_dark[ys, xs])[:MAX_RINGS]
    centres = []
    for y, x in zip(ys[order], xs[order]):
        # cv2.boxFilter's anchor is the window's centre: size // 2 from its top-left
        left, top = int(x) - size[0] // 2, int(y) - size[1] // 2
        org_x, org_y = left - x0, top - y0
        cx, cy = org_x + g.width // 2, org_y + style.offset
        if all(abs(cx - px) > style.radius or abs(cy - py) > style.radius for px, py, _ in ring_peaks):
            centres.append((cx, cy, BOX_LED))
    return centres


def _measured(style: BlinkStyle) -> bool:
    """Whether `style` is the geometry measured on BLINK's images (Relative_Depth's), not one
    inferred for larger images."""
    measured = BlinkStyle(colour=style.colour)
    return (style.radius, style.font_scale, style.text_thickness, style.offset) == (
        measured.radius, measured.font_scale, measured.text_thickness, measured.offset)


def _centre_of_box(fit: _Fit, template: "_BoxTemplate", style: BlinkStyle, label: str, width: int,
                   ring_score: np.ndarray) -> tuple[int, int] | None:
    """The ring centre BLINK's geometry puts under a label box fitted at `fit.box`, or None where
    the box does not tell it: a label shifted inside at the left or right edge; and near the top,
    where the box may as well hang under a ring at the edge, unless one of the two places holds
    the clearly stronger ring (`ring_score`, (H, W))."""
    g = style.glyph(label)
    org_x, org_y = fit.box[0] + template.org_x, fit.box[1] + template.org_y
    if org_x <= 0 or org_x + g.width >= width:
        return None
    cx, above, under = org_x + g.width // 2, org_y + style.offset, org_y - style.offset - g.height
    if 0 <= under < style.offset:
        height = ring_score.shape[0]
        scores = [float(ring_score[y, cx]) if 0 <= y < height else 0.0 for y in (above, under)]
        if abs(scores[0] - scores[1]) < RING_CONTRAST:
            return None
        return (cx, above) if scores[0] > scores[1] else (cx, under)
    return cx, above


def _read_rings(peaks: list[tuple[int, int, float]], luma: _Luma, ring: RingPixels, labels: Sequence[str],
                style: BlinkStyle, width: int, ring_score: np.ndarray) -> list[tuple[int, int, dict[str, _Fit]]]:
    """Every ring of `peaks` whose box fits some asked label in `style` and which is drawn whole
    where the box puts it (ring_evidence): [(cx, cy, {label: fit})]. A box is one marker's: where
    two rings take the same box, the stronger ring keeps it (peaks are strongest first)."""
    templates = {label: _box_template(style, label) for label in labels}
    found, boxes = [], []
    for cx, cy, score in peaks:
        fits = _label_fits(luma, style, labels, cx, cy, width, templates)
        if not fits or min(f.fit for f in fits.values()) > BOX_FIT:
            continue
        label = min(fits, key=lambda l: fits[l].fit)
        box = fits[label].box
        if score in (BOX_LED, CUT_RING):  # the centre from the fitted box, where it tells it
            centre = _centre_of_box(fits[label], templates[label], style, label, width, ring_score)
            if centre is None or (score == CUT_RING and max(abs(centre[0] - cx), abs(centre[1] - cy)) > 1):
                continue
            cx, cy = centre
        if not ring_drawn_near(ring, (cx, cy), style):
            continue  # a box in BLINK's place with no ring under it: another drawing's label, say
        if any(_overlap(box, other) > 0.5 for other in boxes):
            continue
        boxes.append(box)
        found.append((cx, cy, fits))
    return found


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over the smaller of two inclusive boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0]) + 1
    h = min(a[3], b[3]) - max(a[1], b[1]) + 1
    if w <= 0 or h <= 0:
        return 0.0
    area = min((a[2] - a[0] + 1) * (a[3] - a[1] + 1), (b[2] - b[0] + 1) * (b[3] - b[1] + 1))
    return w * h / area


def _reading(fits: dict[str, _Fit]) -> tuple[str | None, float]:
    """(the label this ring's box clearly shows, or None; its confidence 0-1)."""
    ranked = sorted(fits.items(), key=lambda item: item[1].fit)
    label, best = ranked[0]
    if best.fit > BOX_FIT or not best.readable:
        return None, 0.0
    if len(ranked) > 1:
        second = ranked[1][1].fit
        if second < LABEL_RATIO * best.fit or second - best.fit < LABEL_GAP:
            return None, 0.0
        return label, float(min(1.0, (second - best.fit) / (second + 1e-6)))
    return label, float(1.0 - best.fit / BOX_FIT)


def candidate_radii(width: int, height: int) -> list[int]:
    """Ring radii to try: Relative_Depth's 5 on BLINK's 500 px images; on larger ones every
    radius from 0.7 to 1.5 times 5 * long side / 500 (ring and text grow with the image)."""
    base = max(width, height) / 500.0
    if base <= 1.05:
        return [5]
    return list(range(max(5, int(np.floor(3.5 * base))), int(np.ceil(7.5 * base)) + 1))


def styles_for_radius(radius: int, colour: Sequence[int]) -> list[BlinkStyle]:
    """BLINK's label geometries (font scale, text thickness) a ring of `radius` may come with,
    likeliest first: at 5 the measured one; elsewhere every one the scales that round to this
    radius give (font scale on the glyph grid), the offset at the middle scale (the label search
    absorbs the rest)."""
    if radius == 5:
        return [BlinkStyle(colour=tuple(colour))]
    middle = radius / 5
    scales = np.linspace(middle - 0.1, middle + 0.1, 5)
    fonts = {min(FONT_SCALES, key=lambda f: abs(f - 0.5 * s)) for s in scales}
    thicknesses = {max(1, min(4, round(s))) for s in scales}
    styles = [BlinkStyle(tuple(colour), radius, max(1, round(2 * middle)), font, thickness, round(18 * middle))
              for font in fonts for thickness in thicknesses]
    return sorted(styles, key=lambda st: (abs(st.font_scale - 0.5 * middle), abs(st.text_thickness - middle)))


def read_blink_points(rgb: np.ndarray, labels: Sequence[str], colour: Sequence[int] = RED,
                      radii: Sequence[int] | None = None) -> BlinkRead:
    """Find `labels` drawn in BLINK's style on an (H, W, 3) uint8 RGB image: markers placed
    (source "blink_style"; "blink_style.elimination" for the last label placed on the last ring
    left, its label unread) and, for the others, why not. `colour`: the rings' (red; white for
    Relative_Reflectance). `radii`: ring radii to try (default: candidate_radii of the image);
    one scale is chosen per image, the one whose rings' boxes read the most labels."""
    H, W = rgb.shape[:2]
    labels = list(dict.fromkeys(labels))
    ink = ink_map(rgb, colour)
    ring = ring_pixels(rgb, tuple(colour))
    dark = (rgb.max(axis=2) < 60).astype(np.float32)  # BLINK's black box after JPEG
    bright = (rgb.min(axis=2) > 170).astype(np.float32)  # its white glyphs
    radii = list(radii) if radii is not None else candidate_radii(W, H)
    # the radii whose strongest rings stand out most (as many rings as labels) are read further
    strength = {}
    for radius in radii:
        style = styles_for_radius(radius, colour)[0]
        scores = _ring_scores(ink, style)
        peaks = _ring_peaks(scores, style)
        strength[radius] = (sum(max(p[2], 0.0) for p in peaks[:len(labels)]), peaks, scores[0])
    chosen = sorted(radii, key=lambda r: -strength[r][0])[:RADII_READ]
    luma = _Luma(rgb, pad=int(np.ceil(8 * max(chosen))))
    best_style, best_found, best_key = None, [], (0, 0, 0.0)
    for radius in chosen:
        for style in styles_for_radius(radius, colour):
            peaks = strength[radius][1]
            if _measured(style):  # only there does a box alone tell where its ring is
                peaks = peaks + _centres_below_boxes(dark, bright, style, labels, peaks)
            found = _read_rings(peaks, luma, ring, labels, style, W, strength[radius][2])
            read = sum(_reading(fits)[0] is not None for _, _, fits in found)
            # most labels read, then most BLINK boxes found (a label cut by the edge still counts), then the best fit
            key = (read, len(found), -sum(min(f.fit for f in fits.values()) for _, _, fits in found))
            if best_style is None or key > best_key:
                best_style, best_found, best_key = style, found, key
            if read == len(labels):
                break  # every label read in this geometry: the likeliest that does
        if best_key[0] == len(labels):
            break
    out = BlinkRead(scale=best_style.radius / 5 if best_found else None)
    if not best_found:
        out.missing = {label: "no ring with a BLINK-style label box" for label in labels}
        return out
    style = best_style
    readings = [(cx, cy, fits, *_reading(fits)) for cx, cy, fits in best_found]
    # rings whose box is BLINK's but whose glyphs the image edge cut away
    unread = [(cx, cy, fits) for cx, cy, fits, label, _ in readings
              if label is None and not any(f.readable for f in fits.values() if f.fit <= BOX_FIT)]
    unseen = []  # labels no ring reads as (not: read at several)
    for label in labels:
        at = [(cx, cy, fits, confidence) for cx, cy, fits, read, confidence in readings if read == label]
        if len(at) > 1:
            out.missing[label] = f"{len(at)} rings read as {label}"
        elif at:
            cx, cy, fits, confidence = at[0]
            out.markers[label] = _marker(label, cx, cy, fits[label].box, confidence, style)
        else:
            out.missing[label] = "no ring whose box reads as it"
            unseen.append(label)
    if len(unseen) == 1 and len(out.markers) == len(labels) - 1:
        label = unseen[0]
        # one BLINK marker left whose label cannot be read (cut by the edge, say): its box fits
        if len(unread) == 1 and label in unread[0][2] and unread[0][2][label].fit <= BOX_FIT:
            cx, cy, fits = unread[0]
            out.markers[label] = _marker(label, cx, cy, fits[label].box, ELIMINATION_CONFIDENCE, style, ELIMINATION)
            del out.missing[label]
        elif out.markers:  # or, beside the markers placed, one whole ring left whose label the top edge cut
            left = _last_ring(strength[style.radius][1], ring, dark, style, label, list(out.markers.values()), W)
            if left is not None:
                out.markers[label] = _marker(label, *left, ELIMINATION_CONFIDENCE, style, ELIMINATION)
                del out.missing[label]
    return out


def _last_ring(peaks: list[tuple[int, int, float]], ring: RingPixels, dark: np.ndarray, style: BlinkStyle, label: str,
               placed: list[Marker], width: int) -> tuple[int, int, tuple[int, int, int, int]] | None:
    """The ring the last asked `label` must be when every other label is placed: the one whole
    ring (ring_evidence) of `peaks` no placed marker stands on, whose label box BLINK writes
    above it starting past the top edge, with what shows of that box dark. (cx, cy, the box's
    part inside the image), or None: no ring left, several, or one whose label would show."""
    free = [(cx, cy) for cx, cy, _ in peaks
            if all(np.hypot(cx - m.xy[0], cy - m.xy[1]) > 2 * style.radius for m in placed)
            and ring_drawn_near(ring, (cx, cy), style)]
    if len(free) != 1:
        return None
    cx, cy = free[0]
    g = style.glyph(label)
    x0 = min(max(cx - g.width // 2, 0), max(width - g.width, 0)) - 1
    # the box's last row (org.y + 1): BLINK's offset is measured at scale 1, inferred (a px or
    # two either way) on larger images, where a label may show a row or two more or less
    bottom = cy - style.offset + 1
    play = 0 if _measured(style) else 2 * style.text_thickness
    if bottom - g.height - 2 >= 0 or bottom < -play:
        return None  # its box would show whole, or lie past the top edge whole: nothing tells it is BLINK's
    box = (max(x0, 0), 0, min(x0 + g.width + 2, width - 1), max(bottom, 0))
    shown = dark[box[1]:box[3] + 1, box[0]:box[2] + 1]
    if shown.size == 0 or float(shown.mean()) < CUT_BOX_DARK:
        return None
    return cx, cy, box


def _marker(label: str, cx: int, cy: int, box: tuple[int, int, int, int], confidence: float, style: BlinkStyle,
            source: str = "blink_style") -> Marker:
    return Marker(label, (float(cx), float(cy)), round(confidence, 4), radius=float(style.radius),
                  ring_width=float(style.ring_thickness), label_box=box, colour=tuple(style.colour), source=source)
