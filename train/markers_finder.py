"""Train the marker centre finder (adapters/markers/nets/centre_finder.py) on rendered scenes, on a CPU or a GPU.

Every step renders fresh whole scenes (draw.scenes.training_scene: markers in the training fonts only,
decoy rings and characters, procedural backgrounds and 2 in 5 a tinted crop of one of
scikit-image's sample photographs (draw/training_photos.py; never the benchmark's), JPEG) and fits CenterNet heatmaps at the
markers' centres. Writes the weights with a JSON record (seed, steps, fonts, versions, held-out
fonts) that CentreFinder.load returns with the file's sha256. The loop is train/rendered_fit.py's.

    python -m train.markers_finder [--output adapters/markers/nets/weights/centre_finder.safetensors] [--steps 5000]
        [--init FILE]   (continue from saved weights)   [--no-photos]   (procedural backgrounds only)
        [--device cuda --workers N]   (on a GPU, N processes rendering scenes)
"""

from __future__ import annotations

import functools
import json

import torch

from adapters.markers.general.nets.centre_finder import WEIGHTS, CentreFinder, centre_loss, heat_targets, to_input
from adapters.markers.labels import LABELS
from train.rendered_fit import SceneSamples, arguments, fit


class SceneStream(SceneSamples):
    """(image (3, H, W), heat (C, h, w), offset (2, h, w), centres (h, w)): one per scene, with a
    heatmap per class of `classes` at the scene's points of that class (points of class None,
    the decoys, get none)."""

    classes: tuple[str, ...] = LABELS

    def samples(self, scene, rng):
        image = to_input(scene.image)[0]
        points = [p for p in scene.points if p[2] is not None]
        targets = heat_targets(points, *image.shape[-2:], classes=self.classes)
        yield (image, *(torch.from_numpy(t) for t in targets))


def train_heatmaps(network: type[CentreFinder], stream: type[SceneStream], weights, steps: int, description: str,
                   argv: list[str] | None) -> int:
    """The command line of a heatmap network's training script (`steps`: its shipped run's), with
    the stream's own options (SceneSamples.add_options), which its record names."""
    parser = arguments(description.split("\n")[0], weights, steps=steps, batch=16, lr=2e-3)
    stream.add_options(parser)
    args = parser.parse_args(argv)
    options = stream.options(args)
    record = fit(network, functools.partial(stream, **options), centre_loss, args.output, args.steps, args.batch, args.seed, args.width,
                 args.workers, args.lr, args.init, unit="images", device=args.device, minutes=args.minutes,
                 photos=not args.no_photos, **options)
    print(json.dumps(record))
    return 0


def main(argv: list[str] | None = None) -> int:
    return train_heatmaps(CentreFinder, SceneStream, WEIGHTS, 5000, __doc__, argv)


if __name__ == "__main__":
    raise SystemExit(main())
