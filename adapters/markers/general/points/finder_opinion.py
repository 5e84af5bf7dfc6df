"""The centre finder's opinion on the points parse: a whole-image CNN (nets/centre_finder.py)
proposes marker centres, which need no ring that stands out on its own.

    finder_doubts(label, candidates, probabilities, proposals, parsed, placed_rings) -> why not ("" if none)
    check_by_finder / place_by_finder(rgb, parsed, reader, proposals, ...)   take back / place, in place
    check_ring_radii(parsed, proposals)   re-centre or take back a ring fitted at an odd radius

The finder's centres are coarse (STRIDE px cells plus an offset), so where a ring was fitted its
fit is the better centre; the finder decides where no ring stands out or a ring's fit is in doubt,
and a label it places needs the patch reader to read it there too.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.patch_reader import CLASSES, PatchReader
from adapters.markers.general.points.rings import Circle
from adapters.markers.general.points.state import (
    UNLIKE_RING,
    ImageParse,
    asked_only,
    finder_reads_at,
    in_markers_style,
    rings_alike,
    rings_of_placed,
)
from adapters.markers.general.thresholds import (
    AGREED_CENTRE,
    AGREED_LONE_PROBABILITY,
    AGREED_PROBABILITY,
    FINDER_CONTRADICTS,
    FINDER_LONE_SCORE,
    FINDER_MARGIN,
    FINDER_MIN_SCORE,
    FINDER_NEAR,
    FINDER_RIVAL,
    LONE_MIN_COVERAGE,
    ODD_PAIR,
    ODD_RADIUS,
    PATCH_MARGIN,
    PATCH_RIVAL,
    PATCH_VETO,
    SAME_CENTRE,
    SURE_FINDER_SCORE,
    SURE_LONE_FINDER_SCORE,
    SURE_LONE_PROBABILITY,
    SURE_PROBABILITY,
)
from adapters.markers.types import Marker


def finder_doubts(label: str, candidates: list[Circle], probabilities: np.ndarray,
                   proposals: list[Proposal] | None, parsed: ImageParse, placed_rings: Sequence[Circle]) -> str:
    """Why the centre finder's proposals (None: no finder) forbid `label` at the candidate circle
    the patch reader gives it most ("" when they do not).

    - The finder's nearest centre (score >= FINDER_MIN_SCORE, any label: its centres are surer
      than its labels) is AGREED_CENTRE-FINDER_NEAR px away: the circle is a small scene ring
      inside the marker's, or one fitted off-centre (a marker's ring fitted right lies within
      AGREED_CENTRE of it). Not so for a ring in the placed markers' style (`placed_rings`;
      in_markers_style): that ring is a marker's own, fitted to the sub-pixel, and the finder's
      coarser centre is the one off.
    - The reading leads the circle's next asked label by less than PATCH_MARGIN: then the finder's
      likeliest asked label there must be this one (without a finder, such a reading is refused).
    """
    column = probabilities[:, CLASSES.index(label)]
    j = int(np.argmax(column))
    c, row = candidates[j], probabilities[j]
    asked = [*parsed.markers, *parsed.missing]
    runner_up = max((row[CLASSES.index(other)] for other in asked if other != label), default=0.0)
    close = column[j] - runner_up < PATCH_MARGIN
    if proposals is None:
        return f"its reading is close ({label} p={column[j]:.2f}, next {runner_up:.2f})" if close else ""
    sure = [p for p in proposals if p.score >= FINDER_MIN_SCORE]
    nearest = min(sure, key=lambda p: np.hypot(p.x - c.x, p.y - c.y), default=None)
    off = float(np.hypot(nearest.x - c.x, nearest.y - c.y)) if nearest else np.inf
    if AGREED_CENTRE < off <= FINDER_NEAR and not in_markers_style(c, placed_rings):
        return f"its circle is centred {off:.1f} px from where the centre finder puts a marker"
    if close:
        finder_label = (max(asked, key=lambda other: nearest.scores.get(other, 0.0))
                        if off <= AGREED_CENTRE else None)
        if finder_label != label:
            return (f"its reading is close ({label} p={column[j]:.2f}, next {runner_up:.2f}) and the centre finder "
                    f"reads {finder_label or 'no marker'} there")
    return ""


def check_by_finder(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader, proposals: list[Proposal]) -> None:
    """Take back a placed marker the finder does not read at the marker (no proposal of its label
    within AGREED_CENTRE px) but surely (>= FINDER_CONTRADICTS) reads, with the patch reader (>=
    PATCH_VETO), at another place more than FINDER_NEAR px away (a scene ring that took a label
    read beside it). The label goes back to parsed.missing, where place_by_finder may place it
    again.

    A finder centre 2-5 px from the ring does not take it back: the ring's sub-pixel fit is the
    better centre, and the finder's own centre may lie a couple of px off a drawn ring."""
    strong = [p for p in proposals if p.score >= FINDER_CONTRADICTS]
    # the markers the finder reads at their centres stand (most of them: no reader call then)
    doubted = [label for label, m in parsed.markers.items()
               if not finder_reads_at(m, proposals) and any(p.label == label for p in strong)]
    if not doubted:
        return
    probabilities = reader.probabilities(rgb, [(p.x, p.y) for p in strong])
    for label in doubted:
        x, y = parsed.markers[label].xy
        elsewhere = [p for p, row in zip(strong, probabilities) if p.label == label
                     and np.hypot(p.x - x, p.y - y) > FINDER_NEAR and row[CLASSES.index(label)] >= PATCH_VETO]
        if elsewhere:
            del parsed.markers[label]
            parsed.missing[label] = (f"{label} was placed at ({x:.0f}, {y:.0f}), but both networks read it at "
                                     f"({elsewhere[0].x:.0f}, {elsewhere[0].y:.0f})")


