"""The pixels along one side's stroke, and how a thin line's colour blends with the scene behind it.

Line reads one side: where it is inked (single pixels, and per-row medians over stretches for a
line JPEG has made too faint in single pixels), where labels' dark boxes hide it, how far it runs
on past a corner and whether another line of its colour lies alongside. ThinLineColour
(thin_line_colour) is a thin box's line fitted as a blend with any scene, so that its look over
each stretch's scene can be judged. measure.measure_outline judges sides with these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from adapters.markers.general.boxes.outline import _visible
from adapters.markers.general.thresholds import (
    ALONGSIDE,
    ALPHA_RANGE,
    BESIDE,
    BLEND_CONTRAST,
    BLEND_MIN,
    BOX_DARK,
    CROSSING_BESIDE,
    END_TRIM,
    LABEL_BOX_DARK,
    LABEL_BOX_MARGIN,
    LABEL_BOX_MAX,
    MODEL_CONTRAST,
    OWN_LABEL_DARKER,
    OWN_LABEL_START,
    RELATIVE_INK,
    RUN_ON,
    SEGMENT,
)


class Line:
    """The pixels of one side's stroke: the rows (columns, when transposed) within 1 px of
    `across`, and whether each position along it is of the box's colour (within tau Lab units)."""

    def __init__(self, lab: np.ndarray, across: float, transposed: bool, colour: np.ndarray, tau: float,
                 model: ThinLineColour | None = None) -> None:
        limit = lab.shape[1] if transposed else lab.shape[0]
        self.row = int(round(across))
        self.band = [r for r in (self.row - 1, self.row, self.row + 1) if 0 <= r < limit]
        self.lab, self.transposed, self.colour, self.tau, self.limit = lab, transposed, colour, tau, limit
        self.model = model

    def pixels(self, along: np.ndarray, rows=None) -> np.ndarray:
        """(n, k, 3) Lab at positions `along` in rows `rows` (default: the centre row only, (n, 3))."""
        if rows is None:
            return self.lab[along, self.row] if self.transposed else self.lab[self.row, along]
        return self.lab[along][:, rows] if self.transposed else self.lab[rows][:, along].transpose(1, 0, 2)

    def inked(self, along: np.ndarray) -> np.ndarray:
        """(n,) bool: of the box's colour (within tau), much nearer to it than the scene just
        beside the stroke on both sides, or a blend of the two holding at least BLEND_MIN of the
        box's colour (a thin anti-aliased line over a busy scene: its pixels are neither)."""
        distance = np.linalg.norm(self.pixels(along, self.band) - self.colour, axis=-1).min(axis=1)
        beside = self.beside()
        if beside is None:
            return distance <= self.tau
        scene = np.linalg.norm(self.pixels(along, beside) - self.colour, axis=-1).min(axis=1)
        return (distance <= self.tau) | (distance <= RELATIVE_INK * scene) | (self.blend(along, beside) >= BLEND_MIN)

    def drawn_stretches(self, along: np.ndarray) -> np.ndarray:
        """(n,) bool: positions in a SEGMENT px stretch whose per-row median colours hold at least
        BLEND_MIN of the box's colour, as _held_colour weighs single pixels (medians: a 1 px line
        on texture, its colour halved by JPEG, leaves few single pixels past BLEND_MIN but shifts
        the median). With a ThinLineColour model, also a stretch holding BLEND_MIN of how the line
        looks over that stretch's scene, where that look differs from the scene by MODEL_CONTRAST."""
        medians = self.stretch_medians(along)
        if medians is None:
            return np.zeros(len(along), bool)
        band, scene, lengths = medians
        held = _held_colour(band, scene, self.colour) >= BLEND_MIN
        if self.model is not None:
            held |= _held_colour(band, scene, self.model.over(scene), MODEL_CONTRAST) >= BLEND_MIN
        return np.repeat(held, lengths)

    def stretch_medians(self, along: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]] | None:
        """Per SEGMENT px stretch of positions `along` (the last one takes the rest): the per-row
        median Lab of the stroke's band (m, k, 3) and of the scene BESIDE px past it on both sides
        (m, 2, 3), and each stretch's length; None where no scene beside lies inside the image."""
        beside = self.beside()
        if beside is None or len(along) == 0:
            return None
        starts = list(range(0, max(len(along) - SEGMENT // 2, 1), SEGMENT))
        stretches = [slice(start, end) for start, end in zip(starts, [*starts[1:], len(along)])]
        band = np.stack([np.median(self.pixels(along[s], self.band), axis=0) for s in stretches])
        scene = np.stack([np.median(self.pixels(along[s], beside), axis=0) for s in stretches])
        return band, scene, [s.stop - s.start for s in stretches]

    def beside(self) -> list[int] | None:
        """The two rows (columns) where the scene beside the stroke is sampled: BESIDE px past
        its band on each side. Where that lies past the image's border, the last one inside it
        past the band; where there is none, the other side's again (the scene shows on one side
        only); None where neither side shows any. (A side a few px from the border still needs
        the tests against the scene: a thin side whose colour blends with the scene is inked only
        by them.)"""
        before, after = self.band[0] - BESIDE, self.band[-1] + BESIDE
        before = before if before >= 0 else (0 if self.band[0] > 0 else None)
        after = after if after < self.limit else (self.limit - 1 if self.band[-1] < self.limit - 1 else None)
        if before is None and after is None:
            return None
        return [before if before is not None else after, after if after is not None else before]

    def blend(self, along: np.ndarray, beside: list[int]) -> np.ndarray:
        """(n,) how much of the box's colour the band's likeliest pixel holds (_held_colour)."""
        return _held_colour(self.pixels(along, self.band), self.pixels(along, beside), self.colour)

    def under_label_boxes(self, along: np.ndarray, hit: np.ndarray, half: float) -> np.ndarray:
        """(n,) bool: where another box's label, light text on a dark box, hides this (light)
        side: a stretch not inked, mostly dark (below BOX_DARK) across the stroke and
        LABEL_BOX_MARGIN px past it on both sides, and no longer than a label's box (LABEL_BOX_MAX
        px). A dark scene (a shadow, a window) is dark over longer stretches, or not across the
        whole band. (measure._reaches_corners keeps its own excuse near a corner, judged on the
        corner's zone as a whole.)"""
        reach = int(np.ceil(half)) + LABEL_BOX_MARGIN
        hidden = np.zeros_like(hit)
        for start, end in self._dark_runs(along, hit, range(self.row - reach, self.row + reach + 1)):
            hidden[start:end] = True
        return hidden

    def under_own_label(self, along: np.ndarray, hit: np.ndarray) -> np.ndarray:
        """(n,) bool: where the left side's own label hides its start. With no room above the
        box, the label is written inside it, and a dark label box starts at the stroke's outer
        edge: a stretch not inked, starting within OWN_LABEL_START px of the side's start, where
        some row of the stroke's band is below BOX_DARK and OWN_LABEL_DARKER below the stroke's
        L (its light text may cross the other rows; the scene outside is not covered), for at
        most LABEL_BOX_MAX px (another label's box may go on below it). Unlike the excuse for
        other labels' boxes, this one holds for dark strokes too: the label's box is darker still."""
        darker = min(BOX_DARK, float(self.colour[0]) - OWN_LABEL_DARKER)
        dark = ~hit & (self.pixels(along, self.band)[..., 0] < darker).any(axis=1)
        hidden = np.zeros_like(hit)
        start = int(np.argmax(dark)) if dark.any() else len(dark)
        if start <= OWN_LABEL_START:
            end = start + int(np.argmin(np.append(dark[start:], False)))
            hidden[start:min(end, start + LABEL_BOX_MAX)] = True
        return hidden

    def _dark_runs(self, along: np.ndarray, hit: np.ndarray, across: range) -> list[tuple[int, int]]:
        """(start, end) of each stretch, at most LABEL_BOX_MAX long, where the stroke is not inked
        and the rows (columns) `across` are mostly dark (LABEL_BOX_DARK of them below BOX_DARK)."""
        across = [r for r in across if 0 <= r < self.limit]
        dark = ~hit & ((self.pixels(along, across)[..., 0] < BOX_DARK).mean(axis=1) >= LABEL_BOX_DARK)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], dark.astype(np.int8), [0]])))
        return [(int(start), int(end)) for start, end in zip(edges[::2], edges[1::2]) if end - start <= LABEL_BOX_MAX]

    def alongside(self, along: np.ndarray, half: float) -> float:
        """The fraction of positions `along` where the box's colour (within tau) lies ALONGSIDE px
        past the stroke's edge on one side only: another line of that colour touching this one
        there (two boxes' parallel sides a stroke's width apart). Their strokes merge into one
        wide band, and the side fitted on it may be either line's or a mix of both (up to about
        2 px off)."""
        offset = int(round(half + ALONGSIDE))
        sides = [r for r in (self.row - offset, self.row + offset) if 0 <= r < self.limit]
        if len(sides) < 2:
            return 0.0
        inked = np.linalg.norm(self.pixels(along, sides) - self.colour, axis=-1) <= self.tau  # (n, 2)
        return float((inked[:, 0] != inked[:, 1]).mean())

    def lightness(self, along: np.ndarray) -> np.ndarray:
        return self.pixels(along)[:, 0]

    def run_on(self, corner: float, sign: int, half: float, limit_along: int) -> float:
        """The fraction of RUN_ON px past `corner`, in direction `sign` (-1: towards 0), where the
        stroke goes on (0 where that stretch lies mostly past the image's border).

        A position does not count where every row (column) across, out to CROSSING_BESIDE px
        past the stroke's width on both sides, is of the box's colour: a line crossing this one
        there (another box's side a few px past the corner), not this line going on. Parallel
        lines of other boxes on both sides leave the scene between them and do count."""
        along = np.round(corner + sign * (np.arange(RUN_ON[0], RUN_ON[1] + 1) + half)).astype(int)
        along = along[(along >= 0) & (along < limit_along)]
        if len(along) < 4:
            return 0.0
        reach = int(np.ceil(half)) + CROSSING_BESIDE
        across = list(range(self.row - reach, self.row + reach + 1))
        ink = self.inked(along)
        if across[0] >= 0 and across[-1] < self.limit:
            ink &= ~(np.linalg.norm(self.pixels(along, across) - self.colour, axis=-1) <= self.tau).all(axis=1)
        return float(ink.mean())


