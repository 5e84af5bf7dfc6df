"""LightningDataModule for ComBo's 9,504-way classification: a real ComBo folder when
`manifest` is given, ComBo-lite renders otherwise. DDP-ready; nothing here assumes rank 0.

The training order is the seed's alone, whatever the number of processes: one seeded permutation
per epoch (a DistributedSampler, built here rather than by Lightning), dealt out in turn to the
ranks, so step k of W processes with batch B trains on exactly the images step k of one process
with batch W x B does. Gradients are averaged over the ranks, so for networks without batch
statistics (ViTs, LayerNorm) the two runs compute the same updates up to rounding; BatchNorm
networks normalise per process (per-device batch statistics, as DDP does by default)."""

from __future__ import annotations

import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.transforms import v2

from adapters.datasets.combo.factors import FactorTable
from adapters.datasets.combo.manifest import read_manifest
from train.datasets import ComboLiteDataset, ManifestDataset


class ComboDataModule(pl.LightningDataModule):
    """
    Args:
        manifest: ComBo manifest CSV (None: ComBo-lite, rendered on the fly).
        factors: factor table TOML (None: the packaged 9,504-object table).
        image_size: square input size S.
        views_per_object: ComBo-lite views per object in one epoch (ComBo has 20).
        val_views_per_object: ComBo-lite held-out views per object for validation (0: none).
        batch_size, num_workers: DataLoader settings (per process under DDP: the global batch
            is batch_size x devices x num_nodes).
        augment: random resized crop (scale 0.7-1) and horizontal flip on training images.
        seed: ComBo-lite rendering seed.
    """

    def __init__(self, manifest: str | None = None, factors: str | None = None, image_size: int = 224,
                 views_per_object: int = 20, val_views_per_object: int = 0, batch_size: int = 64,
                 num_workers: int = 4, augment: bool = True, seed: int = 0) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.table = FactorTable.load(factors)
        self.train_set = self.val_set = None

    def setup(self, stage: str | None = None) -> None:
        h = self.hparams
        if h.manifest:
            self.train_set = ManifestDataset(read_manifest(h.manifest, self.table), h.image_size)
        else:
            self.train_set = ComboLiteDataset(self.table, h.image_size, h.views_per_object, h.seed)
            if h.val_views_per_object:
                # View seeds past the training ones: unseen viewpoints of the same objects.
                self.val_set = ComboLiteDataset(self.table, h.image_size, h.val_views_per_object, h.seed,
                                                view_offset=10_000)
        self._augment = v2.Compose([
            v2.RandomResizedCrop(h.image_size, scale=(0.7, 1.0), ratio=(0.9, 1.1), antialias=True),
            v2.RandomHorizontalFlip(),
        ]) if h.augment else None

    def _loader(self, dataset, shuffle: bool) -> DataLoader:
        h = self.hparams
        sampler = None
        if shuffle:
            world, rank = (self.trainer.world_size, self.trainer.global_rank) if self.trainer is not None else (1, 0)
            sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=h.seed,
                                         drop_last=True)  # Lightning calls set_epoch: a new order per epoch
        return DataLoader(dataset, batch_size=h.batch_size, sampler=sampler, num_workers=h.num_workers,
                          pin_memory=torch.cuda.is_available(), persistent_workers=h.num_workers > 0,
                          drop_last=shuffle)

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.train_set, shuffle=True)

    def val_dataloader(self) -> DataLoader | list:
        return self._loader(self.val_set, shuffle=False) if self.val_set is not None else []

    def on_after_batch_transfer(self, batch, dataloader_idx: int):
        # Augment after the transfer (on the GPU when training there), one random crop per image.
        images, labels = batch
        if self.trainer is not None and self.trainer.training and self._augment is not None:
            images = torch.stack([self._augment(im) for im in images])
        return images, labels
