"""A decoded image -> the 8-bit RGB picture a person sees in a viewer.

Every question image goes through `displayed_rgb`, so decision rules, the marker parser and a
`--markers FILE` all work on the same pixels:

- the displayed frame: an EXIF orientation tag is applied (a phone photo stored sideways with
  orientation 6 is turned upright), as image viewers and browsers show it; an EXIF block that
  cannot be read is skipped, as viewers skip it;
- the first frame of an animated or multi-page file (GIF, APNG, TIFF);
- transparency is composited over white (what a viewer shows on a white page), never dropped
  to whatever colour the file keeps under its transparent pixels;
- deeper samples are scaled by their bit depth, never clipped: 16-bit by >> 8 (the top byte, as
  PIL itself reads 48-bit RGB PNGs), a 12-bit TIFF by >> 4; 32-bit float pixels are read as
  [0, 1] and refused outside it (an HDR or depth map has no single right 8-bit rendering).

Pixels with no agreed 8-bit rendering (32-bit integers, floats outside [0, 1], modes PIL cannot
convert) raise `UnreadablePixels` naming the mode: the caller turns it into that question's error.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageOps

WHITE = (255, 255, 255)
# modes PIL converts to RGB exactly: bilevel, grey, palette, colour spaces of 8-bit samples
_EIGHT_BIT = frozenset({"1", "L", "P", "RGB", "RGBX", "CMYK", "YCbCr", "LAB", "HSV"})
_WITH_ALPHA = frozenset({"LA", "La", "PA", "RGBA", "RGBa"})
_SIXTEEN_BIT = frozenset({"I;16", "I;16L", "I;16B", "I;16N"})
_TIFF_BITS_PER_SAMPLE = 258


class UnreadablePixels(ValueError):
    """The image decoded, but its pixels have no faithful 8-bit RGB rendering here."""


def displayed_rgb(image: Image.Image) -> Image.Image:
    """The loaded `image` as a new 8-bit RGB image in its displayed frame (see the module doc for
    each kind of pixel). `image` is turned upright in place, so what the file said of its samples
    (a TIFF's bit depth) stays with it."""
    ImageOps.exif_transpose(image, in_place=True)  # PIL warns about a damaged EXIF block, and skips it
    return to_rgb8(image)


def to_rgb8(image: Image.Image) -> Image.Image:
    """`image` as 8-bit RGB, or UnreadablePixels naming its mode."""
    mode = image.mode
    if mode in _SIXTEEN_BIT:
        return _grey(_scaled(np.asarray(image), _bit_depth(image), mode), image)
    if mode == "I":
        return _grey(_scaled(np.asarray(image), _integer_bit_depth(image), mode), image)
    if mode == "F":
        return _grey(_unit_float(np.asarray(image)), image)
    if mode in _WITH_ALPHA or "transparency" in image.info:
        return _over_white(image)
    if mode in _EIGHT_BIT:
        return image.convert("RGB")
    raise UnreadablePixels(f"pixels of mode {mode}, which this suite does not read")


def _bit_depth(image: Image.Image) -> int:
    """Bits per sample of a 16-bit container: a TIFF says (12-bit scans are stored unscaled);
    PNG and the rest fill all 16 bits."""
    bits = getattr(image, "tag_v2", {}).get(_TIFF_BITS_PER_SAMPLE)
    bits = bits[0] if isinstance(bits, tuple) else bits
    return int(bits) if bits and 8 < int(bits) <= 16 else 16


def _integer_bit_depth(image: Image.Image) -> int:
    """Mode I is 16-bit only where the format says so: PIL reads a 16-bit PGM/PPM as I scaled to
    0..65535; a TIFF of 32-bit or signed integers (a depth or label map) has no 8-bit rendering."""
    if image.format == "PPM":
        return 16
    raise UnreadablePixels("pixels of mode I (32-bit or signed integers), which have no agreed 8-bit "
                           "rendering")


def _scaled(samples: np.ndarray, bits: int, mode: str) -> np.ndarray:
    if samples.size and (samples.min() < 0 or samples.max() >= 1 << bits):
        raise UnreadablePixels(f"pixels of mode {mode} outside 0..{(1 << bits) - 1}")
    return (samples.astype(np.uint32) >> (bits - 8)).astype(np.uint8)


def _unit_float(samples: np.ndarray) -> np.ndarray:
    finite = np.isfinite(samples).all()
    if not finite or (samples.size and (samples.min() < 0 or samples.max() > 1)):
        low, high = (float(np.nanmin(samples)), float(np.nanmax(samples))) if samples.size else (0.0, 0.0)
        raise UnreadablePixels(f"pixels of mode F (32-bit float) outside [0, 1] (from {low:g} to {high:g}"
                               f"{', with NaN or infinity' if not finite else ''}), which have no agreed 8-bit rendering")
    return np.rint(samples * 255).astype(np.uint8)


def _grey(samples: np.ndarray, source: Image.Image) -> Image.Image:
    """8-bit grey samples as RGB; a grey value the file marks transparent (PNG tRNS) turns white."""
    grey = Image.fromarray(samples).convert("RGB")
    transparent = source.info.get("transparency")
    if isinstance(transparent, int) and source.mode in _SIXTEEN_BIT:
        mask = Image.fromarray((np.asarray(source) == transparent).astype(np.uint8) * 255)
        grey.paste(WHITE, mask=mask)
    return grey


def _over_white(image: Image.Image) -> Image.Image:
    try:
        rgba = image.convert("RGBA")
    except ValueError as exc:  # PIL has no conversion for this mode (e.g. La)
        raise UnreadablePixels(f"pixels of mode {image.mode}, which this suite does not read ({exc})") from None
    background = Image.new("RGBA", rgba.size, WHITE + (255,))
    return Image.alpha_composite(background, rgba).convert("RGB")
