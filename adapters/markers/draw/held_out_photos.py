"""Photographs every machine has and no marker network trains on: scikit-image's bundled stereo
pair (one workshop scene with a motorcycle, seen from two viewpoints, 500x741 RGB).

The benchmarks draw 2 in 5 of their backgrounds as crops of photographs; their real photographs
(../shared/data/images) are not part of the repository. The tests draw the benchmarks' image
sequences over these two instead, so that the same images, with photographic clutter, are drawn
on a fresh clone. They ship inside the scikit-image wheel (no download) and are none of
training_photos.TRAINING_PHOTOS, so what the networks read on them was never taught.

    photos = held_out_photos()      # [(H, W, 3) uint8 RGB], in HELD_OUT_PHOTOS order
"""

from __future__ import annotations

import functools

import numpy as np

# skimage.data.stereo_motorcycle()'s two views (its third output, the disparity, is not a photograph)
HELD_OUT_PHOTOS = ("motorcycle_left", "motorcycle_right")


@functools.lru_cache(maxsize=1)
def held_out_photos() -> tuple[np.ndarray, ...]:
    """The HELD_OUT_PHOTOS as (H, W, 3) uint8 RGB arrays."""
    try:
        import skimage.data
    except ImportError as error:
        raise ImportError("the held-out photographs are scikit-image's sample images: "
                          "pip install -e '.[dev]' (or pip install scikit-image)") from error
    left, right, _ = skimage.data.stereo_motorcycle()
    return tuple(np.ascontiguousarray(image, dtype=np.uint8) for image in (left, right))
