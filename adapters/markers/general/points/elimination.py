"""Elimination: the labels no word was read as go to the circles left in the placed markers' style.

Once the other labels are placed, the drawing's style is known, and a free circle in that style
with an unread word on the placed labels' side can only carry one of the labels left. One label
takes the one such circle; several are told apart by reading their words against those labels
only. Run after the words, and again once the networks placed labels (`after`).

    place_by_elimination(parsed, classifier, (H, W), after="", reader_at=None)   (in place, source "elimination")
"""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from adapters.markers.general.nets.glyphs import GlyphClassifier
from adapters.markers.general.nets.patch_reader import CLASSES
from adapters.markers.general.points.rings import Circle
from adapters.markers.general.points.state import ImageParse, LabelRead, unread_labels
from adapters.markers.general.points.words_to_rings import _side, one_style, placement_error, unit
from adapters.markers.general.thresholds import (
    CONSTRAINED_MARGIN,
    CONSTRAINED_MIN_SIMILARITY,
    ELIMINATION_CONFIDENCE,
    ELIMINATION_MAX_ASPECT,
    ELIMINATION_RADIUS,
    ELIMINATION_SIDE_COS,
    MAX_PLACEMENT_ERROR,
    SAME_CENTRE,
)
from adapters.markers.labels import REF
from adapters.markers.types import Marker


def place_by_elimination(parsed: ImageParse, classifier: GlyphClassifier, shape: tuple[int, int],
                          after: str = "", reader_at: Callable[[tuple[float, float]], np.ndarray] | None = None) -> None:
    """Give the missing labels no word was read as the free circles left in the word-placed
    markers' style (_by_elimination; in place, source "elimination"). Run after the words, and
    again after the networks placed other labels (`after`: which, for the reasons): a circle
    they took is no longer free, and one fewer label competes for the rest. `reader_at`: the
    patch reader's probabilities (CLASSES) at a place, for _reader_names_the_one_left."""
    unreadable = unread_labels(parsed)
    # the word-placed markers still standing (the networks' checks may have taken some back)
    placed = [(read, j) for label, (read, j) in parsed.word_pairs.items()
              if label in parsed.markers and parsed.markers[label].xy == (parsed.circles[j].x, parsed.circles[j].y)]
    # (not beside ambiguous labels: the circles they may have are free, and may be taken)
    if not unreadable or not placed or parsed.ambiguous - set(parsed.markers):
        return
    taken = {j for j, c in enumerate(parsed.circles)
             if any(np.hypot(c.x - m.xy[0], c.y - m.xy[1]) < SAME_CENTRE for m in parsed.markers.values())}
    candidates = _elimination_candidates(unreadable, placed, parsed.circles, parsed.unread, shape, taken)
    if not after:
        # as many candidate circles as unread labels: the words could not tell which is which
        # (or placed them all); the networks may place some of them and leave the rest decided
        parsed.eliminable = candidates if len(candidates) == len(unreadable) else {}
    elif not (_networks_took_eliminable(parsed, candidates)
              or _reader_names_the_one_left(parsed, unreadable, candidates, reader_at)):
        return
    by_elimination, why = _by_elimination(unreadable, candidates, classifier)
    for label in unreadable:
        if label not in by_elimination:
            parsed.missing[label] += f"; {why}" + (f" (once {after} placed)" if after else "")
            continue
        read, j = by_elimination[label]
        c = parsed.circles[j]
        del parsed.missing[label]
        parsed.markers[label] = Marker(label, (c.x, c.y), ELIMINATION_CONFIDENCE * c.coverage, radius=c.r,
                                       ring_width=c.width, label_box=tuple(int(v) for v in read.rect),
                                       colour=c.colour, source="elimination")


def _networks_took_eliminable(parsed: ImageParse, candidates: dict[int, list[LabelRead]]) -> bool:
    """Whether the words' elimination had left as many circles as unread labels
    (parsed.eliminable), the circles now left (`candidates`) are among them, and every label the
    networks placed is on one of them. A network placement elsewhere leaves a circle over by
    coincidence (the first pass found fewer or more), and taking it would be a guess."""
    if not parsed.eliminable or set(candidates) - set(parsed.eliminable):
        return False

    def on_eliminable(m: Marker) -> bool:
        return any(np.hypot(parsed.circles[j].x - m.xy[0], parsed.circles[j].y - m.xy[1]) < SAME_CENTRE
                   for j in parsed.eliminable)

    return all(on_eliminable(m) for m in parsed.markers.values() if m.source in ("patch", "finder"))


def _reader_names_the_one_left(parsed: ImageParse, unreadable: list[str], candidates: dict[int, list[LabelRead]],
                               reader_at: Callable[[tuple[float, float]], np.ndarray] | None) -> bool:
    """Whether one label is left, on one free circle (`candidates`), where the patch reader's
    likeliest class of all (any label or none, not renormalised over the asked ones) is that label.

    When the networks placed a label on a circle the words' elimination had not counted, the
    circle left over is no label's by count alone (a scene ring in the markers' style, far from
    the label's own, may be the one left); the reader naming it is the evidence the count lacks,
    and its likeliest class suffices, however unsure: the count has already narrowed the question
    to this one circle and this one label."""
    if reader_at is None or len(unreadable) != 1 or len(candidates) != 1:
        return False
    (j,) = candidates
    row = reader_at((parsed.circles[j].x, parsed.circles[j].y))
    return int(np.argmax(row)) == CLASSES.index(unreadable[0])


