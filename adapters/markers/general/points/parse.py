"""`parse_image(rgb, labels)`: the general points parser, for markers in any drawing style.

find.find_markers calls it for the labels BLINK's own style (blink_style/points.py) leaves, and
on non-BLINK questions. The passes share one ImageParse (state.py) and edit it in place.

Per image: find the drawn circles (rings.find_circles), read the words around them in both
polarities (words.colour_text_words / box_text_words + nets.glyphs.GlyphClassifier), then give
each expected label one circle (words_to_rings.py). A reading may label a circle only where the
renderer could have put it (`placement_error`: on one of 8 sides, 1-4 px from the ring, centred
or on the diagonal, within MAX_PLACEMENT_ERROR px). The assignment is the cheapest one-to-one
choice of (reading, circle) per label, where cost = placement error + doubt of the reading +
disagreement between the labels' sides (one drawing style puts every label on the same side).
When no assignment is consistent but leaving out exactly one label makes one, the rest are
placed. Labels with no reading anywhere go to the free circles in the placed markers' style with
an unread word on their side, when there are exactly as many such circles as such labels: one
label takes the one circle left; several are told apart by reading the words against those
labels only (elimination.place_by_elimination, source "elimination"). A lone marker (REF alone)
has no style to be checked against and needs a clear reading.
Then the patch reader (a small CNN that sees the pixels around a circle, nets/patch_reader.py)
judges the words' work (patch_opinion.py): two or more labels elimination matched by their words
are taken back where it reads another matching of them far likelier
(`check_words_matching_by_patches`); a word-placed marker is taken back where it surely reads
the ring as another of the question's labels or as no marker, or as no marker less surely when
its ring and label look swapped (`check_by_patches`, `_swapped`: a faint ring read as the label,
the label's glyph bowl taken for its ring), unless the centre finder surely reads the label
there too; and labels still missing are placed where it is sure of one free or faint circle that
matches the placed rings (`place_by_patches`, source "patch"). Last, for labels still missing, a
whole-image CNN (nets/centre_finder.py) proposes marker centres, which need no ring that stands
out on its own; a label is placed at the one place (a judged circle or a proposal) where the
finder and the patch reader both read it, each with less certainty than the reader alone needs
(finder_opinion.place_by_finder, source "finder"); before that, a placed marker the finder does
not read at its centre is taken back when both networks surely read its label elsewhere
(`check_by_finder`).
When the words' elimination had as many circles as unread labels but could not tell which is
which, the patch reader tells them apart where one matching is far likelier than any other
(`match_eliminable_by_patches`, before it places any label itself); and when the networks
placed some of those labels on those circles, the rest take the circles left
(`place_by_elimination` again). Two or more labels still missing, with exactly as many free
circles in the markers' style reading as them, go to the patch reader's matching of the lot
when it is as decisive (`match_left_by_patches`). A label the reader surely reads at a ring
unlike the placed markers' (a small scene ring at the marker's centre, found in place of its own)
goes to a ring of their radius and colour around it where there is one
(patch_opinion._refit_in_style). Last, a ring fitted at another radius than the other placed
rings' is re-centred on the centre finder's proposal or taken back
(finder_opinion.check_ring_radii). A marker placed by elimination is taken back on less of
the patch reader's contrary evidence than a word-placed one (ELIMINATION_VETO). When a different
circle for some label costs nearly as much, or a label has no reading beside any circle, the
label is left missing with the reason (find.find_markers then raises MarkerError) rather
than guessed.

Drawn boxes (Object_Localization) are read by boxes.read.read_boxes: the corner finder
(nets/corner_finder.py) proposes each label's top-left corner, boxes/fit.py and boxes/measure.py
fit and check the outline, the corner reader (nets/corner_reader.py) reads the label at the
fitted corner with the finder, and boxes/label_word.py reads the word written at the corner as
a check on both.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from adapters.markers.colour import to_lab
from adapters.markers.general.nets.centre_finder import CentreFinder, default_centre_finder
from adapters.markers.general.nets.glyphs import GlyphClassifier, default_classifier
from adapters.markers.general.nets.patch_reader import PatchReader, default_patch_reader
from adapters.markers.general.points.elimination import place_by_elimination
from adapters.markers.general.points.finder_opinion import check_by_finder, check_ring_radii, place_by_finder
from adapters.markers.general.points.patch_opinion import (
    check_by_patches,
    check_words_matching_by_patches,
    match_eliminable_by_patches,
    match_left_by_patches,
    place_by_patches,
)
from adapters.markers.general.points.rings import find_circles
from adapters.markers.general.points.state import ImageParse, LabelRead
from adapters.markers.general.points.words_to_rings import (
    placement_error,
    ranked_assignments,
    read_words,
    rect_distance,
    word_options,
)
from adapters.markers.general.thresholds import AMBIGUITY, MAX_PLACEMENT_ERROR
from adapters.markers.types import Marker


def parse_image(rgb: np.ndarray, labels: Sequence[str], classifier: GlyphClassifier | None = None,
                patch_reader: PatchReader | None | bool = True,
                centre_finder: CentreFinder | None | bool = True) -> ImageParse:
    """Find the circles labelled `labels` on an (H, W, 3) uint8 RGB image.

    patch_reader: reads the pixels around each circle, to check the markers the words placed and
    to place the labels they missed (True: the shipped one, when its weights are installed; None
    / False: words only). centre_finder: proposes centres for the labels still missing, which the
    patch reader must confirm (True: the shipped one, when installed; None / False: no proposals)."""
    reader = default_patch_reader() if patch_reader is True else (patch_reader or None)
    finder = default_centre_finder() if centre_finder is True else (centre_finder or None)
    lab = to_lab(rgb)
    parsed = _parse_by_words(rgb, lab, labels, classifier)
    proposals = None
    if reader is not None:
        proposals = finder.find(rgb) if finder is not None else None
        # before check_by_patches, whose veto of one marker at a time may take back one of a swapped
        # pair and leave the other on the wrong ring
        check_words_matching_by_patches(rgb, parsed, reader, proposals)
        check_by_patches(rgb, lab, parsed, reader, proposals=proposals)
        if parsed.missing and parsed.eliminable:
            match_eliminable_by_patches(rgb, parsed, reader)
        judged = place_by_patches(rgb, lab, parsed, reader, proposals) if parsed.missing else []
        if proposals is not None:
            check_by_finder(rgb, parsed, reader, proposals)
            if parsed.missing:
                place_by_finder(rgb, parsed, reader, proposals, judged)
        if len(parsed.missing) >= 2:
            match_left_by_patches(rgb, parsed, reader, judged)
        by_networks = sorted(label for label, m in parsed.markers.items() if m.source in ("patch", "finder"))
        if parsed.missing and by_networks:
            before = set(parsed.markers)
            place_by_elimination(parsed, classifier or default_classifier(), rgb.shape[:2], after=", ".join(by_networks),
                                  reader_at=lambda xy: reader.probabilities(rgb, [xy])[0])
            if set(parsed.markers) - before:  # the others were checked already
                check_by_patches(rgb, lab, parsed, reader, only=set(parsed.markers) - before, proposals=proposals)
    check_ring_radii(parsed, proposals)
    return parsed


def _parse_by_words(rgb: np.ndarray, lab: np.ndarray, labels: Sequence[str],
                    classifier: GlyphClassifier | None) -> ImageParse:
    """parse_image's first pass: circles labelled by the words read beside them."""
    classifier = classifier or default_classifier()
    circles = find_circles(rgb, lab)
    reads, unread = read_words(rgb, lab, circles, labels, classifier) if circles else ([], [])
    # a "circle" centred inside a word that was read is a glyph's bowl (B, D, R), not a marker;
    # unless the word is no taller than the ring itself (a ring plus a speck read as "D")
    circles = [c for c in circles if not any(rect_distance(c.x, c.y, r.rect) == 0
                                             and r.rect[3] - r.rect[1] > 2 * c.outer + 2 for r in reads)]
    for read in reads:
        for j, c in enumerate(circles):
            error = placement_error(read.rect, c, lab.shape[:2])
            if error <= MAX_PLACEMENT_ERROR:
                read.placement_errors[j] = error
    missing: dict[str, str] = {}
    options: dict[str, list[tuple[LabelRead, int]]] = {}
    for label in labels:
        pairs = word_options(label, reads)
        if not circles:
            missing[label] = "no drawn circle found"
        elif not any(r.label == label for r in reads):
            missing[label] = f"no word read as {label} beside any of the {len(circles)} circles found"
        elif not pairs:
            missing[label] = f"{label} was read, but not beside any circle"
        options[label] = pairs
    # the labels that were read beside some circle are placed jointly; the others stay missing
    # (find_markers still refuses the question, but the benchmark and the overlay see the rest)
    lone = len(labels) == 1  # a lone marker (REF): no other marker's style to check it against
    labels = [label for label in labels if label not in missing]
    if not labels:
        return ImageParse({}, missing, circles, reads)
    ranked = ranked_assignments(labels, options, circles, lone)
    if not ranked and len(labels) >= 2:
        # one label whose only readings sit by scene rings (a speck swelled its real word past
        # the placement tolerance) would sink the others: place the rest, if leaving out exactly
        # one label makes a consistent drawing (two such labels: no telling which is the odd one;
        # one label left must pass as a lone marker)
        fits = [(label, rest, found) for label in labels
                for rest in [[other for other in labels if other != label]]
                for found in [ranked_assignments(rest, options, circles, len(rest) == 1)] if found]
        if len(fits) == 1:
            (odd, labels, ranked), = fits
            missing[odd] = f"{odd} was read only beside circles unlike the other markers'"
    if not ranked:
        why = "two labels compete for one circle, or the circles found differ in style"
        return ImageParse({}, {**missing, **{label: why for label in labels}}, circles, reads)
    best_cost, best = ranked[0]
    # a label whose circle differs in an assignment costing nearly as much is ambiguous; the
    # labels every such assignment agrees on are placed (once, all were dropped: neither placed
    # nor missing)
    ambiguous = set()
    for cost, combo in ranked[1:]:
        if cost - best_cost > AMBIGUITY:
            break
        for label, (_, j), (_, k) in zip(labels, best, combo):
            if j != k and label not in ambiguous:
                ambiguous.add(label)
                missing[label] = f"ambiguous: another circle fits almost as well (cost {best_cost:.1f} vs {cost:.1f})"
    placed = {label: pair for label, pair in zip(labels, best) if label not in ambiguous}
    markers = {}
    for label, (read, j) in placed.items():
        c = circles[j]
        confidence = float(min(read.reading.similarity, c.coverage))
        markers[label] = Marker(label, (c.x, c.y), confidence, radius=c.r, ring_width=c.width,
                                label_box=tuple(int(v) for v in read.rect), colour=c.colour)
    parsed = ImageParse(markers, missing, circles, reads, unread=unread, word_pairs=placed, ambiguous=ambiguous)
    place_by_elimination(parsed, classifier, lab.shape[:2])
    return parsed
