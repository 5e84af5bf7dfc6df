"""The fit the marker networks share (train/markers_reader.py, train/markers_finder.py, ...): fresh
rendered scenes every step, AdamW with a one-cycle schedule, channels_last and bf16 autocast where
the hardware has bf16 units (`specialists.precision.bf16_is_fast`) on the CPU or a CUDA GPU
(`--device`), a JSON loss line every 100 steps, and the weights saved with their training record.

A plain loop rather than Lightning's Trainer: the data is generated on the fly, there is no
validation split to schedule and no checkpointing; a whole fit is half an hour on 2 CPU cores.
On a GPU the scenes' rendering is the limit: give it as many `--workers` as there are spare cores.
`--minutes M` fits for M minutes of wall time rather than `--steps` (a lent GPU's time is what is
fixed there, and its scenes per second are only known once the workers run).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset

from adapters.markers.draw.fonts import available_fonts
from adapters.markers.draw.scenes import TrainingScene, training_scene
from adapters.markers.draw.training_photos import photos_record, training_photos
from adapters.markers.general.nets.glyphs import HELD_OUT_FONTS
from adapters.markers.general.nets.weights_file import TrainedNetwork
from specialists.precision import bf16_is_fast


def training_fonts() -> list[str]:
    """Every available font but the held-out ones (nets.glyphs.HELD_OUT_FONTS), which stay unseen."""
    return [f.name for f in available_fonts() if f.name not in HELD_OUT_FONTS]


class SceneSamples(IterableDataset):
    """Endless training samples from fresh scenes (`scene`: draw.scenes.training_scene unless a subclass
    names another); each DataLoader worker renders its own stream. Subclasses turn one scene into
    samples (`samples`)."""

    scene = staticmethod(training_scene)  # rng, fonts, photos=... -> TrainingScene

    def __init__(self, seed: int, fonts: list[str], photos: bool = False) -> None:
        # photos: 2 in 5 scenes on a tinted crop of training_photos(), else procedural backgrounds only
        self.seed, self.fonts, self.photos = seed, fonts, photos

    def samples(self, scene: TrainingScene, rng: np.random.Generator) -> Iterator[tuple]:
        raise NotImplementedError

    @staticmethod
    def add_options(parser: argparse.ArgumentParser) -> None:
        """The stream's own command-line options (none here)."""

    @staticmethod
    def options(args: argparse.Namespace) -> dict:
        """The keyword arguments the stream takes from those options, which the record names too."""
        return {}

    def style_fixed(self, rng: np.random.Generator) -> dict:
        """Keyword arguments the next scene is rendered with (MarkerStyle fields its markers take;
        box scenes also take `labels`); none: all random. `scene` must accept them."""
        return {}

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        photos = training_photos() if self.photos else ()
        while True:
            yield from self.samples(self.scene(rng, self.fonts, photos=photos, **self.style_fixed(rng)), rng)


TIMED_SCHEDULE_POSITIONS = 100_000  # fine enough that a timed schedule moves smoothly


