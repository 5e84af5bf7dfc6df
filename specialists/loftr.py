"""LoFTR dense matching (kornia): an image pair in, `Matches` out.

Weights never come from kornia's downloader: the checkpoint registry hands us a local file, and
kornia's module loads it (its `load_state_dict` strips the Lightning `matcher.` prefix). Images
go in as grayscale [0, 1] with sides rounded down to multiples of 8 and the long side capped;
keypoints come back in the ORIGINAL images' pixels.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from .precision import dtype_of
from .outputs import Matches

VARIANTS = ("outdoor", "indoor", "indoor_new")


def loftr_config(variant: str) -> dict:
    """A private copy of kornia's default config for `variant` (kornia's dict is never mutated)."""
    from kornia.feature.loftr.loftr import default_cfg

    if variant not in VARIANTS:
        raise ValueError(f"unknown LoFTR variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    config = copy.deepcopy(default_cfg)
    config["coarse"]["temp_bug_fix"] = variant == "indoor_new"  # what that checkpoint was trained with
    return config


def tiny_config() -> dict:
    """The real architecture with narrow layers (tests and `--checkpoint tiny-random`)."""
    config = loftr_config("outdoor")
    config["resnetfpn"] = {"initial_dim": 16, "block_dims": [16, 24, 32]}
    config["coarse"].update(d_model=32, d_ffn=32, nhead=2, layer_names=["self", "cross"])
    config["fine"].update(d_model=16, d_ffn=16, nhead=2, layer_names=["self", "cross"])  # = block_dims[0]
    config["match_coarse"]["thr"] = 0.0  # random weights: keep whatever mutual matches exist
    return config


def _input_size(height: int, width: int, max_side: int) -> tuple[int, int]:
    scale = min(1.0, max_side / max(height, width))
    return max(8, int(height * scale) // 8 * 8), max(8, int(width * scale) // 8 * 8)


class LoFTRMatcher:
    def __init__(self, model, device: str = "cpu", precision: str = "fp32", max_side: int = 840) -> None:
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        self.model = model.to(self.device).eval()
        self.max_side = max_side

    @classmethod
    def from_checkpoint(cls, path: str | Path, variant: str = "outdoor", device: str = "cpu",
                        precision: str = "fp32", max_side: int = 840, config: dict | None = None) -> "LoFTRMatcher":
        """Load an official Lightning checkpoint (`state_dict` with `matcher.` keys) strictly.

        config: the architecture, default kornia's published one for `variant`.
        """
        from kornia.feature import LoFTR

        from checkpoints.convert.common import load_strictly
        from checkpoints.convert.loftr import loftr_state_dict

        model = LoFTR(pretrained=None, config=config or loftr_config(variant))
        load_strictly(model, loftr_state_dict(path), path, f"the LoFTR {variant} weights")
        return cls(model, device, precision, max_side)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu") -> "LoFTRMatcher":
        """Random weights, the real LoFTR architecture with narrow layers."""
        from kornia.feature import LoFTR

        torch.manual_seed(seed)
        return cls(LoFTR(pretrained=None, config=tiny_config()), device)

    def _prepare(self, image: Image.Image, size: tuple[int, int]) -> torch.Tensor:
        gray = torch.from_numpy(np.asarray(image.convert("L"), dtype=np.float32) / 255.0)[None, None]
        return F.interpolate(gray, size=size, mode="area")

    @torch.no_grad()
    def __call__(self, pairs: Sequence[tuple[Image.Image, Image.Image]]) -> list[Matches]:
        """Matches per pair; pairs whose processed sizes agree run as one batch."""
        out: list[Matches | None] = [None] * len(pairs)
        groups: dict[tuple, list[int]] = {}
        sizes = []
        for i, (a, b) in enumerate(pairs):
            sa, sb = _input_size(a.height, a.width, self.max_side), _input_size(b.height, b.width, self.max_side)
            sizes.append((sa, sb))
            groups.setdefault((sa, sb), []).append(i)
        for (sa, sb), indices in groups.items():
            image0 = torch.cat([self._prepare(pairs[i][0], sa) for i in indices]).to(self.device)
            image1 = torch.cat([self._prepare(pairs[i][1], sb) for i in indices]).to(self.device)
            with torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype != torch.float32):
                result = self.model({"image0": image0, "image1": image1})
            for slot, i in enumerate(indices):
                keep = result["batch_indexes"] == slot
                a, b = pairs[i]
                scale0 = torch.tensor([a.width / sa[1], a.height / sa[0]], device=self.device)
                scale1 = torch.tensor([b.width / sb[1], b.height / sb[0]], device=self.device)
                out[i] = Matches(
                    (result["keypoints0"][keep].float() * scale0).cpu(),
                    (result["keypoints1"][keep].float() * scale1).cpu(),
                    result["confidence"][keep].float().cpu(),
                )
        return out  # type: ignore[return-value]
