"""The label fonts: OpenCV's Hershey fonts (always there), Pillow's built-in font, and any TTF found.

One function, `text_mask`, turns (text, font, cap height) into an anti-aliased coverage mask. The
renderer draws labels with it and the glyph classifier trains on it, so both see the same shapes.
"""

from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERSHEY_FACES = {
    "hershey-simplex": cv2.FONT_HERSHEY_SIMPLEX,
    "hershey-duplex": cv2.FONT_HERSHEY_DUPLEX,
    "hershey-plain": cv2.FONT_HERSHEY_PLAIN,
    "hershey-complex": cv2.FONT_HERSHEY_COMPLEX,
    "hershey-triplex": cv2.FONT_HERSHEY_TRIPLEX,
}


# Fonts every machine has (OpenCV and Pillow bring them): a sample drawn in these alone is the
# same on every machine, whatever TTF files it has installed.
BUILT_IN_FONTS = (*HERSHEY_FACES, "pil-default")


# Where TTF files usually live; $SPECIALISTS_FONTS (os.pathsep-separated folders) adds more.
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.fonts", "~/.local/share/fonts",
             "/System/Library/Fonts", "/Library/Fonts", "C:/Windows/Fonts")


# The TTF families drawn with, by file name: DejaVu's four (Debian's fonts-dejavu-core). Pinned,
# not "whatever is installed": the glyph classifier trains on these fonts and the benchmark
# samples are drawn in them, so a machine that gains fonts (a browser package brings Liberation)
# must draw the same images and train the same classifier.
TTF_WANTED = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf")


@dataclass(frozen=True)
class FontSpec:
    """A label font. kind: "hershey" (OpenCV face), "ttf" (file path) or "pil-default" (Pillow's own)."""

    name: str
    kind: str
    source: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("hershey", "ttf", "pil-default"):
            raise ValueError(f"font {self.name!r}: unknown kind {self.kind!r} (hershey, ttf or pil-default)")


def _font_dirs() -> list[str]:
    extra = [d for d in os.environ.get("SPECIALISTS_FONTS", "").split(os.pathsep) if d]
    return [os.path.expanduser(d) for d in (*extra, *FONT_DIRS)]


@functools.lru_cache(maxsize=1)
def available_fonts() -> tuple[FontSpec, ...]:
    """Every font this machine can draw labels in: 5 Hershey faces, Pillow's default, TTFs found."""
    fonts = [FontSpec(name, "hershey", name) for name in HERSHEY_FACES]
    fonts.append(FontSpec("pil-default", "pil-default"))
    found: dict[str, str] = {}
    for folder in _font_dirs():
        if not os.path.isdir(folder):
            continue
        for path in sorted(glob.glob(os.path.join(folder, "**", "*.ttf"), recursive=True)):
            base = os.path.basename(path)
            if base in TTF_WANTED and base.lower() not in found:
                found[base.lower()] = path
    for base in TTF_WANTED:
        if base.lower() in found:
            fonts.append(FontSpec(base.rsplit(".", 1)[0].lower(), "ttf", found.pop(base.lower())))
    return tuple(fonts)


def font_by_name(name: str) -> FontSpec:
    for font in available_fonts():
        if font.name == name:
            return font
    known = ", ".join(f.name for f in available_fonts())
    raise ValueError(f"unknown label font {name!r}; fonts on this machine: {known}")


@functools.lru_cache(maxsize=64)
def _pil_font(kind: str, source: str, size: int) -> ImageFont.FreeTypeFont:
    if kind == "ttf":
        return ImageFont.truetype(source, size)
    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=8)
def _hershey_cap_height(face: int, thickness: int) -> float:
    """Ink height in px of a capital 'H' at font scale 4, divided by 4 (getTextSize's height
    counts more than the ink, so it is measured on a rendering)."""
    canvas = np.zeros((200, 200), np.uint8)
    cv2.putText(canvas, "H", (20, 150), face, 4.0, 255, thickness, cv2.LINE_8)
    rows = np.nonzero(canvas.any(axis=1))[0]
    return float(rows.max() - rows.min() + 1) / 4.0


def text_mask(text: str, font: FontSpec, cap_height: float, thickness: int = 1) -> np.ndarray:
    """(h, w) float32 coverage in [0, 1] of `text`, cropped to its ink, capitals `cap_height` px tall.

    thickness: stroke width in px for Hershey fonts; for TTF / Pillow fonts 2+ means bold
    (a stroke of thickness - 1 around the glyphs, from cap height 12 px up).
    """
    if cap_height < 3:
        raise ValueError(f"label cap height must be >= 3 px, got {cap_height}")
    pad = int(cap_height) + 4
    if font.kind == "hershey":
        face = HERSHEY_FACES[font.source]
        scale = cap_height / _hershey_cap_height(face, 1)
        (w, h), base = cv2.getTextSize(text, face, scale, thickness)
        canvas = np.zeros((h + base + 2 * pad, w + 2 * pad), np.uint8)
        cv2.putText(canvas, text, (pad, pad + h), face, scale, 255, thickness, cv2.LINE_AA)
    else:
        # Pillow sizes fonts by em; measure the cap height of "H" once and rescale to match.
        probe = _pil_font(font.kind, font.source, 100)
        left, top, right, bottom = probe.getbbox("H")
        size = max(4, int(round(100 * cap_height / max(1, bottom - top))))
        pil_font = _pil_font(font.kind, font.source, size)
        # Pillow has no weight axis: bold = a stroke around the glyphs, only where the letters
        # are big enough that it does not fill their counters.
        stroke = max(0, thickness - 1) if cap_height >= 12 else 0
        x0, y0, x1, y1 = pil_font.getbbox(text, stroke_width=stroke)
        image = Image.new("L", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), 0)
        ImageDraw.Draw(image).text((pad - x0, pad - y0), text, font=pil_font, fill=255,
                                   stroke_width=stroke, stroke_fill=255)
        canvas = np.asarray(image)
    ys, xs = np.nonzero(canvas > 32)
    if len(ys) == 0:
        raise ValueError(f"font {font.name!r} drew nothing for {text!r}")
    crop = canvas[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    return crop.astype(np.float32) / 255.0
