"""Train the box corner finder (adapters/markers/nets/corner_finder.py) on rendered scenes, on a CPU or a GPU.

Every step renders fresh whole scenes (draw.scenes.box_training_scene: labelled boxes in the training
fonts only, decoy rectangles and characters, procedural backgrounds and 2 in 5 a tinted crop of one
of scikit-image's sample photographs (draw/training_photos.py; never the benchmark's), JPEG) and fits CenterNet
heatmaps at each box's top-left corner (its label's class) and every rectangle's bottom-right
corner. Writes the weights with a JSON record (seed, steps, fonts, versions, held-out fonts) that
CornerFinder.load returns with the file's sha256. The loop and command line are
train/markers_finder.py's (train_heatmaps).

    python -m train.markers_corners [--output adapters/markers/nets/weights/corner_finder.safetensors] [--steps 5000]
        [--init FILE]   (continue from saved weights)   [--no-photos]   (procedural backgrounds only)
        [--device cuda --workers N]   (on a GPU, N processes rendering scenes)
        [--any-labels]   (each scene's boxes carry any of A-D, not BOX_LABEL_SETS' A, B, ...: draw.scenes.any_box_labels)
"""

from __future__ import annotations

import argparse

import numpy as np

from adapters.markers.draw.scenes import any_box_labels, box_training_scene
from adapters.markers.general.nets.corner_finder import CORNER_CLASSES, WEIGHTS, CornerFinder
from train.markers_finder import SceneStream, train_heatmaps


def add_any_labels_option(parser: argparse.ArgumentParser) -> None:
    """--any-labels: each scene's boxes carry labels drawn from all of A-D (draw.scenes.any_box_labels)
    rather than BOX_LABEL_SETS' (this script's and the corner reader's)."""
    parser.add_argument("--any-labels", action="store_true",
                        help="each scene's boxes carry any of A-D, so that each label is as common")


class CornerStream(SceneStream):
    """The centre finder's samples, from box scenes, with a heatmap per corner class.
    any_labels: each scene's boxes carry labels drawn from all of A-D (draw.scenes.any_box_labels)."""

    scene = staticmethod(box_training_scene)
    classes = CORNER_CLASSES

    def __init__(self, seed: int, fonts: list[str], any_labels: bool = False, photos: bool = False) -> None:
        super().__init__(seed, fonts, photos)
        self.any_labels = any_labels

    add_options = staticmethod(add_any_labels_option)

    @staticmethod
    def options(args: argparse.Namespace) -> dict:
        return {"any_labels": args.any_labels}

    def style_fixed(self, rng: np.random.Generator) -> dict:
        return {"labels": any_box_labels(rng)} if self.any_labels else {}  # no draw otherwise: old streams stay


def main(argv: list[str] | None = None) -> int:
    return train_heatmaps(CornerFinder, CornerStream, WEIGHTS, 5000, __doc__, argv)


if __name__ == "__main__":
    raise SystemExit(main())
