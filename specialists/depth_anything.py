"""Depth Anything v1 / v2 (relative depth) on transformers.

Images in, one `DisparityMap` per image out, at the image's own size: relative disparity,
LARGER = CLOSER, meaningful only for ordinal comparisons. Two resize rules (`resize`):
"lower_bound", the official v1 `run.py` (aspect kept, both sides at least 518, multiples of 14,
bicubic; the prediction upsampled back bilinearly), and "transformers", the checkpoint's own
DPT image processor (the scale closest to 1, so a 500x375 BLINK image goes in at 518x392 rather
than 686x518: about 1.75x fewer pixels; bicubic upsampling as its `post_process_depth_estimation`).
Both use ImageNet normalisation and run as the engine's `Preprocess`, so the batched engine runs the model: images whose
processed sizes agree share a batch (aspect-ratio buckets), and with a feature cache attached
(`use_cache`) the model-resolution prediction of an image already seen is read, not recomputed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import torch
import torch.nn.functional as F
from PIL import Image

from .engine import Engine, ImageRequest, ModelSpec, Preprocess
from .feature_cache import FeatureCache, weights_fingerprint
from .precision import DTYPES, dtype_of, place
from .outputs import DisparityMap

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
# how the model-resolution prediction goes back to the image's size, per resize rule
UPSAMPLING = {"lower_bound": "bilinear", "transformers": "bicubic"}


class DepthAnything:
    """model: DepthAnythingForDepthEstimation; processor: its DPT image processor; resize: one
    of RESIZE_RULES (see the module docstring)."""

    def __init__(self, model, processor, device: str = "cpu", precision: str = "fp32", batch_size: int = 8,
                 resize: str = "lower_bound") -> None:
        if resize not in RESIZE_RULES:
            raise ValueError(f"Depth Anything resize rule {resize!r}: choose one of {', '.join(RESIZE_RULES)}")
        self.device = torch.device(device)
        self.precision = precision
        self.dtype = dtype_of(precision)
        self.model = place(model, self.device, self.dtype)
        self.processor = processor
        self.resize = resize
        self.preprocess = dpt_preprocess(processor, resize)
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
                         checkpoint_sha256=identity, layer=LAYER)
        self.engine = Engine([spec], self.device, self.precision, cache=cache)

    @classmethod
    def from_pretrained(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32", batch_size: int = 8,
                        resize: str = "lower_bound"):
        """Load a local transformers folder (config.json, weights, preprocessor_config.json)."""
        from transformers import AutoImageProcessor, AutoModelForDepthEstimation

        from checkpoints.convert.common import load_pretrained_folder

        model, processor = load_pretrained_folder(AutoModelForDepthEstimation, AutoImageProcessor, folder,
                                                  DTYPES[precision])
        return cls(model, processor, device, precision, batch_size, resize)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32", size: int = 56,
             resize: str = "lower_bound") -> "DepthAnything":
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
        return cls(DepthAnythingForDepthEstimation(config), processor, device, precision, resize=resize)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[DisparityMap]:
        """One disparity map per image, at that image's (H, W): the engine's (h, w) prediction
        (cached or computed) upsampled as the resize rule's pipeline does."""
        predicted = self.engine.run([ImageRequest(i, SPEC_NAME, img) for i, img in enumerate(images)])
        out = []
        for i, img in enumerate(images):
            depth = predicted[i].float()
            full = F.interpolate(depth[None, None], size=(img.height, img.width), mode=UPSAMPLING[self.resize],
                                 align_corners=False)
            out.append(DisparityMap(full[0, 0].cpu()))
        return out


def dpt_preprocess(processor, resize: str = "transformers") -> Preprocess:
    """The engine's equivalent of a DPT image processor: transformers' DPT processor is itself a
    torchvision uint8 resize (antialiased) then normalise, so this reproduces it to float rounding.
    resize "lower_bound": the official v1 sizing instead (its bicubic resize of float pixels is
    matched to within uint8 rounding)."""
    size = processor.size
    height, width = (size["height"], size["width"]) if isinstance(size, dict) else (size.height, size.width)
    if height != width:
        raise ValueError(f"DPT processor size {height}x{width}: only square targets are supported")
    if getattr(processor, "do_pad", False) or getattr(processor, "do_center_crop", False):
        raise ValueError("DPT processor pads or crops: not supported by the engine's preprocessing")
    interpolation = {Image.BICUBIC: "bicubic", Image.BILINEAR: "bilinear"}.get(processor.resample)
    if interpolation is None:
        raise ValueError(f"DPT processor resample {processor.resample!r}: only bicubic or bilinear are supported")
    return Preprocess(
        size=height,
        mode=("lower_bound" if resize == "lower_bound" else "fit") if processor.keep_aspect_ratio else "square",
        multiple_of=processor.ensure_multiple_of or 1,
        mean=tuple(float(v) for v in processor.image_mean),
        std=tuple(float(v) for v in processor.image_std),
        interpolation=interpolation,
    )