def _elimination_candidates(labels: list[str], placed, circles: list[Circle], unread: list[LabelRead],
                            shape: tuple[int, int], taken: set[int] = frozenset()) -> dict[int, list[LabelRead]]:
    """{circle index: the unread words beside it} for every free circle (neither placed, of
    `placed`'s (reading, circle) pairs, nor `taken`) that may carry one of the unread `labels`.

    Every other label was placed; the drawing's style is theirs. A free circle qualifies when it
    matches that style (one_style: radius, colour, label height; the radius more tightly, within
    ELIMINATION_RADIUS of the placed rings', as no reading backs it) and an unread word, no
    wider than a letter when the labels are letters, sits beside it where the placed labels sit
    (placement within MAX_PLACEMENT_ERROR, on their side)."""
    used = {j for _, j in placed} | set(taken)
    side = unit(np.mean([_side(read.rect, circles[j]) for read, j in placed], axis=0))
    radius = float(np.median([circles[j].r for _, j in placed]))
    letters_only = REF not in labels
    candidates: dict[int, list[LabelRead]] = {}
    for word in unread:
        x0, y0, x1, y1 = word.word.rect
        if letters_only and x1 - x0 > ELIMINATION_MAX_ASPECT * (y1 - y0):
            continue  # wider than any one letter: scene texture, not a label
        for j, c in enumerate(circles):
            if j in used or abs(c.r - radius) > ELIMINATION_RADIUS:
                continue
            if placement_error(word.rect, c, shape) > MAX_PLACEMENT_ERROR:
                continue
            if float(_side(word.rect, c) @ side) < ELIMINATION_SIDE_COS:
                continue
            if one_style([*placed, (word, j)], circles):
                candidates.setdefault(j, []).append(word)
    return candidates


def _by_elimination(labels: list[str], candidates: dict[int, list[LabelRead]],
                    classifier: GlyphClassifier) -> tuple[dict[str, tuple[LabelRead, int]], str]:
    """The circles left for the labels no word was read as (`candidates`: _elimination_candidates):
    ({label: (word, circle index)}, "") or ({}, why not).

    There must be exactly as many candidate circles as unread labels (one more is a decoy: which
    one is which cannot be told).
    - One label: its circle is the one left. A small label in a bold font is often an inked blob
      no reader can name; the question itself says which label it is.
    - Several: the words are read against the unread labels only (an "8" beside a circle, when B
      and D are the labels left, is read as the more B-like of the two). Every label must be at
      least CONSTRAINED_MIN_SIMILARITY like its word, and the best matching of labels to circles
      must beat every other matching by CONSTRAINED_MARGIN of summed similarity; else none is placed.
    """
    if len(candidates) != len(labels):
        return {}, (f"{len(candidates)} free circles in the other markers' style have an unread label "
                    f"beside them, for {len(labels)} unread label(s)" if candidates
                    else "no free circle in the other markers' style has a label beside it")
    if len(labels) == 1:
        (j, words), = candidates.items()
        return {labels[0]: (words[0], j)}, ""
    return _match_by_reading(labels, candidates, classifier)


def _match_by_reading(labels: list[str], candidates: dict[int, list[LabelRead]],
                      classifier: GlyphClassifier) -> tuple[dict[str, tuple[LabelRead, int]], str]:
    """Give each of `labels` one of the candidate circles (as many as labels, each with its
    unread words) by reading the words against `labels` only: the one-to-one matching with the
    highest summed similarity, if it clears CONSTRAINED_MARGIN over every other and each label
    is at least CONSTRAINED_MIN_SIMILARITY like its word. Returns as _by_elimination does."""
    columns = list(candidates)
    # similarity[k, col]: label k against circle columns[col]'s best-matching word
    similarity = np.full((len(labels), len(columns)), -1.0)
    best_word: dict[tuple[int, int], LabelRead] = {}
    for col, j in enumerate(columns):
        sims = classifier.label_similarities([w.word.mask for w in candidates[j]], tuple(labels))
        for k in range(len(labels)):
            w = int(np.argmax(sims[:, k]))
            similarity[k, col] = sims[w, k]
            best_word[(k, col)] = candidates[j][w]
    totals = sorted(((float(sum(similarity[k, col] for k, col in enumerate(order))), order)
                     for order in itertools.permutations(range(len(columns)))), reverse=True)
    (top, order), runner_up = totals[0], totals[1][0]
    weakest = min(similarity[k, col] for k, col in enumerate(order))
    if top - runner_up < CONSTRAINED_MARGIN or weakest < CONSTRAINED_MIN_SIMILARITY:
        return {}, (f"{len(labels)} unread labels beside {len(columns)} free circles, and their words do not "
                    f"tell which is which (best matching {top:.2f}, next {runner_up:.2f})")
    return {labels[k]: (best_word[(k, col)], columns[col]) for k, col in enumerate(order)}, ""
