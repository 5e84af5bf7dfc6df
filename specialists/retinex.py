"""Retinex intrinsic decomposition: the weight-free reflectance specialist.

Large steps in log luminance or in chromaticity are reflectance edges; everything smoother is
shading. Keeping only the reflectance gradients and reintegrating them (a Poisson solve) gives log
reflectance up to one global constant, which ordinal comparisons do not need.

The Poisson solve is written here (with OpenCV's DCT) because no dependency of ours ships a
Neumann-boundary Poisson integrator; it is the textbook spectral solution.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import torch
from PIL import Image

from specialists.outputs import IntrinsicLayers

LUMA = np.array([0.2126, 0.7152, 0.0722])


def srgb_to_linear(image: np.ndarray) -> np.ndarray:
    """uint8 or [0, 1] sRGB (H, W, 3) -> linear light, the simple gamma 2.2 the IIW rule assumes."""
    scaled = image.astype(np.float64) / (255.0 if image.dtype == np.uint8 else 1.0)
    return np.clip(scaled, 0, 1) ** 2.2


def poisson_reintegrate(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """The u (H, W) whose forward differences best match (gx, gy) in least squares (mean zero).

    gx[:, j] ~ u[:, j+1] - u[:, j] (last column unused), gy likewise over rows.
    """
    h, w = gx.shape
    # cv2.dct wants even sizes: solve for u with its last row/column repeated once where needed,
    # whose gradients are gx/gy padded the same way (a repeated row/column has zero step across it)
    ph, pw = h + h % 2, w + w % 2
    gx = np.pad(gx, ((0, ph - h), (0, pw - w)), mode="edge")
    gy = np.pad(gy, ((0, ph - h), (0, pw - w)), mode="edge")
    gx[:, w - 1 :] = 0.0
    gy[h - 1 :, :] = 0.0
    padded = np.zeros((ph, pw))
    padded[:, :-1] += gx[:, :-1]
    padded[:, 1:] -= gx[:, :-1]
    padded[:-1, :] += gy[:-1, :]
    padded[1:, :] -= gy[:-1, :]
    spectrum = cv2.dct(padded)
    ky = 2 * np.cos(np.pi * np.arange(ph) / ph)[:, None]
    kx = 2 * np.cos(np.pi * np.arange(pw) / pw)[None, :]
    denominator = kx + ky - 4
    denominator[0, 0] = 1.0
    # div is the Neumann Laplacian of u; the DCT diagonalises it with eigenvalues kx + ky - 4
    solution = spectrum / denominator
    solution[0, 0] = 0.0
    return cv2.idct(solution)[:h, :w]


# Long side Retinex works at: its float64 Poisson solve needs several copies of the image, which
# on a 48 MP photograph is many gigabytes; larger images are decomposed at this size and the
# layers carry the image's size, so points are still given in the image's pixels.
MAX_SIDE = 1500


@dataclass
class Retinex:
    """threshold: |log-luminance step| counted as a reflectance edge; chroma_threshold likewise
    for chromaticity steps (colour Retinex); max_side: the working size's long side."""

    threshold: float = 0.08
    chroma_threshold: float = 0.03
    max_side: int = MAX_SIDE

    def __call__(self, image: Image.Image | np.ndarray) -> IntrinsicLayers:
        rgb = np.asarray(image.convert("RGB") if isinstance(image, Image.Image) else image)
        image_size = None
        if max(rgb.shape[:2]) > self.max_side:
            image_size = rgb.shape[:2]
            scale = self.max_side / max(rgb.shape[:2])
            size = (max(1, round(rgb.shape[1] * scale)), max(1, round(rgb.shape[0] * scale)))
            rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        linear = srgb_to_linear(rgb)
        eps = 1e-4
        lum = linear @ LUMA + eps
        log_lum = np.log(lum)
        chroma = linear / (linear.sum(axis=2, keepdims=True) + 3 * eps)

        def forward(a: np.ndarray, axis: int) -> np.ndarray:
            d = np.zeros_like(a)
            if axis == 1:
                d[:, :-1] = a[:, 1:] - a[:, :-1]
            else:
                d[:-1] = a[1:] - a[:-1]
            return d

        gx, gy = forward(log_lum, 1), forward(log_lum, 0)
        cx = np.abs(forward(chroma, 1)).sum(axis=2)
        cy = np.abs(forward(chroma, 0)).sum(axis=2)
        keep_x = (np.abs(gx) > self.threshold) | (cx > self.chroma_threshold)
        keep_y = (np.abs(gy) > self.threshold) | (cy > self.chroma_threshold)
        log_reflectance = poisson_reintegrate(gx * keep_x, gy * keep_y)
        reflectance_lum = np.exp(log_reflectance)
        shading = lum / reflectance_lum
        albedo = linear / shading[..., None]
        return IntrinsicLayers(
            albedo=torch.from_numpy(albedo.transpose(2, 0, 1).astype(np.float32)),
            shading=torch.from_numpy(shading.astype(np.float32)),
            image_size=image_size,
        )
