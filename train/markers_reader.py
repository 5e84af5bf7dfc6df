"""Train the marker patch reader (adapters/markers/patch_reader.py) on rendered scenes, on a CPU or a GPU.

Every step renders fresh scenes (scenes.training_scene: markers in the training fonts only,
decoy rings and characters, procedural backgrounds or, 2 in 5, a tinted crop of one of
scikit-image's sample photographs (training_photos.py; never the benchmark's), JPEG) and crops
a patch at each marker centre (jittered by up to JITTER px, as the ring detector's centres are)
and at each decoy / glyph / scene point (class "none"). Writes the weights with a JSON record
(seed, steps, fonts, photographs, versions, held-out fonts) that PatchReader.load returns with
the file's sha256. The loop is train/rendered_fit.py's.

    python -m train.markers_reader [--output adapters/markers/weights/patch_reader.safetensors] [--steps 6000]
        [--init FILE]   (continue from saved weights)   [--no-photos]   (procedural backgrounds only)
        [--device cuda --workers N]   (on a GPU, N processes rendering scenes)
"""

from __future__ import annotations

import json

import numpy as np
import torch

from adapters.markers.patch_reader import CLASSES, NONE, WEIGHTS, PatchReader, crop_patches
from adapters.markers.scenes import training_scene
from adapters.markers.training_photos import photos_record, training_photos
from train.rendered_fit import SceneSamples, arguments, fit

JITTER = 1.5  # px: marker centres are cropped up to this far off (the ring fit's error)


def jittered(x: float, y: float, radius: float, rng: np.random.Generator) -> tuple[float, float]:
    """(x, y) moved to a uniformly random place within `radius` px of it."""
    angle, dist = rng.uniform(0, 2 * np.pi), radius * np.sqrt(rng.uniform())
    return x + dist * np.cos(angle), y + dist * np.sin(angle)


def scene_on_photos(rng: np.random.Generator, fonts: list[str]):
    """scenes.training_scene with 2 in 5 backgrounds cut from training_photos()."""
    return training_scene(rng, fonts, photos=training_photos())


class PatchStream(SceneSamples):
    """(patch (6, P, P), class index) pairs: one per marker, decoy, glyph and scene point, on
    procedural backgrounds only (--no-photos: how the first runs were made)."""

    def samples(self, scene, rng):
        centres, targets = [], []
        for x, y, label in scene.points:
            centres.append(jittered(x, y, JITTER, rng) if label is not None else (x, y))
            targets.append(CLASSES.index(label if label is not None else NONE))
        return zip(crop_patches(scene.image, centres), targets)


class PhotoPatchStream(PatchStream):
    """PatchStream's pairs with 2 in 5 scenes on a tinted crop of training_photos()."""

    scene = staticmethod(scene_on_photos)


def reader_loss(logits: torch.Tensor, classes: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(logits.float(), classes, label_smoothing=0.02)


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__.split("\n")[0], WEIGHTS, steps=6000, batch=128, lr=3e-3)
    parser.add_argument("--no-photos", action="store_true",
                        help="procedural backgrounds only (no scikit-image sample photographs)")
    args = parser.parse_args(argv)
    record = fit(PatchReader, PatchStream if args.no_photos else PhotoPatchStream, reader_loss, args.output,
                 args.steps, args.batch, args.seed, args.width, args.workers, args.lr, args.init, unit="patches",
                 device=args.device, classes=list(CLASSES), photos=None if args.no_photos else photos_record())
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
