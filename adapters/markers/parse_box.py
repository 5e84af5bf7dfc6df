"""Read drawn boxes (Object_Localization): which labelled box is where, or why it cannot be said.

The corner finder proposes each label's top-left corner (where the label is written) and every
rectangle's bottom-right corner; box_outline fits and checks the outline between a labelled corner
and each bottom-right corner (or the image's border, for a box cut off there). A label is placed
only when exactly one corner reads as it, that corner reads as no other label, and exactly one
drawn outline starts there; anything else leaves it missing with the reason, so a question is
never answered from a guessed box.

    markers, missing, outlines = read_boxes(rgb, ["A", "B"], default_corner_finder())
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .box_outline import MIN_SIDE, Outline, fit_outline
from .centre_finder import Proposal
from .corner_finder import BOX_LABELS, CornerFinder
from .detect import to_lab
from .scenes import FAR_CORNER
from .types import Marker

CORNER_MIN_SCORE = 0.3  # heatmap score at which a top-left corner is read as a label
CORNER_RIVAL = 0.5  # a second corner (or another label at the corner) this close to the best is a rival
FAR_MIN_SCORE = 0.1  # heatmap score at which a bottom-right corner is tried
SAME_CORNER = 4.0  # px: proposals closer than this are one corner
SAME_BOX = 2.0  # px: outlines whose coordinates all differ by less are one box
CORNER_FIT = 4.0  # px the fitted outline's top-left corner may move from the proposed one


def read_boxes(rgb: np.ndarray, labels: Sequence[str], finder: CornerFinder
               ) -> tuple[dict[str, Marker], dict[str, str], list[Outline]]:
    """Boxes of `labels` on an (H, W, 3) uint8 RGB image: (label -> Marker with its box, label ->
    why it was not placed, every outline fitted)."""
    H, W = rgb.shape[:2]
    lab = to_lab(rgb)
    proposals = finder.find(rgb)
    fars = [p for p in proposals if p.scores[FAR_CORNER] >= FAR_MIN_SCORE]
    placed: dict[str, tuple[Outline, float]] = {}
    missing: dict[str, str] = {}
    outlines: list[Outline] = []
    for label in labels:
        if label not in BOX_LABELS:
            missing[label] = f"{label!r} is not a box label ({', '.join(BOX_LABELS)})"
            continue
        corner, why = _labelled_corner(proposals, label)
        if corner is None:
            missing[label] = why
            continue
        found = _outlines_from(lab, corner, fars, W, H)
        outlines += found
        if not found:
            missing[label] = (f"no drawn box outline starts at the corner read as {label} "
                              f"({corner.x:.0f}, {corner.y:.0f})")
        elif len(found) > 1:
            missing[label] = f"{len(found)} drawn outlines start at the corner read as {label}: which is its box is unclear"
        else:
            placed[label] = (found[0], min(corner.scores[label], found[0].coverage))
    for label, (outline, _) in list(placed.items()):
        twins = [other for other, (o, _) in placed.items() if other != label and _same(o, outline)]
        if twins:
            missing[label] = f"its box is also read as {', '.join(twins)}"
    markers = {label: Marker(label, ((o.x0 + o.x1) / 2, (o.y0 + o.y1) / 2), confidence, box=o.box,
                             ring_width=o.width, source="parsed")
               for label, (o, confidence) in placed.items() if label not in missing}
    return markers, missing, outlines


def _labelled_corner(proposals: list[Proposal], label: str) -> tuple[Proposal | None, str]:
    """The one corner read as `label`, or (None, why not)."""
    read = sorted((p for p in proposals if p.scores[label] >= CORNER_RIVAL * CORNER_MIN_SCORE),
                  key=lambda p: -p.scores[label])
    if not read or read[0].scores[label] < CORNER_MIN_SCORE:
        return None, f"no box corner with the label {label} was found"
    best = read[0]
    for other in read[1:]:
        if (np.hypot(other.x - best.x, other.y - best.y) > SAME_CORNER
                and other.scores[label] >= CORNER_RIVAL * best.scores[label]):
            return None, (f"two box corners read as {label}, at ({best.x:.0f}, {best.y:.0f}) and "
                          f"({other.x:.0f}, {other.y:.0f})")
    rivals = [l for l in BOX_LABELS if l != label and best.scores[l] >= CORNER_RIVAL * best.scores[label]]
    if rivals:
        return None, f"the corner read as {label} also reads as {', '.join(rivals)}"
    return best, ""


def _outlines_from(lab: np.ndarray, corner: Proposal, fars: list[Proposal], W: int, H: int) -> list[Outline]:
    """Every distinct verified outline from `corner` to a proposed bottom-right corner. The far
    corner's x and y may come from different proposals or the image's border (a box cut off by
    the border has no bottom-right corner in the image)."""
    xs = sorted({round(p.x, 1) for p in fars if p.x >= corner.x + MIN_SIDE} | {float(W - 1)})
    ys = sorted({round(p.y, 1) for p in fars if p.y >= corner.y + MIN_SIDE} | {float(H - 1)})
    found: list[Outline] = []
    for x1 in xs:
        for y1 in ys:
            outline = fit_outline(lab, (corner.x, corner.y, x1, y1))
            if (outline is None or abs(outline.x0 - corner.x) > CORNER_FIT or abs(outline.y0 - corner.y) > CORNER_FIT
                    or any(_same(outline, o) for o in found)):
                continue
            found.append(outline)
    return found


def _same(a: Outline, b: Outline) -> bool:
    return max(abs(np.subtract(a.box, b.box))) < SAME_BOX