def check_ring_radii(parsed: ImageParse, proposals: list[Proposal] | None) -> None:
    """Re-centre or take back a placed marker whose ring's radius lies more than ODD_RADIUS px
    from the median of the other placed rings' (two rings: both, when they differ by more than
    ODD_PAIR px): one question's rings are drawn alike, so the fit was drawn off by the scene
    (a ring of another size, a scene edge of its colour), and its centre with it. It moves to the
    centre finder's nearest proposal within FINDER_NEAR px that reads its label (score >=
    FINDER_MIN_SCORE); with none (or no finder), its label goes back to parsed.missing. Run last:
    the label is not placed again.

    A 1 px ring partly over a scene edge is fitted a px or more off in radius and its centre pulled
    a couple of px off, while the finder still centres the marker; a scene ring a label was read
    beside is of another size too. Between two rings there is no majority to say which one is
    off, so both are judged."""
    rings = {label: m for label, m in parsed.markers.items() if m.radius is not None}
    if len(rings) < 2:
        return
    for label, m in rings.items():
        others = float(np.median([o.radius for other, o in rings.items() if other != label]))
        # two rings that disagree cannot say which one is off: both are judged (the one the finder
        # confirms where it lies stays; it moves by the finder's error at most)
        if abs(m.radius - others) <= (ODD_PAIR if len(rings) == 2 else ODD_RADIUS):
            continue
        near = [p for p in proposals or () if p.label == label and p.score >= FINDER_MIN_SCORE
                and np.hypot(p.x - m.xy[0], p.y - m.xy[1]) <= FINDER_NEAR]
        if near:
            p = min(near, key=lambda p: np.hypot(p.x - m.xy[0], p.y - m.xy[1]))
            parsed.markers[label] = replace(m, xy=(p.x, p.y))
            continue
        del parsed.markers[label]
        parsed.missing[label] = (f"{label}'s ring was fitted at radius {m.radius:.1f} px, the other markers' at "
                                 f"{others:.1f}: its centre is in doubt, and the centre finder proposes none "
                                 f"reading {label} within {FINDER_NEAR:.0f} px")


