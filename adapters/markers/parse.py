"""`parse_image(rgb, labels)`: the general points parser, for markers in any drawing style.

find.find_markers calls it for the labels BLINK's own style (blink_style) leaves, and on
non-BLINK questions.

Per image: find the drawn circles (detect.find_circles), read the words around them in both
polarities (detect.colour_text_words / box_text_words + glyphs.GlyphClassifier), then give each
expected label one circle. A reading may label a circle only where the renderer could have put
it (`placement_error`: on one of 8 sides, 1-4 px from the ring, centred or on the diagonal,
within MAX_PLACEMENT_ERROR px). The assignment is the cheapest one-to-one choice of (reading,
circle) per label, where cost = placement error + doubt of the reading + disagreement between
the labels' sides (one drawing style puts every label on the same side). When no assignment is
consistent but leaving out exactly one label makes one, the rest are placed. Labels with no
reading anywhere go to the free circles in the placed markers' style with an unread word on
their side, when there are exactly as many such circles as such labels: one label takes the one
circle left; several are told apart by reading the words against those labels only
(`_by_elimination`, source "elimination"). A lone marker (REF alone) has no style to be checked
against and needs a clear reading. Then the patch reader (a small CNN that
sees the pixels around a circle, patch_reader.py) takes back word-placed markers whose ring it
surely reads as another of the question's labels or as no marker, or as no marker less surely
when its ring and label look swapped (`_check_by_patches`, `_swapped`: a faint ring read as the
label, the label's glyph bowl taken for its ring), unless the centre finder surely reads the
label there too, and places labels still missing where it is
sure of one free or faint circle that matches the placed rings (`_place_by_patches`, source
"patch"). Last, for labels still missing, a whole-image CNN (centre_finder.py) proposes marker
centres, which need no ring that stands out on its own; a label is placed at the one place (a
judged circle or a proposal) where the finder and the patch reader both read it, each with less
certainty than the reader alone needs (`_place_by_finder`, source "finder"); before that, a
placed marker the finder does not read at its centre is taken back when both networks surely
read its label elsewhere (`_check_by_finder`).
When the words' elimination had as many circles as unread labels but could not tell which is
which, the patch reader tells them apart where one matching is far likelier than any other
(`_match_eliminable_by_patches`, before it places any label itself); and when the networks
placed some of those labels on those circles, the rest take the circles left
(`_place_by_elimination` again). Two or more labels still missing, with exactly as many free
circles in the markers' style reading as them, go to the patch reader's matching of the lot
when it is as decisive (`_match_left_by_patches`). A label the reader surely reads at a ring
unlike the placed markers' (a small scene ring at the marker's centre, found in place of its own)
goes to a ring of their radius and colour around it where there is one (`_refit_in_style`).
Last, a ring fitted at another radius than the
other placed rings' is re-centred on the centre finder's proposal or taken back
(`_check_ring_radii`). A marker placed by elimination is taken back on less of
the patch reader's contrary evidence than a word-placed one (ELIMINATION_VETO). When a different
circle for some label costs nearly as much, or a label has no reading beside any circle, the
parser raises MarkerError instead of guessing.

Drawn boxes (Object_Localization) are read by parse_box.read_boxes: the corner finder
(corner_finder.py) proposes each label's top-left corner, box_outline fits and checks the outline,
the corner reader (corner_reader.py) reads the label at the fitted corner with the finder, and
box_label reads the word written at the corner as a check on both.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Sequence

import numpy as np

from .box_outline import Outline
from .corner_finder import default_corner_finder
from .detect import Circle, Word, box_text_words, colour_text_words, find_circles, to_lab, verify_circle
from .glyphs import GlyphClassifier, Reading, default_classifier
from .labels import LABELS, REF
from .centre_finder import CentreFinder, Proposal, default_centre_finder
from .corner_reader import default_corner_reader
from .outline_verifier import default_outline_verifier
from .patch_reader import CLASSES, NONE, PatchReader, default_patch_reader
from .types import Marker

AMBIGUITY = 3.0  # an alternative assignment this close in cost makes the answer ambiguous
SIDE_WEIGHT = 6.0  # cost per unit of (1 - cos) between a label's side and the labels' mean side
DOUBT_WEIGHT = 10.0  # cost per unit of (1 - similarity) of a reading
# (reading, circle) options kept per label, cheapest first (placement error and doubt, as in
# _cost): sorting by placement alone once dropped a clear REF 0.9 px off for four scene rings
# nearer a vague "REF", which then won unopposed
MAX_OPTIONS = 5
STYLE_RADIUS = 3.0  # px: the rings of one question differ at most this much in radius
STYLE_COLOUR = 30.0  # Lab units: ... and in colour (JPEG shifts colours a little)
# a ring measured at most THIN_RING px wide is seen blended with the scene behind it: its colour
# then varies with the background by up to STYLE_COLOUR_THIN
THIN_RING, STYLE_COLOUR_THIN = 3.0, 65.0
STYLE_HEIGHT = 1.5  # ... and their label words in height by at most this factor
GAP_RANGE = (-1.5, 5.0)  # px past the measured ring edge where a label's near edge may lie
MAX_PLACEMENT_ERROR = 3.0  # px a label may sit off its drawn placement (rounding, lost AA edges)
BORDER_TOUCH = 6  # px: a label this near the image's border may have been pushed inside by it ...
PUSHED_MAX = 40.0  # ... by up to this much (a label's width and reach)
PLACEMENT_WEIGHT = 2.0  # cost per px of placement error
POLARITY_WEIGHT = 1.0  # cost per label found with the other polarity than most (see _one_style)
MIN_WORD_HEIGHT = 7  # px: a word read from fewer rows is a scene speck (labels are >= 8 px; REF: 8)
# a lone marker (REF alone) has no other marker to share its style with, so its ring must be
# this complete (drawn rings are whole; coverage counts only angles inside the image) and its
# label read this clearly: a scene arc beside a blob that looks a little like "REF" is otherwise
# all that can make a REF-only image wrong. 0.75 (what detect.verify_circle asks of any ring)
# rather than 0.85: texture over a 1-2 px ring hides a fifth of it, where the networks read REF
# surely (markers_accuracy seed 9 image 12, seed 1 images 125 and 192 placed; none more off in
# the seven runs and seed 1)
LONE_MIN_COVERAGE = 0.75
LONE_MIN_SIMILARITY = 0.85
ELIMINATION_CONFIDENCE = 0.5  # confidence of a marker placed by elimination (its label was not read)
ELIMINATION_SIDE_COS = 0.7  # its word must lie on the placed labels' side (cosine of the angle)
# ... its ring within this many px of the placed rings' median radius (fitted radii of one
# style agree within ~0.5 px; scene rings that took a label by elimination were 2.4 px off) ...
ELIMINATION_RADIUS = 1.5
# ... and its word no wider than this times its height (A-E in every font here: at most 1.12)
ELIMINATION_MAX_ASPECT = 1.4
# Several unread labels: how alike a word must be to the label it is given (the unconstrained
# reader needs MIN_SIMILARITY 0.80 and the nearest class of all), and how much better the chosen
# matching of labels to circles must be than any other (summed similarity).
CONSTRAINED_MIN_SIMILARITY = 0.6
CONSTRAINED_MARGIN = 0.1
# The patch reader (labels the words left missing): how sure it must be of a label's circle,
# how unsure of every other candidate, and how sure for a lone marker; rings this faint are
# candidates too (the word pass needs detect.MIN_CONTRAST). 0.45 rather than 0.6: the top-class,
# rival and ring-likeness checks keep out wrong circles (markers_accuracy seeds 0, 5, 7: +5 found,
# none more off; lowering AGREED_PROBABILITY to 0.35 as well put one more off)
PATCH_MIN_PROBABILITY = 0.45
PATCH_RIVAL = 0.2
# a lone REF (Visual_Correspondence's first image) has no placed rings to be like: 0.9 rather than
# 0.97 placed 2 more of the seven runs' (seed 5 image 176: p=0.93; seed 9 image 23: 0.95), none off,
# and changed nothing on seeds 1 and 2 (about 75 lone REFs in every 300 images)
PATCH_LONE_PROBABILITY = 0.9
# a reading that leads the circle's next asked label by less than this needs the centre finder's
# agreement (the photo-trained reader read two 8 px labels on noise as each other's, p 0.46 vs 0.40)
PATCH_MARGIN = 0.1  # as FINDER_MARGIN
FAINT_CONTRAST = 9.0
FAINT_LIMIT = 120  # ring-filter peaks verified in that search
# the reader's probability on labels the question does not ask above which its reading of a place is
# kept as it is (see _asked_only)
UNASKED_MAX = 0.7
PATCH_VETO = 0.9  # a word-placed marker is taken back when its ring reads this surely as another class
ELIMINATION_VETO = 0.75  # ... and one placed by elimination, when this surely (right ones read 0.55-0.66 as another)
SWAP_NONE = 0.5  # a word-placed marker whose ring reads this surely as no marker, while its word holds a ring read as its label
UNLIKE_RING = "its ring is unlike the other markers' rings"  # a verdict's reason; _refit_in_style answers _patch_verdict's
# _refit_in_style: how far (px) from a candidate the ring of the placed markers' style it looks for may be centred
# (the reader's patches are trained on centres up to 1.5 px off: train.markers_reader.JITTER)
REFIT_OFF = 1.5
SAME_CENTRE = 3.0  # px: candidates this close share one patch (one ring found at two radii)
# _match_eliminable_by_patches: the patch reader's matching of unread labels to the circles the
# words' elimination left must be this many times likelier than any other, each label read this surely
PATCH_MATCH_RATIO = 10.0
PATCH_MATCH_MIN = 0.3
# _check_words_matching_by_patches: the words' elimination of several labels is taken back where the
# patch reader reads another matching of them to their circles this many times likelier
WORDS_MATCHING_OVERRULED = 2.0
# Where the centre finder and the patch reader agree (_place_by_finder): a label needs a finder
# score of at least FINDER_MIN_SCORE and a reader probability of at least AGREED_PROBABILITY at
# one place; a place both read as it with at least FINDER_RIVAL and PATCH_RIVAL makes it
# ambiguous. A proposal within FINDER_NEAR px of a ring or marker belongs to it.
FINDER_MIN_SCORE = 0.3
FINDER_LONE_SCORE = 0.6
AGREED_PROBABILITY = 0.5
AGREED_CENTRE = 2.0  # px: a proposal this close to a ring's centre is that ring's (farther: a place of its own)
AGREED_LONE_PROBABILITY = 0.8
# ... or a weaker finder score where the patch reader is sure of it (a lone label: surer still):
# the finder is unsure of a label whose ring it cannot see (a 1 px ring over a blob of its own
# colour) although the reader, which sees the label beside it, is not (markers_accuracy seed 0: a
# plain REF the finder scored 0.59 and the reader 1.0)
SURE_FINDER_SCORE, SURE_PROBABILITY = 0.15, 0.95
SURE_LONE_FINDER_SCORE, SURE_LONE_PROBABILITY = 0.4, 0.97
FINDER_RIVAL = 0.15
# ... and its likeliest asked label must lead the next asked label by this much: a finder that
# cannot tell A from C at a place (an inked blob where a label was) is not reading it there
FINDER_MARGIN = 0.1
FINDER_NEAR = 5.0
FINDER_CONTRADICTS = 0.5  # _check_by_finder: a finder score this sure off a marker may take it back
FINDER_CONFIRMS = 0.5  # _check_by_patches: a finder score this sure at a marker, and the patch reader cannot take it back
# _check_ring_radii: a ring fitted this many px from the median radius of the question's other
# placed rings was fitted off (one style draws them alike: on markers_accuracy seeds 0 and 5, none
# of 957 placed rings in questions with three or more lay 0.5 px off)
ODD_RADIUS = 1.0
# ... and two rings whose radii differ by more than this (then either may be the one fitted off:
# on fresh markers_accuracy seeds 20 at 320x240 and 21 at 640x480, right pairs differed by 0.6 px
# at most, the two answered wrong by 1.8 and 2.8)
ODD_PAIR = 1.5


@dataclass
class LabelRead:
    """A word read as `label` (Reading inside), with its rect and, per circle it may label, how
    far (px) it sits from a drawn placement beside that circle (`placement_error`)."""

    word: Word
    reading: Reading
    placement_errors: dict[int, float] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.reading.label or ""

    @property
    def rect(self) -> tuple[int, int, int, int]:
        return self.word.box_rect or self.word.rect


@dataclass
class ImageParse:
    """Everything found on one image (also what `specialists markers` draws for failures)."""

    markers: dict[str, Marker]
    missing: dict[str, str]  # label -> why it was not found
    circles: list[Circle]
    reads: list[LabelRead]
    outlines: list[Outline] = field(default_factory=list)  # drawn boxes fitted (box markers only)
    # what elimination weighs (_place_by_elimination): words of label height read as nothing, the
    # (reading, circle index) of each label the words placed, and the labels left ambiguous
    unread: list[LabelRead] = field(default_factory=list)
    word_pairs: dict[str, tuple[LabelRead, int]] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    # circles the words' elimination left, as many as its labels: circle index -> the unread words beside it
    eliminable: dict[int, list[LabelRead]] = field(default_factory=dict)


def _rect_distance(x: float, y: float, rect) -> float:
    x0, y0, x1, y1 = rect
    dx = max(x0 - x, 0.0, x - (x1 - 1))
    dy = max(y0 - y, 0.0, y - (y1 - 1))
    return float(np.hypot(dx, dy))


def _contains(outer, inner) -> bool:
    return outer != inner and outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def _read_words(rgb: np.ndarray, lab: np.ndarray, circles: list[Circle], labels: Sequence[str],
                classifier: GlyphClassifier) -> tuple[list[LabelRead], list[LabelRead]]:
    """(words read as one of `labels`, words of label height read as nothing) around the circles."""
    words: dict[tuple, Word] = {}
    for circle in circles:
        reach = int(circle.r + circle.width / 2 + 48)
        # own ring removed only (a glyph mistaken for a circle keeps its ink), then every ring
        # removed (a neighbour's ring crossing the label is cut away)
        for word in (*colour_text_words(lab, circle, [circle], reach),
                     *colour_text_words(lab, circle, circles, reach),
                     *box_text_words(lab, circle, reach)):
            words.setdefault((word.rect, word.polarity, word.mask.shape, int(word.mask.sum())), word)
    unique = list(words.values())
    readings = classifier.read_many([w.mask for w in unique], tuple(labels))
    unread = [LabelRead(w, r) for w, r in zip(unique, readings)
              if r.label is None and w.rect[3] - w.rect[1] >= MIN_WORD_HEIGHT]
    reads = [LabelRead(w, r) for w, r in zip(unique, readings)
             if r.label is not None and w.rect[3] - w.rect[1] >= MIN_WORD_HEIGHT + (r.label == "REF")]
    # a reading inside a larger successful one of another label is part of it ("E" in "REF");
    # one of the same label is kept (the larger one may have swallowed a speck of the scene)
    reads = [r for r in reads if not any(_contains(o.word.rect, r.word.rect) and o.label != r.label for o in reads)]
    # the same rect read twice (two masks of one word): keep the most similar reading
    best: dict[tuple, LabelRead] = {}
    for r in reads:
        key = (r.word.rect, r.label)
        if key not in best or r.reading.similarity > best[key].reading.similarity:
            best[key] = r
    return list(best.values()), unread


def placement_error(rect, c: Circle, shape: tuple[int, int] | None = None) -> float:
    """px off the nearest drawn placement of a label rect (x0, y0, x1, y1) beside circle `c`,
    on an image of `shape` (H, W), when given: a label within BORDER_TOUCH px of its border may
    have been pushed inside by it (render's keep_inside: a label that leaves the image on both
    sides is clamped to the border), so it is also tried up to PUSHED_MAX px further out there.
    (Without it, a clear 17 px "A" clamped to the top border was "not beside any circle".)
    """
    x0, y0, x1, y1 = rect
    far = np.hypot((x0 + x1) / 2 - c.x, (y0 + y1) / 2 - c.y) > c.outer + GAP_RANGE[1] + PUSHED_MAX + (x1 - x0) + (y1 - y0)
    if shape is None or far:
        return _placement_error(rect, c)
    H, W = shape
    out = np.arange(1.0, PUSHED_MAX + 1.0)  # px further out, towards the border it touches
    shifts_x = [0.0, *(-out if x0 <= BORDER_TOUCH else out if x1 >= W - BORDER_TOUCH else [])]
    shifts_y = [0.0, *(-out if y0 <= BORDER_TOUCH else out if y1 >= H - BORDER_TOUCH else [])]
    return min(_placement_error((x0 + dx, y0 + dy, x1 + dx, y1 + dy), c) for dx in shifts_x for dy in shifts_y)


def _placement_error(rect, c: Circle) -> float:
    """placement_error of `rect` where it was drawn.

    render._place puts a label on one of 8 sides at reach = ring edge + gap (1-4 px): centred on
    the circle's row (left/right) or column (top/bottom), or with its nearest corner on a
    diagonal. The error is how far the rect is from the closest such placement, allowing the
    gap anywhere in [GAP_RANGE] past the measured ring edge (c.outer): a rect read a pixel
    short (a glyph's anti-aliased edge lost to the ring's margin) still fits.
    """
    x0, y0, x1, y1 = rect
    x1, y1 = x1 - 1, y1 - 1  # inclusive ink extent
    lo, hi = c.outer + GAP_RANGE[0], c.outer + GAP_RANGE[1]

    def off(v: float) -> float:  # distance of a reach to [lo, hi]
        return max(lo - v, 0.0, v - hi)

    best = np.inf
    centre_x, centre_y = (x0 + x1) / 2, (y0 + y1) / 2
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
        near_x = x0 - c.x if dx > 0 else c.x - x1  # distance of the rect's near edges
        near_y = y0 - c.y if dy > 0 else c.y - y1
        if dx and dy:  # diagonal: both near edges at reach / sqrt(2)
            reach = (near_x + near_y) / np.sqrt(2.0)
            err = abs(near_x - near_y) / np.sqrt(2.0) + off(reach)
        elif dx:
            reach = near_x
            err = abs(centre_y - c.y) + off(reach)
        else:
            reach = near_y
            err = abs(centre_x - c.x) + off(reach)
        best = min(best, float(err))
    return best


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
        # before _check_by_patches, whose veto of one marker at a time may take back one of a swapped
        # pair and leave the other on the wrong ring
        _check_words_matching_by_patches(rgb, parsed, reader, proposals)
        _check_by_patches(rgb, lab, parsed, reader, proposals=proposals)
        if parsed.missing and parsed.eliminable:
            _match_eliminable_by_patches(rgb, parsed, reader)
        judged = _place_by_patches(rgb, lab, parsed, reader, proposals) if parsed.missing else []
        if proposals is not None:
            _check_by_finder(rgb, parsed, reader, proposals)
            if parsed.missing:
                _place_by_finder(rgb, parsed, reader, proposals, judged)
        if len(parsed.missing) >= 2:
            _match_left_by_patches(rgb, parsed, reader, judged)
        by_networks = sorted(label for label, m in parsed.markers.items() if m.source in ("patch", "finder"))
        if parsed.missing and by_networks:
            before = set(parsed.markers)
            _place_by_elimination(parsed, classifier or default_classifier(), rgb.shape[:2], after=", ".join(by_networks),
                                  reader_at=lambda xy: reader.probabilities(rgb, [xy])[0])
            if set(parsed.markers) - before:  # the others were checked already
                _check_by_patches(rgb, lab, parsed, reader, only=set(parsed.markers) - before, proposals=proposals)
    _check_ring_radii(parsed, proposals)
    return parsed


def _parse_by_words(rgb: np.ndarray, lab: np.ndarray, labels: Sequence[str],
                    classifier: GlyphClassifier | None) -> ImageParse:
    """parse_image's first pass: circles labelled by the words read beside them."""
    classifier = classifier or default_classifier()
    circles = find_circles(rgb, lab)
    reads, unread = _read_words(rgb, lab, circles, labels, classifier) if circles else ([], [])
    # a "circle" centred inside a word that was read is a glyph's bowl (B, D, R), not a marker;
    # unless the word is no taller than the ring itself (a ring plus a speck read as "D")
    circles = [c for c in circles if not any(_rect_distance(c.x, c.y, r.rect) == 0
                                             and r.rect[3] - r.rect[1] > 2 * c.outer + 2 for r in reads)]
    for read in reads:
        for j, c in enumerate(circles):
            error = placement_error(read.rect, c, lab.shape[:2])
            if error <= MAX_PLACEMENT_ERROR:
                read.placement_errors[j] = error
    missing: dict[str, str] = {}
    options: dict[str, list[tuple[LabelRead, int]]] = {}
    for label in labels:
        pairs = _options(label, reads)
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
    ranked = _ranked(labels, options, circles, lone)
    if not ranked and len(labels) >= 2:
        # one label whose only readings sit by scene rings (a speck swelled its real word past
        # the placement tolerance) would sink the others: place the rest, if leaving out exactly
        # one label makes a consistent drawing (two such labels: no telling which is the odd one;
        # one label left must pass as a lone marker)
        fits = [(label, rest, found) for label in labels
                for rest in [[other for other in labels if other != label]]
                for found in [_ranked(rest, options, circles, len(rest) == 1)] if found]
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
    _place_by_elimination(parsed, classifier, lab.shape[:2])
    return parsed


