"""Depth Anything v1 / v2 (relative depth) on transformers.

Images in, one `DisparityMap` per image out, at the image's own size: relative disparity,
LARGER = CLOSER, meaningful only for ordinal comparisons. Two resize rules (`resize`):
"lower_bound", the official pipeline (v1 `run.py`, v2 `infer_image`: the image divided by 255
first, then cv2's INTER_CUBIC on those floats, aspect kept, both sides at least 518, multiples
of 14: no antialiasing and no rounding or clamping, so values overshoot 0-1 at edges; the
prediction upsampled back bilinearly, v2 with align_corners), and "transformers", the
checkpoint's own DPT image processor (uint8 antialiased resize; the scale closest to 1, so a
500x375 BLINK image goes in at 518x392 rather than 686x518: about 1.75x fewer pixels; bicubic
upsampling as its `post_process_depth_estimation`).
Position embeddings (`positions`): "official" resizes DINOv2's 37x37 grid as the authors' DINOv2
does, by the scale factor ((h/14 + 0.1)/37, (w/14 + 0.1)/37), which samples the grid slightly
differently from transformers' resize to (h/14, w/14) ("transformers") on non-square inputs.
Weights: a transformers folder, or an official release file (depth_anything_vitl14.pth,
depth_anything_v2_vitl.pth), converted on load by checkpoints.convert.depth_anything.
Both resize rules use ImageNet normalisation and run as the engine's `Preprocess`, so the
batched engine runs the model: images whose processed sizes agree share a batch (aspect-ratio
buckets), and with a feature cache attached (`use_cache`) the model-resolution prediction of an
image already seen is read, not recomputed.
"""

from __future__ import annotations

import math
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import torch
import torch.nn.functional as F
from PIL import Image

from specialists.engine import Engine, ImageRequest, ModelSpec, Preprocess
from specialists.feature_cache import FeatureCache, weights_fingerprint
from specialists.outputs import DisparityMap
from specialists.precision import DTYPES, dtype_of, place

SPEC_NAME = "depth_anything"
LAYER = "predicted_depth"  # the relative-depth head's output at model resolution, before resizing

# Hub ids of the published checkpoints (weights are resolved offline by the checkpoint registry).
HUB_IDS = {
    ("v1", "small"): "LiheYoung/depth-anything-small-hf",
    ("v1", "base"): "LiheYoung/depth-anything-base-hf",
    ("v1", "large"): "LiheYoung/depth-anything-large-hf",
    ("v2", "small"): "depth-anything/Depth-Anything-V2-Small-hf",
    ("v2", "base"): "depth-anything/Depth-Anything-V2-Base-hf",
    ("v2", "large"): "depth-anything/Depth-Anything-V2-Large-hf",
}


RESIZE_RULES = ("lower_bound", "transformers")
POSITION_RULES = ("official", "transformers")
# how the model-resolution prediction goes back to the image's size, per resize rule
UPSAMPLING = {"lower_bound": "bilinear", "transformers": "bicubic"}


