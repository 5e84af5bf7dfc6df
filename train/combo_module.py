"""ComBo's auxiliary task as a LightningModule: a timm backbone with a head trained to tell the
9,504 objects apart (n_objects from the factor table), a softmax over every object.
AdamW + linear warm-up then cosine decay per step, label smoothing, channels_last for CNNs;
precision (bf16-mixed on GPUs) and DDP are Trainer settings.

Two heads give the n_objects logits:
- "linear": Linear(num_features, n_objects), the paper's head (the GPU recipes).
- "factorised": logit(object) = sum of one logit per part of the object (primary shape+anchor,
  secondary shape+pivot, primary look, secondary look), so Linear(num_features, 11+6+12+12).
  The loss is the same n_objects-way cross-entropy; the softmax then factorises into one
  softmax per part, and every image teaches each part's classifier, not one class among 9,504
  seen a handful of times. That is what lets a random-init network learn within minutes on a
  CPU (the small CPU recipe)."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import lightning.pytorch as pl
import torch
import torch.nn.functional as F

from adapters.datasets.combo.factors import FactorTable
from specialists.timm_backbone import BackboneConfig, create_timm, save_export, timm_config

HEADS = ("linear", "factorised")


class FactorisedHead(torch.nn.Module):
    """(B, num_features) features -> (B, n_objects) logits, each the sum of its parts' logits
    (FactorTable.PARTS, whose indices FactorTable.parts_of reads off the object id)."""

    def __init__(self, num_features: int, table: FactorTable) -> None:
        super().__init__()
        sizes = table.part_sizes
        self.linear = torch.nn.Linear(num_features, sum(sizes))
        offsets = torch.tensor([0, *sizes[:-1]]).cumsum(0)
        parts = torch.tensor([table.parts_of(i) for i in range(table.n_objects)])
        # (n_objects, 4): the column of each part's logit in the linear output
        self.register_buffer("columns", parts + offsets, persistent=False)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        part_logits = self.linear(features)  # (B, sum(sizes))
        return part_logits[:, self.columns].sum(dim=2)


def _is_vit(name: str) -> bool:
    return any(key in name for key in ("vit", "deit", "eva", "beit"))


class ComboClassifier(pl.LightningModule):
    """
    Args:
        backbone: timm architecture (resnet50, vit_base_patch16_224, resnet18, ...).
        pretrained_path: local weight file of `backbone`, loaded offline through timm's
            pretrained_cfg_overlay (None: random init). Nothing is ever downloaded.
        factors: factor table TOML (None: the packaged 9,504-object table); sets the head size.
        image_size: square input size (ViTs are built for it).
        lr, weight_decay, warmup_steps, label_smoothing: the optimisation recipe.
        channels_last: NHWC memory format for CNNs (faster convolutions on GPUs).
        head: "linear" (the paper's) or "factorised" (see the module docstring).
    """

    def __init__(self, backbone: str = "resnet50", pretrained_path: str | None = None, factors: str | None = None,
                 image_size: int = 224, lr: float = 1e-3, weight_decay: float = 0.05, warmup_steps: int = 100,
                 label_smoothing: float = 0.1, channels_last: bool = True, head: str = "linear") -> None:
        super().__init__()
        if head not in HEADS:
            raise ValueError(f"model.head {head!r} is not known; use one of {', '.join(HEADS)}")
        self.save_hyperparameters()
        table = FactorTable.load(factors)
        self.num_classes = table.n_objects
        self.factor_table_sha256 = table.sha256
        self.model_kwargs = {"img_size": image_size} if _is_vit(backbone) else {}
        extra = {}
        if pretrained_path:
            overlay = {"file": str(pretrained_path)}
            if str(pretrained_path).endswith(".safetensors"):
                overlay["custom_load"] = False
            extra = {"pretrained": True, "pretrained_cfg_overlay": overlay}
        timm_classes = self.num_classes if head == "linear" else 0
        self.model = create_timm(backbone, self.model_kwargs, num_classes=timm_classes, **extra)
        self.factorised_head = FactorisedHead(self.model.num_features, table) if head == "factorised" else None
        self.channels_last = channels_last and not _is_vit(backbone)
        if self.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
        cfg = self.model.pretrained_cfg
        # Normalisation lives with the model: the data module hands over images in 0-1.
        self.register_buffer("mean", torch.tensor(cfg.get("mean", (0.485, 0.456, 0.406))).view(1, 3, 1, 1), persistent=False)
        self.register_buffer("std", torch.tensor(cfg.get("std", (0.229, 0.224, 0.225))).view(1, 3, 1, 1), persistent=False)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, 3, S, S) images in 0-1 -> (B, n_objects) logits."""
        x = (images - self.mean) / self.std
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        out = self.model(x)
        return out if self.factorised_head is None else self.factorised_head(out)

    def _step(self, batch, stage: str) -> torch.Tensor:
        images, labels = batch
        logits = self(images)
        loss = F.cross_entropy(logits, labels, label_smoothing=self.hparams.label_smoothing)
        acc = (logits.argmax(dim=1) == labels).float().mean()
        self.log(f"{stage}_loss", loss, prog_bar=True, sync_dist=stage != "train")
        self.log(f"{stage}_acc", acc, prog_bar=True, sync_dist=stage != "train")
        return loss

    def training_step(self, batch, batch_idx: int) -> torch.Tensor:
        return self._step(batch, "train")

    def validation_step(self, batch, batch_idx: int) -> None:
        self._step(batch, "val")

    def configure_optimizers(self):
        h = self.hparams
        # No weight decay on norms and biases (standard for AdamW recipes).
        decay = [p for p in self.parameters() if p.requires_grad and p.ndim > 1]
        no_decay = [p for p in self.parameters() if p.requires_grad and p.ndim <= 1]
        optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": h.weight_decay},
                                       {"params": no_decay, "weight_decay": 0.0}], lr=h.lr)
        total = max(1, int(self.trainer.estimated_stepping_batches))
        warmup = min(h.warmup_steps, max(0, total - 1))

        def factor(step: int) -> float:
            if step < warmup:
                return (step + 1) / (warmup + 1)
            progress = (step - warmup) / max(1, total - warmup)
            return 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))

        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}

    def export_config(self) -> BackboneConfig:
        h = self.hparams
        return timm_config(self.model, h.backbone, h.image_size, self.model_kwargs, trained={
            "task": "combo-9504-way", "n_objects": self.num_classes, "factor_table_sha256": self.factor_table_sha256,
            "pretrained_path": h.pretrained_path, "global_step": int(self.global_step), "head": h.head,
        })

    def export(self, folder: str | Path) -> Path:
        """Write the backbone without its head as a feature extractor (specialists.timm_backbone format)."""
        backbone = copy.deepcopy(self.model).to("cpu", memory_format=torch.contiguous_format)
        backbone.reset_classifier(0)
        return save_export(backbone, self.export_config(), folder)