def _place_by_elimination(parsed: ImageParse, classifier: GlyphClassifier, shape: tuple[int, int],
                          after: str = "", reader_at: Callable[[tuple[float, float]], np.ndarray] | None = None) -> None:
    """Give the missing labels no word was read as the free circles left in the word-placed
    markers' style (_by_elimination; in place, source "elimination"). Run after the words, and
    again after the networks placed other labels (`after`: which, for the reasons): a circle
    they took is no longer free, and one fewer label competes for the rest. `reader_at`: the
    patch reader's probabilities (CLASSES) at a place, for _reader_names_the_one_left."""
    unreadable = _unreadable(parsed)
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


def _unreadable(parsed: ImageParse) -> list[str]:
    """The missing labels no word was read as anywhere (elimination's labels)."""
    return [label for label in parsed.missing if parsed.circles and not any(r.label == label for r in parsed.reads)]


def _check_words_matching_by_patches(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader,
                                     proposals: list[Proposal] | None = None) -> None:
    """Take back the labels the words' elimination matched to as many circles (two or more labels
    no word was read as: _match_by_reading) where the patch reader reads another matching of them
    to those circles WORDS_MATCHING_OVERRULED times likelier (_other_matching_ratio; in place:
    they go back to parsed.missing, where the later passes may place them again). The words were
    read against the labels left only, so small glyphs that read as neither are matched as the
    nearer of them: fresh markers_accuracy seed 35 image 134 (320x240), B's and D's 8.6 px labels
    in dejavusansmono matched swapped, where the reader reads B 0.75 at B's ring and 0.02 at D's,
    the swap 4.5 times likelier: a question answered wrong. A matching the centre finder
    (`proposals`) confirms at every one of its circles (FINDER_CONFIRMS, as _check_by_patches
    spares a marker) stands. One label left (no matching to weigh) is _check_by_patches'
    (ELIMINATION_VETO)."""
    matched = [label for label, marker in parsed.markers.items() if marker.source == "elimination"]
    if len(matched) < 2 or all(_finder_reads_at(parsed.markers[label], proposals, FINDER_CONFIRMS) for label in matched):
        return
    # (each circle's row scaled alike, as _asked_only would, leaves the ratio as it is)
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


