"""Read drawn boxes (Object_Localization): which labelled box is where, or why it cannot be said.

The corner finder proposes each label's top-left corner (where the label is written) and every
rectangle's bottom-right corner; box_outline fits and checks the outline between a candidate corner
and each bottom-right corner (or the image's border, for a box cut off there). The corner reader
(corner_reader.py) reads the label at each fitted corner, and a label's score there is the mean
(geometric) of its reading and the finder's. The word written at a corner is read by the glyph
classifier (box_label): a corner whose word clearly is another label, letter or digit loses its
score for the labels it is not (unless both networks are sure of one: WORD_OVERRULED), and one
that clearly reads as the label the finder read there backs it (and, a label being written once,
takes most of that label's score from the finder's readings of it at other corners). Labels go to
the corners that start an outline one-to-one, by these readings (`_assign`); a label is placed
only when its corner wins decisively and exactly one drawn outline starts there; when several
labels are left and at most as many corners start one outline each, drawn alike with something
written, each is some label's, and they are named by these readings where the naming is clear
(`_by_permutation`); the last label left, when all the others are placed, takes the one labelled
corner left in their style (`_by_elimination`). Where the rules and the outline verifier pass no
outline at a corner the corner reader is sure of, one between it and a far corner the finder sees
may be taken at a lower acceptance (seen_corners).
Anything else leaves it missing with the reason, so a question is never answered from a guessed box.

    markers, missing, outlines = read_boxes(rgb, ["A", "B"], default_corner_finder())
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Sequence

import numpy as np

from .borrowed_line import borrowed_side, shared_sides, shares_far_corner
from .box_label import CornerReading, read_corner, something_written
from .box_outline import (LABEL_BOX_MAX, MIN_SIDE, Outline, Rejections, Verifier, crosses_at_top_left, fit_outline,
                          same_style)
from .centre_finder import Proposal
from .corner_finder import BOX_LABELS, CornerFinder
from .corner_reader import CLASSES as READER_CLASSES, NONE as READER_NONE, CornerReader, default_corner_reader
from .detect import to_lab
from .glyphs import GlyphClassifier, default_classifier
from .last_box import ProbabilityVerifier, last_box
from .merged_side import off_centre, refit_merged
from .outline_verifier import ACCEPTANCE, default_outline_verifier
from .scenes import FAR_CORNER
from .seen_corners import SEEN_ACCEPTANCE, between_seen_corners
from .stroke_band import onto_strokes
from .traced_corner import traced_far_corner
from .types import Marker

MIN_EVIDENCE = 0.15  # a proposal is a candidate corner when it reads this much as some expected label
MAX_CORNERS = 7  # the most candidate corners weighed (the strongest)
UNPLACED = 0.2  # what leaving a label without a corner weighs (a lone reading must reach DECISIVE x this)
DECISIVE = 3.0  # the best assignment must beat every one that places a label elsewhere by this factor
WORD_CONFIRMS = 0.65  # a label's score at a corner whose word clearly reads as it (beats UNPLACED decisively)
BORDER_NEAR = 5.0  # px: a far corner proposed this near the border may stand for one on or past it
BORDER_CORNER_COVERAGE = 0.9  # drawn fraction of both seen sides of an outline to the image's corner
# drawn fraction of every side of an outline to a traced far corner (traced_corner): a trace follows
# the corner's sides to where their ink stops, so a box's own far sides are drawn along most of their
# length there, even where the rules turn it away for a gap at a corner or a line going on (the
# verifier's traced boxes on the box benchmark: 0.62-1.0). Where a trace stops early, on a scene edge
# or a blob of another colour, the rectangle's far sides are the scene's (seed 71 image 164: 15 px down
# A's left side, its "bottom side" drawn along 20%, and the verifier found it drawn at 0.97).
# It binds only outlines the verifier accepts: those the rules pass have every side at box_outline.MIN_COVERAGE
TRACED_COVERAGE = 0.5
FAR_MIN_SCORE = 0.1  # heatmap score at which a bottom-right corner is tried
FAR_SEEN = 0.5  # ... and at which the finder sees one (_at_a_seen_far_corner; as last_box.LAST_FAR)
SAME_BOX = 2.0  # px: outlines whose coordinates all differ by less are one box
ON_STROKE = 1.0  # px a side's run of ink may be centred off its fitted line and the fit be on the stroke
CORNER_FIT = 4.0  # px the fitted outline's top-left corner may move from the proposed one
# px every coordinate of an outline only the outline verifier accepted may lie from the finder's
# two corners: the verifier weighs whether a rectangle is drawn, not whether each side is where the
# box's is, and among the false rectangles it likes best are true boxes fitted 2-3 px off one side
LEARNED_FIT = 2.0
# px an outline only the verifier accepted may lie from the finder's corners where each of its sides
# further off than LEARNED_FIT is centred on a stroke of its ink (within ON_STROKE, merged_side.
# off_centre) and the finder's line for it is not: the finder's corner then is what is off, not the
# fit (seeds 67/197 B, 83/30 D, 109/28 B: a proposal 2.1-2.7 px off, the fit on the box's stroke, no
# ink run centred on the proposal's line). Where the finder's line is on a stroke too, the fit may
# have moved off the box's own onto a scene edge of its colour (seed 116 image 13: D's 1 px left side
# under the finder's line, the fit 2.4 px off it on an edge, answered wrong without that check).
# Only at a corner the finder sees (FAR_SEEN: its far corner, or a label at its top-left corner): at
# one it barely reads, the fit corrects no detection, and may be another box's rectangle run on to a
# line (seed 85 image 196: from a corner read 0.17 as A on C's top line, A's sides and C's top line,
# a fifth outline that left A, C and D in doubt).
STROKE_FIT = 3.0
# two boxes' parallel sides nearer than this fraction of their strokes' mean width overlap: on a
# side's median profile they are one band, and where either side lies in it is unclear ...
ON_ANOTHER_SIDE = 0.5
SAME_LINE = 1.0  # px: ... unless they are within this of each other (one box drawn on the other's line)
ALONG_ANOTHER = 0.25  # ... and they run side by side along this share of the side at least
# the finder's and the corner reader's mean reading of a label that outweighs a word the glyph
# classifier clearly reads as another letter: it cuts glyphs out by colour and misread B as C
# or A, and A as 9, where both networks read the label at 0.95 or more (0.8: 8 more boxes of the
# 8 benchmark seeds, none wrong; 0.7: one more). The finder alone once read a decoy "F" as a label
WORD_OVERRULED = 0.8
WORD_ELSEWHERE = 0.25  # a label's score kept at other corners where the word at one corner clearly reads as it
# a word read at several corners is read at the one where the networks read its label this many
# times more than at any other (_each_word_read_once; between the near tie of fresh seed 72 image
# 34, 1.02, that swapped two labels, and fresh seed 77 image 12, 2.2, where it placed B right)
WORD_OWNER = 2.0
# summed asked-label finder scores at a corner elimination or naming may give a label. The finder
# reads some labels at 0.35-0.5, most often one written inside its box (no room above it): 0.5
# left 9 boxes of the 8 benchmark seeds unplaced that 0.35 places, none wrong (0.25: one more,
# 0.15: none). What is written there and the outline guard against a scene rectangle
ELIMINATION_EVIDENCE = 0.35
ELIMINATION_CONFIDENCE = 0.5  # confidence of a box placed by elimination (as parse.ELIMINATION_CONFIDENCE)
# the corner reader's "none" probability at or below which it sees a label written at a corner, for
# elimination and naming, where box_label finds no ink: a small label written inside a box over its
# thick left side (the glyph starts at the stroke's outer edge) leaves a pixel or two past the
# stroke. At fresh corner-finder training scenes' corners (seed 4242, 400 scenes) it is at most
# 0.1 at 98.8% of 1,088 label corners and at none of 336 decoy rectangles' (unlabelled or with
# another character; the least 0.108) nor at 1,635 of 1,636 crossings of two boxes' lines. On the
# box benchmark's 8 seeds: 4,252 -> 4,274 boxes, 2-box images 1,545 -> 1,551, none answered wrong
READER_WRITTEN = 0.1
# the corner reader's reading of a label at which it settles a corner whose only doubt is leaving
# the label unplaced, where the finder reads the label there faintly but there more than at any
# other corner (_reader_settles). At the benchmark's true corners the reader reads 97.9% right
READER_SURE = 0.95
# the corner reader's reading of a label left at which elimination and the naming take a corner
# where lines cross, or whose outline has a side merged with another line
# (_outline_a_label_may_own). Of the 180 boxes of 67 box benchmark seeds left missing where
# elimination was tried, 13 had such a corner of their own, whose outline is the box, read as the
# label at 0.71-0.99; every other such corner was read as another label or "none"
READER_READS = 0.5
# how much more drawn (Outline.coverage: its least drawn side's share) a box ending at other boxes'
# far corner must be than every one of them to be the one that ends there, where T's tell none
# apart (_owns_its_far_corner). On the 67 box benchmark seeds, the three pairs both refused for a
# shared far corner with T's telling neither apart led by 0.11-0.16, the true box the more drawn
COVERAGE_LEAD = 0.1
BORROWED_FAR_CORNER = "ends at another box's far corner"  # the last look's reason for a borrowed far corner


def read_boxes(rgb: np.ndarray, labels: Sequence[str], finder: CornerFinder,
               classifier: GlyphClassifier | None = None, reader: CornerReader | None | bool = True,
               verifier: Verifier | None | bool = True) -> tuple[dict[str, Marker], dict[str, str], list[Outline]]:
    """Boxes of `labels` on an (H, W, 3) uint8 RGB image: (label -> Marker with its box, label ->
    why it was not placed, every outline fitted).

    Candidate corners are the proposals that read as some expected label and start a drawn
    outline; there the corner reader (`reader`: True for the shipped one when installed, None
    for none) reads the fitted corner, and each label's score becomes the geometric mean of the
    finder's and the reader's (_weighed_by_reader). A label the word written at a corner clearly
    is not (box_label, read by `classifier`, default: the shipped glyph classifier) is taken off
    that corner. Labels go to corners one-to-one, by the product of those scores (a label may
    stay unplaced at UNPLACED); a label is placed only when every assignment that puts it
    elsewhere scores DECISIVE times less, so a corner read as B and C goes to C when B's corner
    is plain elsewhere, and stays unplaced when it is not. Where a candidate corner starts no
    outline by the hand rules, `verifier` (True: the shipped outline verifier when installed;
    None: none) may accept one they turned away (_outlines_from); where it accepts none either and
    the corner reader is sure of the label there (_corners_read_surely), one ending at a far
    corner the finder sees is taken at the verifier's lower SEEN_ACCEPTANCE (seen_corners)."""
    H, W = rgb.shape[:2]
    lab = to_lab(rgb)
    classifier = classifier or default_classifier()
    reader = default_corner_reader() if reader is True else (reader or None)
    verifier = default_outline_verifier() if verifier is True else (verifier or None)
    proposals = finder.find(rgb)
    fars = far_corners(proposals)
    missing = {l: f"{l!r} is not a box label ({', '.join(BOX_LABELS)})" for l in labels if l not in BOX_LABELS}
    wanted = [l for l in labels if l in BOX_LABELS]
    read = candidate_corners(proposals, wanted)
    outlines_at, outlines, vetoes, readings, proposed = [], [], {}, [], []
    label_seen: list[bool] = []  # per corner: the corner reader sees a label written there
    reader_reads: list[set[str]] = []  # per corner: the labels the corner reader reads at READER_READS
    reader_sure: list[set[str]] = []  # per corner: the labels the corner reader reads at READER_SURE
    found_at: list[Proposal] = []  # per corner: the finder's proposal, as it read it
    fits_at: list[dict] = []  # per corner read: the rules' fit to each far corner (last_box weighs them again)
    found_per_corner: list[list[Outline]] = []  # per corner read: the outlines starting there
    for p in read:
        fits_at.append({})
        found_per_corner.append(_outlines_from(lab, p, fits_at[-1], fars, W, H, verifier))
    # the verifier's probabilities (seen corners, the one outline drawn at a corner, the last box);
    # a bare second opinion cannot be asked for them
    weighing = verifier if isinstance(verifier, ProbabilityVerifier) else None
    if reader is not None and weighing is not None:
        found_elsewhere = [o for found in found_per_corner for o in found]  # (a corner read surely starts none)

        def near_seen_corners(outline: Outline, corners: tuple[float, float, float, float]) -> bool:
            # both corners are seen there: the reader is sure of the label, the finder of the far corner
            return _near_the_finders_corners(lab, outline, corners, (True, True))

        for k in _corners_read_surely(reader, rgb, read, found_per_corner, wanted):
            found_per_corner[k] = between_seen_corners(read[k], fits_at[k], fars, weighing, FAR_SEEN, near_seen_corners,
                                                       SAME_BOX, found_elsewhere)
    for p, found in zip(read, found_per_corner):
        outlines += found
        if found:
            found_at.append(p)
            seen, sure, reads = False, set(), set()
            if reader is not None:  # its outlines share the corner (within CORNER_FIT): one reading
                probabilities = reader.probabilities(rgb, [(found[0].x0, found[0].y0)])[0]
                p = _weighed_by_reader(p, probabilities)
                seen = bool(probabilities[READER_CLASSES.index(READER_NONE)] <= READER_WRITTEN)
                sure = {l for l in wanted if probabilities[READER_CLASSES.index(l)] >= READER_SURE}
                reads = {l for l in wanted if probabilities[READER_CLASSES.index(l)] >= READER_READS}
            label_seen.append(seen)
            reader_reads.append(reads)
            reader_sure.append(sure)
            proposed.append(p)
            readings.append(read_corner(lab, found[0], tuple(wanted), classifier))
            outlines_at.append(found)
    readings = _each_word_read_once(lab, outlines_at, proposed, readings, wanted, classifier)
    settled = [{l for l in wanted if found.scores[l] >= MIN_EVIDENCE and _reader_settles(l, sure, found, read)}
               for sure, found in zip(reader_sure, found_at)]  # per corner: labels no word takes away there
    corners = [_weighed_by_word(p, r, vetoes, weighed_by_reader=reader is not None, settled=labels_settled)
               for p, r, labels_settled in zip(proposed, readings, settled)]
    # the box read at each corner: where several outlines start there, the one _its_own_box
    # chooses (elimination and the naming below take that one too: 1/91's D and 153/167's B,
    # whose corners also start an outline to another box's far corner)
    own_at = [_its_own_box(found, outlines, proposals, outlines_at, weighing) for found in outlines_at]
    corners = _written_once(wanted, corners, readings)
    choice, doubtful, doubted_only_unplaced = _assign(wanted, corners)
    for label, k in zip(wanted, choice):
        if label in doubted_only_unplaced and _reader_settles(label, reader_sure[k], found_at[k], read):
            del doubtful[label]
    markers: dict[str, Marker] = {}
    placed: dict[str, Outline] = {}
    for label, k in zip(wanted, choice):
        if k is None:
            missing[label] = f"no box corner read as {label} starts a drawn outline" + (
                f" (the word at {', '.join(vetoes[label])} reads as another label or letter)" if label in vetoes else "")
        elif label in doubtful:
            missing[label] = doubtful[label]
        elif len(own_at[k]) > 1:
            missing[label] = (f"{len(own_at[k])} drawn outlines start at the corner read as {label} "
                              f"({corners[k].x:.0f}, {corners[k].y:.0f}): which is its box is unclear")
        elif (settled := _settled(lab, own_at[k][0])) is None:
            missing[label] = (f"a side of the box read as {label} at ({corners[k].x:.0f}, {corners[k].y:.0f}) merges "
                              "with another line of its colour beside it: where it lies is unclear")
        elif _on_another_side(own_at[k][0], outlines):
            missing[label] = (f"a side of the box read as {label} at ({corners[k].x:.0f}, {corners[k].y:.0f}) overlaps "
                              "another box's side: the two strokes merge, and where it lies is unclear")
        else:
            placed[label] = settled
            markers[label] = _box_marker(label, placed[label], corners[k].scores[label])
    for label, marker in list(markers.items()):  # two corners a few px apart that fit one outline
        twins = [other for other, m in markers.items()
                 if other != label and max(abs(np.subtract(m.box, marker.box))) < SAME_BOX]
        if twins:
            missing[label] = f"its box is also read as {', '.join(twins)}"
    markers = {label: m for label, m in markers.items() if label not in missing}
    left = [label for label in wanted if label in missing]
    if len(left) >= 2:
        told, why = _by_permutation(wanted, markers, proposed, corners, readings, label_seen, own_at, lab,
                                    reader_reads)
        for label, outline, score in told:
            placed[label] = outline = _settled(lab, outline)
            markers[label] = _box_marker(label, outline, min(score, ELIMINATION_CONFIDENCE), source="elimination")
            del missing[label]
        for label in missing:
            if label in left and why:
                missing[label] += f"; {why}"
        left = [label for label in wanted if label in missing]
    if len(left) == 1 and markers:
        others = {l: placed[l] for l in markers}
        last, why = _by_elimination(left[0], others, proposed, readings, label_seen, own_at, lab, reader_reads)
        if last is None and weighing is not None:
            outline, why_not = last_box(left[0], wanted, others, read, fits_at, fars, lab, weighing, classifier,
                                        CORNER_FIT, LEARNED_FIT, SAME_BOX)
            settled = _settled(lab, outline) if outline is not None else None
            if settled is not None:
                last = _box_marker(left[0], settled, ELIMINATION_CONFIDENCE, source="elimination")
            else:
                why += f"; {why_not}" if why_not else "; its likeliest rectangle merges with another line of its colour"
        if last is not None:
            markers[left[0]] = last
            del missing[left[0]]
        else:
            missing[left[0]] += f"; {why}"
    looked_at = dict(markers)
    markers, refused = _last_look(lab, markers, outlines, proposals)
    for label, why in refused.items():
        missing[label] = why
        del markers[label]
    borrowers = [label for label, why in refused.items() if BORROWED_FAR_CORNER in why] if weighing is not None else []
    for label in borrowers:
        own = _to_its_own_far_corner(lab, looked_at[label], markers, read, found_per_corner, fits_at, fars, outlines,
                                     proposals, weighing)
        if own is not None:
            markers[label] = own
            del missing[label]
    if any(label in markers for label in borrowers):
        for label in borrowers:  # the far corner a moved box borrowed may now be this one's alone
            if label not in markers and (back := _judged_again(lab, looked_at[label], markers, outlines, proposals)):
                markers[label] = back
                del missing[label]
    return markers, missing, outlines


