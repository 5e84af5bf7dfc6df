"""LoFTR dense matching (kornia): an image pair in, `Matches` out.

Weights never come from kornia's downloader: the checkpoint registry hands us a local file, and
kornia's module loads it (its `load_state_dict` strips the Lightning `matcher.` prefix).

Images go in as the official single-pair demo feeds them (notebooks/demo_single_pair.ipynb): the
grey picture `cv2.imread(path, IMREAD_GRAYSCALE)` gives, `cv2.resize` (bilinear) to sides cut
down to multiples of 8, divided by 255. `size="840"` sizes them as the official MegaDepth test
does instead (long side 840, rounded, then cut to multiples of 8; without its square padding);
`grey="pil"` converts with PIL. Keypoints come back in the ORIGINAL images' pixels.
"""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np
import torch
from PIL import Image, ImageOps

from specialists.outputs import Matches
from specialists.precision import dtype_of

VARIANTS = ("outdoor", "indoor", "indoor_new")
SIZES = ("full", "840")
GREYS = ("cv2", "pil")
MEGADEPTH_LONG_SIDE = 840
# libpng's rgb_to_gray weights (0.299, 0.587 in 1/32768, blue the rest), truncated: what
# cv2.imread(..., IMREAD_GRAYSCALE) returns for a colour PNG
LIBPNG_GREY = np.array([9797, 19234, 3737], dtype=np.uint32)


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


def input_size(height: int, width: int, size: str = "full") -> tuple[int, int]:
    """(h, w) the network sees: "full" cuts each side down to a multiple of 8 (the official demo);
    "840" first scales the long side to 840, sides rounded (the official MegaDepth test)."""
    if size not in SIZES:
        raise ValueError(f"unknown LoFTR size {size!r}; choose one of {', '.join(SIZES)}")
    if size == "840":
        scale = MEGADEPTH_LONG_SIDE / max(height, width)
        height, width = int(round(height * scale)), int(round(width * scale))
    return max(8, height // 8 * 8), max(8, width // 8 * 8)


def official_grey(image: Image.Image) -> np.ndarray:
    """The uint8 grey picture cv2.imread(file, IMREAD_GRAYSCALE) reads from the file `image` was
    decoded from: a JPEG's own luma plane (decoded from the file's bytes where the loader kept
    them, `image.encoded`), libpng's truncating weights for a PNG, OpenCV's rounded ones otherwise."""
    if getattr(image, "format", None) == "JPEG":
        luma = _jpeg_luma(getattr(image, "encoded", None), image.size)
        if luma is not None:
            return luma
    rgb = np.asarray(image.convert("RGB"))
    if getattr(image, "format", None) == "PNG":
        return ((rgb.astype(np.uint32) @ LIBPNG_GREY) >> 15).astype(np.uint8)
    return cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY)


def _jpeg_luma(encoded: bytes | None, size: tuple[int, int]) -> np.ndarray | None:
    """libjpeg's grey output (the Y plane, no colour round trip), upright as the RGB picture is;
    None where there are no bytes or they do not decode to grey at that size."""
    if not encoded:
        return None
    with Image.open(io.BytesIO(encoded)) as jpeg:
        jpeg.draft("L", jpeg.size)
        luma = ImageOps.exif_transpose(jpeg)
        if luma.mode != "L" or luma.size != size:
            return None
        return np.asarray(luma)


class LoFTRMatcher:
    def __init__(self, model, device: str = "cpu", precision: str = "fp32", size: str = "full",
                 grey: str = "cv2") -> None:
        if size not in SIZES or grey not in GREYS:
            raise ValueError(f"LoFTR size {size!r} / grey {grey!r}: choose size from {SIZES}, grey from {GREYS}")
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        self.model = model.to(self.device).eval()
        self.size, self.grey = size, grey

    @classmethod
    def from_checkpoint(cls, path: str | Path, variant: str = "outdoor", device: str = "cpu",
                        precision: str = "fp32", config: dict | None = None, size: str = "full",
                        grey: str = "cv2") -> "LoFTRMatcher":
        """Load an official checkpoint (`state_dict`, keys plain or with the Lightning `matcher.`
        prefix) strictly.

        config: the architecture, default kornia's published one for `variant`.
        """
        from kornia.feature import LoFTR

        from checkpoints.convert.common import load_strictly
        from checkpoints.convert.loftr import loftr_state_dict

        model = LoFTR(pretrained=None, config=config or loftr_config(variant))
        load_strictly(model, loftr_state_dict(path), path, f"the LoFTR {variant} weights")
        return cls(model, device, precision, size, grey)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", size: str = "full", grey: str = "cv2") -> "LoFTRMatcher":
        """Random weights, the real LoFTR architecture with narrow layers."""
        from kornia.feature import LoFTR

        torch.manual_seed(seed)
        return cls(LoFTR(pretrained=None, config=tiny_config()), device, size=size, grey=grey)

    def _prepare(self, image: Image.Image, size: tuple[int, int]) -> torch.Tensor:
        grey = official_grey(image) if self.grey == "cv2" else np.asarray(image.convert("L"))
        resized = cv2.resize(grey, (size[1], size[0]))  # bilinear, as the official code
        return torch.from_numpy(resized)[None, None] / 255.0

    @torch.no_grad()
    def __call__(self, pairs: Sequence[tuple[Image.Image, Image.Image]]) -> list[Matches]:
        """Matches per pair; pairs whose processed sizes agree run as one batch."""
        out: list[Matches | None] = [None] * len(pairs)
        groups: dict[tuple, list[int]] = {}
        sizes = []
        for i, (a, b) in enumerate(pairs):
            sa, sb = input_size(a.height, a.width, self.size), input_size(b.height, b.width, self.size)
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
