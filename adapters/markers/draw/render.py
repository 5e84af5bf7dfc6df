"""Draw BLINK-style visual prompts: circles with a label beside each, and labelled boxes.

The style is data (`MarkerStyle`): ring colour, radius, ring width, label font, size, side, and
text polarity ("colour": text in the ring colour; "box": light text on a dark box). The synthetic
questions and the parser's tests draw with these functions:

    draw_points(image, {"A": (x, y), "B": (x, y)}, style) -> image
    draw_boxes(image, {"A": (x0, y0, x1, y1)}, style) -> image

`image` is a PIL image or an (H, W, 3) uint8 RGB array; the result has the same type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import cv2
import numpy as np
from PIL import Image

from adapters.markers.draw.fonts import available_fonts, font_by_name, text_mask

SIDES = ("right", "left", "top", "bottom", "top-right", "top-left", "bottom-right", "bottom-left")


POLARITIES = ("colour", "box")


SHIFT = 4  # OpenCV fixed-point bits: circles are drawn at 1/16 px precision


# Ring colours MarkerStyle.random draws from (red is BLINK's; the others keep the parser honest).
RANDOM_COLOURS = ((255, 0, 0), (230, 20, 20), (255, 40, 0), (220, 0, 80), (0, 200, 0), (0, 80, 255),
                  (255, 220, 0), (255, 0, 255), (0, 220, 255), (255, 128, 0))


@dataclass(frozen=True)
class MarkerStyle:
    """How markers are drawn.

    colour: ring (and "colour"-polarity text) RGB. radius: circle radius in px (BLINK: ~6-10).
    ring_width: ring stroke in px. font: a name from fonts.available_fonts(). label_height: cap
    height of the label in px. label_thickness: stroke px (Hershey) / bold (TTF). side: where the
    label sits relative to the circle (SIDES). gap: px between ring and label. polarity: "colour"
    or "box". box_colour / text_colour: the dark box and light text of the "box" polarity.
    keep_inside: move a label to the opposite side when it would leave the image.
    """

    colour: tuple[int, int, int] = (255, 0, 0)
    radius: float = 8.0
    ring_width: int = 2
    font: str = "hershey-simplex"
    label_height: float = 11.0
    label_thickness: int = 1
    side: str = "right"
    gap: float = 2.0
    polarity: str = "colour"
    box_colour: tuple[int, int, int] = (0, 0, 0)
    text_colour: tuple[int, int, int] = (255, 255, 255)
    keep_inside: bool = True

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"label side {self.side!r} is not one of {', '.join(SIDES)}")
        if self.polarity not in POLARITIES:
            raise ValueError(f"label polarity {self.polarity!r} is not one of {', '.join(POLARITIES)}")
        if not 2 <= self.radius <= 64 or not 1 <= self.ring_width <= 8:
            raise ValueError(f"radius {self.radius} / ring width {self.ring_width} out of range (2-64 / 1-8 px)")
        font_by_name(self.font)  # raises a clear error for an unknown font

    @classmethod
    def random(cls, rng: np.random.Generator, fonts: Sequence[str] | None = None, **fixed) -> "MarkerStyle":
        """A random BLINK-like style (radius 5-15 px, ring 1-4 px, label 8-18 px, any side, either polarity).

        fonts: names to choose from (default: every font available); `fixed` overrides fields.
        """
        names = list(fonts) if fonts else [f.name for f in available_fonts()]
        style = dict(
            colour=tuple(int(c) for c in RANDOM_COLOURS[int(rng.integers(len(RANDOM_COLOURS)))]),
            radius=float(rng.uniform(5, 15)),
            ring_width=int(rng.integers(1, 5)),
            font=names[int(rng.integers(len(names)))],
            label_height=float(rng.uniform(8, 18)),
            label_thickness=int(rng.choice([1, 1, 2])),
            side=SIDES[int(rng.integers(len(SIDES)))],
            gap=float(rng.uniform(1, 4)),
            polarity=POLARITIES[int(rng.integers(2))],
            box_colour=tuple(int(v) for v in rng.integers(0, 50, 3)),
            text_colour=tuple(int(v) for v in rng.integers(215, 256, 3)),
        )
        style.update(fixed)
        return cls(**style)


@dataclass(frozen=True)
class DrawnLabel:
    """Where a label was drawn: its ink or box rectangle (x0, y0, x1, y1), integer px, inclusive-exclusive."""

    label: str
    rect: tuple[int, int, int, int]


def _as_array(image) -> tuple[np.ndarray, bool]:
    if isinstance(image, Image.Image):
        return np.array(image.convert("RGB")), True
    array = np.asarray(image)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f"expected a PIL image or an (H, W, 3) uint8 array, got {array.dtype} {array.shape}")
    return array.copy(), False


def _label_patch(label: str, style: MarkerStyle) -> tuple[np.ndarray, np.ndarray, int]:
    """(coverage of the text (h, w), coverage of the whole label incl. its box, box padding px)."""
    text = text_mask(label, font_by_name(style.font), style.label_height, style.label_thickness)
    if style.polarity == "colour":
        return text, text, 0
    pad = max(2, int(round(style.label_height * 0.25)))
    h, w = text.shape
    whole = np.ones((h + 2 * pad, w + 2 * pad), np.float32)
    inner = np.zeros_like(whole)
    inner[pad:pad + h, pad:pad + w] = text
    return inner, whole, pad


def _place(side: str, centre: tuple[float, float], reach: float, size: tuple[int, int]) -> tuple[int, int]:
    """Top-left corner of a (h, w) patch on `side` of a circle of outer radius `reach`."""
    h, w = size
    x, y = centre
    dx = 1 if "right" in side else -1 if "left" in side else 0
    dy = 1 if "bottom" in side else -1 if "top" in side else 0
    if dx and dy:  # diagonal: the patch's nearest corner sits on the diagonal at `reach`
        reach = reach / np.sqrt(2.0)
    left = x + reach if dx > 0 else x - reach - w if dx < 0 else x - w / 2
    top = y + reach if dy > 0 else y - reach - h if dy < 0 else y - h / 2
    return int(round(left)), int(round(top))


_OPPOSITE = {"right": "left", "left": "right", "top": "bottom", "bottom": "top", "top-right": "bottom-left",
             "bottom-left": "top-right", "top-left": "bottom-right", "bottom-right": "top-left"}


def _blend(array: np.ndarray, patch: np.ndarray, left: int, top: int, colour) -> None:
    """array[top:, left:] = mix(array, colour, patch coverage), clipped to the image."""
    H, W = array.shape[:2]
    h, w = patch.shape
    x0, y0, x1, y1 = max(0, left), max(0, top), min(W, left + w), min(H, top + h)
    if x0 >= x1 or y0 >= y1:
        return
    alpha = patch[y0 - top:y1 - top, x0 - left:x1 - left, None]
    region = array[y0:y1, x0:x1].astype(np.float32)
    array[y0:y1, x0:x1] = np.round(region * (1 - alpha) + np.float32(colour) * alpha).astype(np.uint8)


def _draw_label(array: np.ndarray, label: str, anchor_centre, reach: float, style: MarkerStyle) -> DrawnLabel:
    text, whole, _ = _label_patch(label, style)
    H, W = array.shape[:2]
    side = style.side
    left, top = _place(side, anchor_centre, reach, whole.shape)
    h, w = whole.shape
    if style.keep_inside and (left < 0 or top < 0 or left + w > W or top + h > H):
        side = _OPPOSITE[side]
        left, top = _place(side, anchor_centre, reach, whole.shape)
        left, top = min(max(left, 0), W - w), min(max(top, 0), H - h)
    if style.polarity == "box":
        _blend(array, whole, left, top, style.box_colour)
        _blend(array, text, left, top, style.text_colour)
    else:
        _blend(array, text, left, top, style.colour)
    return DrawnLabel(label, (left, top, left + w, top + h))


def draw_points_layout(image, points: Mapping[str, Sequence[float]], style: MarkerStyle):
    """Like draw_points, and also returns where each label was drawn: (image, [DrawnLabel])."""
    array, was_pil = _as_array(image)
    scale = 1 << SHIFT
    for xy in points.values():  # every ring first, so no ring covers another marker's label
        centre = (int(round(float(xy[0]) * scale)), int(round(float(xy[1]) * scale)))
        cv2.circle(array, centre, int(round(style.radius * scale)), tuple(int(c) for c in style.colour),
                   style.ring_width, cv2.LINE_AA, SHIFT)
    reach = style.radius + style.ring_width / 2.0 + style.gap
    drawn = [_draw_label(array, label, (float(xy[0]), float(xy[1])), reach, style) for label, xy in points.items()]
    return (Image.fromarray(array) if was_pil else array), drawn


def draw_points(image, points: Mapping[str, Sequence[float]], style: MarkerStyle | None = None):
    """Circle every point of {label: (x, y)} and write its label beside it; returns a new image."""
    return draw_points_layout(image, points, style or MarkerStyle())[0]


def draw_boxes(image, boxes: Mapping[str, Sequence[float]], style: MarkerStyle | None = None):
    """Outline every {label: (x0, y0, x1, y1)} box in `style.colour` and write its label above its
    top-left corner (inside the box when there is no room above); returns a new image."""
    style = style or MarkerStyle()
    array, was_pil = _as_array(image)
    scale = 1 << SHIFT
    for box in boxes.values():
        x0, y0, x1, y1 = (int(round(float(v) * scale)) for v in box)
        cv2.rectangle(array, (x0, y0), (x1, y1), tuple(int(c) for c in style.colour), style.ring_width,
                      cv2.LINE_AA, SHIFT)
    for label, box in boxes.items():
        x0, y0 = float(box[0]), float(box[1])
        text, whole, _ = _label_patch(label, style)
        h, w = whole.shape
        half = style.ring_width / 2.0
        top = int(round(y0 - half - style.gap - h))
        if top < 0:
            top = int(round(y0 + half + style.gap))
        left = int(round(x0 - half))
        if style.polarity == "box":
            _blend(array, whole, left, top, style.box_colour)
            _blend(array, text, left, top, style.text_colour)
        else:
            _blend(array, text, left, top, style.colour)
    return Image.fromarray(array) if was_pil else array


def with_style(style: MarkerStyle, **changes) -> MarkerStyle:
    """A copy of `style` with some fields changed (validated again)."""
    return replace(style, **changes)