def _judged_again(lab: np.ndarray, refused: Marker, markers: dict[str, Marker], outlines: list[Outline],
                  proposals: Sequence[Proposal]) -> Marker | None:
    """`refused` (as placed before the last look, which refused it for ending at another box's far
    corner) where a last look at it with the placed boxes `markers` refuses none and moves none of
    them, else None. Asked once a box that shared its far corner has moved to its own
    (_to_its_own_far_corner): fresh seed 226 image 179, B's rectangle to A's far corner and A's
    own, both refused; B moved to its own far corner, and A, judged again, is placed."""
    looked, refused_again = _last_look(lab, {**markers, refused.label: refused}, outlines, proposals)
    if refused_again or any(looked[label].box != marker.box for label, marker in markers.items()):
        return None
    return looked[refused.label]


def _last_look(lab: np.ndarray, markers: dict[str, Marker], outlines: list[Outline],
               proposals: Sequence[Proposal]) -> tuple[dict[str, Marker], dict[str, str]]:
    """(`markers` with each box's sides that lie off the middle of their strokes moved onto them,
    label -> why for each box a last look at all of them refuses): a side off its stroke that
    cannot be moved (_onto_its_strokes); a moved box with a side on another placed box's line (a
    fit that missed one side's stroke may have taken another box's line for another side: fresh
    seed 50 image 93's C, its right side on D's, 8.7 px from its own, at a far corner the finder
    proposed there wrongly); ending at another placed box's far corner; on another placed box's
    line where the finder saw its corner elsewhere (borrowed_line). The first reason found is
    given, and each box is judged against every box placed, so two boxes sharing a far corner
    are both refused, unless one of them owns it (_owns_its_far_corner): that one is judged
    without the boxes that borrowed it."""
    H, W = lab.shape[:2]
    on_strokes = {label: _onto_its_strokes(lab, marker, outlines) for label, marker in markers.items()}
    # each box as its outline was fitted, where a refit or a move since put it elsewhere
    as_fitted = {label: o.box for label, m in markers.items() if (o := _fitted_outline(m.box, outlines)) is not None
                 and 0 < max(abs(np.subtract(o.box, m.box))) <= SAME_BOX}
    moved = {label: m for label, m in on_strokes.items() if m is not None and m is not markers[label]}
    markers = {**markers, **moved}
    refused = {}
    for label, marker in markers.items():
        # another box is judged where its outline was fitted too: two sides fitted on one stroke
        # band may be moved apart (fresh seed 55 image 125: C's bottom side fitted on D's top, and
        # D's refit 1.2 px off it; C, 4 px off its own, was then answered)
        others = [m.box for other, m in markers.items() if other != label]
        others += [box for other, box in as_fitted.items() if other != label]
        if _owns_its_far_corner(marker.box, others, outlines, H, W):
            # the boxes borrowing its far corner are refused below, on their own turn; their sides
            # on its lines, and their far corner where the finder saw its own, are no sign here
            others = [other for other in others if not shares_far_corner(marker.box, [other], H, W)]
        if on_strokes[label] is None:
            refused[label] = (f"a side of the box read as {label} lies off the middle of its stroke: it was fitted "
                              "on something else, and where it lies is unclear")
        elif label in moved and (shared := shared_sides(marker.box, others, H, W)):
            refused[label] = (f"a side of the box read as {label} was fitted off the middle of its stroke, and its "
                              f"{' and '.join(shared)} side lies on another box's line: it may have taken that line "
                              "for its own")
        elif shares_far_corner(marker.box, others, H, W):
            refused[label] = (f"the box read as {label} {BORROWED_FAR_CORNER}: which of the two boxes "
                              "ends there is unclear")
        elif (side := borrowed_side(marker.box, others, proposals, H, W, marker.ring_width or 0.0)) is not None:
            refused[label] = (f"the {side} side of the box read as {label} lies on another box's line, but the corner "
                              "finder saw its corner elsewhere: it may have taken the other box's line for its own")
        elif (side := _banded_side_on_another(marker.box, outlines, others)) is not None:
            refused[label] = (f"the {side} side of the box read as {label} was taken at one edge of two touching "
                              "strokes, and another box's side lies there too: which stroke is whose is unclear")
    return markers, refused


