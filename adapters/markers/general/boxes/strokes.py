"""Stroke candidates for one side of a box, and the choice of the box's own stroke among them.

side_candidates finds the strokes that could be a side on the side's median colour profile (also
on either half of it: on_each_half, with_far_half, on_a_half); common_colour finds the colour and
width the sides share; _nearest and strokes_at pick the side's stroke of that look where the finder
put it, or say another line of its colour is too near; edge_of_band, band_edge_for_fringe and in_band
handle two boxes' touching sides merged into one band; at_border places a stroke cut by the image's
border. fit.fit_outline picks each side from these.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from adapters.markers.general.boxes.outline import WIDTHS, Side, _alike
from adapters.markers.general.thresholds import (
    BAND_EDGE_MARGIN,
    BAND_EXCESS,
    BAND_GAP,
    COLOUR_SPREAD,
    END_TRIM,
    FRINGE,
    MIN_SIDE,
    MIN_STROKE_CONTRAST,
    NEAR_GUESS,
    NEIGHBOUR,
    SEARCH,
    SEPARATE,
    STRONG,
    THIN,
    WIDTH_SPREAD,
)


def _rows(lab: np.ndarray, transposed: bool) -> np.ndarray:
    """The image as rows across which a side is searched: (H, W, 3), or (W, H, 3) for vertical sides."""
    return lab.transpose(1, 0, 2) if transposed else lab


def side_candidates(lab: np.ndarray, approx: float, start: float, end: float, transposed: bool = False,
                    most: int = 5) -> list[Side]:
    """Up to `most` strokes, strongest first, that could be the horizontal side (vertical when
    `transposed`) centred within SEARCH px of row `approx`, running from `start` to `end` along it.

    Score of a stroke over rows t..t+w-1: min(|stroke - rows t-3..t-2|, |stroke - rows
    t+w+1..t+w+2|) - the spread inside the stroke, on the profile of per-row medians along the
    side (rows 1 px off the stroke are skipped: an anti-aliased edge belongs to neither side).
    Another line or a label's box can stand out nearby too; the caller picks by colour. (Five by
    default: a label's box, a scene edge and a wider band of the box's colour beside a side can all
    outscore its own stroke.)
    """
    image = _rows(lab, transposed)
    H, W = image.shape[:2]
    a, b = int(np.ceil(start)) + END_TRIM, int(np.floor(end)) - END_TRIM
    a, b = max(a, 0), min(b, W - 1)
    if b - a + 1 < MIN_SIDE // 2:
        return []
    lo, hi = int(np.floor(approx)) - SEARCH - max(WIDTHS) - 3, int(np.ceil(approx)) + SEARCH + max(WIDTHS) + 3
    rows = np.arange(max(lo, 0), min(hi, H - 1) + 1)
    profile = np.median(image[rows, a:b + 1], axis=1)  # (rows, 3)
    first = int(rows[0])
    # running sums over the profile, so each (top, width) window's mean and spread are O(1)
    cumulative = np.concatenate([np.zeros((1, 3)), np.cumsum(profile, axis=0)])
    squares = np.concatenate([np.zeros(1), np.cumsum((profile ** 2).sum(axis=1))])
    n, last = len(profile), int(rows[-1])
    # every (top, width) window within SEARCH px of `approx`, scored at once
    tops_by_width = [np.arange(int(np.floor(approx - SEARCH - (w - 1) / 2)), int(np.ceil(approx + SEARCH - (w - 1) / 2)) + 1)
                     for w in WIDTHS]
    tops = np.concatenate(tops_by_width)
    widths = np.concatenate([np.full(len(t), w) for t, w in zip(tops_by_width, WIDTHS)])
    # a stroke against the image's border has the scene on one side only: scored on that side
    has_above, has_below = tops - 3 >= first, tops + widths + 2 <= last
    keep = (tops >= first) & (tops + widths - 1 <= last) & (has_above | has_below)
    tops, widths, has_above, has_below = tops[keep], widths[keep], has_above[keep], has_below[keep]
    i = tops - first
    mean = (cumulative[i + widths] - cumulative[i]) / widths[:, None]  # (n, 3)
    spread = np.sqrt(np.maximum((squares[i + widths] - squares[i]) / widths - (mean ** 2).sum(axis=1), 0))
    above = (profile[np.clip(i - 3, 0, n - 1)] + profile[np.clip(i - 2, 0, n - 1)]) / 2
    below = (profile[np.clip(i + widths + 1, 0, n - 1)] + profile[np.clip(i + widths + 2, 0, n - 1)]) / 2
    d_above = np.where(has_above, np.sqrt(((mean - above) ** 2).sum(axis=1)), np.inf)
    d_below = np.where(has_below, np.sqrt(((mean - below) ** 2).sum(axis=1)), np.inf)
    score = np.minimum(d_above, d_below) - spread
    strong = score >= MIN_STROKE_CONTRAST
    score, tops, widths = score[strong], tops[strong], widths[strong]
    sides: list[Side] = []
    taken: list[tuple[int, int]] = []
    # strongest first (ties: the higher top, then the wider window, as a reverse sort of (score, top, w))
    for k in np.lexsort((-widths, -tops, -score)):
        score_k, top, w = float(score[k]), int(tops[k]), int(widths[k])
        if any(top < t + tw and t < top + w for t, tw in taken):  # overlaps a stronger stroke: the same one
            continue
        taken.append((top, w))
        pos, width = _centre_line(image, top, w, a, b, profile, first)
        if any(abs(pos - other.pos) < 1.0 for other in sides):  # the same stroke, fitted from another window
            continue
        centre = min(max(int(round(pos)), 0), H - 1)
        colour = profile[centre - first] if first <= centre <= last else np.median(image[centre, a:b + 1], axis=0)
        sides.append(Side(pos, width, tuple(float(v) for v in colour), score_k,
                          one_sided=not (has_above[k] and has_below[k])))
        if len(sides) == most:
            break
    return sides


def _centre_line(image: np.ndarray, top: int, stroke: int, start: int, end: int,
                 profile: np.ndarray | None = None, first: int = 0) -> tuple[float, float]:
    """(sub-pixel centre row, width px) of a horizontal stroke over rows top..top+stroke-1 in
    columns start..end: the centroid and the sum of how far each row's median colour has gone
    from the scene beside it towards the stroke's colour (anti-aliased edge rows count in part).
    profile: those per-row medians over all the columns, from row `first` on, when known
    (side_candidates'; a median per call would be most of the box parser's time).

    Columns where another line of the stroke's colour crosses it (the rows beside the stroke on
    both sides are ink too) are left out when at most half are: other boxes' sides crossing this
    one fill those columns' profile with ink, which widens the stroke and pulls its centre."""
    H = image.shape[0]
    rows = np.arange(max(0, top - 3), min(H, top + stroke + 3))
    outside = [r for r in (top - 3, top - 2, top + stroke + 1, top + stroke + 2) if 0 <= r < H]
    columns = image[:, start:end + 1]
    known = profile is not None and rows[0] >= first and rows[-1] - first < len(profile)

    def medians(which) -> np.ndarray:  # (len(which), 3) per-row medians over `columns`
        return profile[np.asarray(which) - first] if known else np.median(columns[which], axis=1)

    for _ in range(2):  # the second pass without the crossed columns, if any
        ink = medians(np.arange(top, top + stroke)).mean(axis=0)
        scene = medians(outside).mean(axis=0)
        towards = ink - scene
        length2 = float(towards @ towards)
        if length2 < 1e-3:
            return top + (stroke - 1) / 2, float(stroke)
        crossed = (np.linalg.norm(columns[outside] - ink, axis=-1) < 0.5 * np.sqrt(length2)).all(axis=0)
        if not crossed.any() or crossed.sum() > crossed.size / 2:
            break
        columns, known = columns[:, ~crossed], False
    profile_rows = medians(rows)  # (rows, 3)
    t = np.clip((profile_rows - scene) @ towards / length2, 0, 1)
    return float((t * rows).sum() / max(t.sum(), 1e-6)), float(max(t.sum(), 1.0))