def place_by_finder(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader, proposals: list[Proposal],
                     judged: Sequence[Circle]) -> None:
    """Place the labels still missing where the centre finder and the patch reader agree (in
    place, as patch_opinion.place_by_patches; `judged`: the circles place_by_patches read).

    The places are the judged circles (each with the finder's proposal within AGREED_CENTRE px,
    if any) and the finder's other proposals (a ring fitted off-centre, or no ring found). A
    label goes to a place when the finder's likeliest label there is it with a score >=
    FINDER_MIN_SCORE and the patch reader's top class there is it with p >= AGREED_PROBABILITY
    (a lone label: FINDER_LONE_SCORE and AGREED_LONE_PROBABILITY), or a score >= SURE_FINDER_SCORE
    where the reader is sure (SURE_PROBABILITY; lone: SURE_LONE_*). Two networks that look
    differently (whole image, fixed patch) must agree: this places labels where no ring was found
    (the patch reader alone judges only found rings), and settles which of two rings the reader
    alone read as the label (a lone label also needs less certainty than PATCH_LONE_PROBABILITY).
    It must be the only such place, no other place may read as the label to both networks (finder
    >= FINDER_RIVAL, reader >= PATCH_RIVAL, each its likeliest label), a circle must match the
    placed markers' rings, and a proposal with no ring of its own must have no ring in their style
    a little off it (_ring_beside_proposal).
    """
    placed = [m.xy for m in parsed.markers.values()]

    def free(x: float, y: float) -> bool:
        return all(np.hypot(x - px, y - py) > FINDER_NEAR for px, py in placed)

    def proposal_at(x: float, y: float):
        near = [p for p in proposals if np.hypot(p.x - x, p.y - y) <= AGREED_CENTRE]
        return min(near, key=lambda p: np.hypot(p.x - x, p.y - y)) if near else None

    rings = [c for c in judged if free(c.x, c.y)]
    places = [((c.x, c.y), c, proposal_at(c.x, c.y)) for c in rings]
    places += [((p.x, p.y), None, p) for p in proposals
               if free(p.x, p.y) and not any(np.hypot(p.x - c.x, p.y - c.y) <= AGREED_CENTRE for c in rings)]
    if not places:
        for label in parsed.missing:
            parsed.missing[label] += "; centre finder: no free place proposed"
        return
    probabilities = asked_only(reader.probabilities(rgb, [xy for xy, _, _ in places]), parsed)
    placed_rings = rings_of_placed(parsed, judged)
    lone = len(parsed.markers) + len(parsed.missing) == 1
    needed = (FINDER_LONE_SCORE, AGREED_LONE_PROBABILITY) if lone else (FINDER_MIN_SCORE, AGREED_PROBABILITY)
    sure = (SURE_LONE_FINDER_SCORE, SURE_LONE_PROBABILITY) if lone else (SURE_FINDER_SCORE, SURE_PROBABILITY)

    asked = [*parsed.markers, *parsed.missing]

    def finder_reads(k: int, label: str, score: float, margin: float = 0.0) -> bool:
        # the finder's scores are one sigmoid per label: its likeliest *asked* label keeps its own
        # score, and must stand `margin` above the next asked label's
        proposal = places[k][2]
        if proposal is None:
            return False
        ranked = sorted(asked, key=lambda other: proposal.scores.get(other, 0.0), reverse=True)
        runner_up = proposal.scores.get(ranked[1], 0.0) if len(ranked) > 1 else 0.0
        own = proposal.scores.get(label, 0.0)
        return ranked[0] == label and own >= score and own - runner_up >= margin

    def reader_reads(k: int, label: str, probability: float) -> bool:
        row = probabilities[k]
        return row[CLASSES.index(label)] >= probability and int(np.argmax(row)) == CLASSES.index(label)

    for label in list(parsed.missing):
        agreed = [k for k in range(len(places))
                  if any(finder_reads(k, label, score, FINDER_MARGIN) and reader_reads(k, label, probability)
                         for score, probability in (needed, sure))]
        j = agreed[0] if agreed else -1
        (x, y), ring, proposal = places[j]
        # a rival: another place both networks read as the label (a place only one of them reads as
        # it is that network's error, as likely there as anywhere: counting it would refuse right
        # markers over one network's stray reading)
        rivals = [k for k in range(len(places)) if k != j
                  and finder_reads(k, label, FINDER_RIVAL) and reader_reads(k, label, PATCH_RIVAL)
                  and np.hypot(places[k][0][0] - x, places[k][0][1] - y) > SAME_CENTRE]
        why = (f"no place where the finder scores {label} >= {needed[0]} ({FINDER_MARGIN} above any other asked "
               f"label) and the patch reader reads it with p >= {needed[1]} (or {sure[0]} and {sure[1]})"
               if not agreed
               else f"{len(rivals) + 1} places read as {label} to both networks" if rivals
               else "its ring is incomplete for a lone marker" if ring is not None and lone
               and ring.coverage < LONE_MIN_COVERAGE
               else UNLIKE_RING if ring is not None and not rings_alike([ring, *placed_rings])
               else _ring_beside_proposal(label, (x, y), rings, placed_rings) if ring is None
               else "")
        if why:
            parsed.missing[label] += f"; centre finder: {why}"
            continue
        if ring is not None:
            placed_rings.append(ring)
        del parsed.missing[label]
        confidence = float(min(proposal.score, probabilities[j][CLASSES.index(label)]))
        parsed.markers[label] = Marker(label, (x, y), confidence, radius=ring.r if ring else None,
                                       ring_width=ring.width if ring else None,
                                       colour=ring.colour if ring else None, source="finder")


def _ring_beside_proposal(label: str, xy: tuple[float, float], rings: Sequence[Circle],
                          placed_rings: Sequence[Circle]) -> str:
    """Why a label may not go to a centre finder's proposal with no ring of its own at `xy` ("" when
    it may): a free ring in the placed markers' style (alike them, its radius within ODD_RADIUS of
    theirs) lies AGREED_CENTRE-FINDER_NEAR px from it. Such a ring is the label's when the patch
    reader reads it there (finder_doubts lets it); where it does not, neither network says which
    centre is right, and the finder's coarser centre would put the label a couple of px off
    beside the ring that is likely its own."""
    for c in rings:
        off = float(np.hypot(c.x - xy[0], c.y - xy[1]))
        if AGREED_CENTRE < off <= FINDER_NEAR and in_markers_style(c, placed_rings):
            return (f"the finder's centre for {label} lies {off:.1f} px from a ring in the markers' style: "
                    "which is the marker's centre is unclear")
    return ""
