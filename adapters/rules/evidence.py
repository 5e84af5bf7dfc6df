"""Small pictures of a specialist's dense output, for the report page (`run --keep-evidence`).

Each view is a thumbnail (long side at most EVIDENCE_SIDE px) with the question's points drawn
where the rule read them, so a reader sees what the decision was made from: the disparity
map, the albedo, the matches or the feature similarity. The values themselves are in the
decision's details; these pictures never carry the full tensors.

    disparity_view(disparity (H, W), points)            -> PIL image ("depth")
    albedo_view(layers, points)                          -> PIL image ("albedo")
    matches_view(image0, image1, kp0, kp1, inliers, ...) -> PIL image ("matches")
    similarity_view(image0, image1, source, target, ...) -> PIL image ("similarity")
"""

from __future__ import annotations

from typing import Mapping, Sequence

import cv2
import numpy as np
import torch
from PIL import Image

from specialists.outputs import FeatureMap, IntrinsicLayers

EVIDENCE_SIDE = 256
# Match lines drawn at most: beyond this a thumbnail is a mesh; the count is in the details.
MAX_LINES = 80
POINT_COLOUR = (0, 229, 255)  # cyan: apart from BLINK's red and white rings and from the colour maps
REF_COLOUR = (255, 215, 0)
PROJECTED_COLOUR = (255, 64, 255)

Points = Mapping[str, Sequence[float]]


def _scale_to(height: int, width: int, side: int = EVIDENCE_SIDE) -> float:
    return min(1.0, side / max(height, width))


def _resized(rgb: np.ndarray, scale: float) -> np.ndarray:
    if scale == 1.0:
        return np.ascontiguousarray(rgb)
    size = (max(1, round(rgb.shape[1] * scale)), max(1, round(rgb.shape[0] * scale)))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)