class DepthAnything:
    """model: DepthAnythingForDepthEstimation; processor: its DPT image processor; resize: one
    of RESIZE_RULES, positions: one of POSITION_RULES (see the module docstring); version: "v1"
    or "v2" (None: read from the model, `version_of`), which decides the official upsampling."""

    def __init__(self, model, processor, device: str = "cpu", precision: str = "fp32", batch_size: int = 8,
                 resize: str = "lower_bound", positions: str = "official", version: str | None = None) -> None:
        if resize not in RESIZE_RULES:
            raise ValueError(f"Depth Anything resize rule {resize!r}: choose one of {', '.join(RESIZE_RULES)}")
        if positions not in POSITION_RULES:
            raise ValueError(f"Depth Anything positions {positions!r}: choose one of {', '.join(POSITION_RULES)}")
        self.version = version or version_of(model)
        if positions == "official":
            use_official_positions(model)
        self.device = torch.device(device)
        self.precision = precision
        self.dtype = dtype_of(precision)
        self.model = place(model, self.device, self.dtype)
        self.processor = processor
        self.resize = resize
        self.positions = positions
        self.preprocess = dpt_preprocess(processor, resize)
        # v2's infer_image upsamples with align_corners=True, v1's run.py without
        self.align_corners = resize == "lower_bound" and self.version == "v2"
        self.batch_size = batch_size
        self.use_cache(None)

    def use_cache(self, cache: FeatureCache | None, checkpoint_sha256: str | None = None) -> None:
        """Run through a fresh engine that reads / writes `cache` (None: no cache). The key's
        checkpoint part is `checkpoint_sha256`, or the weights' own fingerprint when there is no
        file behind them (random weights)."""
        if cache is None:
            identity = checkpoint_sha256 or "uncached"  # no key is ever made: skip hashing the weights
        else:
            identity = checkpoint_sha256 or f"weights:{weights_fingerprint(self.model)}"

        def forward(module, x: torch.Tensor) -> torch.Tensor:
            """(B, 3, h, w) normalised float -> (B, h, w) float32 relative disparity."""
            return module(pixel_values=x.to(self.dtype)).predicted_depth.float()

        spec = ModelSpec(SPEC_NAME, self.model, self.preprocess, forward=forward, batch_size=self.batch_size,
                         checkpoint_sha256=identity, layer=f"{LAYER}:positions={self.positions}")
        self.engine = Engine([spec], self.device, self.precision, cache=cache)

    @classmethod
    def from_pretrained(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32", batch_size: int = 8,
                        resize: str = "lower_bound", positions: str = "official"):
        """Load a local transformers folder (config.json, weights, preprocessor_config.json), or
        an official release file (depth_anything_vitl14.pth, depth_anything_v2_vitl.pth)."""
        from transformers import AutoImageProcessor, AutoModelForDepthEstimation

        from checkpoints.convert.common import load_pretrained_folder
        from checkpoints.convert.depth_anything import depth_anything_from_official
        from checkpoints.formats import check_fits

        check_fits(folder, ["transformers", "depth-anything-pth"])  # names both when it is neither
        if Path(folder).is_file():
            model, processor, version = depth_anything_from_official(folder, DTYPES[precision])
            return cls(model, processor, device, precision, batch_size, resize, positions, version)
        model, processor = load_pretrained_folder(AutoModelForDepthEstimation, AutoImageProcessor, folder,
                                                  DTYPES[precision])
        return cls(model, processor, device, precision, batch_size, resize, positions)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32", size: int = 56,
             resize: str = "lower_bound", positions: str = "official") -> "DepthAnything":
        """Random weights, the real architecture (DINOv2 backbone, DPT neck, relative head), small widths."""
        from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config, DPTImageProcessor

        torch.manual_seed(seed)
        backbone = Dinov2Config(
            hidden_size=32, num_hidden_layers=4, num_attention_heads=2, intermediate_size=64, patch_size=14,
            image_size=size, out_features=["stage1", "stage2", "stage3", "stage4"], reshape_hidden_states=False,
        )
        config = DepthAnythingConfig(
            backbone_config=backbone, reassemble_hidden_size=32, neck_hidden_sizes=[8, 16, 32, 32],
            fusion_hidden_size=16, head_hidden_size=8, depth_estimation_type="relative",
        )
        processor = DPTImageProcessor(
            do_resize=True, size={"height": size, "width": size}, keep_aspect_ratio=True, ensure_multiple_of=14,
            resample=Image.BICUBIC, do_normalize=True, image_mean=[0.485, 0.456, 0.406],
            image_std=[0.229, 0.224, 0.225], do_pad=False,
        )
        return cls(DepthAnythingForDepthEstimation(config), processor, device, precision, resize=resize,
                   positions=positions, version="v1")

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[DisparityMap]:
        """One disparity map per image, at that image's (H, W): the engine's (h, w) prediction
        (cached or computed) upsampled as the resize rule's pipeline does."""
        predicted = self.engine.run([ImageRequest(i, SPEC_NAME, img) for i, img in enumerate(images)])
        out = []
        for i, img in enumerate(images):
            depth = predicted[i].float()
            full = F.interpolate(depth[None, None], size=(img.height, img.width), mode=UPSAMPLING[self.resize],
                                 align_corners=self.align_corners)
            out.append(DisparityMap(full[0, 0].cpu()))
        return out


