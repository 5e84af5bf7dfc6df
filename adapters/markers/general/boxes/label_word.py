"""Read the word written at a drawn box's top-left corner: a second opinion on its label.

The corner finder (nets.corner_finder) reads a box's label from the whole image; on a rectangle
labelled with a letter that is no label (an "F" beside boxes A-C) it can still score a label.
The glyph classifier (nets.glyphs) knows the other letters and digits too, so it can say "this is
an F": `read_corner` finds the label's word where draw.render.draw_boxes writes it at the top-left corner
and reads it. A word that clearly reads as another class takes that label away from the corner
(`CornerReading.contradicts`); one that clearly reads as the label backs the finder's reading
(`CornerReading.confirms`); an unreadable word (small, smeared by JPEG) leaves the finder's
reading as it is.

    reading = read_corner(lab, outline, ("A", "B"), default_classifier())
    reading.contradicts("B")  # True when the word clearly reads as F (or A, or 8...)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from adapters.markers.general.boxes.outline import Outline, tolerance
from adapters.markers.general.nets.glyphs import MIN_SIMILARITY, GlyphClassifier
from adapters.markers.general.points.rings import Circle
from adapters.markers.general.points.words import Word, box_text_words, colour_text_words
from adapters.markers.general.thresholds import (
    BOX_DARK,
    CLEAR_MARGIN,
    GAP_SLACK,
    LABEL_REACH,
    LABEL_ZONE,
    LEFT_SLACK,
    MIN_HEIGHT,
    MIN_LABEL_DARK,
    MIN_LABEL_INK,
    STROKE_MARGIN,
    ZONE_GAP,
)

# classes of one or two straight strokes: what a piece of a line reads as (another box's side
# crossing the label, a glyph's stem cut off where it touches a line), so they never contradict
LINE_LIKE = frozenset("IJLT17")


@dataclass(frozen=True)
class CornerReading:
    """What the word at a box's corner reads as most clearly (`nearest`: any class the glyph
    classifier knows, letters and digits included) with that similarity, and its similarity to
    each label asked about; `word`: that word's rectangle (x0, y0, x1, y1), exclusive ends."""

    nearest: str
    similarity: float
    label_similarities: dict[str, float]
    word: tuple[int, int, int, int] | None = None

    def confirms(self, label: str) -> bool:
        """Whether the word clearly reads as `label`: its nearest class, read with at least
        nets.glyphs.MIN_SIMILARITY and CLEAR_MARGIN more than any other label asked about."""
        others = [v for other, v in self.label_similarities.items() if other != label]
        return (self.nearest == label and self.similarity >= MIN_SIMILARITY
                and self.similarity - max(others, default=-1.0) >= CLEAR_MARGIN)

    def contradicts(self, label: str) -> bool:
        """Whether the word clearly reads as something other than `label`: its nearest class is
        another (not LINE_LIKE), read with at least nets.glyphs.MIN_SIMILARITY and CLEAR_MARGIN more
        than `label`."""
        return (self.nearest != label and self.nearest not in LINE_LIKE and self.similarity >= MIN_SIMILARITY
                and self.similarity - self.label_similarities[label] >= CLEAR_MARGIN)


def something_written(lab: np.ndarray, outline: Outline) -> bool:
    """Whether anything is written where `outline`'s label goes (above its top-left corner, or
    inside it where there is no room above: both are looked at when the top side is too near the
    border for the tallest label, LABEL_ZONE's height and ZONE_GAP, but not for the smallest),
    read or not: MIN_LABEL_INK px of the box's colour there, or MIN_LABEL_DARK of it as dark as a
    label's box. A label touching another box's line (one component with it) or drawn over it is
    no word corner_words can isolate, but its ink is there; an unlabelled rectangle's corner has
    the scene there."""
    H, W = lab.shape[:2]
    half = outline.width / 2
    tall, wide = LABEL_ZONE
    x0 = int(round(outline.x0 - half))
    above = int(round(outline.y0 - half - 1))
    zones = []
    if above >= 9:  # room for the smallest label above the corner (8 px and its gap)
        zones.append(lab[max(above - tall, 0):above, max(x0, 0):x0 + wide])
    if above < tall + ZONE_GAP:  # no room for the tallest: written inside the box, right of its left side
        below = int(round(outline.y0 + half + 1))
        zones.append(lab[below:below + tall, max(int(round(outline.x0 + half + 1)), 0):x0 + wide])
    return any(_ink_or_dark_box(zone, outline) for zone in zones if zone.size)


