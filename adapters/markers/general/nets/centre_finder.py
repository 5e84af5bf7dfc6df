"""Find where labelled markers are centred in a whole image: a small fully convolutional CNN
that outputs, every STRIDE px, how likely a marker of each label is centred there, and where
exactly within the cell.

The ring detector (points.rings.find_circles) needs a ring that stands out on its own; a 1 px
ring on noise or on a busy scene often does not, although its label beside it is plain to see.
This network looks at ring and label together, so it proposes those centres; the patch reader
then reads each proposal (points.finder_opinion.place_by_finder), and a label is placed only
where both agree. Trained by train/markers_finder.py on draw.scenes.training_scene renders
(training fonts only, procedural backgrounds); the weights ship in weights/ with their record.

    finder = default_centre_finder()               # None when no weights file is installed
    proposals = finder.find(rgb)                   # [Proposal(x, y, scores {label: p})]

The output is CenterNet's (Zhou et al. 2019: per-class centre heatmaps plus a sub-cell offset);
written by hand because no maintained library ships that head for a backbone this small, and the
network is a plain stack of torch convolutions.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from adapters.markers.general.nets.weights_file import TrainedNetwork
from adapters.markers.labels import LABELS

STRIDE = 4  # px per output cell


MULTIPLE = 16  # the input is padded to a multiple of this (four stride-2 stages)


MIN_SCORE = 0.05  # heatmap peaks below this are not proposed


WEIGHTS = Path(__file__).resolve().parent / "weights" / "centre_finder.safetensors"


def to_input(rgb: np.ndarray) -> torch.Tensor:
    """(H, W, 3) uint8 RGB -> (1, 3, H', W') float32 in [-0.5, 0.5], zero-padded at the bottom and
    right to multiples of MULTIPLE."""
    h, w = rgb.shape[:2]
    x = torch.from_numpy(rgb.astype(np.float32) / 255.0 - 0.5).permute(2, 0, 1)[None]
    return F.pad(x, (0, -w % MULTIPLE, 0, -h % MULTIPLE))


def cell_of(x: float, y: float) -> tuple[int, int, float, float]:
    """(column, row, dx, dy): the output cell a centre (x, y) px falls in and its offset from the
    cell's centre in cells (in [-0.5, 0.5]). Cell j's centre is at x = STRIDE * j + (STRIDE - 1) / 2."""
    u, v = (x - (STRIDE - 1) / 2) / STRIDE, (y - (STRIDE - 1) / 2) / STRIDE
    j, i = int(round(u)), int(round(v))
    return j, i, u - j, v - i


def _block(cin: int, cout: int, stride: int = 1, kernel: int = 3) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class CentreFinderNet(nn.Module):
    """(n, 3, H, W), H and W multiples of 16 -> (n, len(classes) + 2, H/4, W/4): per-class centre
    logits (classes: the labels, by default), then the centre's (dx, dy) offset within the cell.
    About 0.5 G multiply-adds for a 320x240 image (width 24)."""

    def __init__(self, width: int = 24, classes: tuple[str, ...] = LABELS) -> None:
        super().__init__()
        self.width, self.classes = width, classes
        c = (width, 2 * width, 3 * width, 4 * width)
        self.down2 = nn.Sequential(_block(3, c[0], 2, 5), _block(c[0], c[0]))  # a 1 px stroke lands in a 5x5 tap
        self.down4 = nn.Sequential(_block(c[0], c[1], 2), _block(c[1], c[1]))
        self.down8 = nn.Sequential(_block(c[1], c[2], 2), _block(c[2], c[2]))
        # /16: wide enough context (about 150 px) to see a ring and the label beside it together
        self.down16 = nn.Sequential(_block(c[2], c[3], 2), _block(c[3], c[3]), _block(c[3], c[3]))
        self.up8 = _block(c[3] + c[2], c[2])
        self.up4 = _block(c[2] + c[1], c[1])
        self.head = nn.Conv2d(c[1], len(classes) + 2, 1)
        with torch.no_grad():  # start the heatmaps at a low prior (0.1), as CenterNet does
            self.head.bias[:len(classes)].fill_(-2.19)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.down4(self.down2(x))
        f8 = self.down8(f4)
        f16 = self.down16(f8)
        up = self.up8(torch.cat([F.interpolate(f16, size=f8.shape[-2:], mode="nearest"), f8], 1))
        up = self.up4(torch.cat([F.interpolate(up, size=f4.shape[-2:], mode="nearest"), f4], 1))
        return self.head(up)


def centre_loss(output: torch.Tensor, heat: torch.Tensor, offset: torch.Tensor, centres: torch.Tensor) -> torch.Tensor:
    """CenterNet's loss: penalty-reduced focal loss on the heatmaps plus L1 on the offsets at centre cells.

    output: (n, L + 2, h, w) network output; heat: (n, L, h, w) targets (1 at a centre's cell, a
    Gaussian bump around it); offset: (n, 2, h, w) target offsets; centres: (n, h, w) 1 at cells
    holding a centre."""
    classes = heat.shape[1]
    logits = output[:, :classes].float()
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    positive = heat.eq(1).float()
    positives = positive.sum().clamp(min=1)
    focal = (positive * (1 - p) ** 2 * torch.log(p)
             + (1 - positive) * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p)).sum() / positives
    l1 = (centres[:, None] * (output[:, classes:].float() - offset).abs()).sum() / positives
    return -focal + l1


def heat_targets(points: list[tuple[float, float, str]], height: int, width: int, sigma: float = 0.8,
                 classes: tuple[str, ...] = LABELS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Targets for centre_loss from one image's centres [(x, y, class)] on an (height, width)
    network input: heat (L, h, w), offset (2, h, w), centres (h, w); h, w = height, width / STRIDE,
    L = len(classes). sigma: the Gaussian bump's width in cells."""
    h, w = height // STRIDE, width // STRIDE
    heat = np.zeros((len(classes), h, w), np.float32)
    offset = np.zeros((2, h, w), np.float32)
    centres = np.zeros((h, w), np.float32)
    rows, cols = np.mgrid[0:h, 0:w]
    for x, y, label in points:
        j, i, dx, dy = cell_of(x, y)
        if not (0 <= i < h and 0 <= j < w):
            continue
        k = classes.index(label)
        bump = np.exp(-((cols - (j + dx)) ** 2 + (rows - (i + dy)) ** 2) / (2 * sigma ** 2))
        heat[k] = np.maximum(heat[k], bump)
        heat[k, i, j] = 1.0
        offset[:, i, j] = (dx, dy)
        centres[i, j] = 1.0
    return heat, offset, centres