def _to_its_own_far_corner(lab: np.ndarray, refused: Marker, markers: dict[str, Marker], read: Sequence[Proposal],
                           found_per_corner: Sequence[list[Outline]], fits_at: Sequence[dict],
                           fars: Sequence[Proposal], outlines: list[Outline], proposals: Sequence[Proposal],
                           weighing: ProbabilityVerifier) -> Marker | None:
    """`refused`'s box moved to its own far corner, where the last look refused it for ending at
    another box's (`markers`: the boxes it placed), or None. From the corner of `read` whose
    outlines (`found_per_corner`) it was placed on, the one rectangle to a far corner the finder
    sees, not another placed box's, that the rules turned away and the verifier finds drawn
    (seen_corners.between_seen_corners, on the rules' fits there, `fits_at`), is its box, where a
    last look at it with the placed boxes refuses none and moves none. The rules can reject a box's
    own rectangle for a crossing or coverage and pass the one to another box's far corner, and that
    path only asks at corners that start no outline (benchmark seeds 64/89 A, 104/9 B, 112/38 A: the
    verifier finds their own rectangles drawn at 0.95-1.0)."""
    H, W = lab.shape[:2]
    placed = [m.box for m in markers.values()]
    for corner, found, fits in zip(read, found_per_corner, fits_at):
        if _fitted_within(refused.box, found) is None:
            continue
        elsewhere = [o for o in outlines if not any(o is f for f in found)]
        # within LEARNED_FIT only: the corner reader need not be sure of the label at this corner
        own = [o for o in between_seen_corners(corner, fits, fars, weighing, FAR_SEEN, _within_learned_fit, SAME_BOX,
                                               elsewhere)
               if not shares_far_corner(o.box, placed, H, W) and not any(_same(o, f) for f in found)]
        if len(own) != 1:
            return None
        moved = _box_marker(refused.label, _settled(lab, own[0]), refused.confidence, source=refused.source)
        looked, refused_again = _last_look(lab, {**markers, refused.label: moved}, outlines + own, proposals)
        if refused_again or any(looked[l].box != m.box for l, m in markers.items()):
            return None
        return looked[refused.label]
    return None


