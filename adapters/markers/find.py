"""`find_markers(question)`: where every expected label of a question is, or a MarkerError.

The question-level step over the image parsers: positions given with the question (a --markers
file, a generator) win; otherwise each image is read in BLINK's own style first (points:
blink_style.points; Object_Localization's boxes: blink_style.boxes), and the labels that pass
leaves by the general readers (points: points.parse.parse_image; boxes: boxes.read.read_boxes).
Images larger than MAX_PARSE_SIDE are read shrunk and their markers mapped back. One parse per
question object is cached.

    find_markers(question) -> MarkerSet      parse_question(question) -> (MarkerSet, details)
    parse_details(question) -> {image key: ImageParse}   (what the last find_markers saw)
    markers_used(question) -> MarkerSet | None            (what it placed, for the run's record)
"""

from __future__ import annotations

import weakref
from dataclasses import replace
from typing import Mapping, Sequence

import cv2
import numpy as np

from adapters.core.questions import MCQuestion
from adapters.markers.blink.boxes import read_blink_boxes
from adapters.markers.blink.points import read_blink_points
from adapters.markers.general.boxes.outline_verifier import default_outline_verifier
from adapters.markers.general.boxes.read import read_boxes
from adapters.markers.general.nets.centre_finder import default_centre_finder
from adapters.markers.general.nets.corner_finder import WEIGHTS as CORNER_WEIGHTS
from adapters.markers.general.nets.corner_finder import default_corner_finder
from adapters.markers.general.nets.corner_reader import default_corner_reader
from adapters.markers.general.nets.glyphs import GlyphClassifier
from adapters.markers.general.nets.patch_reader import default_patch_reader
from adapters.markers.general.points import parse
from adapters.markers.labels import MARKER_TASKS, expected_markers, ring_colour
from adapters.markers.types import Marker, MarkerError, MarkerSet

# One parse per question object: rules ask for points and for clean images separately.
_PARSED: dict[int, tuple[tuple, MarkerSet | MarkerError, dict]] = {}


def _forget(key: int) -> None:
    _PARSED.pop(key, None)


def known_markers(question: MCQuestion) -> MarkerSet:
    """The MarkerSet of positions given with the question (sidecar / generator)."""
    images = {}
    for key, found in (question.markers or {}).items():
        images[key] = {}
        for label, value in found.items():
            value = [float(v) for v in value]
            if len(value) == 4:
                images[key][label] = Marker(label, ((value[0] + value[2]) / 2, (value[1] + value[3]) / 2),
                                            1.0, box=tuple(value), source="sidecar")
            else:
                images[key][label] = Marker(label, (value[0], value[1]), 1.0, source="sidecar")
    return MarkerSet(question.idx, images)


def general_read(rgb: np.ndarray, kind: str, labels: Sequence[str], classifier: GlyphClassifier | None = None,
                 corner_finder=None) -> parse.ImageParse:
    """The general parser (markers/general/): drawings of any style, read by its networks and
    thresholds. Points: parse_image; boxes: read_boxes (needs the corner finder)."""
    if kind == "box":
        if corner_finder is None:
            why = (f"the corner finder's weights ({CORNER_WEIGHTS}) are not installed: make them with "
                   "`python -m train.markers_corners`, or give the boxes with --markers FILE")
            return parse.ImageParse({}, {label: why for label in labels}, [], [])
        markers, missing, outlines = read_boxes(rgb, list(labels), corner_finder)
        return parse.ImageParse(markers, missing, [], [], outlines)
    return parse.parse_image(rgb, list(labels), classifier)


