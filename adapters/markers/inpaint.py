"""The scene without the drawing: inpaint the pixels of the found rings and labels (OpenCV)."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

from adapters.core.questions import MCQuestion
from adapters.markers.types import Marker

# A sidecar gives positions only: rings are drawn with radius 5-15 px, so the annulus between
# these radii holds the ring while the scene inside it (the point itself) is kept.
RING_INNER, RING_OUTER = 4, 16


def marker_mask(shape: tuple[int, int], markers: list[Marker]) -> np.ndarray:
    """(H, W) uint8 mask (255 = drawn) of the rings, label rectangles and box outlines of `markers`."""
    mask = np.zeros(shape, np.uint8)
    for m in markers:
        x, y = m.xy
        if m.box is not None:
            x0, y0, x1, y1 = (int(round(v)) for v in m.box)
            cv2.rectangle(mask, (x0, y0), (x1, y1), 255, 5)
        elif m.radius is not None:
            width = int(np.ceil((m.ring_width or 2) + 3))
            cv2.circle(mask, (int(round(x)), int(round(y))), int(round(m.radius)), 255, width)
        else:  # position only: the annulus where a ring can be (labels beside it stay)
            ring = np.zeros(shape, np.uint8)
            cv2.circle(ring, (int(round(x)), int(round(y))), RING_OUTER, 255, -1)
            cv2.circle(ring, (int(round(x)), int(round(y))), RING_INNER, 0, -1)
            mask |= ring
        if m.label_box is not None:
            x0, y0, x1, y1 = m.label_box
            cv2.rectangle(mask, (x0 - 2, y0 - 2), (x1 + 1, y1 + 1), 255, -1)
    return mask


def inpaint_image(image: Image.Image, markers: list[Marker], radius: int = 3) -> Image.Image:
    """`image` with the pixels of `markers` filled in from their surroundings (Telea)."""
    rgb = np.asarray(image.convert("RGB"))
    mask = marker_mask(rgb.shape[:2], markers)
    if not mask.any():
        return image.copy()
    return Image.fromarray(cv2.inpaint(rgb, mask, radius, cv2.INPAINT_TELEA))


def inpaint_markers(question: MCQuestion, image_index: int) -> Image.Image:
    """Image `image_index` (0-based) of `question` with its markers inpainted.

    Uses find_markers (cached), so it raises MarkerError when the markers cannot be found. An
    image with no expected markers is returned unchanged.
    """
    from adapters.markers.find import find_markers  # find imports this module's users; keep the import local

    found = find_markers(question)
    key = f"image_{image_index + 1}"
    return inpaint_image(question.images[image_index], list(found.images.get(key, {}).values()))
