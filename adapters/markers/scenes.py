"""Random scenes with BLINK-style markers: the backgrounds, positions and JPEG round trip shared by
the accuracy benchmark (benchmarks/markers_accuracy.py) and the patch reader's training data
(train/markers_reader.py).

    background(rng, h, w, photos) -> (image, kind)     procedural texture, noise, gradient or photo crop
    random_points(rng, labels, h, w) -> {label: (x, y)}
    jpeg(image, quality) -> image
    training_scene(rng, fonts) -> TrainingScene        markers plus unlabelled decoys, for the reader
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from ..synthetic.textures import procedural_texture
from .fonts import font_by_name, text_mask
from .labels import REF
from .render import MarkerStyle, draw_points_layout

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "data" / "images"


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


# Label sets of the training scenes: BLINK's (two to four letters, or REF alone) and five letters.
TRAINING_LABEL_SETS = (("A", "B"), ("A", "B", "C"), ("A", "B", "C", "D"), ("A", "B", "C", "D", "E"), (REF,))
DECOY_TEXT = tuple("FGHJKLMNPQSTUVWXYZ0123456789")


@dataclass(frozen=True)
class TrainingScene:
    """A rendered scene and where to look in it: points [(x, y, class)], class a label of labels.LABELS or
    None (no marker centred there: a decoy ring, a decoy letter's ring, a label glyph, plain scene)."""

    image: np.ndarray
    points: list[tuple[float, float, str | None]]
    style: MarkerStyle


def _decoys(rng: np.random.Generator, image: np.ndarray, fonts: list[str], avoid: list[tuple[float, float]]
            ) -> list[tuple[float, float]]:
    """Draw unlabelled rings, rings with a non-label character beside them, stray characters and
    blobs in random colours (what a scene or its text offers a ring detector); returns the decoy
    rings' centres."""
    h, w = image.shape[:2]
    centres = []
    for _ in range(int(rng.integers(0, 5))):
        x, y = float(rng.uniform(5, w - 5)), float(rng.uniform(5, h - 5))
        if any(np.hypot(x - ax, y - ay) < 30 for ax, ay in avoid):
            continue
        kind = rng.choice(["ring", "ring+char", "char", "blob"])
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        if kind in ("ring", "ring+char"):
            style = MarkerStyle.random(rng, fonts=fonts, colour=colour)
            if kind == "ring":
                cv2.circle(image, (int(round(x * 16)), int(round(y * 16))), int(round(style.radius * 16)), colour,
                           style.ring_width, cv2.LINE_AA, 4)
            else:
                image[:] = draw_points_layout(image, {str(rng.choice(DECOY_TEXT)): (x, y)}, style)[0]
            centres.append((x, y))
        elif kind == "char":
            text = str(rng.choice(DECOY_TEXT)) * int(rng.integers(1, 3))
            mask = text_mask(text, font_by_name(str(rng.choice(fonts))), float(rng.uniform(8, 18)))
            y0, x0 = int(y) - mask.shape[0] // 2, int(x) - mask.shape[1] // 2
            ys, xs = slice(max(0, y0), min(h, y0 + mask.shape[0])), slice(max(0, x0), min(w, x0 + mask.shape[1]))
            alpha = mask[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0, None]
            image[ys, xs] = np.round(image[ys, xs] * (1 - alpha) + np.float32(colour) * alpha).astype(np.uint8)
        else:
            axes = (int(rng.integers(2, 12)), int(rng.integers(2, 12)))
            cv2.ellipse(image, (int(x), int(y)), axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
    return centres


def training_scene(rng: np.random.Generator, fonts: list[str], height: int = 240, width: int = 320) -> TrainingScene:
    """One scene for the patch reader: markers in a random style (only `fonts`), decoys, JPEG.

    Backgrounds are procedural (texture, noise, gradient): the photographs stay for the benchmark.
    """
    labels = list(TRAINING_LABEL_SETS[int(rng.integers(len(TRAINING_LABEL_SETS)))])
    image, _ = background(rng, height, width, [])
    style = MarkerStyle.random(rng, fonts=fonts)
    points = random_points(rng, labels, height, width, spacing=float(rng.uniform(35, 70)))
    image = np.ascontiguousarray(image)
    decoys = _decoys(rng, image, fonts, list(points.values()))
    image, drawn = draw_points_layout(image, points, style)
    if rng.uniform() < 0.75:
        image = jpeg(image, int(rng.integers(60, 97)))
    out: list[tuple[float, float, str | None]] = [(x, y, label) for label, (x, y) in points.items()]
    out += [(x, y, None) for x, y in decoys]
    for d in drawn:  # a letter's bowl (B, D, R) looks like a small ring to the detector
        x0, y0, x1, y1 = d.rect
        out.append(((x0 + x1) / 2, (y0 + y1) / 2, None))
    for _ in range(2):  # plain scene, away from every marker
        x, y = float(rng.uniform(0, width)), float(rng.uniform(0, height))
        if all(np.hypot(x - px, y - py) > 8 for px, py in points.values()):
            out.append((x, y, None))
    return TrainingScene(image, out, style)