def _match_eliminable_by_patches(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader) -> None:
    """Tell apart the labels the words' elimination left on as many circles (parsed.eliminable)
    but could not tell apart, by what the patch reader sees at those circles (in place, source
    "elimination"): the one-to-one matching whose product of probabilities beats every other
    matching's PATCH_MATCH_RATIO times, each label read at its circle with p >= PATCH_MATCH_MIN.

    The words and the drawing's style already say these circles carry these labels; only which is
    which is open, and a reader that is unsure of each circle alone (p = 0.41 and 0.40 for D and
    B at one, 0.93 for D at the other: neither passes _place_by_patches, each has a rival) may
    still make one matching far likelier than the other (benchmark seed 0, image 197)."""
    unreadable = _unreadable(parsed)
    columns = sorted(parsed.eliminable)
    taken = [m.xy for m in parsed.markers.values()]
    if (len(unreadable) < 2 or len(unreadable) != len(columns)
            or any(np.hypot(parsed.circles[j].x - x, parsed.circles[j].y - y) < SAME_CENTRE
                   for j in columns for x, y in taken)):
        return  # the patch reader took some back, or placed one elsewhere: the words' count is off
    probabilities = _asked_only(reader.probabilities(rgb, [(parsed.circles[j].x, parsed.circles[j].y)
                                                           for j in columns]), parsed)
    chance = np.array([[probabilities[col, CLASSES.index(label)] for col in range(len(columns))]
                       for label in unreadable])  # chance[k, col]: label k at circle columns[col]
    order, why = _decisive_matching(chance)
    if why:
        for label in unreadable:
            parsed.missing[label] += f"; patch reader at those circles: {why}"
        return
    for k, col in enumerate(order):
        label, c = unreadable[k], parsed.circles[columns[col]]
        word = parsed.eliminable[columns[col]][0]
        del parsed.missing[label]
        parsed.markers[label] = Marker(label, (c.x, c.y), float(chance[k, col]) * c.coverage, radius=c.r,
                                       ring_width=c.width, label_box=tuple(int(v) for v in word.rect),
                                       colour=c.colour, source="elimination")


