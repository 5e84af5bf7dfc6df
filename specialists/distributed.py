"""Multi-GPU / multi-node extraction on Lightning: `Trainer.predict` with DDP and a writer callback.

Each process gets a shard of request indices (Lightning's distributed sampler), runs them through
its own `Engine` on its own device, and a `BasePredictionWriter` saves that process's results,
keyed by request index, to `work_dir/rank{N}.pt`. After a barrier every process merges all
shards, so the call returns the complete {request key: output} dict on every rank. The sampler
pads shards with repeated indices to equal length; merging by index removes the repeats.

With strategy "ddp" Lightning re-launches the calling script once per extra device (its
standard launcher), so call this from a script, not a notebook ("ddp_notebook" works there).
It runs the same way with one CPU process, which is how the tests exercise it. On several
nodes `work_dir` must be on a file system every node sees.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

import lightning as L
import torch
from lightning.pytorch.callbacks import BasePredictionWriter
from torch.utils.data import DataLoader, Dataset

from specialists.engine import Engine, ImageRequest, ModelSpec, Output
from specialists.feature_cache import CacheMode, FeatureCache


class _Indices(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i


class ExtractionModule(L.LightningModule):
    """Wraps an `Engine`; predict_step maps a batch of request indices to {index: output}.

    build_specs: called once per process to build the specialists (their modules become
    children of this module, so Lightning places them on the process's device).
    """

    def __init__(
        self,
        requests: Sequence[ImageRequest],
        build_specs: Callable[[], list[ModelSpec]],
        precision: str = "fp32",
        cache_root: str | Path | None = None,
        cache_mode: CacheMode = "read",
    ) -> None:
        super().__init__()
        self.requests = list(requests)
        self.specs = build_specs()
        self.models = torch.nn.ModuleList([spec.module for spec in self.specs])
        self.precision_name = precision
        self.cache_root = cache_root
        self.cache_mode = cache_mode
        self.engine: Engine | None = None

    def on_predict_start(self) -> None:
        cache = FeatureCache(self.cache_root, mode=self.cache_mode) if self.cache_root else None
        self.engine = Engine(self.specs, device=self.device, precision=self.precision_name, cache=cache)

    def predict_step(self, batch: torch.Tensor, batch_idx: int) -> dict[int, Output]:
        indices = [int(i) for i in batch]
        out = self.engine.run([self.requests[i] for i in indices])
        return {i: out[self.requests[i].key] for i in indices}


class IndexGatherWriter(BasePredictionWriter):
    """Collects this process's {index: output} and saves it to `folder/rank{global_rank}.pt`."""

    def __init__(self, folder: str | Path) -> None:
        super().__init__(write_interval="batch")
        self.folder = Path(folder)
        self.results: dict[int, Output] = {}

    def write_on_batch_end(self, trainer, pl_module, prediction, batch_indices, batch, batch_idx, dataloader_idx) -> None:
        self.results.update(prediction)

    def on_predict_epoch_end(self, trainer, pl_module) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        torch.save(self.results, self.folder / f"rank{trainer.global_rank}.pt")


def extract_distributed(
    requests: Sequence[ImageRequest],
    build_specs: Callable[[], list[ModelSpec]],
    work_dir: str | Path,
    *,
    accelerator: str = "auto",
    devices: int | str = "auto",
    num_nodes: int = 1,
    strategy: str = "ddp",
    precision: str = "fp32",
    requests_per_step: int = 256,
    cache_root: str | Path | None = None,
    cache_mode: CacheMode = "read",
) -> dict[Hashable, Output]:
    """Run every request on all devices of all nodes; {request key: output} on every rank.

    requests_per_step: indices per predict step (the engine batches and buckets inside a step).
    """
    keys = [r.key for r in requests]
    if len(set(keys)) != len(keys):
        raise ValueError("request keys must be unique across the whole extraction")
    work_dir = Path(work_dir)
    writer = IndexGatherWriter(work_dir)
    trainer = L.Trainer(
        accelerator=accelerator, devices=devices, num_nodes=num_nodes, strategy=strategy,
        callbacks=[writer], logger=False, enable_progress_bar=False, enable_model_summary=False,
        enable_checkpointing=False,
    )
    module = ExtractionModule(requests, build_specs, precision, cache_root, cache_mode)
    loader = DataLoader(_Indices(len(requests)), batch_size=requests_per_step, shuffle=False)
    trainer.predict(module, loader, return_predictions=False)
    trainer.strategy.barrier("extraction written")
    merged: dict[int, Any] = {}
    for rank in range(trainer.world_size):
        merged.update(torch.load(work_dir / f"rank{rank}.pt", weights_only=True))
    missing = set(range(len(requests))) - set(merged)
    if missing:
        raise RuntimeError(f"{len(missing)} requests came back from no process (first: {sorted(missing)[:5]})")
    return {requests[i].key: merged[i] for i in range(len(requests))}
