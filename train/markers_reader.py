"""Train the marker patch reader (adapters/markers/nets/patch_reader.py) on rendered scenes, on a CPU or a GPU.

Every step renders fresh scenes (draw.scenes.training_scene: markers in the training fonts only,
decoy rings and characters, procedural backgrounds or, 2 in 5, a tinted crop of one of
scikit-image's sample photographs (draw/training_photos.py; never the benchmark's), JPEG) and crops
a patch at each marker centre (jittered by up to JITTER px, as the ring detector's centres are)
and at each decoy / glyph / scene point (class "none"). Writes the weights with a JSON record
(seed, steps, fonts, photographs, versions, held-out fonts) that PatchReader.load returns with
the file's sha256. The loop is train/rendered_fit.py's.

    python -m train.markers_reader [--output adapters/markers/nets/weights/patch_reader.safetensors] [--steps 6000]
        [--init FILE]   (continue from saved weights)   [--no-photos]   (procedural backgrounds only)
        [--small-labels F]   (a fraction F of scenes with the hardest labels: 8-10.5 px coloured text)
        [--off-centre N]   (N patches per marker centred 5-30 px from it, class none)
        [--device cuda --workers N]   (on a GPU, N processes rendering scenes)
"""

from __future__ import annotations

import argparse
import functools
import json

import numpy as np
import torch

from adapters.markers.general.nets.patch_reader import CLASSES, NONE, WEIGHTS, PatchReader, crop_patches
from train.rendered_fit import SceneSamples, arguments, fit

JITTER = 1.5  # px: marker centres are cropped up to this far off (the ring fit's error)
# The labels the reader misreads most (markers_accuracy's strata): small text in the markers'
# colour, drawn straight onto the scene with no dark box behind it.
SMALL_LABEL_HEIGHT = (8.0, 10.5)  # px
# A patch centred this far from a marker still shows its ring and label, off-centre: the answer
# there is "none" (only the centred ring is the marker's), which scene points far from every
# marker rarely teach. The near end stays clear of the ring fit's error (JITTER) and of the
# parser's FINDER_NEAR (5 px: a place that near a marker is that marker).
OFF_CENTRE = (5.0, 30.0)  # px


def add_small_labels_option(parser: argparse.ArgumentParser) -> None:
    """--small-labels F: the fraction of scenes whose labels are SMALL_LABEL_HEIGHT coloured text
    (this script's and the corner reader's)."""
    parser.add_argument("--small-labels", type=_fraction, default=0.0,
                        help="fraction of scenes whose labels are 8-10.5 px coloured text (the hardest)")


def small_label_style(rng: np.random.Generator, fraction: float) -> dict:
    """The MarkerStyle fields of a scene with SMALL_LABEL_HEIGHT coloured labels, `fraction` of the
    time (--small-labels); else none. No draw at 0: earlier runs' streams stay as they were."""
    if fraction and rng.uniform() < fraction:
        return {"label_height": float(rng.uniform(*SMALL_LABEL_HEIGHT)), "polarity": "colour"}
    return {}


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text}: give a fraction between 0 and 1")
    return value


def jittered(x: float, y: float, radius: float, rng: np.random.Generator) -> tuple[float, float]:
    """(x, y) moved to a uniformly random place within `radius` px of it."""
    angle, dist = rng.uniform(0, 2 * np.pi), radius * np.sqrt(rng.uniform())
    return x + dist * np.cos(angle), y + dist * np.sin(angle)


class PatchStream(SceneSamples):
    """(patch (6, P, P), class index) pairs: one per marker, decoy, glyph and scene point.

    small_labels: the fraction of scenes whose labels are SMALL_LABEL_HEIGHT coloured text;
    off_centre: patches per marker centred OFF_CENTRE px from it (class none)."""

    def __init__(self, seed: int, fonts: list[str], small_labels: float = 0.0, off_centre: int = 0,
                 photos: bool = False) -> None:
        super().__init__(seed, fonts, photos)
        self.small_labels, self.off_centre = small_labels, off_centre

    def style_fixed(self, rng: np.random.Generator) -> dict:
        return small_label_style(rng, self.small_labels)

    def samples(self, scene, rng):
        centres, targets = [], []
        for x, y, label in scene.points:
            centres.append(jittered(x, y, JITTER, rng) if label is not None else (x, y))
            targets.append(CLASSES.index(label if label is not None else NONE))
        centres += self.off_centre_points(scene, rng)
        targets += [CLASSES.index(NONE)] * (len(centres) - len(targets))
        return zip(crop_patches(scene.image, centres), targets)

    def off_centre_points(self, scene, rng: np.random.Generator) -> list[tuple[float, float]]:
        """`off_centre` places per marker OFF_CENTRE px from it, at least OFF_CENTRE[0] px from every marker."""
        markers = [(x, y) for x, y, label in scene.points if label is not None]
        out = []
        for x, y in markers:
            for _ in range(self.off_centre):
                angle, dist = rng.uniform(0, 2 * np.pi), rng.uniform(*OFF_CENTRE)
                px, py = x + dist * np.cos(angle), y + dist * np.sin(angle)
                if all(np.hypot(px - mx, py - my) >= OFF_CENTRE[0] for mx, my in markers):
                    out.append((px, py))
        return out


def reader_loss(logits: torch.Tensor, classes: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(logits.float(), classes, label_smoothing=0.02)


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__.split("\n")[0], WEIGHTS, steps=6000, batch=128, lr=3e-3)
    add_small_labels_option(parser)
    parser.add_argument("--off-centre", type=int, default=0,
                        help="patches per marker centred 5-30 px from it, as class none (0: none)")
    args = parser.parse_args(argv)
    if args.off_centre < 0:
        parser.error(f"--off-centre {args.off_centre}: give a count of 0 or more")
    stream = functools.partial(PatchStream, small_labels=args.small_labels, off_centre=args.off_centre)
    record = fit(PatchReader, stream, reader_loss, args.output,
                 args.steps, args.batch, args.seed, args.width, args.workers, args.lr, args.init, unit="patches",
                 device=args.device, minutes=args.minutes, classes=list(CLASSES),
                 photos=not args.no_photos,
                 small_labels=args.small_labels, off_centre=args.off_centre)
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