def blink_first(rgb: np.ndarray, kind: str, labels: Sequence[str], colour: Sequence[int],
                classifier: GlyphClassifier | None = None, corner_finder=None) -> parse.ImageParse:
    """A BLINK task's image: BLINK's own drawing read first (markers/blink/, source "blink_style");
    the labels it leaves, and only those, fall back to the general parser (`general_read`). A
    point the fallback puts on a ring the first pass gave another label is not taken."""
    first = read_blink_boxes(rgb, labels) if kind == "box" else read_blink_points(rgb, labels, colour)
    if not first.missing:
        return parse.ImageParse(dict(first.markers), {}, [], [])
    rest = general_read(rgb, kind, labels, classifier, corner_finder)
    name = "general reader" if kind == "box" else "general parser"
    markers, missing = dict(first.markers), {}
    for label, why in first.missing.items():
        marker = rest.markers.get(label)
        taken = kind == "point" and marker is not None and any(
            float(np.hypot(marker.xy[0] - m.xy[0], marker.xy[1] - m.xy[1])) <= (m.radius or 5.0) + 2
            for m in first.markers.values())
        if marker is not None and not taken:
            markers[label] = marker
        elif marker is not None:
            missing[label] = f"BLINK's style: {why}; {name}: placed on a ring BLINK's style gives another label"
        elif label in rest.missing or kind == "box":
            missing[label] = f"BLINK's style: {why}; {name}: {rest.missing.get(label, 'not placed')}"
        # else neither pass accounts for it: parse_question's safety net says so
    return replace(rest, markers=markers, missing=missing)


# Long side (px) markers are looked for at: BLINK's images are smaller; a larger one is read
# shrunk (time and memory grow with its area) and its markers mapped back to its own pixels.
MAX_PARSE_SIDE = 2000


def _bounded(rgb: np.ndarray) -> tuple[np.ndarray, float]:
    """(rgb shrunk to MAX_PARSE_SIDE on its long side when larger, the factor back to the original)."""
    side = max(rgb.shape[:2])
    if side <= MAX_PARSE_SIDE:
        return rgb, 1.0
    factor = side / MAX_PARSE_SIDE
    size = (round(rgb.shape[1] / factor), round(rgb.shape[0] / factor))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA), factor


def _scaled(marker: Marker, factor: float) -> Marker:
    """`marker` found on an image shrunk by `factor`, in the original image's pixels."""
    def scale(values):
        return None if values is None else tuple(float(v) * factor for v in values)

    box = scale(marker.box)
    label_box = None if marker.label_box is None else tuple(int(round(v * factor)) for v in marker.label_box)
    return replace(marker, xy=(marker.xy[0] * factor, marker.xy[1] * factor), box=box, label_box=label_box,
                   radius=None if marker.radius is None else marker.radius * factor,
                   ring_width=None if marker.ring_width is None else marker.ring_width * factor)


def parse_question(question: MCQuestion, labels: Mapping[str, Sequence[str]] | None = None,
                   classifier: GlyphClassifier | None = None) -> tuple[MarkerSet, dict[str, parse.ImageParse]]:
    """Parse the drawn markers of every image: (markers found, per-image details). Never raises
    MarkerError: missing labels are in the details (ImageParse.missing). Points on a BLINK
    task's images are read in BLINK's own style first (blink_first)."""
    # the kind of drawing is the task's (Object_Localization draws boxes), whoever names the labels
    kind = MARKER_TASKS[question.task][0] if question.task in MARKER_TASKS else "point"
    if labels is None:
        expected = expected_markers(question)
        kind, labels = expected.kind, expected.labels
    corner_finder = default_corner_finder() if kind == "box" else None
    if kind == "box" and corner_finder is None and question.task not in MARKER_TASKS:
        raise MarkerError(question.idx, dict(labels),
                          f"drawn boxes are read by the corner finder, and {CORNER_WEIGHTS} is not installed: "
                          "make it with `python -m train.markers_corners`, or give the boxes with --markers FILE")
    images = question.images
    found = MarkerSet(question.idx)
    details: dict[str, parse.ImageParse] = {}
    for key, wanted in labels.items():
        index = int(key.split("_")[1]) - 1
        if not 0 <= index < len(images):
            details[key] = parse.ImageParse({}, {label: f"the question has no {key}" for label in wanted}, [], [])
            continue
        rgb, factor = _bounded(np.asarray(images[index].convert("RGB")))
        if question.task in MARKER_TASKS:
            details[key] = blink_first(rgb, kind, list(wanted), ring_colour(question.task), classifier, corner_finder)
        else:
            details[key] = general_read(rgb, kind, list(wanted), classifier, corner_finder)
        for label in wanted:  # a safety net: a label the steps above neither placed nor refused
            if label not in details[key].markers and label not in details[key].missing:
                details[key].missing[label] = "not found (no step of the parser placed it or said why)"
        if factor != 1.0:
            details[key].markers = {label: _scaled(m, factor) for label, m in details[key].markers.items()}
        found.images[key] = details[key].markers
    return found, details


