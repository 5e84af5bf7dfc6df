"""The colour space the parsers measure in: `to_lab(rgb)`, (H, W, 3) uint8 RGB -> float32 Lab.

Ring, stroke and text colours are compared as Lab distances (STYLE_COLOUR, COLOUR_SPREAD and
the like are in Lab units), which follow seen colour differences more evenly than RGB does.
"""

from __future__ import annotations

import cv2
import numpy as np


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8 RGB -> (H, W, 3) float32 Lab (L 0-100, a/b about -128..127)."""
    return cv2.cvtColor(rgb.astype(np.float32) / 255.0, cv2.COLOR_RGB2Lab)