@dataclass(frozen=True)
class OfficialResize(Preprocess):
    """The official pipeline's pixels: divided by 255 first, then bicubic on floats without
    antialiasing, rounding or clamping (cv2.resize INTER_CUBIC of a float image: the same
    a = -0.75 kernel, half-pixel centres and replicated border as torch's bicubic)."""

    def __call__(self, images: torch.Tensor) -> torch.Tensor:
        h, w = self.resized_size(*images.shape[-2:])
        x = images.float().div_(255.0)
        x = F.interpolate(x, size=(h, w), mode=self.interpolation, align_corners=False, antialias=False)
        mean = torch.tensor(self.mean, device=x.device).view(1, 3, 1, 1)
        std = torch.tensor(self.std, device=x.device).view(1, 3, 1, 1)
        return (x - mean) / std


def dpt_preprocess(processor, resize: str = "transformers") -> Preprocess:
    """The engine's preprocessing for a DPT image processor. resize "transformers": the
    processor's own (a torchvision uint8 resize, antialiased, then normalise), reproduced to
    float rounding; "lower_bound": the official sizing and float resize (`OfficialResize`)."""
    size = processor.size
    height, width = (size["height"], size["width"]) if isinstance(size, dict) else (size.height, size.width)
    if height != width:
        raise ValueError(f"DPT processor size {height}x{width}: only square targets are supported")
    if getattr(processor, "do_pad", False) or getattr(processor, "do_center_crop", False):
        raise ValueError("DPT processor pads or crops: not supported by the engine's preprocessing")
    interpolation = {Image.BICUBIC: "bicubic", Image.BILINEAR: "bilinear"}.get(processor.resample)
    if interpolation is None:
        raise ValueError(f"DPT processor resample {processor.resample!r}: only bicubic or bilinear are supported")
    kind = OfficialResize if resize == "lower_bound" else Preprocess
    return kind(
        size=height,
        mode=("lower_bound" if resize == "lower_bound" else "fit") if processor.keep_aspect_ratio else "square",
        multiple_of=processor.ensure_multiple_of or 1,
        mean=tuple(float(v) for v in processor.image_mean),
        std=tuple(float(v) for v in processor.image_std),
        interpolation=interpolation,
    )


def version_of(model) -> str:
    """"v1" when the head reads the encoder's last four blocks (v1), else "v2" (spread blocks)."""
    backbone = model.config.backbone_config
    last = backbone.num_hidden_layers
    return "v1" if list(backbone.out_indices) == list(range(last - 3, last + 1)) else "v2"


def official_interpolate_pos_encoding(embeddings, tokens: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """DINOv2's own position-embedding resize, as the Depth Anything encoders were trained with:
    bicubic by the scale factor (side/14 + 0.1) / grid rather than to the target size, so the
    grid is sampled at slightly different places than transformers' resize to (h/14, w/14)."""
    positions = embeddings.position_embeddings
    grid_size = positions.shape[1] - 1
    if tokens.shape[1] - 1 == grid_size and height == width:
        return positions
    patch = embeddings.patch_embeddings.patch_size
    patch_h, patch_w = (patch, patch) if isinstance(patch, int) else patch
    grid = math.isqrt(grid_size)
    dim = tokens.shape[-1]
    grid_embed = positions[:, 1:].reshape(1, grid, grid, dim).permute(0, 3, 1, 2).float()
    scale = ((height // patch_h + 0.1) / grid, (width // patch_w + 0.1) / grid)
    resized = F.interpolate(grid_embed, scale_factor=scale, mode="bicubic", align_corners=False)
    resized = resized.to(positions.dtype).permute(0, 2, 3, 1).reshape(1, -1, dim)
    return torch.cat((positions[:, :1], resized), dim=1)


def use_official_positions(model) -> None:
    """Make this model's DINOv2 embeddings (only this instance's) resize positions officially."""
    embeddings = model.backbone.embeddings
    embeddings.interpolate_pos_encoding = types.MethodType(official_interpolate_pos_encoding, embeddings)
