"""Style statistics (Gatys et al., 2016): Gram matrices of early VGG-19 layers.

Images in, one `StyleGrams` per image out: for each of relu1_1, relu2_1, relu3_1 and relu4_1,
the channel Gram matrix F F^T / (C h w) of the feature map F (C, h w). Two images share a
style when their Grams are close (`style_distance`): the statistic neural style transfer
matches, independent of where things are in the picture. Images are resized to a long side
of 256 px first, so brushwork is measured at one scale whatever the file's size. Weights:
torchvision's VGG-19 (ImageNet), loaded strictly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from specialists.precision import dtype_of, place

# indices in torchvision's vgg19().features of the ReLUs after conv1_1, conv2_1, conv3_1, conv4_1
STYLE_LAYERS = {"relu1_1": 1, "relu2_1": 6, "relu3_1": 11, "relu4_1": 20}
LONG_SIDE = 256
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
# VGG-19's layout ("E"): channels per conv, "M" a max-pool. The tiny test instance keeps the
# layout (so the layer indices above hold) at small widths.
VGG19_LAYOUT = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"]


@dataclass(frozen=True)
class StyleGrams:
    """grams: layer name -> (C, C) Gram matrix (float32)."""

    grams: dict[str, torch.Tensor]


def style_distance(a: StyleGrams, b: StyleGrams) -> float:
    """Sum over layers of the squared Frobenius distance between Grams, each layer divided by
    the reference's squared norm so every layer counts alike (lower = more alike in style)."""
    total = 0.0
    for name, gram in a.grams.items():
        other = b.grams[name]
        total += float(((gram - other) ** 2).sum() / (gram**2).sum().clamp_min(1e-12))
    return total


class VggStyle:
    """features: a VGG-19 `features` Sequential (at least up to relu4_1)."""

    def __init__(self, features: torch.nn.Sequential, device: str = "cpu", precision: str = "fp32",
                 long_side: int = LONG_SIDE) -> None:
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        depth = max(STYLE_LAYERS.values()) + 1
        self.features = place(torch.nn.Sequential(*list(features)[:depth]), self.device, self.dtype)
        self.long_side = long_side

    @classmethod
    def from_checkpoint(cls, path: str | Path, **kwargs) -> "VggStyle":
        """torchvision's vgg19 state dict (vgg19-dcbb9e9d.pth), every key and shape checked."""
        from torchvision.models import vgg19

        from checkpoints.convert.vgg import vgg19_state_dict

        model = vgg19(weights=None)
        model.load_state_dict(vgg19_state_dict(path), strict=True)
        return cls(model.features, **kwargs)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32") -> "VggStyle":
        """Random weights, VGG-19's layer layout at 1/16 of its widths."""
        from torchvision.models.vgg import make_layers

        torch.manual_seed(seed)
        layout = [v if v == "M" else max(4, v // 16) for v in VGG19_LAYOUT]
        return cls(make_layers(layout), device, precision, long_side=64)

    def _tensor(self, image: Image.Image) -> torch.Tensor:
        image = image.convert("RGB")
        # the long side to long_side, the short one truncated, as torchvision's Resize(None, max_size)
        # sizes it (rounding to nearest put some images a pixel off)
        w, h = image.size
        short = max(16, int(self.long_side * min(w, h) / max(w, h)))
        size = (self.long_side, short) if w >= h else (short, self.long_side)
        pixels = torch.from_numpy(np.asarray(image.resize(size, Image.BICUBIC), dtype=np.float32) / 255.0)
        x = pixels.permute(2, 0, 1)[None]
        mean = torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1)
        std = torch.tensor(IMAGENET_STD).view(1, 3, 1, 1)
        return ((x - mean) / std).to(self.device, self.dtype)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[StyleGrams]:
        """One image at a time: sizes differ, and Grams do not depend on the size."""
        out = []
        wanted = {index: name for name, index in STYLE_LAYERS.items()}
        for image in images:
            x, grams = self._tensor(image), {}
            for index, layer in enumerate(self.features):
                x = layer(x)
                if index in wanted:
                    grams[wanted[index]] = gram(x[0]).cpu()
            out.append(StyleGrams(grams))
        return out


def gram(features: torch.Tensor) -> torch.Tensor:
    """(C, h, w) -> (C, C) Gram matrix normalised by C h w (the definition used above)."""
    flat = features.float().flatten(1)
    return flat @ flat.T / flat.numel()

