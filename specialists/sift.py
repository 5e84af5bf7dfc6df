"""SIFT keypoint matching (OpenCV): the weight-free matcher behind `sift`, `essential` and `flow`.

Image pair in, `Matches` out. Mutual nearest neighbours plus Lowe's ratio test keep the
matches that RANSAC-style estimators downstream can use.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import torch
from PIL import Image

from .outputs import Matches


def _gray(image: Image.Image | np.ndarray) -> np.ndarray:
    array = np.asarray(image.convert("RGB") if isinstance(image, Image.Image) else image)
    return cv2.cvtColor(array, cv2.COLOR_RGB2GRAY) if array.ndim == 3 else array


@dataclass
class SiftMatcher:
    """ratio: Lowe's ratio-test threshold; max_features: keypoints kept per image (0 = all)."""

    ratio: float = 0.8
    max_features: int = 4000

    def __post_init__(self) -> None:
        self._sift = cv2.SIFT_create(nfeatures=self.max_features)

    def __call__(self, image0: Image.Image | np.ndarray, image1: Image.Image | np.ndarray) -> Matches:
        kp0, desc0 = self._sift.detectAndCompute(_gray(image0), None)
        kp1, desc1 = self._sift.detectAndCompute(_gray(image1), None)
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
        points = torch.tensor(pairs, dtype=torch.float32)  # (N, 2, 2)
        return Matches(points[:, 0], points[:, 1], torch.tensor(confidence, dtype=torch.float32))

    def describe(self, image: Image.Image | np.ndarray, points: np.ndarray, size: float = 16.0) -> np.ndarray:
        """SIFT descriptors computed AT given (x, y) points (N, 2) -> (N, 128), L2-normalised."""
        keypoints = [cv2.KeyPoint(float(x), float(y), size) for x, y in points]
        _, desc = self._sift.compute(_gray(image), keypoints)
        if desc is None or len(desc) != len(points):
            raise ValueError("SIFT could not describe every point (too close to the border?)")
        return desc / np.maximum(np.linalg.norm(desc, axis=1, keepdims=True), 1e-8)
