"""Which label each candidate top-left corner carries: the networks' readings, weighed by the word
written there, and the one-to-one choice of labels for corners.

The finder's scores at a corner are weighed by the corner reader's (_weighed_by_reader) and by the
word the glyph classifier reads there (weighed_by_word; each_word_read_once and written_once keep
one label's word to one corner; reader_settles lets a sure reader outvote the word); `assign`
gives labels to corners one-to-one and says which choices are in doubt. corners_read_surely finds
the corners the reader is sure of that start no outline (for verifier_outlines.between_seen_corners).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Sequence

import numpy as np

from adapters.markers.general.boxes.label_word import CornerReading, read_corner
from adapters.markers.general.boxes.outline import Outline
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.corner_finder import BOX_LABELS
from adapters.markers.general.nets.corner_reader import CLASSES as READER_CLASSES
from adapters.markers.general.nets.corner_reader import CornerReader
from adapters.markers.general.nets.glyphs import GlyphClassifier
from adapters.markers.general.thresholds import (
    DECISIVE,
    MIN_EVIDENCE,
    READER_SURE,
    UNPLACED,
    WORD_CONFIRMS,
    WORD_ELSEWHERE,
    WORD_OVERRULED,
    WORD_OWNER,
)


def _weighed_by_reader(corner: Proposal, probabilities: np.ndarray) -> Proposal:
    """`corner` with each box label's score the geometric mean of the finder's and the corner
    reader's (`probabilities`, over nets.corner_reader.CLASSES) at its fitted corner. The reader
    sees the exact corner and reads labels far more sharply (the finder often spreads 0.3-0.5 over
    several labels), but it sees only a patch there, and two labels crowded together at
    neighbouring corners can swap under it; the finder's reading of the whole image guards against
    that: a label needs both, weighed alike (weighed more, the reader's swaps get through)."""
    scores = dict(corner.scores)
    for label in BOX_LABELS:
        scores[label] = float(np.sqrt(scores.get(label, 0.0) * probabilities[READER_CLASSES.index(label)]))
    return replace(corner, scores=scores)


def weighed_by_word(corner: Proposal, reading: CornerReading | None, vetoes: dict[str, list[str]],
                     weighed_by_reader: bool = False, settled: set[str] = frozenset()) -> Proposal:
    """`corner` with its scores weighed by the word written there (label_word): zero for every
    label the glyph classifier clearly reads as something else (each such label gets "(x, y): X"
    in `vetoes`), and at least WORD_CONFIRMS for a label it clearly reads, when the finder read
    that label there too (two readers that look differently agree: each needs less certainty).
    The corner's outlines share its top-left corner, so one reading serves them all.

    A label the word vetoes keeps its score where the finder and the corner reader together read
    it at WORD_OVERRULED (`weighed_by_reader`: the scores are _weighed_by_reader's), or where the
    corner reader settles it (`settled`: the reader reads it at READER_SURE, and the finder at
    MIN_EVIDENCE and more than at any other corner, reader_settles). The classifier misreads
    small or half-covered labels (B as R, P or F; A as 4) where the reader is sure and the finder
    reads them at 0.3-0.65; the reader is that sure of a label only at its own corner, so the
    veto it overrules is the classifier's misreading."""
    if reading is None:
        return corner
    scores = dict(corner.scores)
    for label in scores:
        if label not in reading.label_similarities or scores[label] <= 0:
            continue
        if reading.contradicts(label) and label not in settled and not (
                weighed_by_reader and scores[label] >= WORD_OVERRULED):
            scores[label] = 0.0
            vetoes.setdefault(label, []).append(f"({corner.x:.0f}, {corner.y:.0f}): {reading.nearest}")
        elif reading.confirms(label) and scores[label] >= MIN_EVIDENCE:
            scores[label] = max(scores[label], WORD_CONFIRMS)
    return replace(corner, scores=scores)


def each_word_read_once(lab: np.ndarray, outlines_at: list[list[Outline]], proposed: list[Proposal],
                         readings: list[CornerReading | None], labels: list[str],
                         classifier: GlyphClassifier) -> list[CornerReading | None]:
    """`readings` with each word that reads as an asked label read at one corner only: the one
    where the networks (`proposed`: the finder's scores weighed by the corner reader) read that
    label most, at MIN_EVIDENCE at least; the other corners whose clearest word it was are read
    again without it (label_word.read_corner's `skip`). A box drawn as a near miss of another
    has its label beside the other's, often half under it, so the word search at its corner
    also finds the other box's label, which reads more clearly than its own and would take its
    label away, though both networks read its own label there. Where no corner reads the label
    WORD_OWNER times more than every other, the readings stay as they are: one label's word can
    lie where two corners may own it (written inside its box's corner, just above another box's
    corner, hiding that one's label), and a near tie between the networks' readings does not
    say which: given to the wrong corner, it swaps the two labels."""
    out = list(readings)
    for k, reading in enumerate(readings):
        if reading is None or reading.word is None or reading.nearest not in labels:
            continue
        label = reading.nearest
        sharing = [j for j, other in enumerate(readings) if other is not None and other.word == reading.word]
        owner = max(sharing, key=lambda j: proposed[j].scores.get(label, 0.0))
        owner_score = proposed[owner].scores.get(label, 0.0)
        if k == owner or owner_score < MIN_EVIDENCE or any(
                j != owner and proposed[j].scores.get(label, 0.0) * WORD_OWNER > owner_score for j in sharing):
            continue
        out[k] = read_corner(lab, outlines_at[k][0], tuple(labels), classifier, skip=reading.word)
    return out


def written_once(labels: list[str], corners: list[Proposal], readings: list[CornerReading | None]) -> list[Proposal]:
    """`corners` with each label's score cut to WORD_ELSEWHERE x at every corner but the one
    where the word clearly reads as it and the finder read it too (as weighed_by_word backs),
    where exactly one does (a label is written once: the finder's reading of it elsewhere,
    where the word is unread or unclear, is a confusion)."""
    out = list(corners)
    for label in labels:
        confirmed = [k for k, (c, r) in enumerate(zip(corners, readings))
                     if r is not None and r.confirms(label) and c.scores[label] >= MIN_EVIDENCE]
        if len(confirmed) != 1:
            continue
        for k, c in enumerate(out):
            if k != confirmed[0] and c.scores.get(label, 0) > 0:
                out[k] = replace(c, scores={**c.scores, label: c.scores[label] * WORD_ELSEWHERE})
    return out


def reader_settles(label: str, sure: set[str], corner: Proposal, read: Sequence[Proposal]) -> bool:
    """Whether the corner reader settles `label` at `corner`, where the only doubt is leaving it
    unplaced (no assignment within DECISIVE puts it at another corner): it reads the label there
    at READER_SURE (`sure`: the labels it does), and the finder, however faintly, reads it at
    that corner at least as much as at any other it proposed (`read`). The geometric mean with a
    faint finder reading stays under UNPLACED x DECISIVE where the reader is sure (a finder's 0.09
    and the reader's 0.99 make 0.3), which alone would leave a label no other corner reads unplaced."""
    return label in sure and all(corner.scores[label] >= other.scores[label] for other in read)


def assign(labels: list[str], corners: list[Proposal]) -> tuple[tuple[int | None, ...], dict[str, str], set[str]]:
    """(the best one-to-one choice of a corner index, or None, per label; label -> why its
    choice is in doubt; the doubted labels whose every rival within DECISIVE leaves them unplaced,
    not placed at another corner). Exhaustive: at most 5 labels and MAX_CORNERS corners."""
    scored = []
    for choice in itertools.product([None, *range(len(corners))], repeat=len(labels)):
        taken = [k for k in choice if k is not None]
        if len(taken) != len(set(taken)):
            continue
        weight = float(np.prod([UNPLACED if k is None else corners[k].scores[l] for l, k in zip(labels, choice)]))
        scored.append((weight, choice))
    best_weight, best = max(scored, key=lambda t: t[0])
    doubtful, doubted_only_unplaced = {}, set()
    for i, label in enumerate(labels):
        rival = max(((w, c) for w, c in scored if c[i] != best[i]), key=lambda t: t[0], default=None)
        if best[i] is not None and rival is not None and rival[0] * DECISIVE > best_weight:
            where = "unplaced" if rival[1][i] is None else f"({corners[rival[1][i]].x:.0f}, {corners[rival[1][i]].y:.0f})"
            doubtful[label] = (f"the corner read as {label} at ({corners[best[i]].x:.0f}, {corners[best[i]].y:.0f}) "
                               f"is in doubt: {label} may as well be {where}")
            if not any(w * DECISIVE > best_weight for w, c in scored if c[i] not in (None, best[i])):
                doubted_only_unplaced.add(label)
    return best, doubtful, doubted_only_unplaced


def corners_read_surely(reader: CornerReader, rgb: np.ndarray, read: Sequence[Proposal],
                         found_per_corner: Sequence[list[Outline]], labels: Sequence[str]) -> list[int]:
    """The indices of the corners of `read` that start no outline (`found_per_corner`) where the
    finder's likeliest label of `labels` is read at READER_SURE by the corner reader (at the
    proposed place: there is no fitted corner) and the finder reads it less at every corner that
    starts an outline. A label's own corner is read as it most; at a corner where one box's line
    meets another's, 10 px beside a label, the reader may be sure of that label too (where one
    box's top side meets another's left side extended), and the rectangle from there to the
    label's far corner would rival its own box and leave the label in doubt."""
    asked: list[tuple[int, str]] = []  # (corner index, the finder's likeliest label there)
    for k, (corner, found) in enumerate(zip(read, found_per_corner)):
        if found:
            continue
        label = max(labels, key=lambda l: corner.scores.get(l, 0.0))
        if not any(read[j].scores.get(label, 0.0) >= corner.scores.get(label, 0.0)
                   for j, others in enumerate(found_per_corner) if others):
            asked.append((k, label))
    if not asked:
        return []
    probabilities = reader.probabilities(rgb, [(read[k].x, read[k].y) for k, _ in asked])  # one batch
    return [k for (k, label), row in zip(asked, probabilities) if row[READER_CLASSES.index(label)] >= READER_SURE]