def find_markers(question: MCQuestion, labels: Mapping[str, Sequence[str]] | None = None) -> MarkerSet:
    """Every expected marker of `question`, or MarkerError naming the missing labels and why.

    labels: image key -> labels to find (default: derived from the task and choices by
    labels.expected_markers). Positions given with the question (`question.markers`, from a
    --markers sidecar or a generator) win over parsing. Results are cached per question object.
    """
    if question.markers is not None:
        known = known_markers(question)
        wanted = labels or expected_markers(question).labels
        missing = {k: [l for l in v if l not in known.images.get(k, {})] for k, v in wanted.items()}
        missing = {k: v for k, v in missing.items() if v}
        if missing:
            raise MarkerError(question.idx, missing, "the markers file does not give them")
        return known
    key = tuple(sorted((k, tuple(v)) for k, v in labels.items())) if labels else None
    cached = _PARSED.get(id(question))
    if cached is None or cached[0] != key:
        try:
            found, details = parse_question(question, labels)
            missing = {k: sorted(d.missing) for k, d in details.items() if d.missing}
            if missing:
                reasons = sorted({why for d in details.values() for why in d.missing.values()})
                result: MarkerSet | MarkerError = MarkerError(question.idx, missing, "; ".join(reasons))
            else:
                result = found
        except MarkerError as exc:
            result, details = exc, {}
        if cached is None:
            weakref.finalize(question, _forget, id(question))
        _PARSED[id(question)] = (key, result, details)
        cached = _PARSED[id(question)]
    if isinstance(cached[1], MarkerError):
        raise cached[1]
    return cached[1]


def markers_used(question: MCQuestion) -> MarkerSet | None:
    """The markers a rule was given for `question`, without finding them again: the positions
    given with it, else what the last find_markers placed (all of them, or the labels found
    before it failed); None when no rule asked for markers."""
    if question.markers is not None:
        return known_markers(question)
    cached = _PARSED.get(id(question))
    if cached is None:
        return None
    if isinstance(cached[1], MarkerSet):
        return cached[1]
    placed = {key: dict(d.markers) for key, d in cached[2].items() if d.markers}
    return MarkerSet(question.idx, placed) if placed else None


def parse_details(question: MCQuestion) -> dict[str, parse.ImageParse]:
    """The per-image details of the last find_markers(question) (empty if it never parsed)."""
    cached = _PARSED.get(id(question))
    return cached[2] if cached else {}


def parser_networks() -> dict[str, str | None]:
    """sha256 of the weights the marker parser uses by default (None: not installed). Markers parsed
    from images change when these do: results record them."""
    reader, finder, corners = default_patch_reader(), default_centre_finder(), default_corner_finder()
    corner_reader, verifier = default_corner_reader(), default_outline_verifier()
    return {"patch_reader": reader.record["sha256"] if reader else None,
            "centre_finder": finder.record["sha256"] if finder else None,
            "corner_finder": corners.record["sha256"] if corners else None,
            "corner_reader": corner_reader.record["sha256"] if corner_reader else None,
            "outline_verifier": verifier.record["sha256"] if verifier else None}
