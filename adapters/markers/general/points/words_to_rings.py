"""The points parser's first pass: read the words around the circles and choose which circle each
label names.

    read_words(rgb, lab, circles, labels, classifier) -> ([LabelRead] read as labels, [LabelRead] unread)
    placement_error(rect, circle, shape) -> px off the nearest placement the renderer could draw
    word_options(label, reads) -> [(LabelRead, circle index)], cheapest first
    ranked_assignments(labels, options, circles, lone) -> [(cost, combo)], cheapest first

A word may label a circle only where the renderer could have put it beside that ring. An
assignment costs each label's placement error and reading doubt plus the disagreement of the
labels' sides and polarities, and its rings must look drawn in one style (`one_style`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Sequence

import numpy as np

from adapters.markers.general.nets.glyphs import GlyphClassifier
from adapters.markers.general.points.rings import Circle
from adapters.markers.general.points.state import LabelRead
from adapters.markers.general.points.words import Word, box_text_words, colour_text_words
from adapters.markers.general.thresholds import (
    BORDER_TOUCH,
    DOUBT_WEIGHT,
    GAP_RANGE,
    LONE_MIN_COVERAGE,
    LONE_MIN_SIMILARITY,
    MAX_OPTIONS,
    MIN_WORD_HEIGHT,
    PLACEMENT_WEIGHT,
    POLARITY_WEIGHT,
    PUSHED_MAX,
    SIDE_WEIGHT,
    STYLE_COLOUR,
    STYLE_COLOUR_THIN,
    STYLE_HEIGHT,
    STYLE_RADIUS,
    THIN_RING,
)


def rect_distance(x: float, y: float, rect) -> float:
    x0, y0, x1, y1 = rect
    dx = max(x0 - x, 0.0, x - (x1 - 1))
    dy = max(y0 - y, 0.0, y - (y1 - 1))
    return float(np.hypot(dx, dy))


def _contains(outer, inner) -> bool:
    return outer != inner and outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def read_words(rgb: np.ndarray, lab: np.ndarray, circles: list[Circle], labels: Sequence[str],
                classifier: GlyphClassifier) -> tuple[list[LabelRead], list[LabelRead]]:
    """(words read as one of `labels`, words of label height read as nothing) around the circles."""
    words: dict[tuple, Word] = {}
    for circle in circles:
        reach = int(circle.r + circle.width / 2 + 48)
        # own ring removed only (a glyph mistaken for a circle keeps its ink), then every ring
        # removed (a neighbour's ring crossing the label is cut away)
        for word in (*colour_text_words(lab, circle, [circle], reach),
                     *colour_text_words(lab, circle, circles, reach),
                     *box_text_words(lab, circle, reach)):
            words.setdefault((word.rect, word.polarity, word.mask.shape, int(word.mask.sum())), word)
    unique = list(words.values())
    readings = classifier.read_many([w.mask for w in unique], tuple(labels))
    unread = [LabelRead(w, r) for w, r in zip(unique, readings)
              if r.label is None and w.rect[3] - w.rect[1] >= MIN_WORD_HEIGHT]
    reads = [LabelRead(w, r) for w, r in zip(unique, readings)
             if r.label is not None and w.rect[3] - w.rect[1] >= MIN_WORD_HEIGHT + (r.label == "REF")]
    # a reading inside a larger successful one of another label is part of it ("E" in "REF");
    # one of the same label is kept (the larger one may have swallowed a speck of the scene)
    reads = [r for r in reads if not any(_contains(o.word.rect, r.word.rect) and o.label != r.label for o in reads)]
    # the same rect read twice (two masks of one word): keep the most similar reading
    best: dict[tuple, LabelRead] = {}
    for r in reads:
        key = (r.word.rect, r.label)
        if key not in best or r.reading.similarity > best[key].reading.similarity:
            best[key] = r
    return list(best.values()), unread


def placement_error(rect, c: Circle, shape: tuple[int, int] | None = None) -> float:
    """px off the nearest drawn placement of a label rect (x0, y0, x1, y1) beside circle `c`,
    on an image of `shape` (H, W), when given: a label within BORDER_TOUCH px of its border may
    have been pushed inside by it (draw.render's keep_inside: a label that leaves the image on both
    sides is clamped to the border), so it is also tried up to PUSHED_MAX px further out there:
    a clearly read label clamped that way sits off every drawn placement and would name no circle.
    """
    x0, y0, x1, y1 = rect
    far = np.hypot((x0 + x1) / 2 - c.x, (y0 + y1) / 2 - c.y) > c.outer + GAP_RANGE[1] + PUSHED_MAX + (x1 - x0) + (y1 - y0)
    if shape is None or far:
        return _placement_error(rect, c)
    H, W = shape
    out = np.arange(1.0, PUSHED_MAX + 1.0)  # px further out, towards the border it touches
    shifts_x = [0.0, *(-out if x0 <= BORDER_TOUCH else out if x1 >= W - BORDER_TOUCH else [])]
    shifts_y = [0.0, *(-out if y0 <= BORDER_TOUCH else out if y1 >= H - BORDER_TOUCH else [])]
    return min(_placement_error((x0 + dx, y0 + dy, x1 + dx, y1 + dy), c) for dx in shifts_x for dy in shifts_y)


def _placement_error(rect, c: Circle) -> float:
    """placement_error of `rect` where it was drawn.

    draw.render._place puts a label on one of 8 sides at reach = ring edge + gap (1-4 px):
    centred on the circle's row (left/right) or column (top/bottom), or with its nearest corner
    on a diagonal. The error is how far the rect is from the closest such placement, allowing the
    gap anywhere in [GAP_RANGE] past the measured ring edge (c.outer): a rect read a pixel
    short (a glyph's anti-aliased edge lost to the ring's margin) still fits.
    """
    x0, y0, x1, y1 = rect
    x1, y1 = x1 - 1, y1 - 1  # inclusive ink extent
    lo, hi = c.outer + GAP_RANGE[0], c.outer + GAP_RANGE[1]

    def off(v: float) -> float:  # distance of a reach to [lo, hi]
        return max(lo - v, 0.0, v - hi)

    best = np.inf
    centre_x, centre_y = (x0 + x1) / 2, (y0 + y1) / 2
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
        near_x = x0 - c.x if dx > 0 else c.x - x1  # distance of the rect's near edges
        near_y = y0 - c.y if dy > 0 else c.y - y1
        if dx and dy:  # diagonal: both near edges at reach / sqrt(2)
            reach = (near_x + near_y) / np.sqrt(2.0)
            err = abs(near_x - near_y) / np.sqrt(2.0) + off(reach)
        elif dx:
            reach = near_x
            err = abs(centre_y - c.y) + off(reach)
        else:
            reach = near_y
            err = abs(centre_x - c.x) + off(reach)
        best = min(best, float(err))
    return best


def ranked_assignments(labels: list[str], options, circles: list[Circle], lone: bool) -> list[tuple[float, tuple]]:
    """Every one-to-one choice of one (reading, circle) option per label that looks drawn in one
    style (a lone label: with a complete ring and a clear reading), as (cost, combo), cheapest first."""
    ranked = []
    for combo in itertools.product(*(options[label] for label in labels)):
        used_circles = [j for _, j in combo]
        used_reads = [id(r) for r, _ in combo]
        if len(set(used_circles)) < len(combo) or len(set(used_reads)) < len(combo):
            continue
        if not one_style(combo, circles):
            continue
        if lone and (circles[combo[0][1]].coverage < LONE_MIN_COVERAGE
                     or combo[0][0].reading.similarity < LONE_MIN_SIMILARITY):
            continue
        ranked.append((_cost(combo, circles), combo))
    return sorted(ranked, key=lambda item: item[0])


def one_style(combo, circles: list[Circle]) -> bool:
    """Whether the chosen (reading, circle) pairs look drawn in one style, as one question's
    markers are: ring radii within STYLE_RADIUS px, ring colours within STYLE_COLOUR Lab units
    (STYLE_COLOUR_THIN between thin rings), label heights within a factor STYLE_HEIGHT. A scene
    blob read as a letter beside a scene circle rarely matches the real markers on all three.

    The label polarity is not required to agree (only preferred, in _cost): which detector finds
    a word is not the drawn polarity. Light text in the ring's colour on a dark patch of scene
    is also a light word in a dark hole ("box"), and a boxed label whose box was cut or touched
    by dark scene is found only by its ink ("colour"). Requiring one polarity would refuse such
    right markers, while radius, colour and height already turn the scene's pairings away."""
    if len(combo) < 2:
        return True
    chosen = [circles[j] for _, j in combo]
    heights = [r.word.rect[3] - r.word.rect[1] for r, _ in combo]
    radii = [c.r for c in chosen]
    colour_spread = max(float(np.linalg.norm(np.subtract(a.lab, b.lab))) for a in chosen for b in chosen)
    thin = min(c.width for c in chosen) <= THIN_RING
    return (max(radii) - min(radii) <= STYLE_RADIUS
            and colour_spread <= (STYLE_COLOUR_THIN if thin else STYLE_COLOUR)
            and max(heights) <= STYLE_HEIGHT * min(heights))