def _decisive_matching(chance: np.ndarray) -> tuple[tuple[int, ...], str]:
    """chance[k, i]: the patch reader's probability of label k at circle i (as many circles as
    labels) -> (the matching, circle of each label, whose product of probabilities beats every
    other matching's PATCH_MATCH_RATIO times with each label read with p >= PATCH_MATCH_MIN, "")
    or ((), why there is none)."""
    ranked = sorted(((float(np.prod([chance[k, i] for k, i in enumerate(order)])), order)
                     for order in itertools.permutations(range(chance.shape[1]))), reverse=True)
    (best, order), runner_up = ranked[0], ranked[1][0]
    weakest = min(chance[k, i] for k, i in enumerate(order))
    if best < PATCH_MATCH_RATIO * runner_up or weakest < PATCH_MATCH_MIN:
        return (), (f"no matching stands out (likeliest {best:.2g}, next {runner_up:.2g}, "
                    f"its least sure label p={weakest:.2f})")
    return order, ""


def _match_left_by_patches(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader, judged: Sequence[Circle]) -> None:
    """Place the two or more labels still missing on as many free circles by the patch reader's
    likeliest matching of labels to circles (_decisive_matching; in place, source "patch"), when
    exactly that many free judged circles (`judged`: the circles _place_by_patches read) in the
    placed markers' style read any missing label with p >= PATCH_RIVAL.

    Each circle alone may be unsure: at 8 px, D's ring read B 0.49 and D 0.45 while B's own ring
    read B 0.93, so _place_by_patches placed neither (two circles read as B; D below
    PATCH_MIN_PROBABILITY), yet B on its ring and D on D's is 21 times likelier than the swap
    (markers_accuracy seed 9, image 177). Where the reader misreads one circle surely (B 0.74 at
    D's ring, D 0.05 there and 0.11 at B's: seed 0, image 15), no matching stands out or one
    label reads below PATCH_MATCH_MIN, and the labels stay missing. A third circle that reads as
    a missing label leaves the count off, and nothing is placed."""
    placed = [m.xy for m in parsed.markers.values()]
    placed_rings = _placed_rings(parsed, judged)
    free = [c for c in judged if all(np.hypot(c.x - x, c.y - y) > FINDER_NEAR for x, y in placed)
            and _rings_alike([c, *placed_rings])]
    if not free:
        return
    missing = list(parsed.missing)
    columns = [CLASSES.index(label) for label in missing]
    probabilities = _asked_only(reader.probabilities(rgb, [(c.x, c.y) for c in free]), parsed)
    reading: list[tuple[Circle, np.ndarray]] = []  # one per patch: a thick ring found twice counts once
    for c, row in sorted(zip(free, probabilities), key=lambda pair: -pair[0].coverage):
        if row[columns].max() >= PATCH_RIVAL and not any(np.hypot(c.x - o.x, c.y - o.y) < SAME_CENTRE
                                                         for o, _ in reading):
            reading.append((c, row))
    if len(reading) != len(missing) or not _rings_alike([c for c, _ in reading] + placed_rings):
        return
    chance = np.array([[row[column] for _, row in reading] for column in columns])
    order, why = _decisive_matching(chance)
    if why:
        for label in missing:
            parsed.missing[label] += f"; patch reader at the {len(reading)} free circles reading as these labels: {why}"
        return
    for k, i in enumerate(order):
        label, c = missing[k], reading[i][0]
        del parsed.missing[label]
        parsed.markers[label] = Marker(label, (c.x, c.y), float(chance[k, i]) * c.coverage, radius=c.r,
                                       ring_width=c.width, colour=c.colour, source="patch")


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
    circle left over is no label's by count alone (a decoy ring took B 128 px off on seed 0);
    the reader naming it is the evidence the count lacks (200x150 seed 12 image 14: B's ring
    reads B 0.32, C 0.22, none 0.14; the 40-image test's sample)."""
    if reader_at is None or len(unreadable) != 1 or len(candidates) != 1:
        return False
    (j,) = candidates
    row = reader_at((parsed.circles[j].x, parsed.circles[j].y))
    return int(np.argmax(row)) == CLASSES.index(unreadable[0])


def _check_by_patches(rgb: np.ndarray, lab: np.ndarray, parsed: ImageParse, reader: PatchReader,
                      only: set[str] | None = None, proposals: list[Proposal] | None = None) -> None:
    """Take back the markers placed by words whose ring the patch reader sees as something else
    (another label of the question, or no marker) with probability >= PATCH_VETO: a scene blob
    read as a letter beside a scene ring; >= ELIMINATION_VETO for a marker placed by
    elimination, which no reading backs (a small D misread as C left D the real C's ring, which
    the reader read as C with p=0.80: a question answered wrong at 200x150); and a word-placed
    one whose ring reads as no marker with p >= SWAP_NONE only, when its ring and label look
    swapped (_swapped). The label goes back to parsed.missing, where _place_by_patches may place
    it again. only: check these labels' markers.

    A marker the centre finder (`proposals`) surely reads as its label at its centre (score >=
    FINDER_CONFIRMS within AGREED_CENTRE px) stands: the words (or the count) and the finder
    outvote the reader, which misses 1 px rings over photographs and gradients (320x240 seed 2
    image 94: A's ring read as no marker 0.94, where the finder reads A 0.81, 0.3 px away; 200x150
    seed 3 image 127: B, none 0.93, finder B 0.83). At none of the nine markers the reader took
    back on markers_accuracy's seeds 0 and 5, each 13.7-214 px from its drawn centre, did the
    finder propose its label within 5 px."""
    labels = [label for label in parsed.markers if (only is None or label in only)
              and not _finder_reads_at(parsed.markers[label], proposals, FINDER_CONFIRMS)]
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


def _finder_reads_at(marker: Marker, proposals: list[Proposal] | None, min_score: float = 0.0) -> bool:
    """Whether a centre finder proposal within AGREED_CENTRE px of `marker` reads its label
    likeliest, with a score >= `min_score`."""
    return any(p.label == marker.label and p.score >= min_score
               and np.hypot(p.x - marker.xy[0], p.y - marker.xy[1]) <= AGREED_CENTRE for p in proposals or ())


def _swapped(rgb: np.ndarray, lab: np.ndarray, parsed: ImageParse, reader: PatchReader, label: str) -> float | None:
    """The patch reader's probability of `label` at a ring inside the word the words placed it
    by, when that ring is like the placed one and reads likeliest as `label` with p >=
    PATCH_MIN_PROBABILITY; else None. That word is then a faint 1 px ring, never found as a
    circle, read as the label (its arc looks like a C), and the "circle" beside it is the
    label's own glyph bowl. (200x150, seed 3, image 118: a bold 16 px C's bowl was taken for C's
    ring, p(none) = 0.85 there, and p(C) = 0.87 at the faint real ring inside the word read as C:
    a question answered wrong.)"""
    read, j = parsed.word_pairs[label]
    own = parsed.circles[j]
    ring = _ring_inside(rgb, lab, read.rect, own.r)
    if ring is None or not _rings_alike([ring, own]):
        return None
    there = _asked_only(reader.probabilities(rgb, [(ring.x, ring.y)]), parsed)[0]
    if CLASSES[int(np.argmax(there))] != label or there[CLASSES.index(label)] < PATCH_MIN_PROBABILITY:
        return None
    return float(there[CLASSES.index(label)])


def _rings_around(rgb: np.ndarray, lab: np.ndarray, cx: int, cy: int, r: float) -> Iterator[Circle]:
    """The drawn rings of radius about `r` (±0.5 px) that verify at (cx, cy) or a pixel around it,
    faint ones too (FAINT_CONTRAST), nearest start first."""
    for dx, dy in itertools.product((0, -1, 1), repeat=2):
        for radius in (r, r - 0.5, r + 0.5):
            ring = verify_circle(rgb, lab, cx + dx, cy + dy, radius, FAINT_CONTRAST)
            if ring is not None:
                yield ring


def _ring_inside(rgb: np.ndarray, lab: np.ndarray, rect, r: float) -> Circle | None:
    """A drawn ring of radius about `r` centred inside `rect` (x0, y0, x1, y1) (_rings_around the
    rect's centre); None when there is none."""
    x0, y0, x1, y1 = rect
    cx, cy = int(round((x0 + x1 - 1) / 2)), int(round((y0 + y1 - 1) / 2))
    return next((ring for ring in _rings_around(rgb, lab, cx, cy, r)
                 if x0 <= ring.x < x1 and y0 <= ring.y < y1), None)


def _place_by_patches(rgb: np.ndarray, lab: np.ndarray, parsed: ImageParse, reader: PatchReader,
                      proposals: list[Proposal] | None = None) -> list[Circle]:
    """Place the labels the words left missing by what the patch reader sees around each free
    circle (in place: parsed.markers gains them, parsed.missing loses them); returns the circles
    it judged.

    The candidates are the free circles found, plus fainter rings (detect.find_circles at
    FAINT_CONTRAST: a 1 px ring on noise scores below MIN_CONTRAST). A label goes to the circle
    the reader gives it most, when that probability is >= PATCH_MIN_PROBABILITY, is the circle's
    top class, no other candidate that could be a marker gives the label >= PATCH_RIVAL (else:
    which one?), and the circle matches the placed markers' rings (_rings_alike; a lone label: a
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
    probabilities = _asked_only(reader.probabilities(rgb, [(c.x, c.y) for c in candidates]), parsed)
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
            why = why or _finder_doubts(label, candidates, probabilities, proposals, parsed, placed_rings)
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
    may; see _place_by_patches). Rivals are circles reading likeliest as the label (among labels)
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
                     and (not placed_rings or _rings_alike([other, *placed_rings]))]]
    needed = PATCH_LONE_PROBABILITY if lone else PATCH_MIN_PROBABILITY
    return (f"no circle reads as {label} surely enough (best p={column[j]:.2f} < {needed})" if column[j] < needed
            else f"its likeliest circle reads more as {CLASSES[int(np.argmax(probabilities[j]))]}"
            if int(np.argmax(probabilities[j])) != CLASSES.index(label)
            else f"two circles read as {label} (p={column[j]:.2f} and {rivals.max():.2f})"
            if len(rivals) and rivals.max() >= PATCH_RIVAL
            else "its ring is incomplete for a lone marker" if lone and c.coverage < LONE_MIN_COVERAGE
            else UNLIKE_RING if not _rings_alike([c, *placed_rings])
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
    label there (D 0.99 on a 5.5 px green blob at the centre of D's 8.6 px blue ring, which no
    search had found: markers_accuracy 320x240 seed 23, image 2)."""
    column = probabilities[:, CLASSES.index(label)]
    j = int(np.argmax(column))
    c = candidates[j]
    if column[j] < PATCH_MIN_PROBABILITY or not placed_rings:
        return False
    radius = float(np.median([ring.r for ring in placed_rings]))
    ring = next((ring for ring in _rings_around(rgb, lab, int(round(c.x)), int(round(c.y)), radius)
                 if np.hypot(ring.x - c.x, ring.y - c.y) <= REFIT_OFF and _rings_alike([ring, *placed_rings])), None)
    if ring is None:
        return False
    there = _asked_only(reader.probabilities(rgb, [(ring.x, ring.y)]), parsed)[0]
    if there[CLASSES.index(label)] < PATCH_MIN_PROBABILITY:
        return False
    candidates[j], probabilities[j] = ring, there
    return True


def _finder_doubts(label: str, candidates: list[Circle], probabilities: np.ndarray,
                   proposals: list[Proposal] | None, parsed: ImageParse, placed_rings: Sequence[Circle]) -> str:
    """Why the centre finder's proposals (None: no finder) forbid `label` at the candidate circle
    the patch reader gives it most ("" when they do not).

    - The finder's nearest centre (score >= FINDER_MIN_SCORE, any label: its centres are surer
      than its labels) is AGREED_CENTRE-FINDER_NEAR px away: the circle is a small scene ring
      inside the marker's, or one fitted off-centre (right placements on markers_accuracy seeds 0
      and 5 and 200x150 seed 3: all 179 within 1.6 px of it). Not so for a ring in the placed
      markers' style (`placed_rings`; _in_markers_style): where such a ring and the finder's centre
      lay 2.1-2.2 px apart, the ring was 0.1 and 0.5 px from the drawn centre, the finder 2.1 and
      1.8 px (markers_accuracy 320x240 seed 26 image 279, seed 0 image 50).
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
    if AGREED_CENTRE < off <= FINDER_NEAR and not _in_markers_style(c, placed_rings):
        return f"its circle is centred {off:.1f} px from where the centre finder puts a marker"
    if close:
        finder_label = (max(asked, key=lambda other: nearest.scores.get(other, 0.0))
                        if off <= AGREED_CENTRE else None)
        if finder_label != label:
            return (f"its reading is close ({label} p={column[j]:.2f}, next {runner_up:.2f}) and the centre finder "
                    f"reads {finder_label or 'no marker'} there")
    return ""


def parser_networks() -> dict[str, str | None]:
    """sha256 of the weights the parser uses by default (None: not installed). Markers parsed
    from images change when these do: results record them."""
    reader, finder, corners = default_patch_reader(), default_centre_finder(), default_corner_finder()
    corner_reader, verifier = default_corner_reader(), default_outline_verifier()
    return {"patch_reader": reader.record["sha256"] if reader else None,
            "centre_finder": finder.record["sha256"] if finder else None,
            "corner_finder": corners.record["sha256"] if corners else None,
            "corner_reader": corner_reader.record["sha256"] if corner_reader else None,
            "outline_verifier": verifier.record["sha256"] if verifier else None}


def _check_by_finder(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader, proposals: list[Proposal]) -> None:
    """Take back a placed marker the finder does not read at the marker (no proposal of its label
    within AGREED_CENTRE px) but surely (>= FINDER_CONTRADICTS) reads, with the patch reader (>=
    PATCH_VETO), at another place more than FINDER_NEAR px away (a scene ring that took a label
    read beside it). The label goes back to parsed.missing, where _place_by_finder may place it
    again.

    A finder centre 2-5 px from the ring does not take it back: the ring's fit is the better
    centre. On markers_accuracy's 320x240 seeds 0, 5 and 9 and 200x150 seed 3, the shipped finder
    disagreed with a ring by that much three times: twice the ring was 0.1-0.2 px from the drawn
    centre and the finder 2.1 and 2.6 px from the ring (seed 3 image 80, seed 5 image 191), once
    both were within 2 px (seed 9 image 224). The finder before it never did."""
    strong = [p for p in proposals if p.score >= FINDER_CONTRADICTS]
    # the markers the finder reads at their centres stand (most of them: no reader call then)
    doubted = [label for label, m in parsed.markers.items()
               if not _finder_reads_at(m, proposals) and any(p.label == label for p in strong)]
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


def _check_ring_radii(parsed: ImageParse, proposals: list[Proposal] | None) -> None:
    """Re-centre or take back a placed marker whose ring's radius lies more than ODD_RADIUS px
    from the median of the other placed rings' (two rings: both, when they differ by more than
    ODD_PAIR px): the fit was drawn off by the scene
    (a ring of another size, a scene edge of its colour), and its centre with it. It moves to the
    centre finder's nearest proposal within FINDER_NEAR px that reads its label (score >=
    FINDER_MIN_SCORE); with none (or no finder), its label goes back to parsed.missing. Run last:
    the label is not placed again.

    markers_accuracy seed 1, image 259: D's 1 px ring, partly over a scene rectangle, fitted at
    13.4 px against the others' 14.7-14.9 and centred 2.1 px off, where the finder read D 0.13 px
    from the drawn centre (a question answered wrong); seed 9, image 6: a scene ring read as C
    beside it, 5.3 px against 6.3 (a wrong marker in a refused question). Two rings: fresh 640x480
    seed 21, images 219 and 252, answered with A 2.2 px off (ring 10.6 px against B's 12.4) and B
    3.8 px off (4.7 against A's 7.4)."""
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


def _place_by_finder(rgb: np.ndarray, parsed: ImageParse, reader: PatchReader, proposals: list[Proposal],
                     judged: Sequence[Circle]) -> None:
    """Place the labels still missing where the centre finder and the patch reader agree (in
    place, as _place_by_patches; `judged`: the circles _place_by_patches read).

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
    probabilities = _asked_only(reader.probabilities(rgb, [xy for xy, _, _ in places]), parsed)
    placed_rings = _placed_rings(parsed, judged)
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
        # it is that network's error, as likely as at any place: with the first finder, requiring
        # only one cost 8 of 718 markers on the benchmark's seed 0 and saved 2 wrong ones, in
        # questions refused anyway)
        rivals = [k for k in range(len(places)) if k != j
                  and finder_reads(k, label, FINDER_RIVAL) and reader_reads(k, label, PATCH_RIVAL)
                  and np.hypot(places[k][0][0] - x, places[k][0][1] - y) > SAME_CENTRE]
        why = (f"no place where the finder scores {label} >= {needed[0]} ({FINDER_MARGIN} above any other asked "
               f"label) and the patch reader reads it with p >= {needed[1]} (or {sure[0]} and {sure[1]})"
               if not agreed
               else f"{len(rivals) + 1} places read as {label} to both networks" if rivals
               else "its ring is incomplete for a lone marker" if ring is not None and lone
               and ring.coverage < LONE_MIN_COVERAGE
               else UNLIKE_RING if ring is not None and not _rings_alike([ring, *placed_rings])
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


def _in_markers_style(ring: Circle, placed_rings: Sequence[Circle]) -> bool:
    """Whether `ring` is drawn as the placed markers' rings are: alike them (_rings_alike) and its
    radius within ODD_RADIUS px of their median. False when none is placed."""
    return (bool(placed_rings) and abs(ring.r - float(np.median([c.r for c in placed_rings]))) <= ODD_RADIUS
            and _rings_alike([ring, *placed_rings]))


def _ring_beside_proposal(label: str, xy: tuple[float, float], rings: Sequence[Circle],
                          placed_rings: Sequence[Circle]) -> str:
    """Why a label may not go to a centre finder's proposal with no ring of its own at `xy` ("" when
    it may): a free ring in the placed markers' style (alike them, its radius within ODD_RADIUS of
    theirs) lies AGREED_CENTRE-FINDER_NEAR px from it. Such a ring is the label's when the patch
    reader reads it there (_finder_doubts lets it); where it does not, neither network says which
    centre is right. (Before, markers_accuracy 320x240 seed 26, image 279: D's ring, read D 0.91,
    was left because the finder put D 2.2 px from it, and D went to the finder's centre, 2.1 px
    off the drawn one, with the reader at 0.54 there: a question answered wrong.)"""
    for c in rings:
        off = float(np.hypot(c.x - xy[0], c.y - xy[1]))
        if AGREED_CENTRE < off <= FINDER_NEAR and _in_markers_style(c, placed_rings):
            return (f"the finder's centre for {label} lies {off:.1f} px from a ring in the markers' style: "
                    "which is the marker's centre is unclear")
    return ""


def _asked_only(probabilities: np.ndarray, parsed: ImageParse) -> np.ndarray:
    """(n, len(CLASSES)) patch-reader probabilities -> the same conditioned on the labels the
    image is asked for (parsed.markers and parsed.missing) or no marker.

    BLINK draws exactly the labels its choices name, so the reader's REF at a ring labelled B (its
    commonest confusion on small labels: 8 of 25 disagreements with the finder on 300 rendered
    images) is a misreading, and the asked labels' share of the rest is the reading. A row that puts
    more than UNASKED_MAX on labels not asked is kept as it is: that ring is likelier another
    drawing's (a scene's lettered circle, an E among A-D) than a misread one of ours.
    """
    asked = set(parsed.markers) | set(parsed.missing) | {NONE}
    keep = np.array([c in asked for c in CLASSES])
    unasked = probabilities[:, ~keep].sum(axis=1, keepdims=True)
    conditioned = np.where(keep, probabilities, 0.0) / np.maximum(1.0 - unasked, 1e-6)
    return np.where(unasked <= UNASKED_MAX, conditioned, probabilities)


def _placed_rings(parsed: ImageParse, judged: Sequence[Circle]) -> list[Circle]:
    """The rings (of the words' circles and the `judged` ones) the placed markers sit on."""
    placed_at = {m.xy for m in parsed.markers.values()}
    return [c for c in [*parsed.circles, *judged] if (c.x, c.y) in placed_at]


def _rings_alike(rings: list[Circle]) -> bool:
    """Radii within STYLE_RADIUS px and colours within STYLE_COLOUR (STYLE_COLOUR_THIN for thin
    rings): one question's rings (see _one_style)."""
    if len(rings) < 2:
        return True
    radii = [c.r for c in rings]
    spread = max(float(np.linalg.norm(np.subtract(a.lab, b.lab))) for a in rings for b in rings)
    thin = min(c.width for c in rings) <= THIN_RING
    return max(radii) - min(radii) <= STYLE_RADIUS and spread <= (STYLE_COLOUR_THIN if thin else STYLE_COLOUR)


def _elimination_candidates(labels: list[str], placed, circles: list[Circle], unread: list[LabelRead],
                            shape: tuple[int, int], taken: set[int] = frozenset()) -> dict[int, list[LabelRead]]:
    """{circle index: the unread words beside it} for every free circle (neither placed, of
    `placed`'s (reading, circle) pairs, nor `taken`) that may carry one of the unread `labels`.

    Every other label was placed; the drawing's style is theirs. A free circle qualifies when it
    matches that style (_one_style: radius, colour, label height; the radius more tightly, within
    ELIMINATION_RADIUS of the placed rings', as no reading backs it) and an unread word, no
    wider than a letter when the labels are letters, sits beside it where the placed labels sit
    (placement within MAX_PLACEMENT_ERROR, on their side)."""
    used = {j for _, j in placed} | set(taken)
    side = _unit(np.mean([_side(read.rect, circles[j]) for read, j in placed], axis=0))
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
            if _one_style([*placed, (word, j)], circles):
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


def _ranked(labels: list[str], options, circles: list[Circle], lone: bool) -> list[tuple[float, tuple]]:
    """Every one-to-one choice of one (reading, circle) option per label that looks drawn in one
    style (a lone label: with a complete ring and a clear reading), as (cost, combo), cheapest first."""
    ranked = []
    for combo in itertools.product(*(options[label] for label in labels)):
        used_circles = [j for _, j in combo]
        used_reads = [id(r) for r, _ in combo]
        if len(set(used_circles)) < len(combo) or len(set(used_reads)) < len(combo):
            continue
        if not _one_style(combo, circles):
            continue
        if lone and (circles[combo[0][1]].coverage < LONE_MIN_COVERAGE
                     or combo[0][0].reading.similarity < LONE_MIN_SIMILARITY):
            continue
        ranked.append((_cost(combo, circles), combo))
    return sorted(ranked, key=lambda item: item[0])


def _one_style(combo, circles: list[Circle]) -> bool:
    """Whether the chosen (reading, circle) pairs look drawn in one style, as one question's
    markers are: ring radii within STYLE_RADIUS px, ring colours within STYLE_COLOUR Lab units
    (STYLE_COLOUR_THIN between thin rings), label heights within a factor STYLE_HEIGHT. A scene
    blob read as a letter beside a scene circle rarely matches the real markers on all three.

    The label polarity is not required to agree (only preferred, in _cost): which detector finds
    a word is not the drawn polarity. Light text in the ring's colour on a dark patch of scene
    is also a light word in a dark hole ("box"), and a boxed label whose box was cut or touched
    by dark scene is found only by its ink ("colour"). Requiring one polarity lost 10 of 744
    markers (benchmarks/markers_accuracy.py, seed 0) and rejected no wrong one."""
    if len(combo) < 2:
        return True
    chosen = [circles[j] for _, j in combo]
    heights = [r.word.rect[3] - r.word.rect[1] for r, _ in combo]
    radii = [c.r for c in chosen]
    colour_spread = max(float(np.linalg.norm(np.subtract(a.lab, b.lab))) for a in chosen for b in chosen)
    thin = min(c.width for c in chosen) <= THIN_RING
    return (max(radii) - min(radii) <= STYLE_RADIUS
            and colour_spread <= (STYLE_COLOUR_THIN if thin else STYLE_COLOUR)
            and max(heights) <= STYLE_HEIGHT * min(heights))


def _options(label: str, reads: list[LabelRead]) -> list[tuple[LabelRead, int]]:
    """The MAX_OPTIONS cheapest (reading, circle index) pairs that could place `label`."""
    pairs = [(r, j) for r in reads if r.label == label for j in r.placement_errors]
    return sorted(pairs, key=lambda p: _pair_cost(p[0], p[1]))[:MAX_OPTIONS]


def _pair_cost(read: LabelRead, j: int) -> float:
    """One label's own part of _cost: how far its reading sits off circle j's placements and
    how doubtful the reading is."""
    return PLACEMENT_WEIGHT * read.placement_errors[j] + DOUBT_WEIGHT * (1.0 - read.reading.similarity)


def _cost(combo, circles: list[Circle]) -> float:
    cost = 0.0
    directions = []
    for read, j in combo:
        cost += _pair_cost(read, j)
        directions.append(_side(read.rect, circles[j]))
    if len(directions) > 1:
        mean = _unit(np.mean(directions, axis=0))
        cost += SIDE_WEIGHT * sum(1.0 - float(d @ mean) for d in directions)
        polarities = Counter(read.word.polarity for read, _ in combo)
        cost += POLARITY_WEIGHT * (len(combo) - max(polarities.values()))
    return cost


def _unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-6)


def _side(rect, c: Circle) -> np.ndarray:
    """(2,) unit vector from circle `c`'s centre to the centre of a label rect (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = rect
    return _unit(np.array([(x0 + x1) / 2 - c.x, (y0 + y1) / 2 - c.y]))
