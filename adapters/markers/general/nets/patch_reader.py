"""Read which label belongs to a circle from the pixels around it: a small CNN over a patch
centred on the circle's centre.

The word reader (words.py + nets/glyphs.py) first cuts text pixels out by colour, then reads
their shape; on noise, saturated scenes or JPEG-smeared 1 px strokes the cut is where it
fails. This reader skips the cut: it sees the RGB patch around a candidate centre and answers one of LABELS or
"none" (no marker is centred here: a scene ring, a letter's bowl, plain scene). It is trained by
train/markers_reader.py on draw.scenes.training_scene renders in the training fonts only (never
glyphs.HELD_OUT_FONTS), on procedural backgrounds and crops of scikit-image's sample photographs
(never the benchmark's); the weights ship in weights/ with a JSON record of how they were made.

    reader = default_patch_reader()            # None when no weights file is installed
    probs = reader.probabilities(rgb, [(x, y), ...])  -> (n, len(CLASSES)) float32

Why by hand: no library ships a reader for "which letter is drawn beside this ring"; the
network is a plain stack of torch convolutions.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from torch import nn

from adapters.markers.general.nets.weights_file import TrainedNetwork
from adapters.markers.labels import LABELS

NONE = "none"


CLASSES = (*LABELS, NONE)


PATCH = 112  # px: a centred patch holds the ring (r <= 15) and a label up to ~40 px beyond it


WEIGHTS = Path(__file__).resolve().parent / "weights" / "patch_reader.safetensors"


def crop_patches(rgb: np.ndarray, centres: Sequence[tuple[float, float]], size: int = PATCH) -> torch.Tensor:
    """(H, W, 3) uint8 RGB, n centres -> (n, 6, size, size) float32 network input.

    Channels: RGB scaled to [-0.5, 0.5]; 1 where the patch lies inside the image (0 past a
    border, where the RGB is 0); x and y of each pixel relative to the patch centre in [-1, 1]
    (so the network knows which ring is the centred one when another marker is in view).
    """
    h, w = rgb.shape[:2]
    half = size // 2
    padded = np.zeros((h + 2 * size, w + 2 * size, 4), np.float32)
    padded[size:size + h, size:size + w, :3] = rgb.astype(np.float32) / 255.0 - 0.5
    padded[size:size + h, size:size + w, 3] = 1.0
    ramp = (np.arange(size, dtype=np.float32) - half + 0.5) / half
    out = np.empty((len(centres), 6, size, size), np.float32)
    for i, (x, y) in enumerate(centres):
        x0, y0 = int(round(x)) - half + size, int(round(y)) - half + size
        x0, y0 = min(max(x0, 0), w + size), min(max(y0, 0), h + size)
        out[i, :4] = padded[y0:y0 + size, x0:x0 + size].transpose(2, 0, 1)
        out[i, 4] = ramp[None, :]
        out[i, 5] = ramp[:, None]
    return torch.from_numpy(out)


def _block(cin: int, cout: int, stride: int, kernel: int = 3) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class PatchReaderNet(nn.Module):
    """(n, 6, patch, patch) -> (n, classes) logits. About 70 M multiply-adds per PATCH px patch.

    patch, classes: the corner reader's (corner_reader.py) differ from this reader's defaults."""

    def __init__(self, width: int = 24, patch: int = PATCH, classes: int = len(CLASSES)) -> None:
        super().__init__()
        self.width = width
        c = (width, 2 * width, 3 * width, 4 * width)
        self.features = nn.Sequential(
            _block(6, c[0], 2, 5), _block(c[0], c[0], 1),      # PATCH/2: a 1 px stroke still lands in a 5x5 tap
            _block(c[0], c[1], 2), _block(c[1], c[1], 1),      # PATCH/4
            _block(c[1], c[2], 2), _block(c[2], c[2], 1),      # PATCH/8
            _block(c[2], c[3], 2))                             # PATCH/16
        # flattened, not pooled: where a letter sits relative to the centred ring decides whose
        # label it is (a neighbour's label is often in view)
        cells = -(-patch // 16)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c[3] * cells * cells, 128), nn.ReLU(inplace=True),
                                  nn.Linear(128, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class PatchReader(TrainedNetwork):
    """A trained PatchReaderNet in eval mode; `probabilities(rgb, centres)`."""

    NETWORK = PatchReaderNet
    WEIGHTS = WEIGHTS
    TRAIN = "python -m train.markers_reader"
    PATCH = PATCH  # px: the patches' side, as the network was built for

    @torch.inference_mode()
    def probabilities(self, rgb: np.ndarray, centres: Sequence[tuple[float, float]], batch: int = 64) -> np.ndarray:
        """(n, len(CLASSES)) class probabilities for patches centred on `centres` ((x, y) px)."""
        if not len(centres):
            return np.zeros((0, self.net.head[-1].out_features), np.float32)
        out = []
        for start in range(0, len(centres), batch):
            x = crop_patches(rgb, centres[start:start + batch], self.PATCH)
            out.append(torch.softmax(self.net(x), dim=1).numpy())
        return np.concatenate(out)


@functools.lru_cache(maxsize=1)
def default_patch_reader() -> PatchReader | None:
    """The shipped reader, or None when weights/patch_reader.safetensors is absent (the parser then
    relies on the word reader alone)."""
    return PatchReader.load() if WEIGHTS.is_file() else None
