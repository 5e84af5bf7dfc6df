"""The patch reader's opinion on the points parse: a small CNN that reads the pixels around a
circle (nets/patch_reader.py) checks the markers the words placed and places labels they missed.

    check_words_matching_by_patches, check_by_patches    take back markers it reads otherwise
    match_eliminable_by_patches, match_left_by_patches   name labels on as many circles by its
                                                         likeliest matching of the lot
    place_by_patches(rgb, lab, parsed, reader, proposals) -> [Circle]   place the labels it is
                                                         sure of; returns the circles it judged

All edit the ImageParse in place; a label taken back returns to parsed.missing with the reason.
The centre finder's proposals, where given, spare the markers it confirms and veto doubtful
placements (finder_opinion.finder_doubts).
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.patch_reader import CLASSES, NONE, PatchReader
from adapters.markers.general.points.finder_opinion import finder_doubts
from adapters.markers.general.points.rings import Circle, find_circles
from adapters.markers.general.points.state import (
    UNLIKE_RING,
    ImageParse,
    asked_only,
    finder_reads_at,
    ring_inside,
    rings_alike,
    rings_around,
    rings_of_placed,
    unread_labels,
)
from adapters.markers.general.thresholds import (
    ELIMINATION_VETO,
    FAINT_CONTRAST,
    FAINT_LIMIT,
    FINDER_CONFIRMS,
    FINDER_NEAR,
    LONE_MIN_COVERAGE,
    PATCH_LONE_PROBABILITY,
    PATCH_MATCH_MIN,
    PATCH_MATCH_RATIO,
    PATCH_MIN_PROBABILITY,
    PATCH_RIVAL,
    PATCH_VETO,
    REFIT_OFF,
    SAME_CENTRE,
    SWAP_NONE,
    WORDS_MATCHING_OVERRULED,
)
from adapters.markers.labels import LABELS
from adapters.markers.types import Marker


def check_words_matching_by_patches(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader,
                                     proposals: list[Proposal] | None = None) -> None:
    """Take back the labels the words' elimination matched to as many circles (two or more labels
    no word was read as: elimination._match_by_reading) where the patch reader reads another
    matching of them to those circles WORDS_MATCHING_OVERRULED times likelier (_other_matching_ratio; in place:
    they go back to parsed.missing, where the later passes may place them again). The words were
    read against the labels left only, so small glyphs that read as neither are matched as the
    nearer of them: two small labels of like shape (B and D) can be matched swapped, where the
    reader, which sees each ring with its label, reads the swap far likelier. A matching the
    centre finder (`proposals`) confirms at every one of its circles (FINDER_CONFIRMS, as
    check_by_patches spares a marker) stands. One label left (no matching to weigh) is
    check_by_patches' (ELIMINATION_VETO)."""
    matched = [label for label, marker in parsed.markers.items() if marker.source == "elimination"]
    if len(matched) < 2 or all(finder_reads_at(parsed.markers[label], proposals, FINDER_CONFIRMS) for label in matched):
        return
    # (each circle's row scaled alike, as asked_only would, leaves the ratio as it is)
    probabilities = reader.probabilities(rgb, [parsed.markers[label].xy for label in matched])
    ratio = _other_matching_ratio(np.array([[row[CLASSES.index(label)] for row in probabilities] for label in matched]))
    if ratio < WORDS_MATCHING_OVERRULED:
        return
    for label in matched:
        del parsed.markers[label]
        parsed.missing[label] = (f"the words' elimination matched {', '.join(matched)} to their circles, but the "
                                 f"patch reader reads another matching of them {ratio:.1f} times likelier")


def _other_matching_ratio(chance: np.ndarray) -> float:
    """chance[k, i]: the patch reader's probability of label k at circle i, label k matched to
    circle k -> how many times likelier (the product of its probabilities) the reader's likeliest
    other one-to-one matching is: 0 where it reads no other matching as possible (or none at
    all), inf where it reads only another as possible. Fewer than two labels: 0."""
    chance = np.asarray(chance, np.float64)  # (float32 products of sure readings underflow)
    n = chance.shape[0]
    if n < 2:
        return 0.0
    as_matched = float(np.prod(np.diag(chance)))
    other = max(float(np.prod([chance[k, i] for k, i in enumerate(order)]))
                for order in itertools.permutations(range(n)) if order != tuple(range(n)))
    if other == 0.0:
        return 0.0
    return other / as_matched if as_matched > 0.0 else float("inf")


