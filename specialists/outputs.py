"""Typed dense outputs: what a specialist returns for ONE image (or image pair).

Each type checks its shapes on construction, so a wrapper that returns the wrong layout fails
where it is built, not three modules later inside a decision rule. Tensors may live on any
device; decision rules read values with `.at(...)` style helpers that work in pixel
coordinates of the ORIGINAL image.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def _disc_mask(height: int, width: int, x: float, y: float, radius: float, device) -> torch.Tensor:
    ys = torch.arange(height, device=device).view(-1, 1).float()
    xs = torch.arange(width, device=device).view(1, -1).float()
    return (xs - x) ** 2 + (ys - y) ** 2 <= radius**2


def _disc_median(values: torch.Tensor, x: float, y: float, radius: float) -> float:
    """Median of a (H, W) map over the disc at (x, y): robust to a marker's ring or an edge."""
    height, width = values.shape
    _check(0 <= x < width and 0 <= y < height, f"point ({x:.1f}, {y:.1f}) lies outside the {width}x{height} map")
    mask = _disc_mask(height, width, x, y, max(radius, 0.5), values.device)
    return float(values[mask].float().median())


@dataclass(frozen=True)
class DisparityMap:
    """Relative disparity (inverse depth), affine-ambiguous: LARGER = CLOSER.

    disparity: (H, W) at the original image size.
    """

    disparity: torch.Tensor

    def __post_init__(self) -> None:
        _check(self.disparity.ndim == 2, f"DisparityMap wants (H, W), got {tuple(self.disparity.shape)}")

    def at(self, x: float, y: float, radius: float = 0.0) -> float:
        """Median disparity over a disc of `radius` pixels at (x, y) (radius 0 = the pixel)."""
        return _disc_median(self.disparity, x, y, radius)


@dataclass(frozen=True)
class FeatureMap:
    """Dense features of one image.

    features: (C, h, w) at the model's stride; image_size: (H, W) of the image they came from.
    """

    features: torch.Tensor
    image_size: tuple[int, int]

    def __post_init__(self) -> None:
        _check(self.features.ndim == 3, f"FeatureMap wants (C, h, w), got {tuple(self.features.shape)}")
        _check(len(self.image_size) == 2, "image_size is (H, W)")

    def at(self, points: torch.Tensor) -> torch.Tensor:
        """L2-normalised features at pixel points (N, 2) as (x, y) of the original image -> (N, C).

        Bilinear sampling of the feature map, the same as upsampling it to image size and reading
        the pixel, without materialising the upsampled map.
        """
        _check(points.ndim == 2 and points.shape[1] == 2, f"points must be (N, 2) (x, y), got {tuple(points.shape)}")
        height, width = self.image_size
        # align_corners=False grid: pixel centre x maps to (2x + 1) / W - 1
        grid = torch.stack(
            [(2 * points[:, 0] + 1) / width - 1, (2 * points[:, 1] + 1) / height - 1], dim=-1
        ).to(self.features.device, torch.float32)
        sampled = F.grid_sample(
            self.features[None].float(), grid[None, :, None, :], mode="bilinear", align_corners=False
        )  # (1, C, N, 1)
        return F.normalize(sampled[0, :, :, 0].T, dim=-1)


@dataclass(frozen=True)
class Matches:
    """Point matches between two images: keypoints0/1 (N, 2) pixel (x, y); confidence (N,)."""

    keypoints0: torch.Tensor
    keypoints1: torch.Tensor
    confidence: torch.Tensor

    def __post_init__(self) -> None:
        n = self.keypoints0.shape[0]
        _check(self.keypoints0.shape == (n, 2), f"keypoints0 must be (N, 2), got {tuple(self.keypoints0.shape)}")
        _check(self.keypoints1.shape == (n, 2), f"keypoints1 must be (N, 2) like keypoints0, got {tuple(self.keypoints1.shape)}")
        _check(self.confidence.shape == (n,), f"confidence must be (N,), got {tuple(self.confidence.shape)}")

    def __len__(self) -> int:
        return int(self.keypoints0.shape[0])


