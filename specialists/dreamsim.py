"""DreamSim (Fu et al., NeurIPS 2023), single-branch DINO ViT-B/16: a perceptual embedding tuned on
human similarity judgements (NIGHTS, the data BLINK's Visual_Similarity was drawn from).

The released model is DINO ViT-B/16 (timm `vit_base_patch16_224.dino`, the same weights the
official code takes from torch.hub) with a LoRA adapter on every block's `attn.qkv`, trained with
peft (`dino_vitb16_single_lora`: r 16, alpha 32, no other tuned layer). We merge the adapter into
the weights once, W_qkv += (alpha / r) B A, instead of depending on the dreamsim package (which
downloads at first use) or peft. Embedding, as the official `embed`: the CLS token of the output
of block 11 (before the final norm), minus its own mean, L2-normalised; distance = 1 - cosine.
Images are squashed to 224 x 224 by PIL's bicubic (no crop), as the package's preprocess does, and
ImageNet-normalised, on the batched engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import torch
from PIL import Image

from specialists.engine import Engine, ImageRequest, ModelSpec, PilSquareResize
from specialists.feature_cache import FeatureCache, weights_fingerprint
from specialists.outputs import Embedding
from specialists.precision import dtype_of, place

SPEC_NAME = "dreamsim"
IMAGE_SIZE = 224


def merge_lora(model: torch.nn.Module, lora: dict[int, tuple[torch.Tensor, torch.Tensor]], scale: float) -> None:
    """W_qkv += scale * B @ A in every listed block of a timm ViT; shapes must agree."""
    blocks = model.blocks
    for block, (a, b) in lora.items():
        if block >= len(blocks):
            raise ValueError(f"the adapter has block {block}; the backbone has {len(blocks)}")
        weight = blocks[block].attn.qkv.weight
        if tuple((b @ a).shape) != tuple(weight.shape):
            raise ValueError(f"block {block}: LoRA product {tuple((b @ a).shape)} does not fit qkv {tuple(weight.shape)}")
        with torch.no_grad():
            weight += (scale * (b @ a)).to(weight.dtype)


def centred_unit(x: torch.Tensor) -> torch.Tensor:
    """(B, D) -> each row minus its mean, L2-normalised (DreamSim's normalize_embedding)."""
    x = x - x.mean(dim=1, keepdim=True)
    return x / x.norm(dim=1, keepdim=True).clamp_min(1e-12)


class DreamSimEmbedder:
    """backbone: a timm VisionTransformer with the adapter already merged."""

    def __init__(self, backbone: torch.nn.Module, device: str = "cpu", precision: str = "fp32",
                 batch_size: int = 16, image_size: int = IMAGE_SIZE) -> None:
        self.device = torch.device(device)
        self.precision = precision
        self.dtype = dtype_of(precision)
        self.backbone = place(backbone, self.device, self.dtype)
        self.batch_size = batch_size
        # the package's Resize((224, 224), BICUBIC) runs on the PIL image: PIL's bicubic
        self.preprocess = PilSquareResize(size=image_size, mode="square", interpolation="bicubic")
        self.use_cache(None)

    def use_cache(self, cache: FeatureCache | None, checkpoint_sha256: str | None = None) -> None:
        identity = checkpoint_sha256 or ("uncached" if cache is None else f"weights:{weights_fingerprint(self.backbone)}")

        def forward(vit, x: torch.Tensor) -> torch.Tensor:
            """(B, 3, 224, 224) -> (B, D): block 11's CLS token, before the final norm, centred and unit."""
            tokens = vit.norm_pre(vit.patch_drop(vit._pos_embed(vit.patch_embed(x.to(self.dtype)))))
            return centred_unit(vit.blocks(tokens)[:, 0].float())

        spec = ModelSpec(SPEC_NAME, self.backbone, self.preprocess, forward=forward, batch_size=self.batch_size,
                         checkpoint_sha256=identity, layer="block 11 cls, centred")
        self.engine = Engine([spec], self.device, self.precision, cache=cache)

    @classmethod
    def from_checkpoints(cls, backbone_file: str | Path, adapter_folder: str | Path, **kwargs) -> "DreamSimEmbedder":
        """timm's DINO ViT-B/16 weights (checked tensor by tensor) plus the DreamSim adapter folder."""
        from checkpoints.convert.lora import read_lora_adapter
        from checkpoints.convert.timm_weights import create_timm_model

        backbone = create_timm_model("vit_base_patch16_224.dino", backbone_file, num_classes=0)
        lora, scale = read_lora_adapter(adapter_folder)
        merge_lora(backbone, lora, scale)
        return cls(backbone, **kwargs)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32") -> "DreamSimEmbedder":
        """A small timm ViT (the same class, 2 blocks, 32 px) with a random rank-4 LoRA merged."""
        from timm.models.vision_transformer import VisionTransformer

        torch.manual_seed(seed)
        vit = VisionTransformer(img_size=32, patch_size=16, embed_dim=32, depth=2, num_heads=2, num_classes=0)
        lora = {i: (torch.randn(4, 32) * 0.1, torch.randn(96, 4) * 0.1) for i in range(2)}
        merge_lora(vit, lora, 2.0)
        return cls(vit, device, precision, image_size=32)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[Embedding]:
        out = self.engine.run([ImageRequest(i, SPEC_NAME, image) for i, image in enumerate(images)])
        return [Embedding(out[i].float().cpu()) for i in range(len(images))]