def _held_colour(band: np.ndarray, scene: np.ndarray, colour: np.ndarray, contrast: float = BLEND_CONTRAST) -> np.ndarray:
    """(n,) how much of `colour` the likeliest of a stroke band's rows holds, as a blend of it and
    the scene beside the stroke: band (n, k, 3) Lab of the band's k rows, scene (n, 2, 3) Lab on
    both sides; colour (3,), or (n, 2, 3) per position and side (a ThinLineColour's look over
    that scene). The lesser of the two sides' estimates; 0 where that scene is itself within
    `contrast` Lab units of `colour`, and the blend cannot be told."""
    towards = colour - scene  # (n, 2, 3)
    length2 = (towards ** 2).sum(axis=-1)  # (n, 2)
    alpha = np.einsum("nkc,nsc->nsk", band, towards) - (scene * towards).sum(axis=-1)[..., None]
    alpha = alpha.max(axis=-1) / np.maximum(length2, 1e-6)  # (n, 2): the likeliest row, per side
    return np.where(length2 >= contrast ** 2, alpha, 0.0).min(axis=-1)


@dataclass(frozen=True)
class ThinLineColour:
    """How a thin line of one drawn colour looks over any scene: per Lab channel group
    (lightness; a and b together), pixel = alpha * drawn + (1 - alpha) * scene. JPEG keeps
    lightness at full resolution but averages colour over 2x2 pixels, so a 1 px line keeps most of
    its lightness (alpha 0.7-1) and about half its colour (alpha 0.4-0.6), and its median colour
    across a side (`Side.lab`) is one blend of it with the scenes that side crosses, which the
    line over another scene can be far from."""

    drawn: np.ndarray  # (3,) Lab
    alpha: np.ndarray  # (3,) per channel

    def over(self, scene: np.ndarray) -> np.ndarray:
        """(..., 3) how the line looks over `scene` (..., 3)."""
        return self.alpha * self.drawn + (1 - self.alpha) * scene


