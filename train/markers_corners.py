"""Train the box corner finder (adapters/markers/corner_finder.py) on rendered scenes, on a CPU.

Every step renders fresh whole scenes (scenes.box_training_scene: labelled boxes in the training
fonts only, decoy rectangles and characters, procedural backgrounds, JPEG) and fits CenterNet
heatmaps at each box's top-left corner (its label's class) and every rectangle's bottom-right
corner. Writes the weights with a JSON record (seed, steps, fonts, versions, held-out fonts) that
CornerFinder.load returns with the file's sha256. The loop is train/rendered_fit.py's.

    python -m train.markers_corners [--output adapters/markers/weights/corner_finder.safetensors] [--steps 4000]
        [--init FILE]   (continue from saved weights)
"""

from __future__ import annotations

import json

import torch

from adapters.markers.centre_finder import centre_loss, heat_targets, to_input
from adapters.markers.corner_finder import CORNER_CLASSES, WEIGHTS, CornerFinder
from adapters.markers.scenes import box_training_scene
from train.rendered_fit import SceneSamples, arguments, fit


class CornerStream(SceneSamples):
    """(image (3, H, W), heat (C, h, w), offset (2, h, w), corners (h, w)): one per scene."""

    scene = staticmethod(box_training_scene)

    def samples(self, scene, rng):
        image = to_input(scene.image)[0]
        targets = heat_targets(scene.points, *image.shape[-2:], classes=CORNER_CLASSES)
        yield (image, *(torch.from_numpy(t) for t in targets))


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__.split("\n")[0], WEIGHTS, steps=4000, batch=16, lr=2e-3).parse_args(argv)
    record = fit(CornerFinder, CornerStream, centre_loss, args.output, args.steps, args.batch, args.seed, args.width,
                 args.workers, args.lr, args.init, unit="images")
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
