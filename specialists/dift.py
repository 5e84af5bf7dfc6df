"""DIFT: diffusion features from Stable Diffusion's UNet (Tang et al., 2023), on diffusers.

One image batch in, one `FeatureMap` per image out. Per image: ONE VAE encoding; N latent draws
from its posterior (mean + std * noise: the same distribution as N separate encodings, which
the reference code runs); DDIM forward noise at timestep t; one UNet pass with the prompt
embedding, stopped right after up-block `up_ft_index` (later blocks never run); the N feature
maps averaged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from .precision import DTYPES, dtype_of, place
from .outputs import FeatureMap



@dataclass(frozen=True)
class DiftPreset:
    """image_size: square input side; t: DDIM timestep; up_ft_index: up-block whose output is the
    feature (0 -> 1/32 of the input, 1 -> 1/16, 2 and 3 -> 1/8); ensemble: noise draws averaged."""

    image_size: int
    t: int
    up_ft_index: int
    ensemble: int


# Published settings: semantic (SPair-71k) and geometric (HPatches) correspondence.
PRESETS = {
    "semantic": DiftPreset(image_size=768, t=261, up_ft_index=1, ensemble=8),
    "geometric": DiftPreset(image_size=768, t=0, up_ft_index=2, ensemble=8),
}


class _StopAfterBlock(Exception):
    def __init__(self, output: torch.Tensor) -> None:
        self.output = output


class DiftFeaturizer:
    """Stable Diffusion parts: vae (AutoencoderKL), unet (UNet2DConditionModel), scheduler
    (DDIMScheduler), text_encoder (CLIPTextModel) and tokenizer (CLIPTokenizer)."""

    def __init__(self, vae, unet, scheduler, text_encoder, tokenizer, device: str = "cpu", precision: str = "fp32"):
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        self.vae = place(vae, self.device, self.dtype)
        self.unet = place(unet, self.device, self.dtype)
        self.text_encoder = text_encoder.to(self.device).eval()
        self.tokenizer = tokenizer
        self.scheduler = scheduler
        self._prompt_cache: dict[str, torch.Tensor] = {}

    @classmethod
    def from_pretrained(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32") -> "DiftFeaturizer":
        """Load a local diffusers folder (vae/, unet/, scheduler/, text_encoder/, tokenizer/)."""
        from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
        from transformers import CLIPTextModel, CLIPTokenizer

        folder = Path(folder)
        dtype = DTYPES[precision]
        missing = [p for p in ("vae", "unet", "scheduler", "text_encoder", "tokenizer") if not (folder / p).is_dir()]
        if missing:
            raise ValueError(f"{folder} is not a Stable Diffusion diffusers folder: no {', '.join(missing)}/")
        return cls(
            AutoencoderKL.from_pretrained(folder, subfolder="vae", local_files_only=True, torch_dtype=dtype),
            UNet2DConditionModel.from_pretrained(folder, subfolder="unet", local_files_only=True, torch_dtype=dtype),
            DDIMScheduler.from_pretrained(folder, subfolder="scheduler", local_files_only=True),
            CLIPTextModel.from_pretrained(folder, subfolder="text_encoder", local_files_only=True),
            CLIPTokenizer.from_pretrained(folder, subfolder="tokenizer", local_files_only=True),
            device,
            precision,
        )

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32") -> "DiftFeaturizer":
        """Random-weight instance of the same architecture classes, small widths (tests, smoke runs)."""
        from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
        from transformers import CLIPTextConfig, CLIPTextModel

        torch.manual_seed(seed)
        unet = UNet2DConditionModel(
            sample_size=8, in_channels=4, out_channels=4, layers_per_block=1,
            block_out_channels=(32, 32, 64, 64),
            down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"),
            cross_attention_dim=32, attention_head_dim=4, norm_num_groups=8,
        )
        vae = AutoencoderKL(
            in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(16, 16, 16, 16),
            down_block_types=("DownEncoderBlock2D",) * 4, up_block_types=("UpDecoderBlock2D",) * 4,
            layers_per_block=1, norm_num_groups=8, sample_size=64,
        )
        scheduler = DDIMScheduler(num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")
        text_encoder = CLIPTextModel(CLIPTextConfig(
            vocab_size=514, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
            max_position_embeddings=77, bos_token_id=512, eos_token_id=513, pad_token_id=513))
        return cls(vae, unet, scheduler, text_encoder, _byte_level_clip_tokenizer(), device, precision)

    def prompt_embedding(self, prompt: str) -> torch.Tensor:
        """(1, 77, D) text-encoder states for `prompt`, computed once per prompt."""
        if prompt not in self._prompt_cache:
            tokens = self.tokenizer(prompt, padding="max_length", max_length=self.tokenizer.model_max_length,
                                    truncation=True, return_tensors="pt")
            with torch.no_grad():
                states = self.text_encoder(tokens.input_ids.to(self.device))[0]
            self._prompt_cache[prompt] = states.to(self.dtype)
        return self._prompt_cache[prompt]

    def preprocess(self, images: Sequence[Image.Image], size: int) -> torch.Tensor:
        """PIL RGB images -> (B, 3, size, size) in [-1, 1] (DIFT resizes to a square, as published)."""
        batch = [
            torch.from_numpy(np.asarray(img.convert("RGB").resize((size, size), Image.BILINEAR)).copy())
            for img in images
        ]
        x = torch.stack(batch).permute(0, 3, 1, 2).float() / 127.5 - 1.0
        return x.to(self.device, self.dtype)

    @torch.no_grad()
    def __call__(
        self,
        images: Sequence[Image.Image],
        preset: DiftPreset | str = "geometric",
        prompts: Sequence[str] | None = None,
        seed: int = 0,
    ) -> list[FeatureMap]:
        """Features of each image; `prompts` (one per image, e.g. "a photo of a cat") default to ""."""
        preset = PRESETS[preset] if isinstance(preset, str) else preset
        if preset.up_ft_index >= len(self.unet.up_blocks):
            raise ValueError(f"up_ft_index {preset.up_ft_index} but the UNet has {len(self.unet.up_blocks)} up-blocks")
        prompts = list(prompts) if prompts is not None else [""] * len(images)
        generator = torch.Generator(self.device).manual_seed(seed)
        x = self.preprocess(images, preset.image_size)
        posterior = self.vae.encode(x).latent_dist
        n, b = preset.ensemble, len(images)
        mean = posterior.mean.repeat_interleave(n, 0)
        std = posterior.std.repeat_interleave(n, 0)
        latents = (mean + std * torch.randn(mean.shape, generator=generator, device=self.device, dtype=mean.dtype))
        latents = latents * self.vae.config.scaling_factor
        t = torch.tensor([preset.t], device=self.device, dtype=torch.long)
        noise = torch.randn(latents.shape, generator=generator, device=self.device, dtype=latents.dtype)
        noisy = self.scheduler.add_noise(latents, noise, t)
        context = torch.cat([self.prompt_embedding(p) for p in prompts]).repeat_interleave(n, 0)
        features = self._unet_until(noisy, t.expand(b * n), context, preset.up_ft_index)
        features = features.float().view(b, n, *features.shape[1:]).mean(1)
        return [FeatureMap(features[i], (img.height, img.width)) for i, img in enumerate(images)]

    def _unet_until(self, sample, timesteps, context, up_ft_index: int) -> torch.Tensor:
        """Run the UNet and stop as soon as up-block `up_ft_index` has produced its output."""

        def stop(_module, _inputs, output):
            raise _StopAfterBlock(output)

        handle = self.unet.up_blocks[up_ft_index].register_forward_hook(stop)
        try:
            self.unet(sample, timesteps, encoder_hidden_states=context)
        except _StopAfterBlock as done:
            return done.output
        finally:
            handle.remove()
        raise RuntimeError("the UNet finished without running the requested up-block")


def _byte_level_clip_tokenizer():
    """A CLIPTokenizer over single bytes (no merges): the real tokenizer class with a vocabulary
    made here, so the tiny model needs no downloaded files."""
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import CLIPTokenizer

    symbols = sorted(ByteLevel.alphabet())
    vocab = {s: i for i, s in enumerate(symbols)}
    vocab.update({s + "</w>": i + 256 for i, s in enumerate(symbols)})
    vocab.update({"<|startoftext|>": 512, "<|endoftext|>": 513})
    return CLIPTokenizer(vocab=vocab, merges=[], model_max_length=77)
