"""SIFT keypoint matching (OpenCV): the weight-free matcher behind `sift`, `essential` and `flow`.

Image pair in, `Matches` out. Mutual nearest neighbours plus Lowe's ratio test keep the
matches that RANSAC-style estimators downstream can use. An image whose long side exceeds
`max_side` is matched at that size (area-averaged) and its keypoints mapped back to its own
pixels: SIFT's time and memory grow with the pixel count (a 48 MP photograph took minutes and
gigabytes), and at most 4,000 keypoints are kept anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import torch
from PIL import Image

from specialists.outputs import Matches

MAX_SIDE = 2000  # long side SIFT works at; larger images are shrunk and keypoints mapped back


def _gray(image: Image.Image | np.ndarray, max_side: int) -> tuple[np.ndarray, tuple[float, float]]:
    """Grey uint8 (h, w) at a long side of at most max_side, and the (x, y) factors from its
    pixel coordinates to the image's ((1, 1) when the image was small enough)."""
    array = np.asarray(image.convert("RGB") if isinstance(image, Image.Image) else image)
    grey = cv2.cvtColor(array, cv2.COLOR_RGB2GRAY) if array.ndim == 3 else array
    long_side = max(grey.shape[:2])
    if long_side <= max_side:
        return grey, (1.0, 1.0)
    scale = max_side / long_side
    size = (max(1, round(grey.shape[1] * scale)), max(1, round(grey.shape[0] * scale)))
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA), (grey.shape[1] / size[0], grey.shape[0] / size[1])


def _to_image(points: list[tuple[float, float]], factor: tuple[float, float]) -> list[tuple[float, float]]:
    """Keypoint centres (x, y) at the working size -> the image's pixels (centres map to centres)."""
    fx, fy = factor
    if (fx, fy) == (1.0, 1.0):
        return points
    return [((x + 0.5) * fx - 0.5, (y + 0.5) * fy - 0.5) for x, y in points]


@dataclass
class SiftMatcher:
    """ratio: Lowe's ratio-test threshold; max_features: keypoints kept per image (0 = all);
    max_side: the long side images are matched at (larger ones are shrunk, coordinates mapped back)."""

    ratio: float = 0.8
    max_features: int = 4000
    max_side: int = MAX_SIDE

    def __post_init__(self) -> None:
        self._sift = cv2.SIFT_create(nfeatures=self.max_features)

    def __call__(self, image0: Image.Image | np.ndarray, image1: Image.Image | np.ndarray) -> Matches:
        grey0, factor0 = _gray(image0, self.max_side)
        grey1, factor1 = _gray(image1, self.max_side)
        kp0, desc0 = self._sift.detectAndCompute(grey0, None)
        kp1, desc1 = self._sift.detectAndCompute(grey1, None)
        if desc0 is None or desc1 is None or len(kp0) < 2 or len(kp1) < 2:
            empty = torch.zeros((0, 2))
            return Matches(empty, empty.clone(), torch.zeros(0))
        matcher = cv2.BFMatcher(cv2.NORM_L2)
        forward = matcher.knnMatch(desc0, desc1, k=2)
        backward = {m.queryIdx: m.trainIdx for m in matcher.match(desc1, desc0)}
        pairs, confidence = [], []
        for best, second in (m for m in forward if len(m) == 2):
            mutual = backward.get(best.trainIdx) == best.queryIdx
            if mutual and best.distance < self.ratio * second.distance:
                pairs.append((kp0[best.queryIdx].pt, kp1[best.trainIdx].pt))
                confidence.append(1.0 - best.distance / max(second.distance, 1e-6))
        if not pairs:
            empty = torch.zeros((0, 2))
            return Matches(empty, empty.clone(), torch.zeros(0))
        points0 = torch.tensor(_to_image([a for a, _ in pairs], factor0), dtype=torch.float32)
        points1 = torch.tensor(_to_image([b for _, b in pairs], factor1), dtype=torch.float32)
        return Matches(points0, points1, torch.tensor(confidence, dtype=torch.float32))

    def describe(self, image: Image.Image | np.ndarray, points: np.ndarray, size: float = 16.0) -> np.ndarray:
        """SIFT descriptors computed AT given (x, y) image points (N, 2) -> (N, 128), L2-normalised
        (on a shrunk image the points and the patch size shrink with it)."""
        grey, (fx, fy) = _gray(image, self.max_side)
        keypoints = [cv2.KeyPoint(float((x + 0.5) / fx - 0.5), float((y + 0.5) / fy - 0.5), size / max(fx, fy))
                     for x, y in points]
        _, desc = self._sift.compute(grey, keypoints)
        if desc is None or len(desc) != len(points):
            raise ValueError("SIFT could not describe every point (too close to the border?)")
        return desc / np.maximum(np.linalg.norm(desc, axis=1, keepdims=True), 1e-8)
