"""One image's points parse as its passes build it, and the ring tests they share.

`ImageParse` holds what is known so far: markers placed, labels missing (label -> why), the
circles found, the words read as labels (`LabelRead`: word, reading, placement error per
circle) and what elimination weighs. Each pass (words_to_rings, elimination, patch_opinion,
finder_opinion) edits it in place. The helpers answer what several passes ask: is a ring drawn
as the placed markers' are (`rings_alike`, `in_markers_style`), is there a ring of radius r
at a place (`rings_around`, `ring_inside`), and what the patch reader reads among the asked
labels (`asked_only`: (n, len(CLASSES)) probabilities -> the same, conditioned).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.glyphs import Reading
from adapters.markers.general.nets.patch_reader import CLASSES, NONE
from adapters.markers.general.points.rings import Circle, verify_circle
from adapters.markers.general.points.words import Word
from adapters.markers.general.thresholds import (
    AGREED_CENTRE,
    FAINT_CONTRAST,
    ODD_RADIUS,
    STYLE_COLOUR,
    STYLE_COLOUR_THIN,
    STYLE_RADIUS,
    THIN_RING,
    UNASKED_MAX,
)
from adapters.markers.types import Marker

if TYPE_CHECKING:  # the boxes fitted on an image are kept with its points' parse; no import at run time
    from adapters.markers.general.boxes.outline import Outline

# a verdict's reason; patch_opinion._refit_in_style answers _patch_verdict's
UNLIKE_RING = "its ring is unlike the other markers' rings"


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
    # what elimination weighs (elimination.place_by_elimination): words of label height read as
    # nothing, the (reading, circle index) of each label the words placed, and the labels left
    # ambiguous
    unread: list[LabelRead] = field(default_factory=list)
    word_pairs: dict[str, tuple[LabelRead, int]] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    # circles the words' elimination left, as many as its labels: circle index -> the unread words beside it
    eliminable: dict[int, list[LabelRead]] = field(default_factory=dict)


def unread_labels(parsed: ImageParse) -> list[str]:
    """The missing labels no word was read as anywhere (elimination's labels)."""
    return [label for label in parsed.missing if parsed.circles and not any(r.label == label for r in parsed.reads)]


def finder_reads_at(marker: Marker, proposals: list[Proposal] | None, min_score: float = 0.0) -> bool:
    """Whether a centre finder proposal within AGREED_CENTRE px of `marker` reads its label
    likeliest, with a score >= `min_score`."""
    return any(p.label == marker.label and p.score >= min_score
               and np.hypot(p.x - marker.xy[0], p.y - marker.xy[1]) <= AGREED_CENTRE for p in proposals or ())


def rings_around(rgb: np.ndarray, lab: np.ndarray, cx: int, cy: int, r: float) -> Iterator[Circle]:
    """The drawn rings of radius about `r` (±0.5 px) that verify at (cx, cy) or a pixel around it,
    faint ones too (FAINT_CONTRAST), nearest start first."""
    for dx, dy in itertools.product((0, -1, 1), repeat=2):
        for radius in (r, r - 0.5, r + 0.5):
            ring = verify_circle(rgb, lab, cx + dx, cy + dy, radius, FAINT_CONTRAST)
            if ring is not None:
                yield ring


def ring_inside(rgb: np.ndarray, lab: np.ndarray, rect, r: float) -> Circle | None:
    """A drawn ring of radius about `r` centred inside `rect` (x0, y0, x1, y1) (rings_around the
    rect's centre); None when there is none."""
    x0, y0, x1, y1 = rect
    cx, cy = int(round((x0 + x1 - 1) / 2)), int(round((y0 + y1 - 1) / 2))
    return next((ring for ring in rings_around(rgb, lab, cx, cy, r)
                 if x0 <= ring.x < x1 and y0 <= ring.y < y1), None)


def in_markers_style(ring: Circle, placed_rings: Sequence[Circle]) -> bool:
    """Whether `ring` is drawn as the placed markers' rings are: alike them (rings_alike) and its
    radius within ODD_RADIUS px of their median. False when none is placed."""
    return (bool(placed_rings) and abs(ring.r - float(np.median([c.r for c in placed_rings]))) <= ODD_RADIUS
            and rings_alike([ring, *placed_rings]))


def asked_only(probabilities: np.ndarray, parsed: ImageParse) -> np.ndarray:
    """(n, len(CLASSES)) patch-reader probabilities -> the same conditioned on the labels the
    image is asked for (parsed.markers and parsed.missing) or no marker.

    BLINK draws exactly the labels its choices name, so the reader's REF at a ring labelled B (its
    commonest confusion on small labels) is a misreading, and the asked labels' share of the rest
    is the reading. A row that puts more than UNASKED_MAX on labels not asked is kept as it is:
    that ring is likelier another drawing's (a scene's lettered circle, an E among A-D) than a
    misread one of ours.
    """
    asked = set(parsed.markers) | set(parsed.missing) | {NONE}
    keep = np.array([c in asked for c in CLASSES])
    unasked = probabilities[:, ~keep].sum(axis=1, keepdims=True)
    conditioned = np.where(keep, probabilities, 0.0) / np.maximum(1.0 - unasked, 1e-6)
    return np.where(unasked <= UNASKED_MAX, conditioned, probabilities)


def rings_of_placed(parsed: ImageParse, judged: Sequence[Circle]) -> list[Circle]:
    """The rings (of the words' circles and the `judged` ones) the placed markers sit on."""
    placed_at = {m.xy for m in parsed.markers.values()}
    return [c for c in [*parsed.circles, *judged] if (c.x, c.y) in placed_at]


def rings_alike(rings: list[Circle]) -> bool:
    """Radii within STYLE_RADIUS px and colours within STYLE_COLOUR (STYLE_COLOUR_THIN for thin
    rings): one question's rings (see words_to_rings.one_style)."""
    if len(rings) < 2:
        return True
    radii = [c.r for c in rings]
    spread = max(float(np.linalg.norm(np.subtract(a.lab, b.lab))) for a in rings for b in rings)
    thin = min(c.width for c in rings) <= THIN_RING
    return max(radii) - min(radii) <= STYLE_RADIUS and spread <= (STYLE_COLOUR_THIN if thin else STYLE_COLOUR)
