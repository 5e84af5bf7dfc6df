"""Placing the labels no corner's reading settles, by what the question itself says: each asked
label's box is drawn once, in one style.

by_permutation names the corners left that can only be some label's box (one outline, drawn
alike, something written there) where the networks' readings tell which label is which;
outline_by_elimination gives the last label left, once every other is placed, the one corner left in the
placed boxes' style. Both place at most at BOX_ELIMINATION_CONFIDENCE, source "elimination".
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from adapters.markers.general.boxes.geometry import _same, box_marker, settled_outline
from adapters.markers.general.boxes.label_word import CornerReading, something_written
from adapters.markers.general.boxes.measure import crosses_at_top_left
from adapters.markers.general.boxes.outline import Outline, same_style
from adapters.markers.general.boxes.shared_lines import shared_sides, shares_far_corner
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.thresholds import (
    BOX_ELIMINATION_CONFIDENCE,
    CORNER_FIT,
    DECISIVE,
    ELIMINATION_EVIDENCE,
    MIN_EVIDENCE,
    SAME_BOX,
)
from adapters.markers.types import Marker


def _outline_a_label_may_own(corner: Proposal, reading: CornerReading | None, label_seen: bool,
                             found: list[Outline], labels: Sequence[str], lab: np.ndarray,
                             evidence: float = ELIMINATION_EVIDENCE, read_there: bool = False) -> Outline | None:
    """The one outline starting at `corner` when the corner may be some asked label's box although
    the finder does not say which, else None: the finder's scores for `labels` add up to
    `evidence`, something is written there (a word label_word reads, a label's ink
    where labels go, or what the corner reader sees as a label, `label_seen`: READER_WRITTEN; the
    finder alone reads up to 0.5 at an unlabelled rectangle's corner),
    exactly one outline starts there, where its sides lie is clear (not merged: its callers place
    it through settled_outline, as a second opinion may move it), and it is not the rectangle between two
    overlapping boxes (their lines crossing at the corner).

    Where the corner reader reads a label sought there (`read_there`, READER_READS), that reading is
    what is written there, and lines crossing there and a merged side do not stop it either: the
    outline is returned, a merged one only where settled_outline can place its side. The reader was taught
    the crossings of two boxes' lines as "none"; reading a label there, it sees the label's glyph
    carrying the left side on upwards, or a line running on through the corner."""
    if len(found) != 1 or sum(corner.scores.get(l, 0.0) for l in labels) < evidence:
        return None
    outline = found[0]
    if read_there:  # its callers place it through settled_outline: a merged side must settle
        return None if outline.merged and settled_outline(lab, outline) is None else outline
    if outline.merged or (reading is None and not label_seen and not something_written(lab, outline)):
        return None
    return None if crosses_at_top_left(lab, outline) else outline


def outline_by_elimination(label: str, placed: dict[str, Outline], corners: list[Proposal],
                    readings: list[CornerReading | None], label_seen: list[bool],
                    outlines_at: list[list[Outline]], lab: np.ndarray,
                    reader_reads: Sequence[set[str]]) -> tuple[Marker | None, str]:
    """(`label`'s box, "") when every other label asked was placed (`placed`: their outlines)
    and exactly one other corner is left that can only be its own, else (None, why not).
    `outlines_at`: the outlines per corner, each corner's own box where one was told
    (its_own_box).

    Such a corner may be a label's box (_outline_a_label_may_own, on the finder's proposals
    `corners`, not weighed by words: the label the finder favours there may be a placed one, which
    is written once), what is written there does not read as another label or letter, and its
    outline is drawn in the placed boxes' style and is not one of theirs. As in the point
    parser's elimination (points/elimination.py), the question itself names the label; a second
    such corner is a decoy, and then none is placed.

    A corner where lines cross, or whose outline has a merged side, is one such corner only where
    the corner reader reads `label` there at READER_READS (`reader_reads`: the labels it reads so,
    per corner; _outline_a_label_may_own).

    Where no corner is read as an asked label at ELIMINATION_EVIDENCE, one read more faintly (any
    candidate corner: the finder proposed it, reading some asked label at MIN_EVIDENCE before the
    corner reader weighed it) is taken when it is the only one and its rectangle takes nothing from
    the placed boxes (_apart_from). The label itself may be hidden under another box's label or
    line, or illegible, so the finder and the reader read little there. The rectangle between two
    boxes' crossing lines is the false corner left most often (from where one box's left side
    crosses another's top side, to that box's far corner), and it borrows their lines. Of several
    corners left, the one whose rectangle alone takes nothing from the placed boxes is the label's:
    the others start on a placed box's line and end at its far corner, or at the label's own (a
    rectangle from where the label's box's left side meets another box's top line to its own far
    corner)."""
    others = list(placed.values())
    used = [(o.x0, o.y0) for o in others]
    H, W = lab.shape[:2]
    candidates, faint = [], []
    for corner, reading, seen, found, read in zip(corners, readings, label_seen, outlines_at, reader_reads):
        if reading is not None and reading.contradicts(label):
            continue  # another label or letter is written there
        outline = _outline_a_label_may_own(corner, reading, seen, found, (label, *placed), lab, evidence=0.0,
                                           read_there=label in read)
        if outline is None or any(max(abs(outline.x0 - x), abs(outline.y0 - y)) < CORNER_FIT for x, y in used):
            continue
        if not all(same_style(outline, other) for other in others):
            continue
        if sum(corner.scores.get(l, 0.0) for l in (label, *placed)) >= ELIMINATION_EVIDENCE:
            candidates.append(outline)
        elif _apart_from(outline, others, H, W):
            faint.append(outline)
    if not candidates and len(faint) == 1:
        candidates = faint
    if len(candidates) > 1:  # of several, the one whose rectangle takes nothing from the placed boxes
        apart = [outline for outline in candidates if _apart_from(outline, others, H, W)]
        candidates = apart if len(apart) == 1 else candidates
    if len(candidates) != 1:
        return None, (f"{len(candidates)} corners read as a label start an outline in the placed boxes' style"
                      if candidates else "no other corner read as a label starts an outline in the placed boxes' style")
    return box_marker(label, settled_outline(lab, candidates[0]), BOX_ELIMINATION_CONFIDENCE, source="elimination"), ""


def _apart_from(outline: Outline, placed: list[Outline], height: int, width: int) -> bool:
    """Whether `outline` takes nothing from the `placed` boxes: no line goes on past its corners
    (Outline.tees), its top-left corner lies on none of their lines, its far corner is none of
    theirs and none of its sides lies on one of their lines."""
    boxes = [o.box for o in placed]
    return (not outline.tees and not any(_on_its_lines(outline.x0, outline.y0, o) for o in placed)
            and not shares_far_corner(outline.box, boxes, height, width)
            and not shared_sides(outline.box, boxes, height, width))


def _on_its_lines(x: float, y: float, outline: Outline) -> bool:
    """Whether (x, y) lies on one of `outline`'s sides (within its stroke width, at least SAME_BOX px)."""
    near = max(outline.width, SAME_BOX)
    along_x = outline.x0 - near <= x <= outline.x1 + near
    along_y = outline.y0 - near <= y <= outline.y1 + near
    return ((along_y and min(abs(x - outline.x0), abs(x - outline.x1)) <= near)
            or (along_x and min(abs(y - outline.y0), abs(y - outline.y1)) <= near))


