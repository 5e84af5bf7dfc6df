"""BLINK's label glyphs as OpenCV 4.x draws them, for the reader and the renderer alike.

BLINK wrote its labels with `cv2.putText(..., cv2.FONT_HERSHEY_DUPLEX, scale, white, thickness)`
under OpenCV 4.x. OpenCV 5 draws the Hershey fonts differently (other sizes, other strokes), so
neither the reader nor the renderer may call putText at run time: they use the glyphs derived
once with an OpenCV 4.x wheel and shipped in `data/blink_glyphs_opencv4.npz`.

    glyph(label, font_scale, thickness) -> Glyph   (the nearest derived scale; KeyError past the grid)

Deriving again (needs OpenCV 4.x, e.g. in a scratch venv: pip install 'opencv-python-headless<5'):

    python -m adapters.markers.blink.hershey --derive
"""

from __future__ import annotations

import argparse
import functools
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data" / "blink_glyphs_opencv4.npz"


LABELS = ("A", "B", "C", "D", "E", "REF")


# Font scales derived (0.5 is Relative_Depth's; larger images draw larger) and stroke thicknesses.
FONT_SCALES = tuple(round(0.3 + 0.05 * k, 2) for k in range(45))  # 0.30 .. 2.50


THICKNESSES = (1, 2, 3, 4)


@dataclass(frozen=True)
class Glyph:
    """One label as putText draws it at org (0, 0) (its baseline's left end).

    ink: (h, w) bool, the pixels putText sets; top, left: where ink[0, 0] lies relative to org.
    width, height, baseline: cv2.getTextSize's answer, which decides BLINK's label box.
    """

    label: str
    font_scale: float
    thickness: int
    ink: np.ndarray
    top: int
    left: int
    width: int
    height: int
    baseline: int


def _key(label: str, font_scale: float, thickness: int) -> str:
    return f"{label}|{font_scale:.2f}|{thickness}"


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, Glyph]:
    if not DATA.is_file():
        raise FileNotFoundError(f"{DATA} is missing: derive it with `python -m adapters.markers.blink.hershey --derive` "
                                "under OpenCV 4.x, or reinstall the package")
    table = {}
    with np.load(DATA) as data:
        meta = data["meta"]  # rows: label index, scale * 100, thickness, top, left, width, height, baseline, h, w
        bits = data["bits"]
        offsets = data["offsets"]
        for row, start in zip(meta, offsets):
            label, scale, thick, top, left, width, height, baseline, h, w = (int(v) for v in row)
            ink = np.unpackbits(bits[start:start + (h * w + 7) // 8])[:h * w].reshape(h, w).astype(bool)
            table[_key(LABELS[label], scale / 100, thick)] = Glyph(LABELS[label], scale / 100, thick, ink, top, left,
                                                                   width, height, baseline)
    return table


def glyph(label: str, font_scale: float, thickness: int = 1) -> Glyph:
    """The derived glyph of `label` at the grid's font scale nearest `font_scale`."""
    if label not in LABELS:
        raise KeyError(f"no BLINK glyph for label {label!r}; derived: {', '.join(LABELS)}")
    if thickness not in THICKNESSES or not FONT_SCALES[0] - 0.025 <= font_scale <= FONT_SCALES[-1] + 0.025:
        raise KeyError(f"font scale {font_scale} / thickness {thickness} is outside the derived grid "
                       f"({FONT_SCALES[0]}-{FONT_SCALES[-1]}, thickness {THICKNESSES[0]}-{THICKNESSES[-1]})")
    nearest = min(FONT_SCALES, key=lambda s: abs(s - font_scale))
    return _table()[_key(label, nearest, thickness)]


def derive(out: Path = DATA) -> int:
    """Draw every (label, scale, thickness) with this process's OpenCV, which must be 4.x."""
    import cv2

    if not cv2.__version__.startswith("4."):
        raise SystemExit(f"OpenCV {cv2.__version__} is installed; BLINK drew with 4.x, whose Hershey glyphs 5.x "
                         "does not reproduce: run this under opencv-python-headless<5")
    meta, chunks, offsets, at = [], [], [], 0
    for li, label in enumerate(LABELS):
        for scale in FONT_SCALES:
            for thick in THICKNESSES:
                (width, height), baseline = cv2.getTextSize(label, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
                pad = 4 * thick + 4
                canvas = np.zeros((height + baseline + 2 * pad, width + 2 * pad), np.uint8)
                org = (pad, pad + height)
                cv2.putText(canvas, label, org, cv2.FONT_HERSHEY_DUPLEX, scale, 255, thick)
                ys, xs = np.nonzero(canvas)
                y0, x0 = int(ys.min()), int(xs.min())
                ink = canvas[y0:ys.max() + 1, x0:xs.max() + 1] > 0
                packed = np.packbits(ink.ravel())
                meta.append((li, round(scale * 100), thick, y0 - org[1], x0 - org[0], width, height, baseline,
                             *ink.shape))
                offsets.append(at)
                chunks.append(packed)
                at += packed.size
    buffer = io.BytesIO()
    np.savez_compressed(buffer, meta=np.array(meta, np.int32), bits=np.concatenate(chunks),
                        offsets=np.array(offsets, np.int64), opencv=np.array(cv2.__version__))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buffer.getvalue())
    print(f"wrote {out}: {len(meta)} glyphs drawn by OpenCV {cv2.__version__}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--derive", action="store_true", help="draw the glyphs with this OpenCV (4.x) and save them")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    if not args.derive:
        parser.print_help()
        return 0
    return derive(args.out)


if __name__ == "__main__":
    sys.exit(main())
