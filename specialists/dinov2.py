"""DINOv2 global embeddings (Oquab et al., 2023) on transformers' `Dinov2Model`.

Images in, one `Embedding` per image out: the pooled output (the final layer-normed CLS token),
the embedding a public reproduction compared by cosine for BLINK's Visual_Similarity (DINOv2-S:
82.96%, larger models lower). Preprocessing follows the checkpoint's image processor (shortest
edge 256, bicubic, centre crop 224, ImageNet normalisation), run as the engine's `Preprocess`,
so images are batched and (with `use_cache`) read back from the feature cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import torch
from PIL import Image

from specialists.engine import Engine, ImageRequest, ModelSpec, Preprocess
from specialists.feature_cache import FeatureCache, weights_fingerprint
from specialists.outputs import Embedding
from specialists.precision import DTYPES, dtype_of, place

SPEC_NAME = "dinov2"
LAYER = "pooler_output"


class Dinov2Embedder:
    """model: Dinov2Model; processor: its image processor (BitImageProcessor)."""

    def __init__(self, model, processor, device: str = "cpu", precision: str = "fp32", batch_size: int = 16) -> None:
        self.device = torch.device(device)
        self.precision = precision
        self.dtype = dtype_of(precision)
        self.model = place(model, self.device, self.dtype)
        self.processor = processor
        self.preprocess = processor_preprocess(processor)
        self.batch_size = batch_size
        self.use_cache(None)

    def use_cache(self, cache: FeatureCache | None, checkpoint_sha256: str | None = None) -> None:
        """Run through a fresh engine reading / writing `cache` (None: no cache)."""
        if cache is None:
            identity = checkpoint_sha256 or "uncached"
        else:
            identity = checkpoint_sha256 or f"weights:{weights_fingerprint(self.model)}"

        def forward(module, x: torch.Tensor) -> torch.Tensor:
            """(B, 3, 224, 224) normalised -> (B, D) float32 pooled embeddings."""
            return module(pixel_values=x.to(self.dtype)).pooler_output.float()

        spec = ModelSpec(SPEC_NAME, self.model, self.preprocess, forward=forward, batch_size=self.batch_size,
                         checkpoint_sha256=identity, layer=LAYER)
        self.engine = Engine([spec], self.device, self.precision, cache=cache)

    @classmethod
    def from_pretrained(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32", batch_size: int = 16):
        """A local transformers folder (config.json, model.safetensors, preprocessor_config.json),
        loaded only when every tensor is there and fits."""
        from transformers import AutoImageProcessor, Dinov2Model

        from checkpoints.convert.common import load_pretrained_folder

        model, processor = load_pretrained_folder(Dinov2Model, AutoImageProcessor, folder, DTYPES[precision])
        return cls(model, processor, device, precision, batch_size)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32") -> "Dinov2Embedder":
        """Random weights, the real architecture (patch 14, CLS + layer norm) at small widths."""
        from transformers import BitImageProcessor, Dinov2Config, Dinov2Model

        torch.manual_seed(seed)
        config = Dinov2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                              patch_size=14, image_size=56)
        processor = BitImageProcessor(do_resize=True, size={"shortest_edge": 64}, resample=Image.BICUBIC,
                                      do_center_crop=True, crop_size={"height": 56, "width": 56},
                                      do_normalize=True, image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225],
                                      do_convert_rgb=True)
        return cls(Dinov2Model(config), processor, device, precision)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[Embedding]:
        out = self.engine.run([ImageRequest(i, SPEC_NAME, image) for i, image in enumerate(images)])
        return [Embedding(out[i].float().cpu()) for i in range(len(images))]


def processor_preprocess(processor) -> Preprocess:
    """The engine's equivalent of a shortest-edge-resize + centre-crop image processor."""
    size, crop = processor.size, processor.crop_size
    shortest = size["shortest_edge"] if isinstance(size, dict) else size.shortest_edge
    crop_h, crop_w = (crop["height"], crop["width"]) if isinstance(crop, dict) else (crop.height, crop.width)
    if crop_h != crop_w:
        raise ValueError(f"image processor crop {crop_h}x{crop_w}: only square crops are supported")
    interpolation = {Image.BICUBIC: "bicubic", Image.BILINEAR: "bilinear"}.get(processor.resample)
    if interpolation is None:
        raise ValueError(f"image processor resample {processor.resample!r}: only bicubic or bilinear are supported")
    return Preprocess(size=shortest, mode="short_side", crop=crop_h, mean=tuple(float(v) for v in processor.image_mean),
                      std=tuple(float(v) for v in processor.image_std), interpolation=interpolation)