def thin_line_colour(lab: np.ndarray, box) -> ThinLineColour | None:
    """The ThinLineColour of a thin box's sides, fitted by least squares on SEGMENT px stretches'
    medians (Line.stretch_medians: the band row farthest from the scene; the scene's mean on both
    sides) along every visible side, twice dropping the quarter of stretches that fit worst
    (crossings, labels); None when alpha is out of ALPHA_RANGE. Over scenes all alike, alpha and
    the drawn colour cannot be told apart, but the line's look over such scenes (`over`), all that
    is asked of the fit, still can.

    Why by hand: a linear least-squares fit of a blend model, a few lines of numpy; no colour
    library models a line's colour mixed with what lies behind it."""
    H, W = lab.shape[:2]
    x0, y0, x1, y1 = box
    lines, scenes = [], []
    for across, start, end, transposed in ((y0, x0, x1, False), (y1, x0, x1, False), (x0, y0, y1, True), (x1, y0, y1, True)):
        limit_across, limit_along = (W, H) if transposed else (H, W)
        if not _visible(across, 1, limit_across):
            continue
        along = np.arange(int(np.ceil(start)) + END_TRIM, int(np.floor(end)) - END_TRIM + 1)
        along = along[(along >= 0) & (along < limit_along)]
        # the colour only matters to Line's ink tests, which the fit does not use
        medians = Line(lab, across, transposed, np.zeros(3), 0.0).stretch_medians(along)
        if medians is None:
            continue
        band, scene, _ = medians  # (m, k, 3), (m, 2, 3)
        scene = scene.mean(axis=1)  # (m, 3): the scene on both sides
        farthest = np.linalg.norm(band - scene[:, None], axis=-1).argmax(axis=1)  # (m,): the line's row
        lines += list(band[np.arange(len(band)), farthest])
        scenes += list(scene)
    if len(lines) < 8:
        return None
    line_px, scene_px = np.array(lines), np.array(scenes)
    drawn, alpha = np.zeros(3), np.zeros(3)
    for channels in ([0], [1, 2]):
        # line - scene = alpha * drawn - alpha * scene: linear in (alpha * drawn, alpha)
        keep = np.ones(len(line_px), bool)
        for _ in range(3):
            k, m = len(channels), int(keep.sum())
            design = np.zeros((k * m, k + 1))
            for j, c in enumerate(channels):
                design[j::k, j] = 1.0
                design[j::k, k] = -scene_px[keep, c]
            target = (line_px[keep][:, channels] - scene_px[keep][:, channels]).reshape(-1)
            solution = np.linalg.lstsq(design, target, rcond=None)[0]
            residual = np.linalg.norm(line_px[:, channels] - scene_px[:, channels]
                                      - (solution[:k] - solution[k] * scene_px[:, channels]), axis=1)
            keep = residual <= np.quantile(residual, 0.75)
        if not ALPHA_RANGE[0] <= solution[k] <= ALPHA_RANGE[1]:
            return None
        drawn[channels], alpha[channels] = solution[:k] / solution[k], solution[k]
    return ThinLineColour(drawn, alpha)