def at_border(side: Side, width: float, limit: int) -> float:
    """A side's centre line when its stroke is cut by the image's border (limit px across):
    only its inner edge is seen, so the centre is half the box's stroke `width` in from there."""
    if side.pos - side.width / 2 < 1:
        return side.pos + side.width / 2 - width / 2
    if side.pos + side.width / 2 > limit - 2:
        return side.pos - side.width / 2 + width / 2
    return side.pos


def on_a_half(lab: np.ndarray, approx: float, start: float, end: float, transposed: bool,
               common: tuple[np.ndarray, float]) -> Side | None:
    """The one stroke of the box's look (`common`: colour, width) where the corner finder put a
    side (strokes_at), found on either half of the side, where its whole length shows none:
    another label's dark box over nearly half of it pulls the side's median colour off the
    stroke's. measure_outline then measures the side along its whole length, and the rules
    excuse the label's box (measure._too_hidden)."""
    strokes = strokes_at(on_each_half(lab, approx, start, end, transposed), *common, approx)
    return strokes[0] if strokes else None


def on_each_half(lab: np.ndarray, approx: float, start: float, end: float, transposed: bool) -> list[Side]:
    """A side's stroke candidates (side_candidates) searched on each half of it, start to middle and middle to end."""
    middle = (start + end) / 2
    return side_candidates(lab, approx, start, middle, transposed) + side_candidates(lab, approx, middle, end, transposed)