def _owns_its_far_corner(box: tuple[float, float, float, float], others: list[tuple[float, float, float, float]],
                         outlines: list[Outline], H: int, W: int) -> bool:
    """Whether `box`, ending at the far corner of some of `others` (borrowed_line.shares_far_corner),
    is the one box that ends there: its fitted outline (_fitted_outline, within SAME_BOX px) passed
    the rules with no line going on past its corners (Outline.tees), and every other box ending
    there was fitted with such a T or accepted only by the outline verifier. A rectangle from one
    box's corner to another's far corner runs its sides into that box's lines, and they meet at T's
    (benchmark seeds 0/181, 3/16, 64/89, 68/185: the borrowing rectangle had 1-2, the box whose
    corner it is none).

    Where every box ending there is clean, or none is, the one drawn along its sides by
    COVERAGE_LEAD more than every other owns it (Outline.coverage, its least drawn side's): the
    borrowing rectangle runs a side on past where its own box's side ends, where little is drawn
    (benchmark seed 63 image 36: C's rectangle to B's far corner 0.89, B's own 1.0). Otherwise
    which box ends there stays unclear. A box fitted with a T never owns it by coverage from one
    fitted without (fresh seed 226 image 179: B's rectangle to A's far corner, its top and left
    sides meeting A's lines at two T's, and A's own, 1 px over a texture, were both accepted by
    the verifier only; B's, drawn along more of its sides, took the corner, and B was placed on
    A's, 7 and 9 px off its own)."""
    own = _fitted_within(box, outlines)
    sharing = [_fitted_within(other, outlines) for other in others if shares_far_corner(box, [other], H, W)]
    if own is None or not sharing or any(o is None for o in sharing):
        return False

    def clean(outline: Outline) -> bool:
        return not outline.tees and not outline.learned

    if clean(own) and not any(clean(o) for o in sharing):
        return True
    if own.tees and any(not o.tees for o in sharing):
        return False
    return (all(clean(o) == clean(own) for o in sharing)
            and all(own.coverage >= o.coverage + COVERAGE_LEAD for o in sharing))


def _banded_side_on_another(box: tuple[float, float, float, float], outlines: list[Outline],
                            others: list[tuple[float, float, float, float]]) -> str | None:
    """The side of `box` that its fitted outline (_fitted_outline, within SAME_BOX px) took at
    one edge of two touching strokes (Outline.banded) and that lies within SAME_LINE px of a
    parallel side of one of `others`, side by side along ALONG_ANOTHER of its length; None if none
    does. The other stroke of the two is another box's side, so two boxes on one edge of them
    cannot both be right (benchmark seed 40 image 95: the finder put D's corner on B's right side,
    2.5 px from D's own, and D's left side was taken at B's edge)."""
    fitted = _fitted_within(box, outlines)
    if fitted is None or not fitted.banded:
        return None
    return next((name for other in others for name, across, other_across, alongside, length in _parallel_sides(box, other)
                 if name in fitted.banded and abs(across - other_across) < SAME_LINE
                 and alongside >= ALONG_ANOTHER * length), None)


def _fitted_outline(box: tuple[float, float, float, float], outlines: list[Outline]) -> Outline | None:
    """The outline among `outlines` nearest `box` (largest coordinate difference), None if none."""
    return min(outlines, key=lambda o: max(abs(np.subtract(o.box, box))), default=None)


def _fitted_within(box: tuple[float, float, float, float], outlines: list[Outline]) -> Outline | None:
    """The outline `box` was placed on (_fitted_outline), None where none lies within SAME_BOX px of it."""
    fitted = _fitted_outline(box, outlines)
    return fitted if fitted is not None and max(abs(np.subtract(fitted.box, box))) <= SAME_BOX else None


# per side of a box (x0, y0, x1, y1): its name, where it lies across, and its span along
_SIDE_AT = (2, 0, 3, 1)  # box coordinate x0, y0, x1, y1 -> its side (merged_side: 0 top, 1 bottom, 2 left, 3 right)
_SIDES = (("top", 1, 0, 2), ("bottom", 3, 0, 2), ("left", 0, 1, 3), ("right", 2, 1, 3))


def _parallel_sides(box: tuple[float, float, float, float], other: tuple[float, float, float, float]):
    """(side's name, where it lies across, where a parallel side of `other` lies, how far the two run
    side by side, the side's length) for each side of `box` and each parallel side of `other`."""
    for name, at, start, end in _SIDES:
        for other_at in ((1, 3) if at in (1, 3) else (0, 2)):
            yield (name, box[at], other[other_at], min(box[end], other[end]) - max(box[start], other[start]),
                   box[end] - box[start])


def _onto_its_strokes(lab: np.ndarray, marker: Marker, outlines: list[Outline]) -> Marker | None:
    """`marker` with each side of its box that lies off the middle of its stroke moved onto it
    (stroke_band.onto_strokes), or None where such a side cannot be moved; judged in the style
    of the fitted outline nearest it (its own, or its own before a refit moved a side; a box
    between the finder's corners is no fitted outline, and a question's boxes share a style).
    Sides fitted on a scene's edge or JPEG's fringe beside the stroke lie up to 2.9 px off (fresh
    seed 18 images 89 and 125, answered wrong before this check); a band that says where the
    stroke is puts them within a px of it. (Unlike _off_its_stroke, which of two fits of one side
    is on its stroke, this judges one box's sides alone.)"""
    if not outlines:
        return marker
    fitted = _fitted_outline(marker.box, outlines)
    outline = replace(fitted, x0=marker.box[0], y0=marker.box[1], x1=marker.box[2], y1=marker.box[3],
                      measures=None)
    moved = onto_strokes(lab, outline, outline)
    if moved is None:
        return None
    if moved is outline:  # no side off its stroke
        return marker
    return replace(marker, xy=((moved.x0 + moved.x1) / 2, (moved.y0 + moved.y1) / 2), box=moved.box)


def candidate_corners(proposals: Sequence[Proposal], wanted: Sequence[str]) -> list[Proposal]:
    """The proposals read_boxes weighs as top-left corners: those reading at least MIN_EVIDENCE as
    one of `wanted`, strongest first, at most MAX_CORNERS."""
    read = [p for p in proposals if max((p.scores[l] for l in wanted), default=0) >= MIN_EVIDENCE]
    return sorted(read, key=lambda p: -max(p.scores[l] for l in wanted))[:MAX_CORNERS]


def far_corners(proposals: Sequence[Proposal]) -> list[Proposal]:
    """The proposals read_boxes tries as bottom-right corners (FAR_MIN_SCORE or more)."""
    return [p for p in proposals if p.scores[FAR_CORNER] >= FAR_MIN_SCORE]


def _outline_a_label_may_own(corner: Proposal, reading: CornerReading | None, label_seen: bool,
                             found: list[Outline], labels: Sequence[str], lab: np.ndarray,
                             evidence: float = ELIMINATION_EVIDENCE, read_there: bool = False) -> Outline | None:
    """The one outline starting at `corner` when the corner may be some asked label's box although
    the finder does not say which, else None: the finder's scores for `labels` add up to
    `evidence`, something is written there (a word box_label reads, a label's ink
    where labels go, or what the corner reader sees as a label, `label_seen`: READER_WRITTEN; the
    finder's readings at an unlabelled rectangle's corner reached 0.5),
    exactly one outline starts there, where its sides lie is clear (not merged: its callers place
    it _settled, as a second opinion may move it), and it is not the rectangle between two
    overlapping boxes (their lines crossing at the corner).

    Where the corner reader reads a label sought there (`read_there`, READER_READS), that reading is
    what is written there, and lines crossing there and a merged side do not stop it either: the
    outline is returned, a merged one only where _settled can place its side. The reader was taught
    the crossings of two boxes' lines as "none"; reading a label there, it sees the label's glyph
    carrying the left side on upwards, or a line running on through the corner."""
    if len(found) != 1 or sum(corner.scores.get(l, 0.0) for l in labels) < evidence:
        return None
    outline = found[0]
    if read_there:  # its callers place it _settled: a merged side must settle
        return None if outline.merged and _settled(lab, outline) is None else outline
    if outline.merged or (reading is None and not label_seen and not something_written(lab, outline)):
        return None
    return None if crosses_at_top_left(lab, outline) else outline


