"""What the marker parser returns: one `Marker` per drawn label, grouped per image in a `MarkerSet`.

Coordinates are in the image's own pixels, x to the right, y down, as in BLINK's images.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from adapters.core.questions import QuestionError


class MarkerError(QuestionError):
    """The expected markers of a question could not all be found with confidence.

    `missing` maps image key ("image_1") -> the labels not found there; `reason` says why.
    The runner records the message as that question's error and goes on.
    """

    def __init__(self, idx: str, missing: Mapping[str, list[str]], reason: str) -> None:
        self.idx = idx
        self.missing = {k: list(v) for k, v in missing.items()}
        self.reason = reason
        where = "; ".join(f"{', '.join(labels)} on {key}" for key, labels in self.missing.items())
        super().__init__(f"{idx}: markers not found: {where or 'none'} ({reason})")


@dataclass(frozen=True)
class Marker:
    """One labelled marker on one image.

    xy: the point (circle centre; for a box, the box centre). box: (x0, y0, x1, y1) for a drawn
    box, else None. radius / ring_width: the circle drawn (None when unknown, e.g. from a sidecar).
    label_box: (x0, y0, x1, y1) of the label's ink (or its dark box) when it was read from the image.
    source: "parsed", "elimination" (its label was not read: the one label left, or read only
    against the labels left; see points.elimination and, for boxes, boxes.elimination),
    "patch" (read by the patch reader from the pixels around the ring; see
    points.patch_opinion.place_by_patches), "finder" (proposed by the centre finder and read by
    the patch reader; see points.finder_opinion.place_by_finder), "blink_style" (read in BLINK's
    own drawing; see blink_style/), "blink_style.elimination" (a whole ring in BLINK's drawing,
    its label cut away by the image's edge, the one label left), "sidecar" or "generated".
    """

    label: str
    xy: tuple[float, float]
    confidence: float = 1.0
    box: tuple[float, float, float, float] | None = None
    radius: float | None = None
    ring_width: float | None = None
    label_box: tuple[int, int, int, int] | None = None
    colour: tuple[int, int, int] | None = None
    source: str = "parsed"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"xy": [round(float(self.xy[0]), 2), round(float(self.xy[1]), 2)],
                               "confidence": round(float(self.confidence), 4)}
        if self.box is not None:
            out["box"] = [round(float(v), 2) for v in self.box]
        # not placed by a label read beside it: worth a look
        if self.source in ("elimination", "patch", "finder", "blink_style.elimination"):
            out["source"] = self.source
        return out


@dataclass
class MarkerSet:
    """The markers of one question: images[image_key][label] -> Marker."""

    idx: str
    images: dict[str, dict[str, Marker]] = field(default_factory=dict)

    def marker(self, image_key: str, label: str) -> Marker:
        try:
            return self.images[image_key][label]
        except KeyError:
            raise MarkerError(self.idx, {image_key: [label]}, "this label was not asked for or not found") from None

    def point(self, image_key: str, label: str) -> tuple[float, float]:
        """(x, y) of `label` on `image_key` ("image_1", ...); MarkerError when absent."""
        return self.marker(image_key, label).xy

    def points(self, image_key: str) -> dict[str, tuple[float, float]]:
        return {label: m.xy for label, m in self.images.get(image_key, {}).items()}

    def to_json(self) -> dict[str, dict[str, dict[str, Any]]]:
        """The "markers" field of a markers.jsonl line."""
        return {key: {label: m.to_json() for label, m in sorted(found.items())}
                for key, found in sorted(self.images.items())}