def with_far_half(candidates: list[Side], far_half: list[Side]) -> list[Side]:
    """A labelled corner's side candidates (over the whole side) with those found on its far half:
    a stroke new there is added, and one at a like place and width, with a stronger contrast and a
    colour unlike the whole side's, replaces it: a label's dark box over much of the side has
    pulled that side's median colour towards its own, so that it reads unlike the box's other
    sides. (Replacing every stronger one would also widen a side with a blob of the box's colour
    beside it past the others' width.)"""
    candidates = list(candidates)
    for extra in far_half:
        same = [k for k, c in enumerate(candidates) if _same_stroke(extra, c)]
        if not same:
            candidates.append(extra)
            continue
        k = same[0]
        whole = candidates[k]
        if (_same_place(extra, whole) and extra.contrast > whole.contrast
                and not _alike(extra.lab, whole.lab, min(extra.width, whole.width))):
            candidates[k] = extra
    return candidates


def _same_place(a: Side, b: Side) -> bool:
    """Within 1 px of each other at a like width (within 1 px too)."""
    return abs(a.pos - b.pos) < 1.0 and abs(a.width - b.width) < 1.0


def _same_stroke(extra: Side, found: Side) -> bool:
    """Whether a stroke found on part of a side (`extra`) is one already `found` on the whole side:
    within 1 px of it at a like width, or overlapping a stronger stroke of its colour (a piece of
    that stroke's anti-aliased fringe, which would otherwise compete with it on position)."""
    if _same_place(extra, found):
        return True
    return (abs(extra.pos - found.pos) < (extra.width + found.width) / 2 and extra.contrast < found.contrast
            and _alike(extra.lab, found.lab, min(extra.width, found.width)))


def common_colour(options: list[list[Side]]) -> tuple[np.ndarray, float] | None:
    """(Lab colour, width px) of the strongest strokes (summed contrast) among those the most
    sides, or one side fewer, have a candidate of, as the median of those candidates; None when
    no two sides share one. A nearby line or label box can outscore a thin side, but not in the
    colour of the other sides."""
    shared = []  # (sides, summed contrast, the strokes) per seed stroke's colour and width
    for seed in (c for candidates in options for c in candidates):
        chosen = [_nearest(candidates, seed.lab, seed.width) for candidates in options]
        chosen = [c for c in chosen if c is not None]
        if len(chosen) >= 2:
            shared.append((len(chosen), sum(c.contrast for c in chosen), chosen))
    if not shared:
        return None
    # the strongest strokes in all among the colours shared by the most sides or one fewer: a thin
    # line's tolerance (COLOUR_SPREAD_THIN) lets weak scene bands agree on all four sides where a
    # label's box hides one side of a strong box
    most = max(n for n, _, _ in shared)
    best = max((t for t in shared if t[0] >= most - 1), key=lambda t: t[1])[2]
    return np.median(np.array([c.lab for c in best]), axis=0), float(np.median([c.width for c in best]))