def match_eliminable_by_patches(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader) -> None:
    """Tell apart the labels the words' elimination left on as many circles (parsed.eliminable)
    but could not tell apart, by what the patch reader sees at those circles (in place, source
    "elimination"): the one-to-one matching whose product of probabilities beats every other
    matching's PATCH_MATCH_RATIO times, each label read at its circle with p >= PATCH_MATCH_MIN.

    The words and the drawing's style already say these circles carry these labels; only which is
    which is open, and a reader that is unsure of each circle alone (about even between D and B
    at one, sure of D at the other: neither passes place_by_patches, each has a rival) may still
    make one matching far likelier than the other."""
    unreadable = unread_labels(parsed)
    columns = sorted(parsed.eliminable)
    taken = [m.xy for m in parsed.markers.values()]
    if (len(unreadable) < 2 or len(unreadable) != len(columns)
            or any(np.hypot(parsed.circles[j].x - x, parsed.circles[j].y - y) < SAME_CENTRE
                   for j in columns for x, y in taken)):
        return  # the patch reader took some back, or placed one elsewhere: the words' count is off
    probabilities = asked_only(reader.probabilities(rgb, [(parsed.circles[j].x, parsed.circles[j].y)
                                                           for j in columns]), parsed)
    chance = np.array([[probabilities[col, CLASSES.index(label)] for col in range(len(columns))]
                       for label in unreadable])  # chance[k, col]: label k at circle columns[col]
    order = _decisive_matching(chance, unreadable, parsed, "those circles")
    if order is None:
        return
    for k, col in enumerate(order):
        label, c = unreadable[k], parsed.circles[columns[col]]
        word = parsed.eliminable[columns[col]][0]
        del parsed.missing[label]
        parsed.markers[label] = Marker(label, (c.x, c.y), float(chance[k, col]) * c.coverage, radius=c.r,
                                       ring_width=c.width, label_box=tuple(int(v) for v in word.rect),
                                       colour=c.colour, source="elimination")


def _decisive_matching(chance: np.ndarray, labels: Sequence[str], parsed: ImageParse,
                       where: str) -> tuple[int, ...] | None:
    """chance[k, i]: the patch reader's probability of `labels`[k] at circle i (as many circles as
    labels) -> the matching, circle of each label, whose product of probabilities beats every
    other matching's PATCH_MATCH_RATIO times with each label read with p >= PATCH_MATCH_MIN; or
    None, with why noted on each label's missing reason (the reader read them at `where`)."""
    ranked = sorted(((float(np.prod([chance[k, i] for k, i in enumerate(order)])), order)
                     for order in itertools.permutations(range(chance.shape[1]))), reverse=True)
    (best, order), runner_up = ranked[0], ranked[1][0]
    weakest = min(chance[k, i] for k, i in enumerate(order))
    if best < PATCH_MATCH_RATIO * runner_up or weakest < PATCH_MATCH_MIN:
        why = (f"no matching stands out (likeliest {best:.2g}, next {runner_up:.2g}, "
               f"its least sure label p={weakest:.2f})")
        for label in labels:
            parsed.missing[label] += f"; patch reader at {where}: {why}"
        return None
    return order


