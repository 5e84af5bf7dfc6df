"""DIFT: diffusion features from Stable Diffusion's UNet (Tang et al., 2023), on diffusers.

One image batch in, one `FeatureMap` per image out. Per image: ONE VAE encoding; N latent draws
from its posterior (mean + std * noise: the same distribution as N separate encodings, which
the reference code runs); DDIM forward noise at timestep t; one UNet pass with the prompt
embedding, stopped right after up-block `up_ft_index` (later blocks never run); the N feature
maps averaged.

The batched engine runs it (the official square PIL `img.resize`, bicubic, batching,
autocast), one engine spec per (preset, prompt, seed). The official code draws fresh noise per
call; here each image's noise comes from its own generator seeded with (seed, a hash of the
image's model input), so different images get independent draws (at t=261 identical draws would
correlate source and target noise at the same position) while an image's features stay a
function of (weights, preset, prompt, seed, pixels), independent of its batch: the feature
cache (`use_cache`) may store them. With `seed=None` the draw is unseeded and never cached.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from specialists.engine import Engine, ImageRequest, ModelSpec, PilSquareResize, Preprocess
from specialists.feature_cache import FeatureCache, weights_fingerprint
from specialists.precision import DTYPES, dtype_of, place
from specialists.outputs import FeatureMap


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


class _Parts(torch.nn.Module):
    """The VAE and UNet as one module: what the engine places and runs."""

    def __init__(self, vae, unet) -> None:
        super().__init__()
        self.vae, self.unet = vae, unet


class _StopAfterBlock(Exception):
    def __init__(self, output: torch.Tensor) -> None:
        self.output = output


class DiftFeaturizer:
    """Stable Diffusion parts: vae (AutoencoderKL), unet (UNet2DConditionModel), scheduler
    (DDIMScheduler), text_encoder (CLIPTextModel) and tokenizer (CLIPTokenizer)."""

    def __init__(self, vae, unet, scheduler, text_encoder, tokenizer, device: str = "cpu", precision: str = "fp32",
                 batch_size: int = 8):
        self.device = torch.device(device)
        self.precision = precision
        self.dtype = dtype_of(precision)
        self.vae = place(vae, self.device, self.dtype)
        self.unet = place(unet, self.device, self.dtype)
        self.text_encoder = text_encoder.to(self.device).eval()
        self.tokenizer = tokenizer
        self.scheduler = scheduler
        self.batch_size = batch_size  # images per engine batch (each is `ensemble` UNet samples)
        self._prompt_cache: dict[str, torch.Tensor] = {}
        self.use_cache(None)

    def use_cache(self, cache: FeatureCache | None, checkpoint_sha256: str | None = None) -> None:
        """Run through a fresh engine that reads / writes `cache` (None: no cache). The key's
        checkpoint part is `checkpoint_sha256`, or a fingerprint of the VAE, UNet and text
        encoder weights when no file stands behind them (random weights)."""
        if cache is None:
            self._identity = checkpoint_sha256 or "uncached"  # no key is ever made: skip hashing the weights
        else:
            self._identity = checkpoint_sha256 or f"weights:{weights_fingerprint(self.vae, self.unet, self.text_encoder)}"
        self.engine = Engine([], self.device, self.precision, cache=cache)

    @classmethod
    def from_pretrained(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32",
                        batch_size: int = 8) -> "DiftFeaturizer":
        """Load a local diffusers folder (vae/, unet/, scheduler/, text_encoder/, tokenizer/)."""
        from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
        from transformers import CLIPTextModel, CLIPTokenizer

        from checkpoints.convert.common import complete_load, reading
        from checkpoints.formats import FORMATS, wrong_format

        folder = Path(folder)
        dtype = DTYPES[precision]
        expected = FORMATS["diffusers"].description
        if not folder.is_dir():
            raise wrong_format(folder, expected)
        missing = [p for p in ("vae", "unet", "scheduler", "text_encoder", "tokenizer") if not (folder / p).is_dir()]
        if missing:
            raise wrong_format(folder, f"{expected}: it lacks {', '.join(p + '/' for p in missing)}")

        def load(model_class, part: str, **kwargs):  # every tensor present, or a clear refusal
            return complete_load(model_class.from_pretrained(folder, subfolder=part, local_files_only=True,
                                                             output_loading_info=True, **kwargs), str(folder / part))

        with reading(folder, expected):
            parts = (load(AutoencoderKL, "vae", torch_dtype=dtype),
                     load(UNet2DConditionModel, "unet", torch_dtype=dtype),
                     DDIMScheduler.from_pretrained(folder, subfolder="scheduler", local_files_only=True),
                     load(CLIPTextModel, "text_encoder"),
                     CLIPTokenizer.from_pretrained(folder, subfolder="tokenizer", local_files_only=True))
        return cls(*parts, device, precision, batch_size)

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
        return cls(vae, unet, scheduler, text_encoder, byte_level_clip_tokenizer(), device, precision)

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
        """PIL RGB images -> (B, 3, size, size) in [-1, 1] (DIFT resizes to a square with PIL's
        default BICUBIC filter, as published)."""
        batch = [
            torch.from_numpy(np.asarray(img.convert("RGB").resize((size, size), Image.BICUBIC)).copy())
            for img in images
        ]
        x = torch.stack(batch).permute(0, 3, 1, 2).float() / 127.5 - 1.0
        return x.to(self.device, self.dtype)

    def __call__(
        self,
        images: Sequence[Image.Image],
        preset: DiftPreset | str = "geometric",
        prompts: Sequence[str] | None = None,
        seed: int | None = 0,
    ) -> list[FeatureMap]:
        """Features of each image; `prompts` (one per image, e.g. "a photo of a cat") default to "".
        seed None: unseeded noise (never cached)."""
        preset = PRESETS[preset] if isinstance(preset, str) else preset
        if preset.up_ft_index >= len(self.unet.up_blocks):
            raise ValueError(f"up_ft_index {preset.up_ft_index} but the UNet has {len(self.unet.up_blocks)} up-blocks")
        prompts = list(prompts) if prompts is not None else [""] * len(images)
        requests = [ImageRequest(i, self._spec(preset, prompt, seed), img) for i, (img, prompt) in enumerate(zip(images, prompts))]
        features = self.engine.run(requests)
        return [FeatureMap(features[i], (img.height, img.width)) for i, img in enumerate(images)]

    def engine_spec(self, preset: DiftPreset, prompt: str = "", seed: int | None = 0) -> ModelSpec:
        """The engine's ModelSpec for one (preset, prompt, seed): what `__call__` runs (benchmarks time it)."""
        return self.engine.specs[self._spec(preset, prompt, seed)]

    def _spec(self, preset: DiftPreset, prompt: str, seed: int | None) -> str:
        """The engine spec for one (preset, prompt, seed), registered on first use; its name."""
        name = f"dift {preset} prompt={prompt!r} seed={seed}"
        if name in self.engine.specs:
            return name
        context = self.prompt_embedding(prompt)

        def forward(parts: _Parts, x: torch.Tensor) -> torch.Tensor:
            return self.features(x.to(self.dtype), preset, context, seed)

        self.engine.add(ModelSpec(
            name, _Parts(self.vae, self.unet),
            engine_preprocess(preset.image_size),
            forward=forward, batch_size=self.batch_size, checkpoint_sha256=self._identity,
            layer=f"dift up_ft_index={preset.up_ft_index} t={preset.t} ensemble={preset.ensemble} "
                  f"prompt={prompt!r} seed={seed}",
            random_draw="unseeded" if seed is None else "seeded",
        ))
        return name

    @torch.no_grad()
    def features(self, x: torch.Tensor, preset: DiftPreset, context: torch.Tensor, seed: int | None) -> torch.Tensor:
        """(B, 3, S, S) images in [-1, 1] -> (B, C, h, w) float32 features, the ensemble's mean.

        context: (1, 77, D) prompt states, shared by the batch. Image i's 2 * ensemble noise
        tensors come from a generator seeded with (seed, hash of x[i]), so its features do not
        depend on the rest of the batch and two images never share their draws.
        """
        posterior = self.vae.encode(x).latent_dist
        n, b = preset.ensemble, x.shape[0]
        mean = posterior.mean.repeat_interleave(n, 0)  # (B * n, 4, S/8, S/8)
        std = posterior.std.repeat_interleave(n, 0)
        seeds = None if seed is None else [image_seed(seed, image) for image in x]
        eps, noise = self._draws(b, mean.shape[1:], n, mean.dtype, seeds)
        latents = (mean + std * eps) * self.vae.config.scaling_factor
        t = torch.tensor([preset.t], device=self.device, dtype=torch.long)
        noisy = self.scheduler.add_noise(latents, noise, t)
        features = self.unet_until(noisy, t.expand(b * n), context.expand(b * n, -1, -1), preset.up_ft_index)
        return features.float().view(b, n, *features.shape[1:]).mean(1)

    def _draws(self, b: int, shape, n: int, dtype, seeds: list[int] | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Posterior draws and forward-process noise, each (b * n, *shape): per image, n of each
        from a generator seeded with that image's seed (the global RNG when seeds is None)."""
        eps, noise = [], []
        for i in range(b):
            generator = None if seeds is None else torch.Generator(self.device).manual_seed(seeds[i])
            eps.append(torch.randn((n, *shape), generator=generator, device=self.device, dtype=dtype))
            noise.append(torch.randn((n, *shape), generator=generator, device=self.device, dtype=dtype))
        return torch.cat(eps), torch.cat(noise)

    def unet_until(self, sample, timesteps, context, up_ft_index: int) -> torch.Tensor:
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


def image_seed(seed: int, image: torch.Tensor) -> int:
    """A 63-bit generator seed from the run's seed and one model input (3, S, S) in [-1, 1],
    hashed as 8-bit levels (the resize produced uint8 pixels, so this loses nothing)."""
    levels = ((image.detach().float().clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).cpu().numpy()
    digest = hashlib.sha256(f"{seed}:".encode() + levels.tobytes()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def engine_preprocess(size: int) -> Preprocess:
    """The published square resize to [-1, 1] on the engine's uint8 tensors (`PilSquareResize`)."""
    return PilSquareResize(size=size, mode="square", mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5), interpolation="bicubic")


def byte_level_clip_tokenizer():
    """A CLIPTokenizer over single bytes (no merges): the real tokenizer class with a vocabulary
    made here, so the tiny model needs no downloaded files."""
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import CLIPTokenizer

    symbols = sorted(ByteLevel.alphabet())
    vocab = {s: i for i, s in enumerate(symbols)}
    vocab.update({s + "</w>": i + 256 for i, s in enumerate(symbols)})
    vocab.update({"<|startoftext|>": 512, "<|endoftext|>": 513})
    return CLIPTokenizer(vocab=vocab, merges=[], model_max_length=77)
