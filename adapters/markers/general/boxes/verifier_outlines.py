"""Rectangles the hand rules turned away, taken on the outline verifier's probability where the
networks see both their corners.

A 1 px box over a busy scene is often drawn too faintly in places for the rules: near a corner its
line fades into a scene of its own colour, or JPEG halves it, and they reject the rectangle for
coverage. The verifier's ACCEPTANCE (0.96) is chosen for rectangles anywhere in the image, most of
which are not drawn boxes; where the networks see both corners, a lower one holds. Two uses:

Between seen corners (between_seen_corners): at a corner that starts no outline, where the corner
reader is sure of the finder's likeliest label (naming.corners_read_surely; or at the corner of a
box refused for ending at another box's far corner, final_checks.to_its_own_far_corner), and a
box's far corner the finder sees at the other end (FAR_SEEN), a rectangle between them is taken
when:

- the rules rejected it only for coverage, with no line going on past a far corner as two boxes'
  lines crossing do, and the verifier finds it drawn at SEEN_ACCEPTANCE; or only for a crossing
  (another box's line through a far corner, or a side on another box's line), found drawn at
  SEEN_CROSSING, unless it ends where an outline from another corner ends (from a box's corner,
  the rectangle to another box's far corner runs on its own lines and ends on that box's);
- it lies near both corners as a verifier-only outline must (`near_corners`:
  outlines_at_corner.near_the_finders_corners, or within LEARNED_FIT for a refused box; a side
  fitted on a scene edge a few px off its own stroke passes the verifier too);
- where a side shows two strokes of the box's look a few px apart that the rules could not tell
  apart (Rejections.untold), it is the only one of those rectangles drawn near both corners (one
  rejected for coverage with a line going on past a far corner is weighed as a crossing).

The last label's box (last_label_box): when every other label asked is placed, the question says
one more box is drawn, in their style, with this label at its corner. The finder reads the label
at the corner and sees a box's far corner at the other end, so a rectangle between them that the
verifier finds likelier than not drawn (LAST_ACCEPTANCE) is the label's box, when:

- the rules turned it away only for a side drawn too little (coverage), no line going on past
  its far corners as two boxes' lines crossing do;
- it lies within LEARNED_FIT px of the finder's two corners;
- it does not end at a placed box's far corner (it would borrow that box's sides);
- it is the only such rectangle from every corner read as the label;
- no outline the rules pass starts at such a corner (read_boxes weighed it, and its doubts
  stand);
- it is drawn like the placed boxes, does not start where two lines cross, and the word at its
  corner does not read as another label or letter.

Where no such rectangle is found (the rules' fit put a side on the wrong line: another box's
parallel side a few px off, or a line beside a side hidden under a label), drawn_between_corners
measures the rectangle between the finder's own two corners, unfitted, in the placed boxes'
colour and width. The finder puts both corners within about a px of the drawn ones. That
rectangle is the label's box when:

- the corner reads as the label, and the far corner (at LAST_FAR) is no placed box's;
- the rules pass it, or the verifier finds it likelier than not drawn where only its coverage
  fails, or at CROSSING_ACCEPTANCE where lines cross at a far corner;
- it is the only such rectangle;
- each side lies on its stroke (stroke_band.off_its_strokes, measured against the placed box's
  strokes: the finder can put a corner under a label's dark box a few px off its stroke, and the
  verifier passes such a rectangle, as it does rendered ones with a corner 2-4 px off);
- it does not start where two lines cross, and the word at its corner does not read as another
  label or letter.

Anything else leaves the label missing, with the reason.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from adapters.markers.general.boxes.label_word import read_corner
from adapters.markers.general.boxes.measure import (
    Rejections,
    crosses_at_top_left,
    lines_cross,
    measure_outline,
    outline_of,
    rejection,
)
from adapters.markers.general.boxes.outline import Outline, OutlineMeasures, same_style
from adapters.markers.general.boxes.stroke_band import off_its_strokes
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.glyphs import GlyphClassifier
from adapters.markers.general.thresholds import (
    CROSSING_ACCEPTANCE,
    LAST_ACCEPTANCE,
    LAST_FAR,
    MIN_SIDE,
    SEEN_ACCEPTANCE,
    SEEN_CROSSING,
)
from adapters.markers.labels import FAR_CORNER


@runtime_checkable
class ProbabilityVerifier(Protocol):
    """A verifier that says how likely a measured rectangle is drawn (outline_verifier.OutlineVerifier)."""

    def probability(self, measures: OutlineMeasures) -> float: ...


def last_label_box(label: str, labels: Sequence[str], placed: dict[str, Outline], read: Sequence[Proposal],
             fits_at: Sequence[dict[tuple[float, float], tuple[bool, Rejections]]], fars: Sequence[Proposal],
             lab: np.ndarray, verifier: ProbabilityVerifier, classifier: GlyphClassifier,
             corner_fit: float, learned_fit: float, same_box: float) -> tuple[Outline | None, str]:
    """(the outline of `label`'s box, "") or (None, why not); see the module doc.

    read: the candidate corners (the finder's proposals reading some asked label); fits_at: per
    corner of `read`, the rules' fit to each far corner, (x1, y1) -> (whether an outline passed,
    what they rejected: outlines_at_corner.outlines_from's, not fitted again); fars: the
    bottom-right corners proposed; placed: the other labels' outlines; corner_fit, learned_fit,
    same_box: the tolerances read_boxes passes (CORNER_FIT, LEARNED_FIT, SAME_BOX; px)."""
    found: list[Outline] = []
    for corner, fits in zip(read, fits_at):
        if not _its_corner_left(corner, label, labels, placed, corner_fit):
            continue
        for far in fars:
            if far.x < corner.x + MIN_SIDE or far.y < corner.y + MIN_SIDE:
                continue
            passed, rejected = fits[(far.x, far.y)]
            if passed:
                return None, f"a corner read as {label} starts an outline the rules pass, and it was not placed"
            if far.scores.get(FAR_CORNER, 0.0) < LAST_FAR:
                continue
            corners = (corner.x, corner.y, far.x, far.y)
            for outline in likely_drawn(rejected.rejected, verifier, LAST_ACCEPTANCE,
                                        lambda o: max(abs(np.subtract(o.box, corners))) <= learned_fit):
                if any(max(abs(outline.x1 - o.x1), abs(outline.y1 - o.y1)) < same_box for o in placed.values()):
                    continue
                if not any(max(abs(np.subtract(outline.box, o.box))) < same_box for o in found):
                    found.append(outline)
    if not found:
        outline, why_not = drawn_between_corners(label, labels, placed, read, fars, lab, verifier, classifier,
                                                 corner_fit, same_box)
        return outline, f"no rectangle from a corner read as {label} is likely drawn; {why_not}" if why_not else ""
    if len(found) != 1:
        return None, f"{len(found)} rectangles from corners read as {label} are likely drawn"
    outline = found[0]
    if not all(same_style(outline, o) for o in placed.values()):
        return None, f"the likeliest rectangle from a corner read as {label} is not drawn like the placed boxes"
    why_not = _not_its_corner(lab, outline, label, labels, classifier,
                              f"the likeliest rectangle from a corner read as {label}")
    return (None, why_not) if why_not else (outline, "")


def likely_drawn(rejected: Sequence[tuple[OutlineMeasures, str]], verifier: ProbabilityVerifier, acceptance: float,
                 near: Callable[[Outline], bool], for_reason: str = "coverage") -> list[Outline]:
    """The outlines (learned) of the rectangles the rules `rejected` (measures, reason: as
    Rejections keeps them) for `for_reason` alone (for coverage: no lines crossing at a far corner
    either), that `verifier` finds drawn at `acceptance` or more and that lie `near` the finder's
    corners (a test of the outline: within LEARNED_FIT px of them for last_label_box)."""
    out = []
    for measures, reason in rejected:
        if reason != for_reason or (reason == "coverage" and lines_cross(measures)):
            continue
        if verifier.probability(measures) < acceptance:
            continue
        outline = outline_of(measures, learned=True)
        if near(outline):
            out.append(outline)
    return out


def drawn_between_corners(label: str, labels: Sequence[str], placed: dict[str, Outline], read: Sequence[Proposal],
                          fars: Sequence[Proposal], lab: np.ndarray, verifier: ProbabilityVerifier,
                          classifier: GlyphClassifier, corner_fit: float, same_box: float
                          ) -> tuple[Outline | None, str]:
    """(`label`'s box: the rectangle between the finder's corners, as measured, "") or (None, why
    not); see the module doc. Arguments as last_label_box's; `placed` must hold at least one outline
    (its colour, width and contrast are the style measured in)."""
    style = next(iter(placed.values()))
    found: list[Outline] = []
    for corner in read:
        if not _its_corner_left(corner, label, labels, placed, corner_fit):
            continue
        for far in fars:
            if far.x < corner.x + MIN_SIDE or far.y < corner.y + MIN_SIDE or far.scores.get(FAR_CORNER, 0.0) < LAST_FAR:
                continue
            if any(max(abs(far.x - o.x1), abs(far.y - o.y1)) < same_box for o in placed.values()):
                continue  # a placed box's far corner: the rectangle would borrow its sides
            measures = measure_outline(lab, (corner.x, corner.y, far.x, far.y), style.width, np.asarray(style.lab),
                                       style.contrast)
            if measures is None:
                continue
            reason = rejection(measures)
            if reason is not None:
                needed = {"coverage": LAST_ACCEPTANCE, "crossing": CROSSING_ACCEPTANCE}.get(reason)
                if needed is None or verifier.probability(measures) < needed:
                    continue
            outline = outline_of(measures, learned=reason is not None)
            if not any(max(abs(np.subtract(outline.box, o.box))) < same_box for o in found):
                found.append(outline)
    if len(found) != 1:
        return None, (f"{len(found)} rectangles between the finder's corners read as {label} are drawn"
                      if found else f"no rectangle between the finder's corners read as {label} is drawn")
    outline = found[0]
    if off_its_strokes(lab, outline, style):
        return None, f"a side of the rectangle between the finder's corners read as {label} lies off its stroke"
    why_not = _not_its_corner(lab, outline, label, labels, classifier,
                              f"the rectangle between the finder's corners read as {label}")
    return (None, why_not) if why_not else (outline, "")


def _its_corner_left(corner: Proposal, label: str, labels: Sequence[str], placed: dict[str, Outline],
                     corner_fit: float) -> bool:
    """Whether the finder reads `corner` as `label` most of the labels asked, and no placed box
    starts there (within `corner_fit` px)."""
    asked = {l: corner.scores.get(l, 0.0) for l in labels}
    return max(asked, key=asked.get) == label and not any(
        max(abs(o.x0 - corner.x), abs(o.y0 - corner.y)) < corner_fit for o in placed.values())


def _not_its_corner(lab: np.ndarray, outline: Outline, label: str, labels: Sequence[str], classifier: GlyphClassifier,
                    rectangle: str) -> str:
    """Why `outline`'s top-left corner is not `label`'s (`rectangle` names it in the reason), or
    "": two lines cross there, or the word written there reads as another label or letter."""
    if crosses_at_top_left(lab, outline):
        return f"{rectangle} starts where two lines cross"
    reading = read_corner(lab, outline, tuple(labels), classifier)
    if reading is not None and reading.contradicts(label):
        return f"the word at the corner of {rectangle} reads as {reading.nearest}"
    return ""


def between_seen_corners(corner: Proposal, fits: dict[tuple[float, float], tuple[bool, Rejections]],
                         fars: Sequence[Proposal], verifier: ProbabilityVerifier, far_seen: float,
                         near_corners: Callable[[Outline, tuple[float, float, float, float]], bool], same_box: float,
                         others: Sequence[Outline] = ()) -> list[Outline]:
    """The distinct outlines from `corner` (the corner reader is sure of its label:
    naming.corners_read_surely) to a far corner of `fars` the finder sees (`far_seen`), that
    the rules rejected only for coverage and the verifier finds drawn at SEEN_ACCEPTANCE, or for a
    crossing and found drawn at SEEN_CROSSING, not ending at the far corner of one of `others`
    (the outlines found from other corners) (module doc).

    fits: the rules' fit from `corner` to each far corner tried, (x1, y1) -> (whether an outline
    passed, what they rejected), as outlines_at_corner.outlines_from recorded it;
    near_corners(outline, (x0, y0, x1, y1)): whether an outline lies near enough the finder's two
    corners to be their box (outlines_at_corner.near_the_finders_corners, both corners seen);
    far_seen, same_box: FAR_SEEN and SAME_BOX as read_boxes passes them (px)."""
    found: list[Outline] = []
    for far in fars:
        if far.scores.get(FAR_CORNER, 0.0) < far_seen or (far.x, far.y) not in fits:
            continue
        passed, rejected = fits[(far.x, far.y)]
        if passed:
            continue
        corners = (corner.x, corner.y, far.x, far.y)

        def near(outline: Outline) -> bool:
            return near_corners(outline, corners)

        drawn = likely_drawn(rejected.rejected, verifier, SEEN_ACCEPTANCE, near)
        on_one_stroke = likely_drawn(rejected.untold, verifier, SEEN_ACCEPTANCE, near)
        if not any(max(abs(far.x - o.x1), abs(far.y - o.y1)) < same_box for o in others):  # no other box's end
            drawn += likely_drawn(rejected.rejected, verifier, SEEN_CROSSING, near, "crossing")
            # a rectangle on one of a side's strokes rejected for coverage, with a line going on past
            # a far corner too, is weighed as a crossing (the rules judge coverage first)
            crossing = [(measures, "crossing" if lines_cross(measures) else reason) for measures, reason in rejected.untold]
            on_one_stroke += likely_drawn(crossing, verifier, SEEN_CROSSING, near, "crossing")
        if len(on_one_stroke) == 1:  # which of a side's strokes is the side: where one is drawn near both corners
            drawn += on_one_stroke
        for outline in drawn:
            if not any(max(abs(np.subtract(outline.box, o.box))) < same_box for o in found):
                found.append(outline)
    return found