def _nearest(candidates: list[Side], colour, width: float, approx: float | None = None) -> Side | None:
    """The candidate most like a stroke of `colour` (Lab) and `width` px, if any is alike; with
    `approx`, the one stroke of that look where the corner finder put the side (strokes_at),
    None where another line of its colour lies a few px from it."""
    if approx is not None:
        strokes = strokes_at(candidates, colour, width, approx)
        return strokes[0] if len(strokes) == 1 else None
    alike = alike_strokes(candidates, colour, width)
    return min(alike, key=lambda c: np.linalg.norm(np.subtract(c.lab, colour)) / COLOUR_SPREAD
               + abs(c.width - width) / 2, default=None)


def alike_strokes(candidates: list[Side], colour, width: float) -> list[Side]:
    return [c for c in candidates if _alike(c.lab, colour, min(c.width, width)) and abs(c.width - width) <= WIDTH_SPREAD]


def _seen_whole_first(alike: list[Side], colour) -> list[Side]:
    """`alike` without the strokes against the image's border that are alike the box's colour only
    at the thin strokes' spread, where a stroke with the scene on both sides is alike too. A band
    of the scene along the border, scored against one side only, can outscore a thin side drawn
    a few px inside it and take its place, though far off the box's colour (a 1 px side over
    noise a few px from the border, and the box placed on the border)."""
    if all(c.one_sided for c in alike):
        return alike  # a side cut by the border, or nothing else to choose from
    return [c for c in alike if not c.one_sided or float(np.linalg.norm(np.subtract(c.lab, colour))) <= COLOUR_SPREAD]


def strokes_at(candidates: list[Side], colour, width: float, approx: float) -> list[Side]:
    """Of the strong candidates alike a stroke of `colour` and `width` (another box's side of the
    same colour can be a few px off), the one nearest `approx`, then every rival of it: another
    line of its own colour within NEIGHBOUR px of `approx` (which is the side then cannot be told
    from the profile). Empty when no candidate is alike."""
    alike = _seen_whole_first(alike_strokes(candidates, colour, width), colour)
    if not alike:
        return []
    # two strong strokes of the box's colour: the one where the corner finder put the side (a
    # stroke's anti-aliased fringe is a weaker candidate beside it, and does not compete)
    strong = [c for c in alike if c.contrast >= STRONG * max(a.contrast for a in alike)]
    chosen = min(strong, key=lambda c: abs(c.pos - approx))
    # a rival is another line of the chosen one's own colour (within COLOUR_SPREAD, however
    # thin: a stroke's fringe blended with the scene is not) that does not overlap it (a
    # fringe piece of a wide stroke, fitted as a thin stroke beside it, does)
    return [chosen, *(c for c in strong
                      if abs(c.pos - approx) <= NEIGHBOUR
                      and abs(c.pos - chosen.pos) >= max(SEPARATE, (c.width + chosen.width) / 2)
                      and float(np.linalg.norm(np.subtract(c.lab, chosen.lab))) <= COLOUR_SPREAD)]


def edge_of_band(candidates: list[Side], colour, width: float, approx: float) -> Side | None:
    """The side at the edge of a band of the box's `colour` two strokes wide, when no candidate
    is a single stroke of the box's: two boxes' parallel sides a few px apart merge into one
    band on the median profile (a near miss of a box, its sides moved 6 px, at a 3 px stroke),
    and this box's side is the band's edge where the corner finder put it, `width` px wide
    (_band_edge_at_guess); measure_outline then measures that side pixel by pixel, as any other."""
    if any(_alike(c.lab, colour, min(c.width, width)) and abs(c.width - width) <= WIDTH_SPREAD for c in candidates):
        return None  # a stroke of the box's look is there: _nearest found it ambiguous, and so it stays
    return _band_edge_at_guess([c for c in candidates if _is_band(c, colour, width)], width, approx)


