"""A callback that exports the fine-tuned backbone when fitting ends (on the global-zero process
only, after all ranks finished, so the file is written once under DDP)."""

from __future__ import annotations

import lightning.pytorch as pl


class ExportBackbone(pl.Callback):
    """dirpath: the export folder (model.safetensors + config.json), loadable by
    adapters.combo.backbone.load_backbone and `specialists combo eval --checkpoint DIR`."""

    def __init__(self, dirpath: str = "runs/export-combo") -> None:
        self.dirpath = dirpath

    def on_fit_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        trainer.strategy.barrier()
        if trainer.is_global_zero:
            folder = pl_module.export(self.dirpath)
            print(f"exported the fine-tuned backbone to {folder}")
        trainer.strategy.barrier()