def _by_elimination(label: str, placed: dict[str, Outline], corners: list[Proposal],
                    readings: list[CornerReading | None], label_seen: list[bool],
                    outlines_at: list[list[Outline]], lab: np.ndarray,
                    reader_reads: Sequence[set[str]]) -> tuple[Marker | None, str]:
    """(`label`'s box, "") when every other label asked was placed (`placed`: their outlines)
    and exactly one other corner is left that can only be its own, else (None, why not).
    `outlines_at`: the outlines per corner, each corner's own box where one was told
    (_its_own_box).

    Such a corner may be a label's box (_outline_a_label_may_own, on the finder's proposals
    `corners`, not weighed by words: the label the finder favours there may be a placed one, which
    is written once), what is written there does not read as another label or letter, and its
    outline is drawn in the placed boxes' style and is not one of theirs. As in the point
    parser's elimination (parse._by_elimination), the question itself names the label; a second
    such corner is a decoy, and then none is placed.

    A corner where lines cross, or whose outline has a merged side, is one such corner only where
    the corner reader reads `label` there at READER_READS (`reader_reads`: the labels it reads so,
    per corner; _outline_a_label_may_own).

    Where no corner is read as an asked label at ELIMINATION_EVIDENCE, one read more faintly (any
    candidate corner: the finder proposed it, reading some asked label at MIN_EVIDENCE before the
    corner reader weighed it) is taken when it is the only one and its rectangle takes nothing from
    the placed boxes (_apart_from). The label itself may be hidden under another box's label or
    line, or illegible, so the finder and the reader read little there (on 67 seeds of the box
    benchmark this placed 18 boxes left missing before, none wrong). The rectangle between two
    boxes' crossing lines is the false corner left most often (seed 93 image 0: from where B's left
    side crosses C's top, to C's far corner), and it borrows their lines. Of several corners left,
    the one whose rectangle alone takes nothing from the placed boxes is the label's: the others
    start on a placed box's line and end at its far corner, or at the label's own (seed 1 image
    165: A's box, and a rectangle from where A's left side meets B's top line to A's far corner)."""
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
    return _box_marker(label, _settled(lab, candidates[0]), ELIMINATION_CONFIDENCE, source="elimination"), ""


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