def _draw_points(rgb: np.ndarray, points: Points, scale: float, colour=POINT_COLOUR, offset=(0, 0)) -> None:
    """A ring and its label at each point (given in the original image's pixels)."""
    for label, xy in points.items():
        centre = (int(round(xy[0] * scale + offset[0])), int(round(xy[1] * scale + offset[1])))
        cv2.circle(rgb, centre, 5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.circle(rgb, centre, 5, colour, 1, cv2.LINE_AA)
        org = (centre[0] + 7, centre[1] - 5)
        cv2.putText(rgb, str(label), org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(rgb, str(label), org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)


def _colour_mapped(values: np.ndarray, colormap: int = cv2.COLORMAP_INFERNO) -> np.ndarray:
    """(H, W) floats -> RGB uint8, stretched between the 2nd and 98th percentiles (robust to outliers)."""
    finite = values[np.isfinite(values)]
    lo, hi = (np.percentile(finite, [2, 98]) if finite.size else (0.0, 1.0))
    scaled = np.clip((values - lo) / max(hi - lo, 1e-12), 0, 1)
    grey = np.nan_to_num(scaled * 255).astype(np.uint8)
    return cv2.cvtColor(cv2.applyColorMap(grey, colormap), cv2.COLOR_BGR2RGB)


def _as_rgb(image) -> np.ndarray:
    return np.asarray(image.convert("RGB") if isinstance(image, Image.Image) else image, dtype=np.uint8)


def disparity_view(disparity: torch.Tensor, points: Points) -> Image.Image:
    """The disparity map (bright = closer), colour-mapped, with the points read on it."""
    values = disparity.detach().float().cpu().numpy()
    scale = _scale_to(*values.shape)
    rgb = _colour_mapped(_resized(values, scale) if scale != 1.0 else values)
    _draw_points(rgb, points, scale)
    return Image.fromarray(rgb)


def albedo_view(layers: IntrinsicLayers, points: Points) -> Image.Image:
    """The linear albedo shown in sRGB (scaled so its 99th percentile is white), with the points.
    Points are in the image's pixels; layers computed smaller carry the image's size."""
    albedo = layers.albedo.detach().float().cpu().numpy().transpose(1, 2, 0)
    height, width = layers.image_size or albedo.shape[:2]
    top = float(np.percentile(albedo, 99)) or 1.0
    srgb = np.clip(albedo / top, 0, 1) ** (1 / 2.2)
    scale = _scale_to(height, width)
    target = (max(1, round(width * scale)), max(1, round(height * scale)))
    rgb = cv2.resize((srgb * 255).astype(np.uint8), target, interpolation=cv2.INTER_AREA)
    _draw_points(rgb, points, scale)
    return Image.fromarray(rgb)


def _side_by_side(image0, image1) -> tuple[np.ndarray, float, float, int]:
    """Both images at one height, left and right: (canvas, scale0, scale1, x offset of image 1)."""
    a, b = _as_rgb(image0), _as_rgb(image1)
    height = min(EVIDENCE_SIDE // 2 + 64, max(a.shape[0], b.shape[0]))
    s0, s1 = height / a.shape[0], height / b.shape[0]
    ra, rb = _resized(a, s0), _resized(b, s1)
    canvas = np.zeros((height, ra.shape[1] + 4 + rb.shape[1], 3), np.uint8)
    canvas[: ra.shape[0], : ra.shape[1]] = ra
    canvas[: rb.shape[0], ra.shape[1] + 4:] = rb
    return canvas, s0, s1, ra.shape[1] + 4


def _fit(canvas: np.ndarray) -> Image.Image:
    width = canvas.shape[1]
    limit = 2 * EVIDENCE_SIDE  # two images side by side may be twice as wide
    return Image.fromarray(_resized(canvas, min(1.0, limit / width)))


def matches_view(image0, image1, keypoints0: np.ndarray, keypoints1: np.ndarray, inliers: np.ndarray | None,
                 ref: Sequence[float], candidates: Points, projected: Sequence[float] | None = None) -> Image.Image:
    """The two images side by side with match lines (inliers green, the rest grey; at most
    MAX_LINES, inliers first), REF on the first, the candidates and REF's projection on the second."""
    canvas, s0, s1, dx = _side_by_side(image0, image1)
    n = len(keypoints0)
    keep = np.ones(n, bool) if inliers is None else np.asarray(inliers, bool).reshape(-1)
    order = np.concatenate([np.flatnonzero(keep), np.flatnonzero(~keep)])[:MAX_LINES]
    for i in order[::-1]:  # inliers drawn last, on top
        colour = (60, 220, 60) if keep[i] and inliers is not None else (150, 150, 150)
        p0 = (int(keypoints0[i][0] * s0), int(keypoints0[i][1] * s0))
        p1 = (int(keypoints1[i][0] * s1 + dx), int(keypoints1[i][1] * s1))
        cv2.line(canvas, p0, p1, colour, 1, cv2.LINE_AA)
    _draw_points(canvas, {"REF": ref}, s0, REF_COLOUR)
    _draw_points(canvas, candidates, s1, POINT_COLOUR, (dx, 0))
    if projected is not None:
        _draw_points(canvas, {"proj": projected}, s1, PROJECTED_COLOUR, (dx, 0))
    return _fit(canvas)


def similarity_view(image0, image1, source: FeatureMap, target: FeatureMap, ref: Sequence[float],
                    candidates: Points) -> Image.Image:
    """REF on the first image; on the second, the cosine similarity of every position's feature
    to REF's (bright = similar) laid over the image, with the candidates."""
    f_ref = source.at(torch.tensor([ref], dtype=torch.float32))[0]
    features = torch.nn.functional.normalize(target.features.float(), dim=0)
    cosine = torch.einsum("chw,c->hw", features, f_ref.to(features.device)).cpu().numpy()
    canvas, s0, s1, dx = _side_by_side(image0, image1)
    right = canvas[:, dx:]
    height = min(right.shape[0], round(target.image_size[0] * s1))
    heat = cv2.resize(_colour_mapped(cosine), (right.shape[1], height), interpolation=cv2.INTER_LINEAR)
    right[:height] = (0.45 * right[:height] + 0.55 * heat).astype(np.uint8)
    _draw_points(canvas, {"REF": ref}, s0, REF_COLOUR)
    _draw_points(canvas, candidates, s1, POINT_COLOUR, (dx, 0))
    return _fit(canvas)
