"""Real photographs for the training scenes' backgrounds: scikit-image's bundled sample images.

The benchmark draws 2 in 5 of its backgrounds from photographs (../shared/data/images), and a
patch reader trained on procedural backgrounds alone reads labels worst on photographs, whose
clutter the procedural ones lack. These sample images ship inside the scikit-image wheel (no
download), are not the benchmark's photographs, and give the training scenes that kind of
clutter. Grey ones are stacked to RGB; training_scene tints every photo crop at random, so 15
images give many looks.

    photos = training_photos()      # [(H, W, 3) uint8], in TRAINING_PHOTOS order
    photos_record()                 # {"scikit_image": version, "images": TRAINING_PHOTOS}: for a training record
"""

from __future__ import annotations

import functools

import numpy as np

# skimage.data loaders: colour photographs, then grey textures and scenes. Left out: text and
# page (printed letters, A-E among them, that would stand beside rendered markers unlabelled as
# such), the test charts and binary masks (no photographic clutter).
TRAINING_PHOTOS = ("astronaut", "chelsea", "coffee", "rocket", "immunohistochemistry", "retina",
                   "hubble_deep_field", "brick", "camera", "grass", "gravel", "coins", "moon", "cell", "clock")


def _skimage():
    try:
        import skimage.data
    except ImportError as error:
        raise ImportError("training on photographs needs scikit-image's sample images: "
                          "pip install -e '.[train]' (or pip install scikit-image)") from error
    return skimage


def photos_record() -> dict:
    """Which photographs a network trained on, for its training record."""
    return {"scikit_image": _skimage().__version__, "images": list(TRAINING_PHOTOS)}


@functools.lru_cache(maxsize=1)
def training_photos() -> tuple[np.ndarray, ...]:
    """The TRAINING_PHOTOS as (H, W, 3) uint8 RGB arrays (grey ones stacked)."""
    skimage = _skimage()
    photos = []
    for name in TRAINING_PHOTOS:
        image = np.asarray(getattr(skimage.data, name)())
        if image.ndim == 2:
            image = np.repeat(image[..., None], 3, axis=2)
        photos.append(np.ascontiguousarray(image, dtype=np.uint8))
    return tuple(photos)


def tinted(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """`image` with a random colour cast and contrast: each channel scaled by 0.5-1.5 about its
    mean, then shifted by up to 40 grey levels (a grey photo becomes a coloured one)."""
    pixels = image.astype(np.float32)
    mean = pixels.reshape(-1, 3).mean(axis=0)
    pixels = (pixels - mean) * rng.uniform(0.5, 1.5, 3).astype(np.float32) + mean + rng.uniform(-40, 40, 3)
    return np.clip(pixels, 0, 255).astype(np.uint8)
