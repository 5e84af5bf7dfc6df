"""Train the box corner reader (adapters/markers/nets/corner_reader.py) on rendered scenes, on a CPU or a GPU.

Every step renders fresh box scenes (draw.scenes.box_training_scene: labelled boxes in the training
fonts only, decoy rectangles and characters, procedural backgrounds and 2 in 5 a tinted crop of one
of scikit-image's sample photographs (draw/training_photos.py; never the benchmark's), JPEG) and crops a patch at
each labelled box's top-left corner (jittered by up to JITTER px, the outline fit's error) with
its label, and, as "none", at every bottom-right corner, decoy rectangle's top-left corner, point
where two boxes' lines cross (but those within draw.scenes.CROSSING_AT_LABEL px of a labelled corner,
which to the reader are that corner) and a few random points. Writes the weights with a JSON record that
CornerReader.load returns with the file's sha256. The loop is train/rendered_fit.py's.

    python -m train.markers_corner_reader [--output adapters/markers/nets/weights/corner_reader.safetensors]
        [--steps 8000] [--init FILE]   (continue from saved weights)   [--no-photos]   (procedural backgrounds only)
        [--device cuda --workers N]   (on a GPU, N processes rendering scenes)
        [--any-labels]   (each scene's boxes carry any of A-D, not BOX_LABEL_SETS' A, B, ...)
        [--small-labels F]   (a fraction F of scenes with the hardest labels: 8-10.5 px coloured text)
"""

from __future__ import annotations

import argparse
import functools
import json

import numpy as np

from adapters.markers.draw.scenes import CROSSING_AT_LABEL, any_box_labels, box_training_scene
from adapters.markers.general.nets.corner_finder import BOX_LABELS
from adapters.markers.general.nets.corner_reader import CLASSES, PATCH, WEIGHTS, CornerReader
from adapters.markers.general.nets.patch_reader import NONE, crop_patches
from train.markers_corners import add_any_labels_option
from train.markers_reader import add_small_labels_option, jittered, reader_loss, small_label_style
from train.rendered_fit import SceneSamples, arguments, fit

JITTER = 1.0  # px: corners are cropped up to this far off
SCENE_POINTS = 2  # random points per scene cropped as "none"


class CornerPatchStream(SceneSamples):
    """(patch (6, PATCH, PATCH), class index) pairs: one per corner or crossing, plus SCENE_POINTS.

    any_labels: each scene's boxes carry labels drawn from all of A-D (draw.scenes.any_box_labels: the
    shipped reader took 27 of the benchmark's 1,003 D corners for B); small_labels: the fraction
    of scenes whose labels are SMALL_LABEL_HEIGHT coloured text (half the shipped reader's
    misreadings at the benchmark's true corners are 8-9 px labels)."""

    scene = staticmethod(box_training_scene)

    def __init__(self, seed: int, fonts: list[str], any_labels: bool = False, small_labels: float = 0.0,
                 photos: bool = False) -> None:
        super().__init__(seed, fonts, photos)
        self.any_labels, self.small_labels = any_labels, small_labels

    @staticmethod
    def add_options(parser: argparse.ArgumentParser) -> None:
        add_any_labels_option(parser)
        add_small_labels_option(parser)

    @staticmethod
    def options(args: argparse.Namespace) -> dict:
        return {"any_labels": args.any_labels, "small_labels": args.small_labels}

    def style_fixed(self, rng: np.random.Generator) -> dict:
        fixed = {"labels": any_box_labels(rng)} if self.any_labels else {}  # (no draw otherwise: old streams stay)
        return {**fixed, **small_label_style(rng, self.small_labels)}

    def samples(self, scene, rng):
        h, w = scene.image.shape[:2]
        centres, targets = [], []
        for x, y, label in scene.points:  # label: a box label, FAR_CORNER or None
            centres.append(jittered(x, y, JITTER, rng))
            targets.append(CLASSES.index(label if label in BOX_LABELS else NONE))
        for _ in range(SCENE_POINTS):
            centres.append((float(rng.uniform(0, w)), float(rng.uniform(0, h))))
            targets.append(CLASSES.index(NONE))
        return zip(crop_patches(scene.image, centres, PATCH), targets)


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__.split("\n")[0], WEIGHTS, steps=8000, batch=128, lr=3e-3)
    CornerPatchStream.add_options(parser)
    args = parser.parse_args(argv)
    options = CornerPatchStream.options(args)
    record = fit(CornerReader, functools.partial(CornerPatchStream, **options), reader_loss, args.output, args.steps, args.batch, args.seed,
                 args.width, args.workers, args.lr, args.init, unit="patches", device=args.device,
                 minutes=args.minutes, classes=list(CLASSES), photos=not args.no_photos,
                 crossing_at_label=CROSSING_AT_LABEL, **options)
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
