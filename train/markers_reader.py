"""Train the marker patch reader (adapters/markers/patch_reader.py) on rendered scenes, on a CPU.

Every step renders fresh scenes (scenes.training_scene: markers in the training fonts only,
decoy rings and characters, procedural backgrounds, JPEG) and crops a patch at each marker centre
(jittered by up to JITTER px, as the ring detector's centres are) and at each decoy / glyph /
scene point (class "none"). Writes the weights with a JSON record (seed, steps, fonts, versions,
held-out fonts) that PatchReader.load returns with the file's sha256.

    python -m train.markers_reader --output adapters/markers/weights/patch_reader.safetensors [--steps 6000]

A plain loop rather than Lightning's Trainer: the data is generated on the fly, there is no
validation split to schedule and no checkpointing; the whole fit is a few minutes.
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

from adapters.markers.fonts import available_fonts
from adapters.markers.glyphs import HELD_OUT_FONTS
from adapters.markers.patch_reader import CLASSES, NONE, WEIGHTS, PatchReader, PatchReaderNet, crop_patches
from adapters.markers.scenes import training_scene

JITTER = 1.5  # px: marker centres are cropped up to this far off (the ring fit's error)


class PatchStream(IterableDataset):
    """Endless (patch (6, P, P), class index) pairs from fresh scenes; each worker its own seed."""

    def __init__(self, seed: int, fonts: list[str]) -> None:
        self.seed, self.fonts = seed, fonts

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            scene = training_scene(rng, self.fonts)
            centres, targets = [], []
            for x, y, label in scene.points:
                if label is not None:
                    angle, dist = rng.uniform(0, 2 * np.pi), JITTER * np.sqrt(rng.uniform())
                    x, y = x + dist * np.cos(angle), y + dist * np.sin(angle)
                centres.append((x, y))
                targets.append(CLASSES.index(label if label is not None else NONE))
            patches = crop_patches(scene.image, centres)
            yield from zip(patches, targets)


def train(output: Path, steps: int, batch: int, seed: int, width: int, workers: int, lr: float,
          init: Path | None = None) -> dict:
    """Fit a reader (from `init`'s weights when given, else from scratch) and save it to `output`."""
    torch.manual_seed(seed)
    fonts = [f.name for f in available_fonts() if f.name not in HELD_OUT_FONTS]
    start = PatchReader.load(init) if init else None
    net = start.net.train() if start else PatchReaderNet(width)
    width = net.width
    net = net.to(memory_format=torch.channels_last)  # ~2x faster convs on CPUs
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.1)
    loader = DataLoader(PatchStream(seed, fonts), batch_size=batch, num_workers=workers,
                        persistent_workers=workers > 0)
    started, seen, running = time.perf_counter(), 0, []
    for step, (x, y) in enumerate(loader):
        if step == steps:
            break
        # bf16 autocast: another ~2x on CPUs with bf16 units, and the reader needs no more precision
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = net(x.contiguous(memory_format=torch.channels_last))
        loss = torch.nn.functional.cross_entropy(logits.float(), y, label_smoothing=0.02)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        schedule.step()
        seen += len(y)
        running.append(loss.item())
        if (step + 1) % 100 == 0:
            print(json.dumps({"step": step + 1, "loss": round(float(np.mean(running)), 4),
                              "patches_per_s": round(seen / (time.perf_counter() - started), 1)}), flush=True)
            running = []
    record = {"seed": seed, "steps": steps, "batch": batch, "width": width, "lr": lr, "patches": seen,
              "fonts": fonts, "held_out_fonts": list(HELD_OUT_FONTS), "classes": list(CLASSES),
              "torch": torch.__version__, "numpy": np.__version__, "python": platform.python_version(),
              "seconds": round(time.perf_counter() - started, 1),
              "init": {"sha256": start.record["sha256"], "record": start.record} if start else None}
    PatchReader(net.to(memory_format=torch.contiguous_format), record).save(output)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=WEIGHTS)
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=24, help="channels of the first layer")
    parser.add_argument("--workers", type=int, default=1, help="processes rendering scenes")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--init", type=Path, help="continue from these weights (a file this script wrote)")
    args = parser.parse_args(argv)
    record = train(args.output, args.steps, args.batch, args.seed, args.width, args.workers, args.lr, args.init)
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
