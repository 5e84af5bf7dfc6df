"""Train the box corner reader (adapters/markers/corner_reader.py) on rendered scenes, on a CPU or a GPU.

Every step renders fresh box scenes (scenes.box_training_scene: labelled boxes in the training
fonts only, decoy rectangles and characters, procedural backgrounds and 2 in 5 a tinted crop of one
of scikit-image's sample photographs (training_photos.py; never the benchmark's), JPEG) and crops a patch at
each labelled box's top-left corner (jittered by up to JITTER px, the outline fit's error) with
its label, and, as "none", at every bottom-right corner, decoy rectangle's top-left corner, point
where two boxes' lines cross (but those within scenes.CROSSING_AT_LABEL px of a labelled corner,
which to the reader are that corner) and a few random points. Writes the weights with a JSON record that
CornerReader.load returns with the file's sha256. The loop is train/rendered_fit.py's.

    python -m train.markers_corner_reader [--output adapters/markers/weights/corner_reader.safetensors]
        [--steps 8000] [--init FILE]   (continue from saved weights)   [--no-photos]   (procedural backgrounds only)
        [--device cuda --workers N]   (on a GPU, N processes rendering scenes)
"""

from __future__ import annotations

import json

from adapters.markers.corner_finder import BOX_LABELS
from adapters.markers.corner_reader import CLASSES, PATCH, WEIGHTS, CornerReader
from adapters.markers.patch_reader import NONE, crop_patches
from adapters.markers.scenes import CROSSING_AT_LABEL, box_training_scene
from train.markers_reader import jittered, reader_loss
from train.rendered_fit import SceneSamples, arguments, fit

JITTER = 1.0  # px: corners are cropped up to this far off
SCENE_POINTS = 2  # random points per scene cropped as "none"


class CornerPatchStream(SceneSamples):
    """(patch (6, PATCH, PATCH), class index) pairs: one per corner or crossing, plus SCENE_POINTS."""

    scene = staticmethod(box_training_scene)

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
    args = arguments(__doc__.split("\n")[0], WEIGHTS, steps=8000, batch=128, lr=3e-3).parse_args(argv)
    record = fit(CornerReader, CornerPatchStream, reader_loss, args.output, args.steps, args.batch, args.seed,
                 args.width, args.workers, args.lr, args.init, unit="patches", device=args.device,
                 minutes=args.minutes, classes=list(CLASSES), photos=not args.no_photos,
                 crossing_at_label=CROSSING_AT_LABEL)
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
