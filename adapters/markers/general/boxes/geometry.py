"""Geometry shared by the box parser's steps: outlines, placed boxes and their sides compared.

fitted_outline and fitted_within find the outline a placed box was fitted on; parallel_sides,
same_corner, _same and within_learned_fit compare sides, corners and boxes; box_marker is the
Marker a box is placed as; settled_outline places a side merged with another line of its colour
(merged_band); on_another_side tells a side that overlaps another box's.
"""

from __future__ import annotations

import numpy as np

from adapters.markers.general.boxes.merged_band import refit_merged
from adapters.markers.general.boxes.outline import SIDES, Outline
from adapters.markers.general.thresholds import ALONG_ANOTHER, LEARNED_FIT, ON_ANOTHER_SIDE, SAME_BOX, SAME_LINE
from adapters.markers.types import Marker


def fitted_outline(box: tuple[float, float, float, float], outlines: list[Outline]) -> Outline | None:
    """The outline among `outlines` nearest `box` (largest coordinate difference), None if none."""
    return min(outlines, key=lambda o: max(abs(np.subtract(o.box, box))), default=None)


def fitted_within(box: tuple[float, float, float, float], outlines: list[Outline]) -> Outline | None:
    """The outline `box` was placed on (fitted_outline), None where none lies within SAME_BOX px of it."""
    fitted = fitted_outline(box, outlines)
    return fitted if fitted is not None and max(abs(np.subtract(fitted.box, box))) <= SAME_BOX else None


def parallel_sides(box: tuple[float, float, float, float], other: tuple[float, float, float, float]):
    """(side's name, where it lies across, where a parallel side of `other` lies, how far the two run
    side by side, the side's length) for each side of `box` and each parallel side of `other`."""
    for name, at, start, end in SIDES:
        for other_at in ((1, 3) if at in (1, 3) else (0, 2)):
            yield (name, box[at], other[other_at], min(box[end], other[end]) - max(box[start], other[start]),
                   box[end] - box[start])


def box_marker(label: str, outline: Outline, score: float, source: str = "parsed") -> Marker:
    """The Marker of `label`'s box `outline`: centred in it, as confident as the reading `score`
    and the outline's least drawn side allow."""
    o = outline
    return Marker(label, ((o.x0 + o.x1) / 2, (o.y0 + o.y1) / 2), min(score, o.coverage), box=o.box,
                  ring_width=o.width, source=source)


def settled_outline(lab: np.ndarray, outline: Outline) -> Outline | None:
    """The outline to place, or None where a side merged with another line of its colour leaves
    where it lies unclear. A merged outline (Outline.merged) has that side placed by its free
    edge (merged_band.refit_merged). An unflagged one may still have been fitted on such a band's
    fringe (a side measured exactly NARROWER px narrower is not flagged): it is moved where a
    clear free edge puts it (a second opinion), else placed as fitted."""
    if outline.merged:
        return refit_merged(lab, outline)
    refit = refit_merged(lab, outline, second_opinion=True)
    return outline if refit is None else refit


def on_another_side(outline: Outline, outlines: list[Outline]) -> bool:
    """Whether a side of `outline` overlaps a parallel side of another box's outline among
    `outlines` (ON_ANOTHER_SIDE, SAME_LINE, ALONG_ANOTHER): the two strokes merge into one band,
    which the side fit may take whole (such sides measure wider than the box's others, and may
    be placed a few px off). Outlines starting at the same corner are rivals for one box, not
    another box, and are told apart elsewhere. Checked on the box a label is placed on by its
    reading only: elimination and naming may still give such an outline its label, as there the
    question itself says the corner is some label's box (barred, they would refuse mostly right
    boxes)."""
    for other in outlines:
        if same_corner(outline, other):
            continue
        near = ON_ANOTHER_SIDE * (outline.width + other.width) / 2
        if any(SAME_LINE <= abs(across - other_across) < near and alongside >= ALONG_ANOTHER * length
               for _, across, other_across, alongside, length in parallel_sides(outline.box, other.box)):
            return True
    return False


def within_learned_fit(outline: Outline, proposed: tuple[float, float, float, float]) -> bool:
    """Whether every coordinate of `outline` lies within LEARNED_FIT px of the finder's corners `proposed`."""
    return bool(np.abs(np.subtract(outline.box, proposed)).max() <= LEARNED_FIT)


def same_corner(a: Outline, b: Outline) -> bool:
    """Whether two outlines start at one top-left corner (within SAME_BOX px)."""
    return max(abs(a.x0 - b.x0), abs(a.y0 - b.y0)) < SAME_BOX


def _same(a: Outline, b: Outline) -> bool:
    return max(abs(np.subtract(a.box, b.box))) < SAME_BOX