def _ink_or_dark_box(zone: np.ndarray, outline: Outline) -> bool:
    ink = np.linalg.norm(zone - np.asarray(outline.lab), axis=-1) <= tolerance(outline.width, outline.contrast)
    return int(ink.sum()) >= MIN_LABEL_INK or float((zone[..., 0] < BOX_DARK).mean()) >= MIN_LABEL_DARK


def corner_words(lab: np.ndarray, outline: Outline) -> list[Word]:
    """The words where draw_boxes writes the label of `outline`: starting at the left side's
    stroke, and ending 1-4 px above the top side's stroke (either polarity), or, light text on a
    dark box, starting that far below it (no room above: the label is inside the box).

    The box's own strokes are dropped first. A label written inside the box in the box's colour
    is not looked for: it starts on the left side's stroke, so dropping the stroke cuts its first
    stroke off (a "B" reads as an "I"). A dark label box covers the strokes instead, so that one
    is read with the strokes kept, whatever their colour: its light text is a hole of the dark
    mask either way."""
    H, W = lab.shape[:2]
    half = outline.width / 2 + STROKE_MARGIN
    yy, xx = np.mgrid[0:H, 0:W]
    strokes = ((np.abs(yy - outline.y0) <= half) & (xx >= outline.x0 - half) & (xx <= outline.x1 + half)) | (
        (np.abs(xx - outline.x0) <= half) & (yy >= outline.y0 - half) & (yy <= outline.y1 + half))
    # the search window is a "circle" of radius 0 at the corner; only its colour and contrast matter
    corner = Circle(outline.x0, outline.y0, 0.0, 0.0, (0, 0, 0), outline.lab, outline.contrast, 1.0, 0.0)
    words = [*colour_text_words(lab, corner, [], LABEL_REACH, drop=strokes),
             *box_text_words(lab, corner, LABEL_REACH, [corner], drop=strokes)]
    inside = box_text_words(lab, corner, LABEL_REACH, [corner])
    edge = outline.width / 2  # the stroke's outer edge, from its centre line

    def placed(word: Word, below: bool) -> bool:
        x0, y0, x1, y1 = word.box_rect or word.rect
        if word.rect[3] - word.rect[1] < MIN_HEIGHT:
            return False
        if not LEFT_SLACK[0] <= x0 - (outline.x0 - edge) <= LEFT_SLACK[1]:
            return False
        if below:  # rows between the stroke and the word's first row
            return GAP_SLACK[0] <= y0 - (outline.y0 + edge) <= GAP_SLACK[1]
        return GAP_SLACK[0] <= (outline.y0 - edge) - y1 <= GAP_SLACK[1] + 1  # y1: exclusive

    words = [w for w in words if placed(w, False)] + [w for w in inside if placed(w, True)]
    # one glyph split into its strokes at some ink level (a "B" into "I" and "3"): only whole words count
    return [w for w in words if not any(_inside(w.rect, other.rect) for other in words)]


def _inside(inner, outer) -> bool:
    return inner != outer and outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def read_corner(lab: np.ndarray, outline: Outline, labels: tuple[str, ...],
                classifier: GlyphClassifier, skip: tuple[int, int, int, int] | None = None) -> CornerReading | None:
    """The clearest reading of the words at `outline`'s corner, with their best similarity to
    each of `labels`; None when no word was found there. `skip`: a word's rectangle not to read
    (another box's label), with every word covering half of it or more (that label merged with
    ink beside it)."""
    words = [w for w in corner_words(lab, outline) if skip is None or not _covers(w.rect, skip)]
    if not words:
        return None
    masks = [w.mask for w in words]
    readings = classifier.read_many(masks)
    k = max(range(len(words)), key=lambda i: readings[i].similarity)
    similarities = classifier.label_similarities(masks, tuple(labels)).max(axis=0)
    return CornerReading(readings[k].nearest, float(readings[k].similarity),
                         {label: float(v) for label, v in zip(labels, similarities)},
                         tuple(int(v) for v in words[k].rect))


def _covers(rect, other) -> bool:
    """Whether `rect` overlaps half of `other`'s area or more (rectangles (x0, y0, x1, y1), exclusive ends)."""
    w = min(rect[2], other[2]) - max(rect[0], other[0])
    h = min(rect[3], other[3]) - max(rect[1], other[1])
    return w > 0 and h > 0 and 2 * w * h >= (other[2] - other[0]) * (other[3] - other[1])
