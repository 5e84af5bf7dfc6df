"""Texture for generated questions: random crops of the user's photos, or procedural patterns.

Photos give the real-world statistics the specialists were built for; procedural patterns keep
the generator working with no files at all. Both are drawn from one seeded generator.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


def procedural_texture(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """(height, width, 3) uint8: gratings, coloured blobs and fine noise, rich in corners."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    image = np.zeros((height, width, 3), np.float32)
    for _ in range(3):
        angle, freq, phase = rng.uniform(0, np.pi), rng.uniform(0.02, 0.12), rng.uniform(0, 2 * np.pi)
        grating = np.sin(freq * (np.cos(angle) * xx + np.sin(angle) * yy) + phase)
        image += grating[..., None] * rng.uniform(-0.25, 0.25, 3)
    for _ in range(int(rng.integers(15, 30))):
        centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
        axes = (int(rng.integers(4, max(6, width // 8))), int(rng.integers(4, max(6, height // 8))))
        colour = rng.uniform(-0.5, 0.5, 3).tolist()
        cv2.ellipse(image, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1)
    for _ in range(int(rng.integers(6, 14))):
        p0 = (int(rng.integers(0, width)), int(rng.integers(0, height)))
        p1 = (p0[0] + int(rng.integers(-60, 60)), p0[1] + int(rng.integers(-60, 60)))
        cv2.rectangle(image, p0, p1, rng.uniform(-0.5, 0.5, 3).tolist(), -1)
    image += rng.normal(0, 0.04, image.shape).astype(np.float32)
    image = 0.5 + image * rng.uniform(0.6, 1.0)
    return (np.clip(image, 0, 1) * 255).astype(np.uint8)


class TextureSource:
    """Draws textures: random crops of photos in `images_dir` when given, else procedural."""

    def __init__(self, rng: np.random.Generator, images_dir: str | Path | None = None) -> None:
        self.rng = rng
        self.photos: list[np.ndarray] = []
        if images_dir is not None:
            files = sorted(p for p in Path(images_dir).iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
            for path in files:
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is not None:
                    self.photos.append(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
            if not self.photos:
                raise ValueError(f"--images {images_dir}: no readable photos ({', '.join(sorted(PHOTO_SUFFIXES))})")

    @property
    def kind(self) -> str:
        return "photos" if self.photos else "procedural"

    def sample(self, height: int, width: int) -> np.ndarray:
        """A (height, width, 3) uint8 texture: a random crop of a random photo, rescaled."""
        if not self.photos:
            return procedural_texture(self.rng, height, width)
        photo = self.photos[int(self.rng.integers(len(self.photos)))]
        ph, pw = photo.shape[:2]
        # crop a window of the target aspect covering 35-90% of the photo's shorter side
        scale = self.rng.uniform(0.35, 0.9) * min(ph / height, pw / width)
        ch, cw = max(8, int(height * scale)), max(8, int(width * scale))
        y0, x0 = int(self.rng.integers(0, ph - ch + 1)), int(self.rng.integers(0, pw - cw + 1))
        crop = photo[y0 : y0 + ch, x0 : x0 + cw]
        if self.rng.random() < 0.5:
            crop = crop[:, ::-1]
        return np.ascontiguousarray(cv2.resize(crop, (width, height), interpolation=cv2.INTER_AREA))
