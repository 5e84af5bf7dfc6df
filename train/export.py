"""A callback that exports the fine-tuned backbone when fitting ends (on the global-zero process
only, after all ranks finished, so the file is written once under DDP), and optionally the
backbone as it was before the first step: the honest "before fine-tuning" row is then the very
network that was fine-tuned, not another draw of the same architecture."""

from __future__ import annotations

import lightning.pytorch as pl


class ExportBackbone(pl.Callback):
    """dirpath: the export folder (model.safetensors + config.json), loadable by
    specialists.timm_backbone.load_backbone and `specialists combo eval --checkpoint DIR`;
    initial_dirpath: where to export the backbone before training (skipped when resuming)."""

    def __init__(self, dirpath: str = "runs/export-combo", initial_dirpath: str | None = None) -> None:
        self.dirpath = dirpath
        self.initial_dirpath = initial_dirpath

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.initial_dirpath is None or trainer.global_step > 0:  # a resumed run has no "before"
            return
        trainer.strategy.barrier()
        if trainer.is_global_zero:
            folder = pl_module.export(self.initial_dirpath)
            print(f"exported the backbone before fine-tuning to {folder}")
        trainer.strategy.barrier()

    def on_fit_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        trainer.strategy.barrier()
        if trainer.is_global_zero:
            folder = pl_module.export(self.dirpath)
            print(f"exported the fine-tuned backbone to {folder}")
        trainer.strategy.barrier()
