"""Depth Anything v1 / v2 (relative depth) on transformers.

Images in, one `DisparityMap` per image out, at the image's own size: relative disparity,
LARGER = CLOSER, meaningful only for ordinal comparisons. Preprocessing is the checkpoint's own
image processor (DPT: aspect kept, sides multiples of 14 around 518, ImageNet normalisation);
images whose processed sizes agree are batched together (aspect-ratio buckets).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Sequence

import torch
import torch.nn.functional as F
from PIL import Image

from .precision import DTYPES, dtype_of, place
from .outputs import DisparityMap

# Hub ids of the published checkpoints (weights are resolved offline by the checkpoint registry).
HUB_IDS = {
    ("v1", "small"): "LiheYoung/depth-anything-small-hf",
    ("v1", "base"): "LiheYoung/depth-anything-base-hf",
    ("v1", "large"): "LiheYoung/depth-anything-large-hf",
    ("v2", "small"): "depth-anything/Depth-Anything-V2-Small-hf",
    ("v2", "base"): "depth-anything/Depth-Anything-V2-Base-hf",
    ("v2", "large"): "depth-anything/Depth-Anything-V2-Large-hf",
}


class DepthAnything:
    """model: DepthAnythingForDepthEstimation; processor: its DPT image processor."""

    def __init__(self, model, processor, device: str = "cpu", precision: str = "fp32", batch_size: int = 8) -> None:
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        self.model = place(model, self.device, self.dtype)
        self.processor = processor
        self.batch_size = batch_size

    @classmethod
    def from_pretrained(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32", batch_size: int = 8):
        """Load a local transformers folder (config.json, weights, preprocessor_config.json)."""
        from transformers import AutoImageProcessor, AutoModelForDepthEstimation

        folder = Path(folder)
        if not (folder / "config.json").is_file():
            raise ValueError(f"{folder} is not a transformers model folder: no config.json")
        model = AutoModelForDepthEstimation.from_pretrained(folder, local_files_only=True, dtype=DTYPES[precision])
        processor = AutoImageProcessor.from_pretrained(folder, local_files_only=True)
        return cls(model, processor, device, precision, batch_size)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32", size: int = 56) -> "DepthAnything":
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
        return cls(DepthAnythingForDepthEstimation(config), processor, device, precision)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[DisparityMap]:
        """One disparity map per image, at that image's (H, W)."""
        pixels = [self.processor(images=img.convert("RGB"), return_tensors="pt")["pixel_values"] for img in images]
        buckets: dict[tuple[int, int], list[int]] = defaultdict(list)
        for i, p in enumerate(pixels):
            buckets[tuple(p.shape[-2:])].append(i)
        out: list[DisparityMap | None] = [None] * len(images)
        for indices in buckets.values():
            for start in range(0, len(indices), self.batch_size):
                chunk = indices[start : start + self.batch_size]
                batch = torch.cat([pixels[i] for i in chunk]).to(self.device, self.dtype)
                predicted = self.model(pixel_values=batch).predicted_depth.float()  # (B, h, w)
                for i, depth in zip(chunk, predicted):
                    size = (images[i].height, images[i].width)
                    full = F.interpolate(depth[None, None], size=size, mode="bicubic", align_corners=False)[0, 0]
                    out[i] = DisparityMap(full.cpu())
        return out  # type: ignore[return-value]