def fit(kind: type[TrainedNetwork], stream: Callable[..., SceneSamples],
        loss: Callable[..., torch.Tensor], output: Path, steps: int, batch: int, seed: int, width: int,
        workers: int, lr: float, init: Path | None = None, unit: str = "samples", device: str = "cpu",
        minutes: float | None = None, photos: bool = True, **record_extra) -> dict:
    """Fit a `kind` network (from `init`'s weights when given, else from scratch, `width` wide)
    on `stream`'s batches; `loss(output, *targets)`; save it with its record to `output`.

    unit: what one sample is ("patches", "images"), in the log lines and the record;
    device: "cpu" or a CUDA device ("cuda", "cuda:1"); the saved weights are the same either way;
    minutes: when given, fit for this long instead of `steps` steps, the schedule following the time
    spent (the record's "steps" is then the steps done);
    photos: 2 in 5 scenes on the training photographs (`stream(seed, fonts, photos=...)`), which the
    record names (None: procedural backgrounds only, `--no-photos`)."""
    torch.manual_seed(seed)
    device = torch.device(device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit(f"--device {device}: this machine has no CUDA GPU; train with --device cpu")
    fonts = training_fonts()
    start = kind.load(init) if init else None
    net = start.net.train() if start else kind.NETWORK(width)
    net = net.to(device, memory_format=torch.channels_last)  # ~2x faster convs on CPUs
    bf16 = bf16_is_fast(device)
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    # Timed: the one-cycle schedule's position is the fraction of the time spent, in this many places
    positions = steps if minutes is None else TIMED_SCHEDULE_POSITIONS
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=positions, pct_start=0.1)
    loader = DataLoader(stream(seed, fonts, photos=photos), batch_size=batch, num_workers=workers, persistent_workers=workers > 0,
                        pin_memory=device.type == "cuda")
    started, seen, running, done = time.perf_counter(), 0, [], 0
    for step, (x, *targets) in enumerate(loader):
        spent = None if minutes is None else (time.perf_counter() - started) / (60 * minutes)
        if (step == steps) if spent is None else (spent >= 1):
            break
        x = x.to(device, non_blocking=True).contiguous(memory_format=torch.channels_last)
        targets = [t.to(device, non_blocking=True) for t in targets]
        # bf16 autocast: another ~2x where the units exist, and these networks need no more precision
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            predicted = net(x)
        value = loss(predicted, *targets)
        optimiser.zero_grad(set_to_none=True)
        value.backward()
        optimiser.step()
        if spent is None:
            schedule.step()
        else:  # OneCycleLR refuses to step past its last position
            while schedule.last_epoch < min(int(spent * positions), positions - 1):
                schedule.step()
        seen, done = seen + len(x), step + 1
        running.append(value.item())
        if (step + 1) % 100 == 0:
            print(json.dumps({"step": step + 1, "loss": round(float(np.mean(running)), 4),
                              f"{unit}_per_s": round(seen / (time.perf_counter() - started), 1)}), flush=True)
            running = []
    if minutes is not None and done == 0:  # nothing fitted: writing the start again would pass for a fit
        raise SystemExit(f"--minutes {minutes}: the time ran out before the first step (the scenes' rendering "
                         f"starts the clock too); give it more minutes")
    timed = {} if minutes is None else {"minutes": minutes}
    record = {"seed": seed, "steps": done, **timed, "batch": batch, "width": net.width, "lr": lr, unit: seen,
              "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
              "autocast": "bf16" if bf16 else None,
              "fonts": fonts, "held_out_fonts": list(HELD_OUT_FONTS),
              "photos": photos_record() if photos else None, **record_extra,
              "torch": torch.__version__, "numpy": np.__version__, "python": platform.python_version(),
              "seconds": round(time.perf_counter() - started, 1),
              "init": {"sha256": start.record["sha256"], "record": start.record} if start else None}
    kind(net.to("cpu", memory_format=torch.contiguous_format), record).save(output)
    return record


def arguments(description: str, weights: Path, steps: int, batch: int, lr: float) -> argparse.ArgumentParser:
    """The command line both scripts take; the defaults are each one's shipped run."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--output", type=Path, default=weights)
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--batch", type=int, default=batch)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=24, help="channels of the first layer")
    parser.add_argument("--workers", type=int, default=1, help="processes rendering scenes")
    parser.add_argument("--device", default="cpu", help='"cpu" or a CUDA device ("cuda")')
    parser.add_argument("--lr", type=float, default=lr)
    parser.add_argument("--init", type=Path, help="continue from these weights (a file this script wrote)")
    parser.add_argument("--minutes", type=_positive_minutes,
                        help="fit for this many minutes of wall time instead of --steps (on a lent GPU, say)")
    parser.add_argument("--no-photos", action="store_true",
                        help="procedural backgrounds only (no scikit-image sample photographs)")
    return parser


def _positive_minutes(text: str) -> float:
    minutes = float(text)
    if not minutes > 0:
        raise argparse.ArgumentTypeError(f"{text}: give a positive number of minutes, or leave it out to fit --steps")
    return minutes