def match_left_by_patches(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader, judged: Sequence[Circle]) -> None:
    """Place the two or more labels still missing on as many free circles by the patch reader's
    likeliest matching of labels to circles (_decisive_matching; in place, source "patch"), when
    exactly that many free judged circles (`judged`: the circles place_by_patches read) in the
    placed markers' style read any missing label with p >= PATCH_RIVAL.

    Each circle alone may be unsure: with small labels, D's ring may read about even between B
    and D while B's own ring reads B surely, so place_by_patches places neither (two circles read
    as B; D below PATCH_MIN_PROBABILITY), yet B on its ring and D on D's is far likelier than the
    swap. Where the reader misreads one circle surely (B at D's ring, and D read at neither), no
    matching stands out or one label reads below PATCH_MATCH_MIN, and the labels stay missing. A
    third circle that reads as a missing label leaves the count off, and nothing is placed."""
    placed = [m.xy for m in parsed.markers.values()]
    placed_rings = rings_of_placed(parsed, judged)
    free = [c for c in judged if all(np.hypot(c.x - x, c.y - y) > FINDER_NEAR for x, y in placed)
            and rings_alike([c, *placed_rings])]
    if not free:
        return
    missing = list(parsed.missing)
    columns = [CLASSES.index(label) for label in missing]
    probabilities = asked_only(reader.probabilities(rgb, [(c.x, c.y) for c in free]), parsed)
    reading: list[tuple[Circle, np.ndarray]] = []  # one per patch: a thick ring found twice counts once
    for c, row in sorted(zip(free, probabilities), key=lambda pair: -pair[0].coverage):
        if row[columns].max() >= PATCH_RIVAL and not any(np.hypot(c.x - o.x, c.y - o.y) < SAME_CENTRE
                                                         for o, _ in reading):
            reading.append((c, row))
    if len(reading) != len(missing) or not rings_alike([c for c, _ in reading] + placed_rings):
        return
    chance = np.array([[row[column] for _, row in reading] for column in columns])
    order = _decisive_matching(chance, missing, parsed, f"the {len(reading)} free circles reading as these labels")
    if order is None:
        return
    for k, i in enumerate(order):
        label, c = missing[k], reading[i][0]
        del parsed.missing[label]
        parsed.markers[label] = Marker(label, (c.x, c.y), float(chance[k, i]) * c.coverage, radius=c.r,
                                       ring_width=c.width, colour=c.colour, source="patch")


def check_by_patches(rgb: np.ndarray, lab: np.ndarray, parsed: ImageParse, reader: PatchReader,
                      only: set[str] | None = None, proposals: list[Proposal] | None = None) -> None:
    """Take back the markers placed by words whose ring the patch reader sees as something else
    (another label of the question, or no marker) with probability >= PATCH_VETO: a scene blob
    read as a letter beside a scene ring; >= ELIMINATION_VETO for a marker placed by
    elimination, which no reading backs (a small D misread as C leaves D the real C's ring, which
    the reader reads as C); and a word-placed one whose ring reads as no marker with p >=
    SWAP_NONE only, when its ring and label look swapped (_swapped). The label goes back to
    parsed.missing, where place_by_patches may place it again. only: check these labels' markers.

    A marker the centre finder (`proposals`) surely reads as its label at its centre (score >=
    FINDER_CONFIRMS within AGREED_CENTRE px) stands: the words (or the count) and the finder
    outvote the reader, which misses 1 px rings over photographs and gradients (it reads no
    marker where the finder reads the label at the ring's centre). A marker the reader rightly
    takes back sits on another ring, well off its drawn centre, where the finder does not
    propose its label."""
    labels = [label for label in parsed.markers if (only is None or label in only)
              and not finder_reads_at(parsed.markers[label], proposals, FINDER_CONFIRMS)]
    if not labels:
        return
    expected = set(parsed.markers) | set(parsed.missing)
    probabilities = reader.probabilities(rgb, [parsed.markers[label].xy for label in labels])
    for label, row in zip(labels, probabilities):
        top = int(np.argmax(row))
        # only "no marker" or another label of this question overrules the words (a REF read
        # where the question has no REF is the reader's mistake, not a scene ring's)
        eliminated = parsed.markers[label].source == "elimination"
        veto = ELIMINATION_VETO if eliminated else PATCH_VETO
        if CLASSES[top] != label and row[top] >= veto and (CLASSES[top] == NONE or CLASSES[top] in expected):
            seen = "no marker" if CLASSES[top] == NONE else CLASSES[top]
            del parsed.markers[label]
            parsed.missing[label] = (f"{label} was {'left by elimination to' if eliminated else 'read beside'} a circle "
                                     f"whose surroundings read as {seen} (p={row[top]:.2f})")
        elif not eliminated and row[CLASSES.index(NONE)] >= SWAP_NONE and label in parsed.word_pairs:
            there = _swapped(rgb, lab, parsed, reader, label)
            if there is not None:
                del parsed.markers[label]
                parsed.missing[label] = (f"{label} was read from a word holding a ring that reads as {label} "
                                         f"(p={there:.2f}), beside a circle that reads as no marker "
                                         f"(p={row[CLASSES.index(NONE)]:.2f}): its ring and label look swapped")