def band_edge_for_fringe(candidates: list[Side], colour, width: float, approx: float, side: Side) -> Side | None:
    """The edge of a band two strokes wide (_band_edge_at_guess) where `side`, the stroke _nearest
    chose, is a window on that band's fringe: centred inside the band and reaching over FRINGE px
    past its edge. Two boxes' sides 4 px apart make one solid band on the profile, and a window
    half on its fading outer edge scores as a stroke of the box's width, about 2 px off the side.
    So is a window inside the band with under STRONG times its contrast: where the band meets the
    image's border, its last 2 px make a faint window of the box's width (a side drawn a few px
    from the border beside another box's is fitted on that sliver and moved onto the border).
    None otherwise, and for thin strokes (THIN): over texture a 1-2 px line's profile makes such
    bands of the scene, and the rule would move right thin sides onto them.

    A chosen window over BAND_EXCESS px wider than the box's stroke (within WIDTH_SPREAD, so taken
    as one) is itself such a band when the strokes touch: the side is fitted between them, about
    2 px off. It is taken at its edge nearest the guess too, marked banded (Side.banded), since
    the finder can put a corner on the other box's stroke: final_checks.check_placed_boxes refuses
    a box whose banded side lies on another placed box's side."""
    if width <= THIN:
        return None
    if (side.width - width > BAND_EXCESS and side.width <= 2 * width + BAND_GAP
            and (edge := _band_edge_at_guess([side], width, approx))):
        # the chosen window is itself two touching strokes, measured a little too wide to be one
        return replace(edge, banded=True)
    for band in candidates:
        if not _is_band(band, colour, width):
            continue
        low, high = band.pos - band.width / 2, band.pos + band.width / 2
        on_fringe = side.pos + side.width / 2 > high + FRINGE or side.pos - side.width / 2 < low - FRINGE
        faint = side.contrast < STRONG * band.contrast  # a sliver of the band's own profile
        if low < side.pos < high and (on_fringe or faint) and (edge := _band_edge_at_guess([band], width, approx)):
            return edge
    return None


def in_band(candidates: list[Side], colour, width: float, side: Side) -> bool:
    """Whether `side` lies inside one of `candidates` that is a band two strokes wide (_is_band):
    the other stroke is another box's side, and the finder may have put this box's corner on it
    (a far corner put on the touching side of another box, and the fit keeping that stroke).
    final_checks.check_placed_boxes refuses such a side (marked banded, as at a band's edge)
    where another placed box's side lies. Not for thin strokes (THIN): over texture a 1-2 px
    line's profile makes such bands of the scene."""
    return width > THIN and any(_is_band(band, colour, width) and abs(side.pos - band.pos) < band.width / 2
                                for band in candidates)


def _is_band(candidate: Side, colour, width: float) -> bool:
    """Whether `candidate` is a band of the box's `colour` two strokes `width` px wide (with up to
    BAND_GAP px between them), too wide to be one."""
    return (candidate.width - width > WIDTH_SPREAD and candidate.width <= 2 * width + BAND_GAP
            and _alike(candidate.lab, colour, width))


def _band_edge_at_guess(bands: list[Side], width: float, approx: float) -> Side | None:
    """The side `width` px wide at the edge of one of `bands` (where a stroke of that width lies
    inside it) nearest `approx`, the finder's guess: None unless that edge lies within NEAR_GUESS px
    of it and BAND_EDGE_MARGIN px nearer than any other edge."""
    edges = sorted(((abs(pos - approx), pos, band) for band in bands
                    for pos in (band.pos - (band.width - width) / 2, band.pos + (band.width - width) / 2)),
                   key=lambda edge: edge[0])
    if not edges or edges[0][0] > NEAR_GUESS or (len(edges) > 1 and edges[1][0] - edges[0][0] < BAND_EDGE_MARGIN):
        return None
    _, pos, band = edges[0]
    return Side(pos, width, band.lab, band.contrast)
