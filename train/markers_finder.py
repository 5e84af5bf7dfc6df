"""Train the marker centre finder (adapters/markers/centre_finder.py) on rendered scenes, on a CPU.

Every step renders fresh whole scenes (scenes.training_scene: markers in the training fonts only,
decoy rings and characters, procedural backgrounds, JPEG) and fits CenterNet heatmaps at the
markers' centres. Writes the weights with a JSON record (seed, steps, fonts, versions, held-out
fonts) that CentreFinder.load returns with the file's sha256.

    python -m train.markers_finder [--output adapters/markers/weights/centre_finder.safetensors] [--steps 5000]
        [--init FILE]   (continue from saved weights)

A plain loop rather than Lightning's Trainer, as in train/markers_reader.py: the data is
generated on the fly and there is no validation split to schedule.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset

from adapters.markers.centre_finder import WEIGHTS, CentreFinder, CentreFinderNet, centre_loss, heat_targets, to_input
from adapters.markers.fonts import available_fonts
from adapters.markers.glyphs import HELD_OUT_FONTS
from adapters.markers.scenes import training_scene


class SceneStream(IterableDataset):
    """Endless (image (3, H, W), heat (L, h, w), offset (2, h, w), centres (h, w)) from fresh
    scenes; each worker its own seed."""

    def __init__(self, seed: int, fonts: list[str]) -> None:
        self.seed, self.fonts = seed, fonts

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            scene = training_scene(rng, self.fonts)
            image = to_input(scene.image)[0]
            targets = heat_targets([p for p in scene.points if p[2] is not None], *image.shape[-2:])
            yield (image, *(torch.from_numpy(t) for t in targets))


def train(output: Path, steps: int, batch: int, seed: int, width: int, workers: int, lr: float,
          init: Path | None = None) -> dict:
    """Fit a finder (from `init`'s weights when given, else from scratch) and save it to `output`."""
    torch.manual_seed(seed)
    fonts = [f.name for f in available_fonts() if f.name not in HELD_OUT_FONTS]
    start = CentreFinder.load(init) if init else None
    net = start.net.train() if start else CentreFinderNet(width)
    width = net.width
    net = net.to(memory_format=torch.channels_last)  # ~2x faster convs on CPUs
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.1)
    loader = DataLoader(SceneStream(seed, fonts), batch_size=batch, num_workers=workers,
                        persistent_workers=workers > 0)
    started, seen, running = time.perf_counter(), 0, []
    for step, (x, heat, offset, centres) in enumerate(loader):
        if step == steps:
            break
        with torch.autocast("cpu", dtype=torch.bfloat16):  # bf16: ~2x on CPUs with bf16 units
            predicted = net(x.contiguous(memory_format=torch.channels_last))
        loss = centre_loss(predicted, heat, offset, centres)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        schedule.step()
        seen += len(x)
        running.append(loss.item())
        if (step + 1) % 100 == 0:
            print(json.dumps({"step": step + 1, "loss": round(float(np.mean(running)), 4),
                              "images_per_s": round(seen / (time.perf_counter() - started), 1)}), flush=True)
            running = []
    record = {"seed": seed, "steps": steps, "batch": batch, "width": width, "lr": lr, "images": seen,
              "fonts": fonts, "held_out_fonts": list(HELD_OUT_FONTS),
              "torch": torch.__version__, "numpy": np.__version__, "python": platform.python_version(),
              "seconds": round(time.perf_counter() - started, 1),
              "init": {"sha256": start.record["sha256"], "record": start.record} if start else None}
    CentreFinder(net.to(memory_format=torch.contiguous_format), record).save(output)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=WEIGHTS)
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=24, help="channels of the first layer")
    parser.add_argument("--workers", type=int, default=1, help="processes rendering scenes")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--init", type=Path, help="continue from these weights (a file this script wrote)")
    args = parser.parse_args(argv)
    print(json.dumps(train(args.output, args.steps, args.batch, args.seed, args.width, args.workers, args.lr,
                           args.init)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
