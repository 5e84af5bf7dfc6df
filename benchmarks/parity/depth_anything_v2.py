"""Depth Anything v2 (DepthAnything/Depth-Anything-V2) beside ours: the checkout's
DepthAnythingV2 with seeded random weights, saved as its release file
(depth_anything_v2_vit{s,l}.pth, a plain fp32 state dict), and its own `infer_image` (cv2 read,
float INTER_CUBIC to lower_bound 518, bilinear back with align_corners) on the scene our solver
feeds its model; the rest as for v1 (depth_anything_v1.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from benchmarks.parity.common import Patches, official_code
from benchmarks.parity.depth_anything_v1 import SIZES, Side, compare_family


def v2_side(checkout: Path, encoder: str) -> Side:
    features, out_channels = SIZES[encoder]

    def build() -> torch.nn.Module:
        with official_code(checkout, "depth_anything_v2"):
            from depth_anything_v2.dpt import DepthAnythingV2

            return DepthAnythingV2(encoder=encoder, features=features, out_channels=out_channels)

    def infer(model: torch.nn.Module, image_file: Path) -> np.ndarray:
        import cv2

        return model.infer_image(cv2.imread(str(image_file)), 518)

    return Side("v2", encoder, f"depth_anything_v2_{encoder}.pth", build, infer)


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    sides = {encoder: v2_side(Path(official), encoder) for encoder in SIZES}
    line = compare_family(sides, "vits", "vitl", images, workdir, Patches())
    line["notes"] = ("v2's own infer_image (cv2 float INTER_CUBIC, lower_bound 518, bilinear back with "
                     "align_corners=True) against our solver on the official release-file layout; ViT-L at full "
                     "size on one non-square image, ViT-S on the rest")
    return line
