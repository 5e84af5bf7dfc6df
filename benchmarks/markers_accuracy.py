"""How often the marker parser finds every drawn label at the right place (prints one JSON line).

Renders BLINK-style questions (2-4 labelled circles, or REF alone) in random styles on random
backgrounds (procedural textures, noise, gradients, crops of ../shared/data/images when present),
JPEG-compresses them, parses them back and counts markers found with the right label within 2 px.
Markers in the held-out fonts (glyphs.HELD_OUT_FONTS, never used to train or tune the label
reader) are reported apart. A wrong silent answer is a marker returned at the wrong place.

    .venv/bin/python benchmarks/markers_accuracy.py [--n 300] [--seed 0] [--size 320x240]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.markers.fonts import available_fonts  # noqa: E402
from adapters.markers.glyphs import HELD_OUT_FONTS  # noqa: E402
from adapters.markers.parse import parse_image  # noqa: E402
from adapters.markers.render import MarkerStyle, draw_points  # noqa: E402
from adapters.synthetic.textures import procedural_texture  # noqa: E402

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "data" / "images"


def load_photos(folder: Path = PHOTOS) -> list[np.ndarray]:
    photos = []
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                photos.append(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
    return photos


def background(rng: np.random.Generator, height: int, width: int, photos: list[np.ndarray]) -> tuple[np.ndarray, str]:
    """A natural-looking (H, W, 3) uint8 background and its kind."""
    kinds = ["texture", "noise", "gradient"] + (["photo", "photo"] if photos else [])
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "texture":
        return procedural_texture(rng, height, width), kind
    if kind == "noise":  # smooth coloured noise (a blurred random field), like foliage or gravel
        field = rng.normal(0, 1, (height // 4 + 1, width // 4 + 1, 3)).astype(np.float32)
        field = cv2.resize(field, (width, height), interpolation=cv2.INTER_CUBIC)[:height, :width]
        image = 128 + 45 * field + rng.normal(0, 6, (height, width, 3))
        return np.clip(image, 0, 255).astype(np.uint8), kind
    if kind == "gradient":
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        a, b = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
        t = (np.cos(rng.uniform(0, np.pi)) * xx / width + np.sin(rng.uniform(0, np.pi)) * yy / height)
        t = (t - t.min()) / max(np.ptp(t), 1e-6)
        image = a + (b - a) * t[..., None] + rng.normal(0, 3, (height, width, 3))
        return np.clip(image, 0, 255).astype(np.uint8), kind
    photo = photos[int(rng.integers(len(photos)))]
    scale = rng.uniform(0.25, 0.8) * min(photo.shape[0] / height, photo.shape[1] / width)
    h, w = int(height * scale), int(width * scale)
    y, x = int(rng.integers(0, photo.shape[0] - h + 1)), int(rng.integers(0, photo.shape[1] - w + 1))
    return cv2.resize(photo[y:y + h, x:x + w], (width, height), interpolation=cv2.INTER_AREA), kind


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=quality)
    return np.asarray(Image.open(buffer).convert("RGB"))


def random_points(rng: np.random.Generator, labels: list[str], height: int, width: int, margin: int = 20,
                  spacing: float = 55.0) -> dict[str, tuple[float, float]]:
    """Sub-pixel positions at least `spacing` px apart (so labels belong clearly to one circle)."""
    points: dict[str, tuple[float, float]] = {}
    while len(points) < len(labels):
        p = (float(rng.uniform(margin, width - margin)), float(rng.uniform(margin, height - margin)))
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) >= spacing for q in points.values()):
            points[labels[len(points)]] = p
    return points


def one_case(rng: np.random.Generator, photos, height: int, width: int, fonts: list[str]):
    """(image, true points, style, background kind) of one rendered question image."""
    labels = [["A", "B"], ["A", "B", "C", "D"], ["REF"], ["A", "B", "C"]][int(rng.integers(4))]
    image, kind = background(rng, height, width, photos)
    style = MarkerStyle.random(rng, fonts=fonts)
    points = random_points(rng, labels, height, width)
    drawn = draw_points(image, points, style)
    if rng.uniform() < 0.7:
        drawn = jpeg(drawn, int(rng.integers(70, 96)))
    return drawn, points, style, kind


def evaluate(n: int = 300, seed: int = 0, height: int = 240, width: int = 320, photos=None) -> dict:
    """Parse `n` rendered images; figures overall and for the held-out fonts."""
    photos = load_photos() if photos is None else photos
    fonts = [f.name for f in available_fonts()]
    rng = np.random.default_rng(seed)
    tally = {"all": [0, 0, 0], "held_out": [0, 0, 0]}  # found right, wrong (silent), total
    # images where every label was placed (find_markers answers) but some marker is wrong: the
    # wrong silent answers a caller of find_markers would see
    questions_wrong = 0
    failures = []
    started = time.perf_counter()
    for case in range(n):
        image, points, style, kind = one_case(rng, photos, height, width, fonts)
        parsed = parse_image(image, list(points))
        groups = ["all"] + (["held_out"] if style.font in HELD_OUT_FONTS else [])
        answered = not parsed.missing and all(label in parsed.markers for label in points)
        questions_wrong += int(answered and any(
            float(np.hypot(parsed.markers[l].xy[0] - x, parsed.markers[l].xy[1] - y)) > 2.0
            for l, (x, y) in points.items()))
        for label, (x, y) in points.items():
            marker = parsed.markers.get(label)
            right = marker is not None and float(np.hypot(marker.xy[0] - x, marker.xy[1] - y)) <= 2.0
            wrong = marker is not None and not right
            for g in groups:
                tally[g][0] += int(right)
                tally[g][1] += int(wrong)
                tally[g][2] += 1
            if not right:
                failures.append({"case": case, "label": label, "font": style.font, "background": kind,
                                 "why": parsed.missing.get(label, "wrong place" if wrong else "")})
    seconds = time.perf_counter() - started
    out = {"images": n, "seed": seed, "size": [width, height], "photos": len(photos),
           "seconds_per_image": round(seconds / n, 4)}
    for g, (right, wrong, total) in tally.items():
        out[g] = {"markers": total, "found_right": right, "wrong_silent": wrong,
                  "rate": round(right / total, 4) if total else None}
    out["questions_answered_wrong"] = questions_wrong
    out["held_out_fonts"] = list(HELD_OUT_FONTS)
    out["failures"] = failures[:20]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", default="320x240", help="WIDTHxHEIGHT of the rendered images")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    print(json.dumps(evaluate(args.n, args.seed, height, width)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
