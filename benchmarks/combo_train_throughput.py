"""Images/s of the ComBo 9,504-way fine-tuning recipe (train/configs/resnet50_one_epoch.yaml
settings: bf16-mixed, channels_last, AdamW + cosine, label smoothing) on one device.

Two numbers, one JSON line: `model_images_per_s` feeds a fixed pre-rendered batch over and over
(the model's ceiling), `end_to_end_images_per_s` renders ComBo-lite in DataLoader workers on the
fly (what a run without the real dataset gets). Steps before `--warmup` are not timed.

    python benchmarks/combo_train_throughput.py --backbone resnet50 --batch-size 128 --steps 60
"""

from __future__ import annotations

import argparse
import json
import time

import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader, Dataset

from train.combo_module import ComboClassifier
from train.datamodule import ComboDataModule


class _Timer(pl.Callback):
    def __init__(self, warmup: int) -> None:
        self.warmup, self.start, self.images = warmup, None, 0

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        if batch_idx == self.warmup:
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            self.start = time.perf_counter()
        if batch_idx >= self.warmup:
            self.images += len(batch[0])

    def rate(self) -> float:
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return self.images / (time.perf_counter() - self.start)


class _Repeat(Dataset):
    """One pre-rendered batch, served `length` times (no data cost)."""

    def __init__(self, images: torch.Tensor, labels: torch.Tensor, length: int) -> None:
        self.images, self.labels, self.length = images, labels, length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i):
        return self.images[i % len(self.images)], int(self.labels[i % len(self.labels)])


def _fit(module, loader_or_dm, steps: int, warmup: int, precision: str) -> float:
    timer = _Timer(warmup)
    trainer = pl.Trainer(accelerator="auto", devices=1, precision=precision, max_steps=steps, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                         callbacks=[timer], limit_val_batches=0, num_sanity_val_steps=0)
    if isinstance(loader_or_dm, pl.LightningDataModule):
        trainer.fit(module, datamodule=loader_or_dm)
    else:
        trainer.fit(module, train_dataloaders=loader_or_dm)
    return timer.rate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backbone", default="resnet50")
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=15)
    parser.add_argument("--num-workers", type=int, default=8)
    parser.add_argument("--precision", default="bf16-mixed" if torch.cuda.is_available() else "32-true")
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True

    dm = ComboDataModule(image_size=args.image_size, batch_size=args.batch_size, num_workers=args.num_workers)
    dm.setup("fit")
    t0 = time.perf_counter()
    items = [dm.train_set[i * 97] for i in range(args.batch_size)]
    render_s = (time.perf_counter() - t0) / args.batch_size
    images = torch.stack([im for im, _ in items])
    labels = torch.tensor([y for _, y in items])
    loader = DataLoader(_Repeat(images, labels, args.batch_size * (args.steps + 1)), batch_size=args.batch_size,
                        pin_memory=True, num_workers=2)
    model_rate = _fit(ComboClassifier(backbone=args.backbone, image_size=args.image_size), loader, args.steps,
                      args.warmup, args.precision)
    e2e_rate = _fit(ComboClassifier(backbone=args.backbone, image_size=args.image_size), dm, args.steps,
                    args.warmup, args.precision)
    print(json.dumps({
        "benchmark": "combo_train_throughput", "backbone": args.backbone, "image_size": args.image_size,
        "batch_size": args.batch_size, "precision": args.precision, "timed_steps": args.steps - args.warmup,
        "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
        "model_images_per_s": round(model_rate, 1), "end_to_end_images_per_s": round(e2e_rate, 1),
        "render_ms_per_image_one_core": round(1000 * render_s, 2), "num_workers": args.num_workers,
    }))


if __name__ == "__main__":
    main()
