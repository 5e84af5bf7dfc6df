"""Read drawn boxes (Object_Localization): which labelled box is where, or why it cannot be said.

`read_boxes` runs the whole flow, across the boxes modules:

1. Corners (outlines_at_corner): the corner finder proposes each label's top-left corner (where
   the label is written) and every rectangle's bottom-right (far) corner; from each candidate
   corner, outlines_from fits and checks the outline to each far corner, or to the image's border
   for a box cut off there (fit.fit_outline; a far corner traced along its sides where none is
   proposed, traced_far_corner), the outline verifier a second opinion where the rules pass none.
   At a corner that starts no outline but that the corner reader is sure of, one to a far corner
   the finder sees may be taken at a lower acceptance (verifier_outlines.between_seen_corners).
2. Naming (naming): the corner reader reads the label at each fitted corner, and a label's score
   there is the geometric mean of its reading and the finder's. The word written there, read by
   the glyph classifier (label_word), takes away the labels it clearly is not (unless both networks
   are sure of one: WORD_OVERRULED) and backs the one it clearly is (and, a label being written
   once, takes most of that label's score from the finder's readings of it at other corners).
   Labels go to the corners that start an outline one-to-one (assign); a label is placed only when
   its corner wins decisively and exactly one drawn outline starts there (its_own_box chooses
   among several), with a merged side placed by its free edge (geometry.settled_outline).
3. Labels left (elimination): when several are left and at most as many corners start one outline
   each, drawn alike with something written, each is some label's, and they are named where the
   naming is clear (by_permutation); the last label left, when all the others are placed, takes
   the one labelled corner left in their style (outline_by_elimination), or else the one rectangle the
   outline verifier finds likely drawn from a corner read as it (verifier_outlines.last_label_box).
4. Final checks (final_checks.check_placed_boxes): each placed box's sides are moved onto their
   strokes (stroke_band), and a box that borrowed another's line or far corner (shared_lines) is
   refused; one refused for another box's far corner may move to its own (to_its_own_far_corner),
   and a box refused with it is then judged again (rechecked_box).

Anything else leaves it missing with the reason, so a question is never answered from a guessed box.

    markers, missing, outlines = read_boxes(rgb, ["A", "B"], default_corner_finder())
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from adapters.markers.colour import to_lab
from adapters.markers.general.boxes.elimination import by_permutation, outline_by_elimination
from adapters.markers.general.boxes.final_checks import (
    BORROWED_FAR_CORNER,
    check_placed_boxes,
    rechecked_box,
    to_its_own_far_corner,
)
from adapters.markers.general.boxes.geometry import box_marker, on_another_side, settled_outline
from adapters.markers.general.boxes.label_word import read_corner
from adapters.markers.general.boxes.naming import (
    _weighed_by_reader,
    assign,
    corners_read_surely,
    each_word_read_once,
    reader_settles,
    weighed_by_word,
    written_once,
)
from adapters.markers.general.boxes.outline import Outline, Verifier
from adapters.markers.general.boxes.outline_verifier import default_outline_verifier
from adapters.markers.general.boxes.outlines_at_corner import (
    candidate_corners,
    far_corners,
    its_own_box,
    near_the_finders_corners,
    outlines_from,
)
from adapters.markers.general.boxes.verifier_outlines import ProbabilityVerifier, between_seen_corners, last_label_box
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.corner_finder import BOX_LABELS, CornerFinder
from adapters.markers.general.nets.corner_reader import CLASSES as READER_CLASSES
from adapters.markers.general.nets.corner_reader import CornerReader, default_corner_reader
from adapters.markers.general.nets.glyphs import GlyphClassifier, default_classifier
from adapters.markers.general.nets.patch_reader import NONE as READER_NONE
from adapters.markers.general.thresholds import (
    BOX_ELIMINATION_CONFIDENCE,
    CORNER_FIT,
    FAR_SEEN,
    LEARNED_FIT,
    MIN_EVIDENCE,
    READER_READS,
    READER_SURE,
    READER_WRITTEN,
    SAME_BOX,
)
from adapters.markers.types import Marker


def read_boxes(rgb: np.ndarray, labels: Sequence[str], finder: CornerFinder,
               classifier: GlyphClassifier | None = None, reader: CornerReader | None | bool = True,
               verifier: Verifier | None | bool = True) -> tuple[dict[str, Marker], dict[str, str], list[Outline]]:
    """Boxes of `labels` on an (H, W, 3) uint8 RGB image: (label -> Marker with its box, label ->
    why it was not placed, every outline fitted).

    Candidate corners are the proposals that read as some expected label and start a drawn
    outline; there the corner reader (`reader`: True for the shipped one when installed, None
    for none) reads the fitted corner, and each label's score becomes the geometric mean of the
    finder's and the reader's (naming._weighed_by_reader). A label the word written at a corner clearly
    is not (label_word, read by `classifier`, default: the shipped glyph classifier) is taken off
    that corner. Labels go to corners one-to-one, by the product of those scores (a label may
    stay unplaced at UNPLACED); a label is placed only when every assignment that puts it
    elsewhere scores DECISIVE times less, so a corner read as B and C goes to C when B's corner
    is plain elsewhere, and stays unplaced when it is not. Where a candidate corner starts no
    outline by the hand rules, `verifier` (True: the shipped outline verifier when installed;
    None: none) may accept one they turned away (outlines_at_corner.outlines_from); where it
    accepts none either and the corner reader is sure of the label there
    (naming.corners_read_surely), one ending at a far corner the finder sees is taken at the
    verifier's lower SEEN_ACCEPTANCE (verifier_outlines.between_seen_corners)."""
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
    fits_at: list[dict] = []  # per corner read: the rules' fit to each far corner (the verifier weighs them again)
    found_per_corner: list[list[Outline]] = []  # per corner read: the outlines starting there
    for p in read:
        fits_at.append({})
        found_per_corner.append(outlines_from(lab, p, fits_at[-1], fars, W, H, verifier))
    # the verifier's probabilities (seen corners, the one outline drawn at a corner, the last label's box);
    # a bare second opinion cannot be asked for them
    weighing = verifier if isinstance(verifier, ProbabilityVerifier) else None
    if reader is not None and weighing is not None:
        found_elsewhere = [o for found in found_per_corner for o in found]  # (a corner read surely starts none)

        def near_seen_corners(outline: Outline, corners: tuple[float, float, float, float]) -> bool:
            # both corners are seen there: the reader is sure of the label, the finder of the far corner
            return near_the_finders_corners(lab, outline, corners, (True, True))

        for k in corners_read_surely(reader, rgb, read, found_per_corner, wanted):
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
    readings = each_word_read_once(lab, outlines_at, proposed, readings, wanted, classifier)
    settled = [{l for l in wanted if found.scores[l] >= MIN_EVIDENCE and reader_settles(l, sure, found, read)}
               for sure, found in zip(reader_sure, found_at)]  # per corner: labels no word takes away there
    corners = [weighed_by_word(p, r, vetoes, weighed_by_reader=reader is not None, settled=labels_settled)
               for p, r, labels_settled in zip(proposed, readings, settled)]
    # the box read at each corner: where several outlines start there, the one its_own_box
    # chooses (elimination and the naming below take that one too: a box's corner that also
    # starts an outline to another box's far corner would otherwise be named nothing there)
    own_at = [its_own_box(found, outlines, proposals, outlines_at, weighing) for found in outlines_at]
    corners = written_once(wanted, corners, readings)
    choice, doubtful, doubted_only_unplaced = assign(wanted, corners)
    for label, k in zip(wanted, choice):
        if label in doubted_only_unplaced and reader_settles(label, reader_sure[k], found_at[k], read):
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
        elif (settled := settled_outline(lab, own_at[k][0])) is None:
            missing[label] = (f"a side of the box read as {label} at ({corners[k].x:.0f}, {corners[k].y:.0f}) merges "
                              "with another line of its colour beside it: where it lies is unclear")
        elif on_another_side(own_at[k][0], outlines):
            missing[label] = (f"a side of the box read as {label} at ({corners[k].x:.0f}, {corners[k].y:.0f}) overlaps "
                              "another box's side: the two strokes merge, and where it lies is unclear")
        else:
            placed[label] = settled
            markers[label] = box_marker(label, placed[label], corners[k].scores[label])
    for label, marker in list(markers.items()):  # two corners a few px apart that fit one outline
        twins = [other for other, m in markers.items()
                 if other != label and max(abs(np.subtract(m.box, marker.box))) < SAME_BOX]
        if twins:
            missing[label] = f"its box is also read as {', '.join(twins)}"
    markers = {label: m for label, m in markers.items() if label not in missing}
    left = [label for label in wanted if label in missing]
    if len(left) >= 2:
        told, why = by_permutation(wanted, markers, proposed, corners, readings, label_seen, own_at, lab,
                                    reader_reads)
        for label, outline, score in told:
            placed[label] = outline = settled_outline(lab, outline)
            markers[label] = box_marker(label, outline, min(score, BOX_ELIMINATION_CONFIDENCE), source="elimination")
            del missing[label]
        for label in missing:
            if label in left and why:
                missing[label] += f"; {why}"
        left = [label for label in wanted if label in missing]
    if len(left) == 1 and markers:
        others = {l: placed[l] for l in markers}
        last, why = outline_by_elimination(left[0], others, proposed, readings, label_seen, own_at, lab, reader_reads)
        if last is None and weighing is not None:
            outline, why_not = last_label_box(left[0], wanted, others, read, fits_at, fars, lab, weighing, classifier,
                                        CORNER_FIT, LEARNED_FIT, SAME_BOX)
            settled = settled_outline(lab, outline) if outline is not None else None
            if settled is not None:
                last = box_marker(left[0], settled, BOX_ELIMINATION_CONFIDENCE, source="elimination")
            else:
                why += f"; {why_not}" if why_not else "; its likeliest rectangle merges with another line of its colour"
        if last is not None:
            markers[left[0]] = last
            del missing[left[0]]
        else:
            missing[left[0]] += f"; {why}"
    looked_at = dict(markers)
    markers, refused = check_placed_boxes(lab, markers, outlines, proposals)
    for label, why in refused.items():
        missing[label] = why
        del markers[label]
    borrowers = [label for label, why in refused.items() if BORROWED_FAR_CORNER in why] if weighing is not None else []
    for label in borrowers:
        own = to_its_own_far_corner(lab, looked_at[label], markers, read, found_per_corner, fits_at, fars, outlines,
                                     proposals, weighing)
        if own is not None:
            markers[label] = own
            del missing[label]
    if any(label in markers for label in borrowers):
        for label in borrowers:  # the far corner a moved box borrowed may now be this one's alone
            if label not in markers and (back := rechecked_box(lab, looked_at[label], markers, outlines, proposals)):
                markers[label] = back
                del missing[label]
    return markers, missing, outlines
