"""The full-resolution search of the official ordinal-shading pipeline (Careaga & Aksoy 2023).

The official v1 pipeline (`run_pipeline(..., resize_conf=0.0)`) does not run its full-size
ordinal estimate at the image's own size: it asks how large the image can get before the
network's receptive field (about `base_size` px) sees regions with no edge in them, with the
R0 rule of Miangoleh et al. 2021 (BoostingMonocularDepth) as chrislib's
`calculateprocessingres` implements it, then `get_optimal_dims`:

1. grey = RGB . (0.2989, 0.5870, 0.1140) (sRGB values in [0, 1]); gradient = |Sobel_y| + |Sobel_x|
   (3x3, float64); resized to a square of the image's short side;
2. binarised at 40% of its range (min + 0.4 (max - min)); a flat image is all ones;
3. for p = 12, 18, 24, ... below min(3000, 3 x long side) / 32 (with base_size 384: start
   base/32, step base/64): max-pool the edge map to about p x p (block = floor(short / p),
   zero-padded at the bottom and right), resize to p x p, binarise at 0.5, dilate with a
   (base/32)-square kernel; p passes while no pixel is left uncovered (confidence 0.0). R0 is
   32 x the last p that passed (base_size if none did);
4. long side = min(max(R0, image long side), 1500); both sides scaled by long / image long and
   rounded UP to multiples of 32.

Two behaviours of the official code are reproduced on purpose because they decide the sizes:
its `cv2.resize(x, size, cv2.INTER_AREA)` calls pass the flag where OpenCV expects `dst`, so both
resizes are bilinear; and a flat image (no gradient at all) binarises to all ones and so gets the
largest size. Where the official code crashes (a long side of 128 px or less leaves the loop
empty; a pool size above the short side), this keeps the last size that passed. The steps are
ours, written with OpenCV (which the official code uses for the same operations).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

GREY_WEIGHTS = (0.2989, 0.5870, 0.1140)  # chrislib's rgb2gray
EDGE_LEVEL = 0.4  # binarisation threshold, as a fraction of the gradient's range
SPEED_SCALE = 32  # pixels of the image per pixel of the edge map at each tried size
SCALE_THRESHOLD = 3  # never try beyond 3x the image's long side ...
WHOLE_SIZE_THRESHOLD = 3000  # ... nor beyond 3000 px
MAX_LONG_SIDE = 1500  # get_optimal_dims caps the result here


def round_up_32(x: float) -> int:
    """The next multiple of 32 at or above x (the encoders downsample by 32)."""
    return 32 * math.ceil(x / 32)


def edge_map(srgb: np.ndarray) -> np.ndarray:
    """srgb (H, W, 3) float in [0, 1] -> (S, S) float64 binary edge map, S = min(H, W)."""
    grey = srgb[..., :3].astype(np.float64) @ np.array(GREY_WEIGHTS)
    gradient = np.abs(cv2.Sobel(grey, cv2.CV_64F, 0, 1, ksize=3)) + np.abs(cv2.Sobel(grey, cv2.CV_64F, 1, 0, ksize=3))
    side = int(min(srgb.shape[:2]))
    gradient = cv2.resize(gradient, (side, side), interpolation=cv2.INTER_LINEAR)
    low, high = gradient.min(), gradient.max()
    return (gradient >= low + EDGE_LEVEL * (high - low)).astype(np.float64)


def _max_pool(edges: np.ndarray, block: int) -> np.ndarray:
    """(S, S) -> (ceil(S / block),) * 2: max over block x block tiles, zero-padded at the end
    (skimage's block_reduce with np.max)."""
    side = edges.shape[0]
    padded_side = block * math.ceil(side / block)
    padded = np.zeros((padded_side, padded_side), edges.dtype)
    padded[:side, :side] = edges
    n = padded_side // block
    return padded.reshape(n, block, n, block).max(axis=(1, 3))


def receptive_field_size(srgb: np.ndarray, base_size: int = 384, confidence: float = 0.0) -> int:
    """R0: the largest tried size (px) at which every region of the image still has an edge
    within the network's receptive field (steps 1-3 of the module docstring)."""
    height, width = srgb.shape[:2]
    edges = edge_map(srgb)
    kernel = np.ones((base_size // SPEED_SCALE, base_size // SPEED_SCALE), np.float32)
    limit = min(WHOLE_SIZE_THRESHOLD, SCALE_THRESHOLD * max(height, width))
    best = base_size // SPEED_SCALE
    step = max(1, base_size // (2 * SPEED_SCALE))
    for p_size in range(base_size // SPEED_SCALE, int(limit / SPEED_SCALE), step):
        block = edges.shape[0] // p_size
        if block == 0:  # the official code raises here (pool finer than the edge map)
            break
        pooled = cv2.resize(_max_pool(edges, block), (p_size, p_size), interpolation=cv2.INTER_LINEAR)
        pooled = (pooled >= 0.5).astype(np.float32)
        covered = cv2.dilate(pooled, kernel, iterations=1)
        if (1.0 - covered).mean() <= confidence:
            best = p_size
        else:
            break
    return int(best * SPEED_SCALE)


def optimal_size(srgb: np.ndarray, base_size: int = 384, max_size: int = MAX_LONG_SIDE) -> tuple[int, int]:
    """(H, W) of the official full-size network input for an sRGB image (H, W, 3) in [0, 1]:
    long side min(max(R0, long side), max_size), both sides rounded up to multiples of 32."""
    height, width = srgb.shape[:2]
    long_side = max(height, width)
    target = min(max(receptive_field_size(srgb, base_size), long_side), max_size)
    scale = target / long_side
    return round_up_32(height * scale), round_up_32(width * scale)