def _swapped(rgb: np.ndarray, lab: np.ndarray, parsed: ImageParse, reader: PatchReader, label: str) -> float | None:
    """The patch reader's probability of `label` at a ring inside the word the words placed it
    by, when that ring is like the placed one and reads likeliest as `label` with p >=
    PATCH_MIN_PROBABILITY; else None. That word is then a faint 1 px ring, never found as a
    circle, read as the label (its arc looks like a C), and the "circle" beside it is the
    label's own glyph bowl: a bold C's bowl passes for a ring, the reader reads no marker there,
    and C at the faint real ring inside the "word"."""
    read, j = parsed.word_pairs[label]
    own = parsed.circles[j]
    ring = ring_inside(rgb, lab, read.rect, own.r)
    if ring is None or not rings_alike([ring, own]):
        return None
    there = asked_only(reader.probabilities(rgb, [(ring.x, ring.y)]), parsed)[0]
    if CLASSES[int(np.argmax(there))] != label or there[CLASSES.index(label)] < PATCH_MIN_PROBABILITY:
        return None
    return float(there[CLASSES.index(label)])


def place_by_patches(rgb: np.ndarray, lab: np.ndarray, parsed: ImageParse, reader: PatchReader,
                      proposals: list[Proposal] | None = None) -> list[Circle]:
    """Place the labels the words left missing by what the patch reader sees around each free
    circle (in place: parsed.markers gains them, parsed.missing loses them); returns the circles
    it judged.

    The candidates are the free circles found, plus fainter rings (rings.find_circles at
    FAINT_CONTRAST: a 1 px ring on noise scores below RING_MIN_CONTRAST). A label goes to the
    circle the reader gives it most, when that probability is >= PATCH_MIN_PROBABILITY, is the circle's
    top class, no other candidate that could be a marker gives the label >= PATCH_RIVAL (else:
    which one?), and the circle matches the placed markers' rings (rings_alike; a lone label: a
    complete ring and PATCH_LONE_PROBABILITY). Where the centre finder's `proposals` are given
    (None: no finder), the circle must also not be centred off the finder's centre there, and a
    close reading must be the finder's too. See _patch_verdict.
    """
    used = {(m.xy[0], m.xy[1]) for m in parsed.markers.values()}
    free = [c for c in parsed.circles if (c.x, c.y) not in used]
    faint = [c for c in find_circles(rgb, lab, min_contrast=FAINT_CONTRAST, limit=FAINT_LIMIT)
             if not any(np.hypot(c.x - o.x, c.y - o.y) < 2.5 for o in parsed.circles)]
    candidates = free + faint
    if not candidates:
        return []
    probabilities = asked_only(reader.probabilities(rgb, [(c.x, c.y) for c in candidates]), parsed)
    placed_rings = [c for c in parsed.circles if (c.x, c.y) in used]
    lone = len(parsed.markers) + len(parsed.missing) == 1
    # passes until none places a label: a ring placed fixes the markers' style, and a rival unlike
    # it (a letter's bowl, a scene ring of another size) no longer competes in the next pass
    while True:
        why_not = {}
        for label in list(parsed.missing):
            why = _patch_verdict(label, candidates, probabilities, placed_rings, lone)
            if why == UNLIKE_RING and _refit_in_style(rgb, lab, parsed, reader, label, candidates, probabilities,
                                                      placed_rings):
                why = _patch_verdict(label, candidates, probabilities, placed_rings, lone)
            why = why or finder_doubts(label, candidates, probabilities, proposals, parsed, placed_rings)
            if why:
                why_not[label] = why
                continue
            column = probabilities[:, CLASSES.index(label)]
            j = int(np.argmax(column))
            c = candidates[j]
            placed_rings.append(c)
            del parsed.missing[label]
            parsed.markers[label] = Marker(label, (c.x, c.y), float(column[j]) * c.coverage, radius=c.r,
                                           ring_width=c.width, colour=c.colour, source="patch")
        if len(why_not) == len(parsed.missing) or not parsed.missing:
            break
    for label, why in why_not.items():
        parsed.missing[label] += f"; patch reader: {why}"
    return candidates