def by_permutation(labels: list[str], markers: dict[str, Marker], proposed: list[Proposal],
                    corners: list[Proposal], readings: list[CornerReading | None], label_seen: list[bool],
                    outlines_at: list[list[Outline]], lab: np.ndarray,
                    reader_reads: Sequence[set[str]]) -> tuple[list[tuple[str, Outline, float]], str]:
    """([(label, outline, its score)] for the asked labels not yet placed that the naming of
    the corners which may be a label's box tells, or [] and why none), when those corners are at
    most as many as the labels asked and drawn alike.

    naming.assign weighs leaving a label unplaced (UNPLACED) against a weak reading, which refuses a
    label the finder reads at 0.35 with no rival corner. But a corner that starts one outline with
    something written, where the finder reads some asked label, is some label's box (the question
    draws exactly its choices' labels; _outline_a_label_may_own, judged on `proposed`, the
    finder's proposals not weighed by words, as for elimination): only which label is left, and
    the finder's readings (weighed by the words, as in assign: `corners`) need only tell that
    apart. So each such corner gets a different label; a label is told where every naming
    scoring within DECISIVE of the best puts it at the same corner, read there at MIN_EVIDENCE at
    least. The best naming must agree with the labels already placed. When such corners are fewer
    than the labels, another corner that starts an outline may be a label's box that the naming
    would put elsewhere: a label is then told only where the finder reads it DECISIVE times more
    than at every such corner. A corner whose word overrode the networks' likeliest reading there
    (_word_overrode_networks) is named nothing, but is such another corner. `outlines_at`: per
    corner, the outlines its box may be (its_own_box's choice where several start there: a box's
    corner that also starts an outline to another box's far corner, taken with both, would be
    named nothing, and both labels left in doubt). A corner where lines
    cross, or whose outline has a merged side, is a label's box only where the corner reader reads
    a label not yet placed there at READER_READS (`reader_reads`, per corner); which label it is,
    the naming tells, as at any other corner."""
    candidates: list[tuple[int, Outline]] = []
    left = {l for l in labels if l not in markers}
    for k, (corner, reading, seen, found) in enumerate(zip(proposed, readings, label_seen, outlines_at)):
        if sum(corners[k].scores.get(l, 0.0) for l in labels) < MIN_EVIDENCE:
            continue  # the words took its readings away (another letter is written there): nothing to name
        if _word_overrode_networks(corner, corners[k], labels, set(markers)):
            continue  # the word and the networks disagree on what is written there: nothing to name either
        outline = _outline_a_label_may_own(corner, reading, seen, found, labels, lab,
                                           read_there=bool(reader_reads[k] & left))
        if outline is not None and not any(_same(outline, other) for _, other in candidates):
            candidates.append((k, outline))
    if not candidates or len(candidates) > len(labels):
        return [], f"{len(candidates)} corners start one outline each with something written, for {len(labels)} labels"
    # with fewer candidates than labels, a corner that starts an outline but is no candidate may be
    # the box of a label the naming would put elsewhere: a label is told only where the finder
    # reads it DECISIVE times more than at any such corner (its own scores, not weighed by words)
    others = [j for j, found in enumerate(outlines_at)
              if not any(_same(o, c) for o in found for _, c in candidates)] if len(candidates) < len(labels) else []
    if not all(same_style(a, b) for (_, a), (_, b) in itertools.combinations(candidates, 2)):
        return [], "the corners that start one outline each are not drawn alike"
    # namings[i] = (score, the label given to each candidate), best first
    namings = sorted(((float(np.prod([corners[k].scores.get(l, 0.0) for l, (k, _) in zip(names, candidates)])), names)
                      for names in itertools.permutations(labels, len(candidates))), key=lambda t: -t[0])
    best, names = namings[0]
    second = namings[1][0] if len(namings) > 1 else 0.0
    if best <= 0:  # some corner is read as none of the labels left for it
        return [], f"the naming of the {len(candidates)} corners tells no label apart (best naming 0)"
    named = dict(zip(names, candidates))
    at_corner = {l: k for k, (_, outline) in enumerate(candidates) for l, m in markers.items()
                 if max(abs(np.subtract(m.box, outline.box))) < SAME_BOX}  # placed label -> its candidate
    if any((names.index(l) if l in names else None) != at_corner.get(l) for l in markers):
        return [], "the best naming of the corners disagrees with the boxes placed"
    rivals = [other for score, other in namings[1:] if score * DECISIVE > best]
    clear = [(l, outline, corners[k].scores[l]) for l, (k, outline) in named.items()
             if l not in markers and corners[k].scores[l] >= MIN_EVIDENCE
             and all(l in other and other.index(l) == names.index(l) for other in rivals)]

    def read_elsewhere(label: str, score: float) -> bool:
        return any(DECISIVE * proposed[j].scores.get(label, 0.0) > score for j in others)

    # the words may take a label off a corner, not move one: a label the networks' own readings
    # (the finder's and the corner reader's, `proposed`) name at another corner is not told (a
    # small label misread as a digit takes its label off its own corner, and the only naming left
    # with a score puts that label at a neighbour's corner, where the networks barely read it,
    # and the neighbour's label at its own)
    networks_naming = _networks_naming(labels, [k for k, _ in candidates], proposed)
    moved = [l for l, _, _ in clear if networks_naming is not None
             and (l not in networks_naming or networks_naming.index(l) != names.index(l))]
    clear = [t for t in clear if t[0] not in moved]
    told = [t for t in clear if not read_elsewhere(t[0], t[2])]
    blocked = [l for l, _, score in clear if read_elsewhere(l, score)]
    if blocked:
        return told, f"{', '.join(blocked)} is read nearly as much at another corner that starts an outline"
    if moved:
        return told, (f"the words written at the corners move {', '.join(moved)} from where the networks' "
                      "readings name it")
    return told, "" if told else (f"the naming of the {len(candidates)} corners tells no label apart "
                                  f"(best naming {best:.3f}, next {second:.3f})")