def word_options(label: str, reads: list[LabelRead]) -> list[tuple[LabelRead, int]]:
    """The MAX_OPTIONS cheapest (reading, circle index) pairs that could place `label`."""
    pairs = [(r, j) for r in reads if r.label == label for j in r.placement_errors]
    return sorted(pairs, key=lambda p: _pair_cost(p[0], p[1]))[:MAX_OPTIONS]


def _pair_cost(read: LabelRead, j: int) -> float:
    """One label's own part of _cost: how far its reading sits off circle j's placements and
    how doubtful the reading is."""
    return PLACEMENT_WEIGHT * read.placement_errors[j] + DOUBT_WEIGHT * (1.0 - read.reading.similarity)


def _cost(combo, circles: list[Circle]) -> float:
    cost = 0.0
    directions = []
    for read, j in combo:
        cost += _pair_cost(read, j)
        directions.append(_side(read.rect, circles[j]))
    if len(directions) > 1:
        mean = unit(np.mean(directions, axis=0))
        cost += SIDE_WEIGHT * sum(1.0 - float(d @ mean) for d in directions)
        polarities = Counter(read.word.polarity for read, _ in combo)
        cost += POLARITY_WEIGHT * (len(combo) - max(polarities.values()))
    return cost


def unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-6)


def _side(rect, c: Circle) -> np.ndarray:
    """(2,) unit vector from circle `c`'s centre to the centre of a label rect (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = rect
    return unit(np.array([(x0 + x1) / 2 - c.x, (y0 + y1) / 2 - c.y]))