def _by_permutation(labels: list[str], markers: dict[str, Marker], proposed: list[Proposal],
                    corners: list[Proposal], readings: list[CornerReading | None], label_seen: list[bool],
                    outlines_at: list[list[Outline]], lab: np.ndarray,
                    reader_reads: Sequence[set[str]]) -> tuple[list[tuple[str, Outline, float]], str]:
    """([(label, outline, its score)] for the asked labels not yet placed that the naming of
    the corners which may be a label's box tells, or [] and why none), when those corners are at
    most as many as the labels asked and drawn alike.

    _assign weighs leaving a label unplaced (UNPLACED) against a weak reading, which refuses a
    label the finder reads at 0.35 with no rival corner. But a corner that starts one outline with
    something written, where the finder reads some asked label, is some label's box (the question
    draws exactly its choices' labels; _outline_a_label_may_own, judged on `proposed`, the
    finder's proposals not weighed by words, as for elimination): only which label is left, and
    the finder's readings (weighed by the words, as in _assign: `corners`) need only tell that
    apart. So each such corner gets a different label; a label is told where every naming
    scoring within DECISIVE of the best puts it at the same corner, read there at MIN_EVIDENCE at
    least. The best naming must agree with the labels already placed. When such corners are fewer
    than the labels, another corner that starts an outline may be a label's box that the naming
    would put elsewhere: a label is then told only where the finder reads it DECISIVE times more
    than at every such corner. A corner whose word overrode the networks' likeliest reading there
    (_word_overrode_networks) is named nothing, but is such another corner. `outlines_at`: per
    corner, the outlines its box may be (_its_own_box's choice where several start there: fresh
    seed 153 image 167, B's corner also starts an outline to A's far corner, and with both B's
    corner was named nothing and A and B were left in doubt). A corner where lines
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
    # (the finder's and the corner reader's, `proposed`) name at another corner is not told (seed
    # 56 image 108: C's 9 px label, read as a "6", took C off its own corner, so the only naming
    # with a score put C at B's corner, read 0.008 as C there, and told B at C's; the networks
    # named B and C right, 0.25 to 0.003)
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
    """Whether the word at a corner took away (_weighed_by_word) a label not yet placed that the
    finder and the corner reader (`read`) read there at MIN_EVIDENCE or more, and more than any
    of `labels` it left there (`weighed`; a placed label too: where the word confirms the label
    placed at its corner, the networks' weaker readings of others there are confusions). The
    naming would then give the corner a label the networks read less than the one the word
    denies, on the word's say-so alone: fresh benchmark seed 38 image 110 had A's small red label
    on a red gradient cut out as an "8" (which takes A off, not B), where the networks read A 0.77
    and B 0.22; B was named there and A at B's box, both wrong. Such a corner still starts an
    outline, so the labels the networks read there are named elsewhere only where they are read
    DECISIVE times more."""
    kept = max((weighed.scores.get(l, 0.0) for l in labels), default=0.0)
    return any(weighed.scores.get(l, 0.0) == 0.0 and read.scores.get(l, 0.0) >= max(MIN_EVIDENCE, kept)
               for l in labels if l not in placed)


def _box_marker(label: str, outline: Outline, score: float, source: str = "parsed") -> Marker:
    """The Marker of `label`'s box `outline`: centred in it, as confident as the reading `score`
    and the outline's least drawn side allow."""
    o = outline
    return Marker(label, ((o.x0 + o.x1) / 2, (o.y0 + o.y1) / 2), min(score, o.coverage), box=o.box,
                  ring_width=o.width, source=source)


def _weighed_by_reader(corner: Proposal, probabilities: np.ndarray) -> Proposal:
    """`corner` with each box label's score the geometric mean of the finder's and the corner
    reader's (`probabilities`, over corner_reader.CLASSES) at its fitted corner. The reader sees
    the exact corner and reads labels far more sharply (97.9% of true corners on the benchmark's
    8 seeds, where the finder often spreads 0.3-0.5 over several labels), but alone it swapped
    two labels crowded together at neighbouring corners (benchmark seed 8), which the finder's
    own reading guards against: a label needs both. (Weighing the reader twice as much as the
    finder let one more wrong box through on seed 9.)"""
    scores = dict(corner.scores)
    for label in BOX_LABELS:
        scores[label] = float(np.sqrt(scores.get(label, 0.0) * probabilities[READER_CLASSES.index(label)]))
    return replace(corner, scores=scores)


def _weighed_by_word(corner: Proposal, reading: CornerReading | None, vetoes: dict[str, list[str]],
                     weighed_by_reader: bool = False, settled: set[str] = frozenset()) -> Proposal:
    """`corner` with its scores weighed by the word written there (box_label): zero for every
    label the glyph classifier clearly reads as something else (each such label gets "(x, y): X"
    in `vetoes`), and at least WORD_CONFIRMS for a label it clearly reads, when the finder read
    that label there too (two readers that look differently agree: each needs less certainty).
    The corner's outlines share its top-left corner, so one reading serves them all.

    A label the word vetoes keeps its score where the finder and the corner reader together read
    it at WORD_OVERRULED (`weighed_by_reader`: the scores are _weighed_by_reader's), or where the
    corner reader settles it (`settled`: the reader reads it at READER_SURE, and the finder at
    MIN_EVIDENCE and more than at any other corner, _reader_settles). The classifier misreads
    small or half-covered labels (B as R, P or F; A as 4) where the reader is sure and the finder
    reads them at 0.3-0.65; over the box benchmark's 18 seeds, no veto of a label anywhere but at
    its own corner had the reader at READER_SURE (the most: 0.94)."""
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


def _each_word_read_once(lab: np.ndarray, outlines_at: list[list[Outline]], proposed: list[Proposal],
                         readings: list[CornerReading | None], labels: list[str],
                         classifier: GlyphClassifier) -> list[CornerReading | None]:
    """`readings` with each word that reads as an asked label read at one corner only: the one
    where the networks (`proposed`: the finder's scores weighed by the corner reader) read that
    label most, at MIN_EVIDENCE at least; the other corners whose clearest word it was are read
    again without it (box_label.read_corner's `skip`). A box drawn as a near miss of another
    has its label beside the other's, often half under it, so the word search at its corner
    also finds the other box's label, which reads more clearly than its own and took its label
    away (fresh seed 35 image 144: B's label over A's, read as B at A's corner, where the finder
    read A 0.58 and the corner reader 0.98, so A was missing). Where no corner reads the label
    WORD_OWNER times more than every other, the readings stay as they are: one label's word can
    lie where two corners may own it, and a near tie between the networks' readings does not
    say which (fresh seed 72 image 34: D's label, written inside its box's corner, lies just
    above C's corner and hides C's label; read 0.84 as D at C's corner and 0.83 at D's, it went
    to C's corner, D was placed there and C by elimination at D's, the two swapped)."""
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


def _written_once(labels: list[str], corners: list[Proposal], readings: list[CornerReading | None]) -> list[Proposal]:
    """`corners` with each label's score cut to WORD_ELSEWHERE x at every corner but the one
    where the word clearly reads as it and the finder read it too (as _weighed_by_word backs),
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


def _reader_settles(label: str, sure: set[str], corner: Proposal, read: Sequence[Proposal]) -> bool:
    """Whether the corner reader settles `label` at `corner`, where the only doubt is leaving it
    unplaced (no assignment within DECISIVE puts it at another corner): it reads the label there
    at READER_SURE (`sure`: the labels it does), and the finder, however faintly, reads it at
    that corner at least as much as at any other it proposed (`read`). The geometric mean with a
    faint finder reading stays under UNPLACED x DECISIVE where the reader is sure: benchmark seed 5
    image 188's D, finder 0.09 and reader 0.99 at its corner, every other label placed at 0.94 or
    more."""
    return label in sure and all(corner.scores[label] >= other.scores[label] for other in read)


def _assign(labels: list[str], corners: list[Proposal]) -> tuple[tuple[int | None, ...], dict[str, str], set[str]]:
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


def _settled(lab: np.ndarray, outline: Outline) -> Outline | None:
    """The outline to place, or None where a side merged with another line of its colour leaves
    where it lies unclear. A merged outline (Outline.merged) has that side placed by its free
    edge (merged_side.refit_merged). An unflagged one may still have been fitted on such a band's
    fringe (a side measured exactly NARROWER px narrower is not flagged): it is moved where a
    clear free edge puts it (a second opinion), else placed as fitted."""
    if outline.merged:
        return refit_merged(lab, outline)
    refit = refit_merged(lab, outline, second_opinion=True)
    return outline if refit is None else refit


def _on_another_side(outline: Outline, outlines: list[Outline]) -> bool:
    """Whether a side of `outline` overlaps a parallel side of another box's outline among
    `outlines` (ON_ANOTHER_SIDE, SAME_LINE, ALONG_ANOTHER): the two strokes merge into one band,
    which the side fit may take whole (benchmark seed 9 image 53: two sides measured 9 px wide
    where the others are 6, one placed 2.2 px off). Outlines starting at the same corner are
    rivals for one box, not another box, and are told apart elsewhere. Checked on the box a
    label is placed on by its reading only: elimination and naming may still give such an outline
    its label (barring them from it refused 25 more boxes of the 8 benchmark seeds, most of them
    right; image 53's A is among those they place, in an image refused for other labels)."""
    for other in outlines:
        if _same_corner(outline, other):
            continue
        near = ON_ANOTHER_SIDE * (outline.width + other.width) / 2
        if any(SAME_LINE <= abs(across - other_across) < near and alongside >= ALONG_ANOTHER * length
               for _, across, other_across, alongside, length in _parallel_sides(outline.box, other.box)):
            return True
    return False


def _outlines_from(lab: np.ndarray, corner: Proposal, fits: dict[tuple[float, float], tuple[bool, Rejections]],
                   fars: list[Proposal], W: int, H: int, verifier: Verifier | None = None) -> list[Outline]:
    """Every distinct verified outline from `corner` to a proposed bottom-right corner.

    A box cut off by the image's border has its far corner on or past the border, where the
    finder sees only part of it: a proposed far corner within BORDER_NEAR px of the border that
    gives no outline is tried again with its x, its y or both on the border, and the image's
    corner is tried when no corner gave one, by the rules or by `verifier`. (Not every corner: a
    box 8 px from the border, with another box's side between it and the border, passes with the
    border standing in for its side.)

    Where the hand rules pass no outline from the corner, every rectangle is tried again with
    `verifier` allowed to overrule them (as box_outline._verify would, on what the first pass kept:
    Rejections): only there, so that a rectangle it accepts never competes with an outline the
    rules passed, and only where the outline lies near both proposed corners
    (_near_the_finders_corners).

    Where a corner starts no outline to any far corner proposed, one traced along its sides
    (traced_corner) is tried, unless it is no larger than a label's box with no far corner read
    there (_a_label_box_unseen); where the rules turn it away, the verifier weighs it after every
    proposed far corner (benchmark seeds 74/183 A, 91/69 C, 95/91 D: a box's own rectangle, traced
    where the finder reads no far corner, found drawn at 0.97-0.99), where each side is drawn along
    TRACED_COVERAGE of its length. A traced outline, or one only the verifier accepted with a T, is
    not taken where it ran on past a far corner the finder reads (_past_a_seen_far_corner).
    Of two outlines that are one side fitted twice on one stroke, the one off the stroke's ink is
    dropped (_off_its_stroke).

    fits: filled with each far corner tried -> (whether the rules passed an outline there, what
    they rejected), for last_box."""
    found: list[Outline] = []

    def tried(x1: float, y1: float, second_opinion: Verifier | None, min_coverage: float = 0.0,
              traced: bool = False) -> bool:
        if x1 < corner.x + MIN_SIDE or y1 < corner.y + MIN_SIDE:
            return False
        if second_opinion is None:
            rejected = Rejections()
            outline = fit_outline(lab, (corner.x, corner.y, x1, y1), rejected)
            fits[(x1, y1)] = (outline is not None, rejected)
        else:  # the first pass found nothing, so it tried every far corner this one tries
            outline = fits[(x1, y1)][1].overruled_by(second_opinion)
        if outline is None or abs(outline.x0 - corner.x) > CORNER_FIT or abs(outline.y0 - corner.y) > CORNER_FIT:
            return False
        if second_opinion is not None and not _near_the_finders_corners(
                lab, outline, (corner.x, corner.y, x1, y1), _corners_seen(corner, x1, y1, fars)):
            return False
        if outline.coverage < min_coverage:
            return False
        if (traced or (second_opinion is not None and outline.tees)) and _past_a_seen_far_corner(outline, fars):
            return False
        if traced and _short_of_a_seen_far_corner(outline, fars):
            return False
        if not any(_same(outline, o) for o in found):
            found.append(outline)
        return True

    passes = (None, verifier) if verifier is not None else (None,)
    traced = None  # the far corner traced along the corner's sides, where no proposed one gave an outline
    for second_opinion in passes:
        for p in fars:
            if not tried(p.x, p.y, second_opinion):
                near_x, near_y = p.x >= W - 1 - BORDER_NEAR, p.y >= H - 1 - BORDER_NEAR
                any([near_x and tried(W - 1.0, p.y, second_opinion),
                     near_y and tried(p.x, H - 1.0, second_opinion)]) or (
                    near_x and near_y and tried(W - 1.0, H - 1.0, second_opinion))
        if not found and second_opinion is None:
            traced = traced_far_corner(lab, corner.x, corner.y)
            if traced is not None and _a_label_box_unseen(corner, traced, fars):
                traced = None
        # the verifier weighs the traced rectangle too, after every proposed far corner
        if not found and traced is not None and (second_opinion is None or traced in fits):
            tried(*traced, second_opinion, min_coverage=TRACED_COVERAGE, traced=True)
        if found:
            break
    # the image's corner last: its outline has two sides unseen, so a box's own far corner that
    # only the verifier accepts comes first (seed 51 image 79: C's thin green strokes on a green
    # scene "went on" past its far corners, and the image's corner passed the rules in their stead)
    # (with two sides seen to stand for four, both must be drawn along BORDER_CORNER_COVERAGE of their
    # length: fresh seed 68 image 165's A, a 1 px green box over a green-mottled texture, passed
    # with its top side drawn along 78% of the way to the border, 80 and 47 px off)
    for second_opinion in passes if not found else ():
        if tried(W - 1.0, H - 1.0, second_opinion, min_coverage=BORDER_CORNER_COVERAGE):
            break
    # a side near the border also passes with the border standing in for it: the border's
    # outline is the same box, and the one with the side seen is where it is drawn
    found = [o for o in found if not any(_border_twin(o, other, W, H) for other in found if other is not o)]
    return [o for o in found if not any(_off_its_stroke(lab, o, other) for other in found if other is not o)]


def _a_label_box_unseen(corner: Proposal, far: tuple[float, float], fars: Sequence[Proposal]) -> bool:
    """Whether a far corner traced from `corner` (traced_corner) spans no more than a label's box
    (LABEL_BOX_MAX px each way) where the finder proposes no far corner (none of `fars` within
    CORNER_FIT px). A trace stops where its stroke fades into a scene of its colour, or at the
    label's dark box below the corner; the small rectangle there may pass the rules, cut from the
    box's corner (fresh seed 110 image 174: A, 171 x 132 px, placed as 16 x 15 px at its corner,
    154 px off; fresh seed 105 image 195: B round its own label's box, written inside it, 145 px
    off). A box that small has a far corner the finder sees."""
    x1, y1 = far
    return x1 - corner.x <= LABEL_BOX_MAX and y1 - corner.y <= LABEL_BOX_MAX and _far_read_at(x1, y1, fars) == 0.0


def _past_a_seen_far_corner(outline: Outline, fars: Sequence[Proposal]) -> bool:
    """Whether `outline` ends where the finder reads no box's far corner (none of `fars` at
    FAR_SEEN within CORNER_FIT px) after running past one it does read: a far corner at FAR_SEEN
    on its right or bottom side, over CORNER_FIT px short of its end. Asked of outlines the rules
    did not pass as a proposed far corner's: a traced one, or one only the verifier accepted with
    a T at a corner (Outline.tees). Where a box's own outline fails, its sides may run on, along a
    scene's band or blob of its colour or up to another box's line, to a rectangle that passes
    (fresh seed 112 image 51: B traced along a yellow blob to C's left side, 23 px past the far
    corner the finder reads at 0.94; fresh 117/89: D's right side on to A's bottom line, a T the
    verifier accepted, 15 px past 0.98). A box's side drawn on through another box's line meets
    it at a crossing, which the finder may read as a far corner too (fresh 102/158: A's right
    side through B's bottom side, 0.79; A's outline has no T and stays)."""
    if _far_read_at(outline.x1, outline.y1, fars) >= FAR_SEEN:
        return False
    return any(abs(p.x - outline.x1) <= CORNER_FIT and outline.y0 + MIN_SIDE <= p.y < outline.y1 - CORNER_FIT
               or abs(p.y - outline.y1) <= CORNER_FIT and outline.x0 + MIN_SIDE <= p.x < outline.x1 - CORNER_FIT
               for p in fars if p.scores[FAR_CORNER] >= FAR_SEEN)


def _short_of_a_seen_far_corner(outline: Outline, fars: Sequence[Proposal]) -> bool:
    """Whether a traced `outline` ends where the finder reads no box's far corner, with a side going
    on past its corners (Outline.tees) towards one it does read: a far corner at FAR_SEEN on the line
    of its bottom side further right, or of its right side further down (within CORNER_FIT px across,
    over CORNER_FIT px on). The trace stopped where another box's line crosses its box, and the
    rectangle there borrows that line (fresh seed 206 image 17: A traced from its corner to where
    C's left side crosses A's bottom side, 182 px short of the far corner the finder reads at 0.97,
    and answered with it); the mirror of _past_a_seen_far_corner."""
    if not outline.tees or _far_read_at(outline.x1, outline.y1, fars) >= FAR_SEEN:
        return False
    return any(abs(p.y - outline.y1) <= CORNER_FIT and p.x > outline.x1 + CORNER_FIT
               or abs(p.x - outline.x1) <= CORNER_FIT and p.y > outline.y1 + CORNER_FIT
               for p in fars if p.scores[FAR_CORNER] >= FAR_SEEN)


def _corners_read_surely(reader: CornerReader, rgb: np.ndarray, read: Sequence[Proposal],
                         found_per_corner: Sequence[list[Outline]], labels: Sequence[str]) -> list[int]:
    """The indices of the corners of `read` that start no outline (`found_per_corner`) where the
    finder's likeliest label of `labels` is read at READER_SURE by the corner reader (at the
    proposed place: there is no fitted corner) and the finder reads it less at every corner that
    starts an outline. A label's own corner is read as it most; at a corner where one box's line
    meets another's, 10 px beside a label, the reader may be sure of that label too (fresh seed
    101 image 142: D read 0.5 by the finder where C's top side meets D's left side extended, and
    0.86 at D's own corner, which starts an outline; the rectangle from the meeting to D's far
    corner left D in doubt)."""
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


def _far_read_at(x: float, y: float, proposals: Sequence[Proposal]) -> float:
    """How strongly the finder reads a box's far corner at (x, y): its strongest proposal's
    FAR_CORNER score within CORNER_FIT px; 0 where it proposes none there."""
    return max((p.scores.get(FAR_CORNER, 0.0) for p in proposals if max(abs(p.x - x), abs(p.y - y)) <= CORNER_FIT),
               default=0.0)


def _corners_seen(corner: Proposal, x1: float, y1: float, fars: Sequence[Proposal]) -> tuple[bool, bool]:
    """Whether the finder sees `corner` as a labelled one and a far corner at (x1, y1), each at FAR_SEEN."""
    return (max(corner.scores.get(label, 0.0) for label in BOX_LABELS) >= FAR_SEEN,
            _far_read_at(x1, y1, fars) >= FAR_SEEN)


def _within_learned_fit(outline: Outline, proposed: tuple[float, float, float, float]) -> bool:
    """Whether every coordinate of `outline` lies within LEARNED_FIT px of the finder's corners `proposed`."""
    return bool(np.abs(np.subtract(outline.box, proposed)).max() <= LEARNED_FIT)


def _near_the_finders_corners(lab: np.ndarray, outline: Outline, proposed: tuple[float, float, float, float],
                              seen: tuple[bool, bool]) -> bool:
    """Whether an outline only the verifier accepted lies near enough the finder's corners
    `proposed` (x0, y0, x1, y1) to be their box: within LEARNED_FIT px, or within STROKE_FIT px
    where every side further off than LEARNED_FIT is centred on a run of its ink (ON_STROKE), the
    side moved back to the finder's line is not, and the finder sees the corner it moves from
    (`seen`: its top-left corner, its far corner; STROKE_FIT)."""
    if _within_learned_fit(outline, proposed):
        return True
    apart = np.abs(np.subtract(outline.box, proposed))
    if apart.max() > STROKE_FIT:
        return False
    return all(seen[k // 2] and _centred_on_ink(lab, outline, k)
               and not _the_finders_line_on_ink(lab, outline, k, proposed[k]) for k in np.flatnonzero(apart > LEARNED_FIT))


def _centred_on_ink(lab: np.ndarray, outline: Outline, k: int) -> bool:
    """Whether the side at box coordinate `k` (0-3: x0, y0, x1, y1) of `outline` has a run of its
    ink across it centred within ON_STROKE px of its line."""
    off = off_centre(lab, outline, _SIDE_AT[k])
    return off is not None and abs(off) <= ON_STROKE


def _the_finders_line_on_ink(lab: np.ndarray, outline: Outline, k: int, proposed: float) -> bool:
    """Whether `outline`'s side at box coordinate `k`, moved to the finder's `proposed` line, is
    centred on a run of its ink too (_centred_on_ink)."""
    return _centred_on_ink(lab, replace(outline, **{("x0", "y0", "x1", "y1")[k]: proposed}), k)


def _off_its_stroke(lab: np.ndarray, outline: Outline, twin: Outline) -> bool:
    """Whether `outline` and `twin` (from one corner) are one box with one side fitted on the same
    stroke twice, and `outline`'s fit is the one off the stroke's ink: the other three sides agree
    (within SAME_BOX), the fourth lies less than a stroke's width apart, and its run of ink is
    centred on `twin`'s fit (within ON_STROKE px) but over ON_STROKE px off `outline`'s. A far
    corner proposed a few px past a wide stroke finds only its fringe at the side search's edge
    (seed 11 image 63: A's bottom side fitted at 121.7 and at 124.1 on a 6 px stroke)."""
    apart = [k for k in range(4) if abs(outline.box[k] - twin.box[k]) >= SAME_BOX]
    if len(apart) != 1 or abs(outline.box[apart[0]] - twin.box[apart[0]]) >= max(outline.width, twin.width):
        return False
    side = _SIDE_AT[apart[0]]
    off, twin_off = off_centre(lab, outline, side), off_centre(lab, twin, side)
    return off is not None and twin_off is not None and abs(twin_off) <= ON_STROKE < abs(off)


def _its_own_box(found: list[Outline], outlines: list[Outline], proposals: Sequence[Proposal] = (),
                 outlines_at: Sequence[list[Outline]] = (), verifier: ProbabilityVerifier | None = None
                 ) -> list[Outline]:
    """Of several outlines starting at one corner, the one that borrows nothing from another box,
    when every other does; else the one ending where the finder sees a box's far corner
    (_at_a_seen_far_corner, among `proposals`); else the one not ending where another corner's
    only outline ends (_not_at_anothers_sole_far_corner, `outlines_at`: the outlines per
    candidate corner); else the one `verifier` finds drawn where it finds no other drawn
    (_the_one_drawn); else all of them (which is the box stays unclear). From a box's corner a
    second rectangle may run to another box's lines: they go on past its corners (a T,
    Outline.tees), or meet at that box's far corner, where an outline from another corner ends
    too (_borrows). The box's own rectangle has its corners to itself. Outlines only the verifier
    accepted are never chosen between: the rules turned each away, so what they measured of its
    corners (its tees) is what failed (at 640x480 the verifier passed a box's own outline and one
    running on to another box's bottom side, and the T at the first made the second look like
    the box)."""
    if len(found) < 2 or any(o.learned for o in found):
        return found
    own = [o for o in found if not _borrows(o, outlines)]
    if len(own) == 1:
        return own
    return (_at_a_seen_far_corner(found, proposals) or _not_at_anothers_sole_far_corner(found, outlines_at)
            or _the_one_drawn(found, verifier) or found)


def _the_one_drawn(found: list[Outline], verifier: ProbabilityVerifier | None) -> list[Outline]:
    """[the one of `found` (outlines from one corner, each passed by the rules) that `verifier`
    finds drawn at outline_verifier.ACCEPTANCE where it finds every other under
    seen_corners.SEEN_ACCEPTANCE], or [] (also with no verifier, or an outline not measured as it
    lies). The rules pass a rectangle from a box's corner to where its sides meet other boxes'
    lines when those lines are drawn along all of it; the verifier weighs how such a rectangle's
    corners and sides look, and found it drawn at 0.00-0.65 where it found the box's own at
    0.97-1.00 (benchmark seeds 101/147's B, 103/24's A, 105/181's B, 106/57's A, 112/178's C,
    113/168's B, 114/185's B, 117/178's A, 118/33's B: each left unplaced for two outlines at its
    corner). Where it finds two drawn (3/64's C: 0.997 for both; 101/178's A: 0.989 for its own,
    0.752 for one to B's line), which is the box stays unclear."""
    if verifier is None or any(o.measures is None for o in found):
        return []
    drawn = [verifier.probability(o.measures) for o in found]
    best = int(np.argmax(drawn))
    if drawn[best] >= ACCEPTANCE and all(p < SEEN_ACCEPTANCE for k, p in enumerate(drawn) if k != best):
        return [found[best]]
    return []


def _not_at_anothers_sole_far_corner(found: list[Outline], outlines_at: Sequence[list[Outline]]) -> list[Outline]:
    """[the one of `found` (outlines from one corner) that neither has a T at a corner nor ends at
    the far corner of another corner's only outline, where every other of them does], or []. A far
    corner two corners' outlines reach is no sign by itself (_its_own_box): from a box's corner
    the rules may pass a rectangle to its own far corner and one to another box's, and from a
    third box's corner one to the first box's far corner as well (fresh benchmark seed 90 image
    11: A's corner reaches A's and B's far corners, D's reaches A's). A corner whose only outline
    ends at a far corner says whose that is; `outlines_at`: the outlines per candidate corner
    (none given: nothing is told). A box's outline chosen here that does end at another placed
    box's far corner is still refused by the last look (_last_look, _owns_its_far_corner)."""
    if not outlines_at:
        return []
    sole = [at[0] for at in outlines_at if len(at) == 1 and not any(_same(at[0], o) for o in found)]
    own = [o for o in found if not _borrows(o, sole)]
    return own if len(own) == 1 else []


def _borrows(outline: Outline, others: Sequence[Outline]) -> bool:
    """Whether `outline` borrows from another box: a line goes on past one of its corners (a T,
    Outline.tees), or it ends where one of `others` from another corner ends (within SAME_BOX px)."""
    return bool(outline.tees) or any(not _same_corner(outline, other)
                                     and max(abs(outline.x1 - other.x1), abs(outline.y1 - other.y1)) < SAME_BOX
                                     for other in others)


def _at_a_seen_far_corner(found: list[Outline], proposals: Sequence[Proposal]) -> list[Outline]:
    """[the one of `found` whose far corner the finder reads at FAR_SEEN or more and DECISIVE
    times more than every other's], or []. A second rectangle the rules pass from a box's corner
    ends where its sides meet another box's line, or a scene edge: a T or a crossing, which the
    finder does not read as a box's far corner (fresh benchmark seeds: 0.13 and 0.16 against 0.98
    and 0.92 at the boxes' own, 75/171 and 76/21; no proposal at all against 0.82, 79/133). Each
    far corner is read as the strongest proposal within CORNER_FIT px of it (_far_read_at)."""
    scores = [_far_read_at(o.x1, o.y1, proposals) for o in found]
    best = int(np.argmax(scores))
    if scores[best] >= FAR_SEEN and all(v * DECISIVE <= scores[best] for k, v in enumerate(scores) if k != best):
        return [found[best]]
    return []


def _same_corner(a: Outline, b: Outline) -> bool:
    """Whether two outlines start at one top-left corner (within SAME_BOX px)."""
    return max(abs(a.x0 - b.x0), abs(a.y0 - b.y0)) < SAME_BOX


def _border_twin(a: Outline, b: Outline, W: int, H: int) -> bool:
    """Whether `a` is `b` with the image's border standing in for a far side of `b`'s."""
    borders = [a.x1 == W - 1.0 and b.x1 != W - 1.0, a.y1 == H - 1.0 and b.y1 != H - 1.0]
    if not any(borders):
        return False
    near = [abs(a.x0 - b.x0) < SAME_BOX, abs(a.y0 - b.y0) < SAME_BOX,
            borders[0] or abs(a.x1 - b.x1) < SAME_BOX, borders[1] or abs(a.y1 - b.y1) < SAME_BOX]
    return all(near)


def _same(a: Outline, b: Outline) -> bool:
    return max(abs(np.subtract(a.box, b.box))) < SAME_BOX