@dataclass(frozen=True)
class IntrinsicLayers:
    """Intrinsic decomposition in LINEAR light: albedo (3, h, w), shading (h, w); image = albedo * shading.

    image_size: (H, W) of the image when the layers were computed at a smaller working size
    (a bounded method on a huge photograph); None: the layers are at the image's size. Readers
    take points in the image's pixels either way.
    """

    albedo: torch.Tensor
    shading: torch.Tensor
    image_size: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        _check(self.albedo.ndim == 3 and self.albedo.shape[0] == 3, f"albedo must be (3, H, W), got {tuple(self.albedo.shape)}")
        _check(self.shading.shape == self.albedo.shape[1:], f"shading must be (H, W) = {tuple(self.albedo.shape[1:])}, got {tuple(self.shading.shape)}")

    def reflectance_at(self, x: float, y: float, radius: float = 0.0, measure: str = "mean_rgb") -> float:
        """Median over a disc at (x, y) of one number per pixel of linear albedo: "mean_rgb" (the
        mean of R, G, B: what the WHDR reference compares) or "luminance" (Rec. 709 weights)."""
        if measure == "mean_rgb":
            per_pixel = self.albedo.float().mean(0)
        elif measure == "luminance":
            weights = torch.tensor(REC709, device=self.albedo.device).view(3, 1, 1)
            per_pixel = (self.albedo.float() * weights).sum(0)
        else:
            raise ValueError(f"reflectance measure {measure!r}: choose mean_rgb or luminance")
        if self.image_size is not None:  # image pixels -> working-size pixels (centres to centres)
            fx, fy = per_pixel.shape[1] / self.image_size[1], per_pixel.shape[0] / self.image_size[0]
            _check(0 <= x < self.image_size[1] and 0 <= y < self.image_size[0],
                   f"point ({x:.1f}, {y:.1f}) lies outside the {self.image_size[1]}x{self.image_size[0]} image")
            x, y, radius = (x + 0.5) * fx - 0.5, (y + 0.5) * fy - 0.5, radius * min(fx, fy)
            x = min(max(x, 0.0), per_pixel.shape[1] - 1.0)
            y = min(max(y, 0.0), per_pixel.shape[0] - 1.0)
        return _disc_median(per_pixel, x, y, radius)

    def luminance_at(self, x: float, y: float, radius: float = 0.0) -> float:
        """Median linear albedo luminance (Rec. 709 weights) over a disc at (x, y)."""
        return self.reflectance_at(x, y, radius, "luminance")


REC709 = (0.2126, 0.7152, 0.0722)


@dataclass(frozen=True)
class ForensicScore:
    """A generated-image detector's output: fake_probability in [0, 1]; error_map (H, W) (e.g. DIRE);
    reconstruction_error: mean of the error map, usable without a classifier; fake_logit: the
    classifier's logit (sigmoid(logit) = fake_probability), what images are ranked by, since the
    probability saturates to exactly 1.0 in float32 for logits above about 17."""

    fake_probability: float | None
    error_map: torch.Tensor
    reconstruction_error: float
    fake_logit: float | None = None

    def __post_init__(self) -> None:
        _check(self.error_map.ndim == 2, f"error_map must be (H, W), got {tuple(self.error_map.shape)}")
        if self.fake_probability is not None:
            _check(0.0 <= self.fake_probability <= 1.0, f"fake_probability must be in [0, 1], got {self.fake_probability}")


@dataclass(frozen=True)
class Detections:
    """An open-vocabulary detector's output for one image: boxes (N, 4) as (x0, y0, x1, y1) in the
    image's pixels, scores (N,) in [0, 1], labels (N,) the index of the text query each box
    answers. Every candidate box is kept (no threshold): rules choose theirs."""

    boxes: torch.Tensor
    scores: torch.Tensor
    labels: torch.Tensor
    queries: tuple[str, ...]

    def __post_init__(self) -> None:
        n = self.boxes.shape[0]
        _check(self.boxes.ndim == 2 and self.boxes.shape[1] == 4, f"boxes must be (N, 4), got {tuple(self.boxes.shape)}")
        _check(self.scores.shape == (n,) and self.labels.shape == (n,), "scores and labels must be (N,) like boxes")

    def of_query(self, query: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(boxes (M, 4), scores (M,)) answering text query `query`, best first."""
        keep = self.labels == query
        order = torch.argsort(self.scores[keep], descending=True)
        return self.boxes[keep][order], self.scores[keep][order]


@dataclass(frozen=True)
class Embedding:
    """A global image embedding: vector (D,)."""

    vector: torch.Tensor

    def __post_init__(self) -> None:
        _check(self.vector.ndim == 1, f"Embedding wants (D,), got {tuple(self.vector.shape)}")

    def cosine(self, other: "Embedding") -> float:
        return float(F.cosine_similarity(self.vector.float(), other.vector.float(), dim=0))
