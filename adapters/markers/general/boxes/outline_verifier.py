"""A second opinion on rectangles the box outline's hand rules turned away: a small network over
what they measured (boxes.outline.OutlineMeasures), trained on rendered scenes.

The hand rules (boxes.measure.rejection) ask every side to be drawn along MIN_COVERAGE of its
length and up to its corners, and no line to go on past a corner. A true box misses one of
these where the scene hides a stretch of a thin side, a label in the box's colour continues a
line past another box's corner, or a blob of its colour sits at a corner; false rectangles (two
boxes' crossings, a corner and another box's far corner, scene edges) miss them too, so lowering
one of the rules' thresholds gains few true boxes and lets false rectangles through (a lower
MIN_REACH does); the network weighs all the measures at once (per side: coverage, reach, run-on
at both ends, hidden share, colour; per corner: how far each line goes on).

It is asked only where a corner the finder read as a label starts no outline at all by the hand
rules (boxes.outlines_at_corner.outlines_from), and it accepts a rectangle when its probability
reaches the threshold chosen at training (in the weights' record: the one at which no false
rectangle of the validation scenes was accepted), or ACCEPTANCE when that is lower; the box
reader then keeps a learned outline only where it lies where the corner finder put the box
(boxes.outlines_at_corner.near_the_finders_corners). Its outlines carry `learned=True`. Trained
by train/markers_outline_verifier.py on draw.scenes.box_training_scene renders (training fonts
only, no photographs); the weights ship in weights/ with their record.

    verifier = default_outline_verifier()         # None when no weights file is installed
    verifier.probability(measures) -> float; verifier.accepts(measures, reason) -> bool
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import torch
from torch import nn

from adapters.markers.general.boxes.outline import OutlineMeasures, SideMeasures
from adapters.markers.general.nets.weights_file import TrainedNetwork
from adapters.markers.general.thresholds import COLOUR_SPREAD, COLOUR_SPREAD_THIN, THIN

# kept with the other networks' weight files
WEIGHTS = Path(__file__).resolve().parents[1] / "nets" / "weights" / "outline_verifier.safetensors"


# the hand rules' reasons a second opinion may overrule; "hidden", "border", "sides" and "colour"
# stay final (too little of a side to judge, a box's far side unseen, or two boxes' sides mixed)
OVERRULABLE = ("coverage", "crossing")


SIDE_FEATURES = 16


# the most probability a rectangle needs to be accepted; the record's threshold, when lower, rules.
# The record's threshold (the least above every false rectangle of the fit's validation scenes:
# 0.994 for the shipped weights) turns most drawn ones away, and the false ones nearest it
# include true boxes fitted a few px off, which the box reader turns away anyway (LEARNED_FIT), as
# it leaves unplaced a corner where two learned outlines start (outlines_at_corner.its_own_box).
# Behind those two guards a lower acceptance places more drawn boxes without placing false ones;
# 0.96 was set for the shipped weights with the guards in place.
# benchmarks/outline_verifier_validation.py measures what it passes on the validation scenes
ACCEPTANCE = 0.96


FEATURES = 4 * SIDE_FEATURES + 7 + 9


def _side_features(side: SideMeasures | None, measured: np.ndarray, spread: float) -> list[float]:
    if side is None:
        return [0.0] * SIDE_FEATURES
    return [1.0, side.coverage, side.inked, side.hidden, side.own_hidden, *side.reach, *side.inked_reach,
            float(side.reaches_corners), float(side.into_border), *side.run_on, side.alongside,
            float(np.linalg.norm(np.subtract(side.colour, measured))) / spread, min(side.length / 100, 3.0)]


def features(measures: OutlineMeasures) -> np.ndarray:
    """(FEATURES,) float32: per side (top, bottom, left, right) SIDE_FEATURES values (zeros for a
    side outside the image); the stroke's width, contrast, tolerance and Lab colour, whether a
    ThinLineColour judged it; per unlabelled corner the farther and nearer run-on and whether
    both sides reach it. Scaled to about 0-1 (lengths in 100 px, Lab in 100 units)."""
    measured = measures.measured_colour() if any(s is not None for s in measures.sides) else np.zeros(3)
    spread = COLOUR_SPREAD_THIN if measures.width <= THIN else COLOUR_SPREAD
    values = [v for side in measures.sides for v in _side_features(side, measured, spread)]
    values += [measures.width / 8, measures.contrast / 100, measures.tau / 100, *(np.asarray(measures.colour) / 100),
               float(measures.thin_model)]
    for a, b, drawn_up_to in measures.corners():
        values += [max(a, b), min(a, b), float(drawn_up_to)]
    return np.asarray(values, np.float32)


class OutlineVerifierNet(nn.Module):
    """(n, FEATURES) -> (n,) logits: a two-layer perceptron `width` wide (1.6k weights at 16)."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.width = width
        self.layers = nn.Sequential(nn.Linear(FEATURES, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                    nn.Linear(width, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x).squeeze(-1)


class OutlineVerifier(TrainedNetwork):
    """A trained OutlineVerifierNet in eval mode; its record holds the acceptance `threshold`."""

    NETWORK = OutlineVerifierNet
    WEIGHTS = WEIGHTS
    TRAIN = "python -m train.markers_outline_verifier"

    @property
    def threshold(self) -> float:
        """The probability at which a rectangle is accepted: the record's, at most ACCEPTANCE."""
        return min(float(self.record["threshold"]), ACCEPTANCE)

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """(n,) probability that each row of features (n, FEATURES) is a drawn rectangle."""
        with torch.inference_mode():
            return torch.sigmoid(self.net(torch.as_tensor(rows, dtype=torch.float32))).numpy()

    def probability(self, measures: OutlineMeasures) -> float:
        return float(self.probabilities(features(measures)[None])[0])

    def accepts(self, measures: OutlineMeasures, reason: str) -> bool:
        """Whether a rectangle the hand rules rejected for `reason` is a drawn one after all."""
        return reason in OVERRULABLE and self.probability(measures) >= self.threshold


@functools.lru_cache(maxsize=1)
def default_outline_verifier() -> OutlineVerifier | None:
    """The shipped verifier, or None when weights/outline_verifier.safetensors is absent (the hand
    rules' verdict is then final)."""
    return OutlineVerifier.load() if WEIGHTS.is_file() else None