def _patch_verdict(label: str, candidates: list[Circle], probabilities: np.ndarray, placed_rings: list[Circle],
                   lone: bool) -> str:
    """Why `label` may not go to the candidate circle the patch reader gives it most ("" when it
    may; see place_by_patches). Rivals are circles reading likeliest as the label (among labels)
    with p >= PATCH_RIVAL, more than SAME_CENTRE px away, and, once some marker is placed, alike
    its rings (one unlike them could never take the label)."""
    column = probabilities[:, CLASSES.index(label)]
    j = int(np.argmax(column))
    c = candidates[j]
    # another circle is a rival when the label is its likeliest label; a neighbour whose patch
    # shows this label too, but its own more, is not (a thick ring is often found twice around
    # one centre: the same patch is no rival either)
    others = np.delete(probabilities[:, :len(LABELS)], CLASSES.index(label), axis=1)
    rivals = column[[k for k, other in enumerate(candidates)
                     if np.hypot(other.x - c.x, other.y - c.y) > SAME_CENTRE and column[k] >= others[k].max()
                     and (not placed_rings or rings_alike([other, *placed_rings]))]]
    needed = PATCH_LONE_PROBABILITY if lone else PATCH_MIN_PROBABILITY
    return (f"no circle reads as {label} surely enough (best p={column[j]:.2f} < {needed})" if column[j] < needed
            else f"its likeliest circle reads more as {CLASSES[int(np.argmax(probabilities[j]))]}"
            if int(np.argmax(probabilities[j])) != CLASSES.index(label)
            else f"two circles read as {label} (p={column[j]:.2f} and {rivals.max():.2f})"
            if len(rivals) and rivals.max() >= PATCH_RIVAL
            else "its ring is incomplete for a lone marker" if lone and c.coverage < LONE_MIN_COVERAGE
            else UNLIKE_RING if not rings_alike([c, *placed_rings])
            else "")


def _refit_in_style(rgb: np.ndarray, lab: np.ndarray, parsed: ImageParse, reader: PatchReader, label: str,
                    candidates: list[Circle], probabilities: np.ndarray, placed_rings: list[Circle]) -> bool:
    """Where the patch reader surely reads `label` at a candidate whose ring is unlike the placed
    markers' (`_patch_verdict` said UNLIKE_RING), look for a ring of the placed rings' radius and
    colour centred within REFIT_OFF px of it; when there is one that reads `label` surely too, it
    replaces the candidate (in place: `candidates` and its row of `probabilities`). Returns
    whether it did.

    The circle search keeps one ring per ring-filter peak, and a small scene ring or blob inside
    the marker's own ring can take that peak: the reader, which sees the whole patch, reads the
    label there (a small blob of another colour at the centre of the marker's ring reads as the
    label, while the ring itself was never found)."""
    column = probabilities[:, CLASSES.index(label)]
    j = int(np.argmax(column))
    c = candidates[j]
    if column[j] < PATCH_MIN_PROBABILITY or not placed_rings:
        return False
    radius = float(np.median([ring.r for ring in placed_rings]))
    ring = next((ring for ring in rings_around(rgb, lab, int(round(c.x)), int(round(c.y)), radius)
                 if np.hypot(ring.x - c.x, ring.y - c.y) <= REFIT_OFF and rings_alike([ring, *placed_rings])), None)
    if ring is None:
        return False
    there = asked_only(reader.probabilities(rgb, [(ring.x, ring.y)]), parsed)[0]
    if there[CLASSES.index(label)] < PATCH_MIN_PROBABILITY:
        return False
    candidates[j], probabilities[j] = ring, there
    return True