@dataclass(frozen=True)
class Proposal:
    """A place a marker may be centred: (x, y) px and each label's heatmap score there."""

    x: float
    y: float
    scores: dict[str, float]

    @property
    def label(self) -> str:
        return max(self.scores, key=self.scores.get)

    @property
    def score(self) -> float:
        return self.scores[self.label]


class CentreFinder(TrainedNetwork):
    """A trained CentreFinderNet in eval mode; `find(rgb)`."""

    NETWORK = CentreFinderNet
    WEIGHTS = WEIGHTS
    TRAIN = "python -m train.markers_finder"
    # groups of classes whose peaks are sought apart too (find); None: all classes as one only
    PEAK_GROUPS: tuple[tuple[str, ...], ...] | None = None
    HIDDEN_PEAK_MIN = MIN_SCORE  # the least score of a group's peak proposed where another group's hid it

    @torch.inference_mode()
    def find(self, rgb: np.ndarray, min_score: float = MIN_SCORE) -> list[Proposal]:
        """Heatmap peaks (any class >= min_score, the highest in their 3x3 cells) of an (H, W, 3)
        uint8 RGB image, highest first. With PEAK_GROUPS, a group's peak that a stronger score of
        another group beside it hides is proposed too, with its group's scores only."""
        h, w = rgb.shape[:2]
        classes = self.net.classes
        out = self.net(to_input(rgb))[0]
        heat = torch.sigmoid(out[:len(classes)])
        peaks = _peaks(heat.max(0).values, min_score)
        read_at = {(i, j): set(classes) for i, j in peaks.nonzero().tolist()}  # cell -> the classes proposed there
        for group in self.PEAK_GROUPS or ():
            hidden = _peaks(heat[[classes.index(c) for c in group]].max(0).values,
                            max(min_score, self.HIDDEN_PEAK_MIN)) & ~peaks
            for i, j in hidden.nonzero().tolist():
                read_at.setdefault((i, j), set()).update(group)
        proposals = []
        for (i, j), read in read_at.items():
            dx, dy = (float(v) for v in out[len(classes):, i, j])
            x = STRIDE * (j + float(np.clip(dx, -0.5, 0.5))) + (STRIDE - 1) / 2
            y = STRIDE * (i + float(np.clip(dy, -0.5, 0.5))) + (STRIDE - 1) / 2
            if x < w and y < h:
                proposals.append(Proposal(x, y, {label: float(p) if label in read else 0.0
                                                 for label, p in zip(classes, heat[:, i, j])}))
        return sorted(proposals, key=lambda p: -p.score)


def _peaks(scores: torch.Tensor, min_score: float) -> torch.Tensor:
    """(h, w) bool: the cells of `scores` (h, w) at min_score or more and highest in their 3x3 cells."""
    return (scores >= min_score) & (scores == F.max_pool2d(scores[None], 3, 1, 1)[0])


@functools.lru_cache(maxsize=1)
def default_centre_finder() -> CentreFinder | None:
    """The shipped finder, or None when weights/centre_finder.safetensors is absent (the parser
    then proposes only the rings points.rings.find_circles finds)."""
    return CentreFinder.load() if WEIGHTS.is_file() else None