def _networks_naming(labels: Sequence[str], corners: list[int], proposed: list[Proposal]) -> tuple[str, ...] | None:
    """The labels the networks' own readings (`proposed`: the finder's and the corner reader's, not
    weighed by words) give the corners `corners` (indices into `proposed`), one each, by the best
    product of their scores; None when every naming scores 0."""
    def score(naming: tuple[str, ...]) -> float:
        return float(np.prod([proposed[k].scores.get(l, 0.0) for l, k in zip(naming, corners)]))

    best = max(itertools.permutations(labels, len(corners)), key=score)
    return best if score(best) > 0 else None


def _word_overrode_networks(read: Proposal, weighed: Proposal, labels: Sequence[str], placed: set[str]) -> bool:
    """Whether the word at a corner took away (weighed_by_word) a label not yet placed that the
    finder and the corner reader (`read`) read there at MIN_EVIDENCE or more, and more than any
    of `labels` it left there (`weighed`; a placed label too: where the word confirms the label
    placed at its corner, the networks' weaker readings of others there are confusions). The
    naming would then give the corner a label the networks read less than the one the word
    denies, on the word's say-so alone: a small label over a scene of its colour, cut out as
    another glyph, takes that label off and leaves a weaker one, and the naming would swap the
    two labels. Such a corner still starts an
    outline, so the labels the networks read there are named elsewhere only where they are read
    DECISIVE times more."""
    kept = max((weighed.scores.get(l, 0.0) for l in labels), default=0.0)
    return any(weighed.scores.get(l, 0.0) == 0.0 and read.scores.get(l, 0.0) >= max(MIN_EVIDENCE, kept)
               for l in labels if l not in placed)
