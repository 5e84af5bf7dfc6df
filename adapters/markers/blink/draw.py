"""BLINK's own point markers, drawn as the benchmark drew them (OpenCV 4.x, no anti-aliasing).

Relative_Depth (500 px images), measured pixel for pixel on real val images:

    cv2.circle(img, (cx, cy), 5, colour, thickness=2)
    (w, h) = getTextSize(L, FONT_HERSHEY_DUPLEX, 0.5, 1); org = (cx - w // 2, cy - 18)
    black box (org.x - 1, org.y - h - 1) .. (org.x + w + 1, org.y + 1), L in white at org

The correspondence tasks use the same scheme on larger images with ring and text grown with the
image (`BlinkStyle.scaled`), Relative_Reflectance white rings. A label whose box would start
above the image goes under the ring; near the left or right edge the label is shifted inside
(by at most half its width) and its box cut.

Object_Localization's boxes (from the project page; sizes approximate, so scaled like points):
a hollow rectangle 2 px wide, A red and B green, each label on a filled tab of its box's colour
hanging inside under the top-left corner, white text on red, black on green; B drawn first, so
A's lines and tab lie over B's.

    draw_blink_points(image, {label: (x, y)}, BlinkStyle()) -> image     (and the label boxes)
    draw_blink_boxes(image, {label: (x0, y0, x1, y1)}, BlinkBoxStyle()) -> image (and the tabs)
    blink_jpeg(image) -> image                                          (as BLINK stores them)
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Mapping, Sequence

import cv2
import numpy as np
from PIL import Image

from adapters.markers.blink.hershey import FONT_SCALES, Glyph, glyph

RED = (255, 0, 0)


GREEN = (0, 255, 0)


WHITE = (255, 255, 255)


BLACK = (0, 0, 0)


BOX_COLOURS = {"A": RED, "B": GREEN}  # Object_Localization: each box's colour, and its tab's


TAB_TEXT = {"A": WHITE, "B": BLACK}  # the label's colour on its tab


@dataclass(frozen=True)
class BlinkStyle:
    """BLINK's marker geometry at one scale. Defaults: Relative_Depth's (scale 1).

    radius, ring_thickness: cv2.circle's. font_scale, text_thickness: putText's (Hershey duplex).
    offset: px from the ring's centre up to the label's baseline (org.y = cy - offset).
    """

    colour: tuple[int, int, int] = RED
    radius: int = 5
    ring_thickness: int = 2
    font_scale: float = 0.5
    text_thickness: int = 1
    offset: int = 18

    @classmethod
    def scaled(cls, scale: float, colour: tuple[int, int, int] = RED) -> "BlinkStyle":
        """Every length times `scale` (1: Relative_Depth's), font scale on the derived grid."""
        font_scale = min(FONT_SCALES, key=lambda s: abs(s - 0.5 * scale))
        return cls(colour=tuple(colour), radius=max(2, round(5 * scale)), ring_thickness=max(1, round(2 * scale)),
                   font_scale=font_scale, text_thickness=max(1, min(4, round(scale))), offset=round(18 * scale))

    @classmethod
    def for_image(cls, width: int, height: int, colour: tuple[int, int, int] = RED) -> "BlinkStyle":
        """The style BLINK's scheme gives an image of this size: scale = long side / 500, at least 1."""
        return cls.scaled(max(1.0, max(width, height) / 500.0), colour)

    def glyph(self, label: str) -> Glyph:
        return glyph(label, self.font_scale, self.text_thickness)


def label_origin(style: BlinkStyle, label: str, centre: tuple[int, int], width: int) -> tuple[int, int]:
    """putText's org for `label` of the marker at integer `centre` on an image `width` px wide:
    centred above the ring, under it when the box would start above the image, and shifted
    inside (at most half the text's width) near the left and right edges."""
    g = style.glyph(label)
    cx, cy = centre
    x = min(max(cx - g.width // 2, 0), max(width - g.width, 0))
    y = cy - style.offset
    if y < 0:
        y = cy + style.offset + g.height
    return x, y


def label_box(style: BlinkStyle, label: str, org: tuple[int, int]) -> tuple[int, int, int, int]:
    """The filled box (x0, y0, x1, y1), inclusive, behind the text written at `org`."""
    g = style.glyph(label)
    return org[0] - 1, org[1] - g.height - 1, org[0] + g.width + 1, org[1] + 1


def _paste_ink(array: np.ndarray, ink: np.ndarray, left: int, top: int, colour) -> None:
    H, W = array.shape[:2]
    h, w = ink.shape
    x0, y0, x1, y1 = max(0, left), max(0, top), min(W, left + w), min(H, top + h)
    if x0 < x1 and y0 < y1:
        array[y0:y1, x0:x1][ink[y0 - top:y1 - top, x0 - left:x1 - left]] = colour


def draw_blink_points(image, points: Mapping[str, Sequence[float]], style: BlinkStyle | None = None):
    """Draw every {label: (x, y)} as BLINK did (centres rounded to whole pixels); returns
    (image of the input's type, {label: label box (x0, y0, x1, y1) inclusive})."""
    style = style or BlinkStyle()
    was_pil = isinstance(image, Image.Image)
    array = np.array(image.convert("RGB")) if was_pil else np.array(image, copy=True)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f"expected a PIL image or an (H, W, 3) uint8 array, got {array.dtype} {array.shape}")
    boxes = {}
    for label, xy in points.items():
        centre = (int(round(float(xy[0]))), int(round(float(xy[1]))))
        cv2.circle(array, centre, style.radius, tuple(int(c) for c in style.colour), style.ring_thickness, cv2.LINE_8)
        g = style.glyph(label)
        org = label_origin(style, label, centre, array.shape[1])
        x0, y0, x1, y1 = label_box(style, label, org)
        cv2.rectangle(array, (x0, y0), (x1, y1), BLACK, -1, cv2.LINE_8)
        _paste_ink(array, g.ink, org[0] + g.left, org[1] + g.top, WHITE)
        boxes[label] = (x0, y0, x1, y1)
    return (Image.fromarray(array) if was_pil else array), boxes


@dataclass(frozen=True)
class BlinkBoxStyle:
    """Object_Localization's boxes at one scale: line `thickness` (cv2.rectangle's), label glyphs
    (Hershey duplex at font_scale / text_thickness) on a tab `pad` px larger on every side."""

    thickness: int = 2
    font_scale: float = 0.5
    text_thickness: int = 1
    pad: int = 2

    @classmethod
    def for_image(cls, width: int, height: int) -> "BlinkBoxStyle":
        """Lengths grown with the image as the points' are: scale = long side / 500, at least 1."""
        scale = max(1.0, max(width, height) / 500.0)
        font_scale = min(FONT_SCALES, key=lambda s: abs(s - 0.5 * scale))
        return cls(thickness=max(2, round(2 * scale)), font_scale=font_scale,
                   text_thickness=max(1, min(4, round(scale))), pad=max(2, round(2 * scale)))

    def glyph(self, label: str) -> Glyph:
        return glyph(label, self.font_scale, self.text_thickness)


def tab_box(style: BlinkBoxStyle, label: str, corner: tuple[int, int]) -> tuple[int, int, int, int]:
    """The filled tab (x0, y0, x1, y1), inclusive, under the box's top-left `corner`."""
    g = style.glyph(label)
    x0, y0 = corner
    return x0, y0, x0 + g.width + 2 * style.pad, y0 + g.height + 2 * style.pad


def draw_blink_boxes(image, boxes: Mapping[str, Sequence[float]], style: BlinkBoxStyle | None = None):
    """Draw every {label: (x0, y0, x1, y1)} as BLINK's Object_Localization does (corners rounded
    to whole pixels; labels in reverse order, so A's box lies over B's); returns (image of the
    input's type, {label: tab (x0, y0, x1, y1) inclusive})."""
    style = style or BlinkBoxStyle()
    was_pil = isinstance(image, Image.Image)
    array = np.array(image.convert("RGB")) if was_pil else np.array(image, copy=True)
    tabs = {}
    for label in sorted(boxes, reverse=True):
        if label not in BOX_COLOURS:
            raise ValueError(f"BLINK's boxes are A (red) and B (green); no colour for label {label!r}")
        colour = BOX_COLOURS[label]
        x0, y0, x1, y1 = (int(round(float(v))) for v in boxes[label])
        cv2.rectangle(array, (x0, y0), (x1, y1), colour, style.thickness, cv2.LINE_8)
        tab = tab_box(style, label, (x0, y0))
        cv2.rectangle(array, tab[:2], tab[2:], colour, -1, cv2.LINE_8)
        g = style.glyph(label)
        _paste_ink(array, g.ink, x0 + style.pad + g.left, y0 + style.pad + g.height + g.top, TAB_TEXT[label])
        tabs[label] = tab
    return (Image.fromarray(array) if was_pil else array), tabs


def blink_jpeg(image, quality: int = 75):
    """A JPEG round trip as BLINK's images were stored (4:2:0 chroma, quality about 75)."""
    was_pil = isinstance(image, Image.Image)
    pil = image.convert("RGB") if was_pil else Image.fromarray(np.asarray(image))
    buffer = io.BytesIO()
    pil.save(buffer, format="JPEG", quality=quality, subsampling=2)
    decoded = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    return decoded if was_pil else np.asarray(decoded).copy()
