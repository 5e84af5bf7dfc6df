"""Train the box corner finder (adapters/markers/corner_finder.py) on rendered scenes, on a CPU or a GPU.

Every step renders fresh whole scenes (scenes.box_training_scene: labelled boxes in the training
fonts only, decoy rectangles and characters, procedural backgrounds and 2 in 5 a tinted crop of one
of scikit-image's sample photographs (training_photos.py; never the benchmark's), JPEG) and fits CenterNet
heatmaps at each box's top-left corner (its label's class) and every rectangle's bottom-right
corner. Writes the weights with a JSON record (seed, steps, fonts, versions, held-out fonts) that
CornerFinder.load returns with the file's sha256. The loop and command line are
train/markers_finder.py's (train_heatmaps).

    python -m train.markers_corners [--output adapters/markers/weights/corner_finder.safetensors] [--steps 5000]
        [--init FILE]   (continue from saved weights)   [--no-photos]   (procedural backgrounds only)
        [--device cuda --workers N]   (on a GPU, N processes rendering scenes)
"""

from __future__ import annotations

import numpy as np

from adapters.markers.corner_finder import CORNER_CLASSES, WEIGHTS, CornerFinder
from adapters.markers.scenes import box_training_scene
from adapters.markers.training_photos import training_photos
from train.markers_finder import SceneStream, train_heatmaps


def box_scene_on_photos(rng: np.random.Generator, fonts: list[str]):
    """scenes.box_training_scene with 2 in 5 backgrounds cut from training_photos()."""
    return box_training_scene(rng, fonts, photos=training_photos())


class CornerStream(SceneStream):
    """The centre finder's samples, from box scenes on procedural backgrounds only (--no-photos:
    how the runs before photographs were made), with a heatmap per corner class."""

    scene = staticmethod(box_training_scene)
    classes = CORNER_CLASSES


class PhotoCornerStream(CornerStream):
    """CornerStream's samples with 2 in 5 scenes on a tinted crop of training_photos()."""

    scene = staticmethod(box_scene_on_photos)


def main(argv: list[str] | None = None) -> int:
    return train_heatmaps(CornerFinder, CornerStream, WEIGHTS, 5000, __doc__, argv, photo_stream=PhotoCornerStream)


if __name__ == "__main__":
    raise SystemExit(main())
