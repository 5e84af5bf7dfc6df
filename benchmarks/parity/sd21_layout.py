"""A Stable Diffusion 2.1 pipeline folder with seeded random weights, laid out as the release
(stabilityai/stable-diffusion-2-1): model_index.json, unet/, vae/, text_encoder/, tokenizer/,
scheduler/, feature_extractor/, each saved with diffusers' or transformers' `save_pretrained`
in float32 safetensors. The configs are the release's published values; the tokenizer is the
CLIP tokenizer class over a byte-level vocabulary made here (the release's BPE merges are data,
not downloaded), with the release's special tokens and ids, so the empty prompt tokenises as it
does with the real files. Both sides of the DIFT parity check load this one folder."""

from __future__ import annotations

import json
from pathlib import Path

import torch

UNET = {
    "act_fn": "silu", "attention_head_dim": [5, 10, 20, 20], "block_out_channels": [320, 640, 1280, 1280],
    "center_input_sample": False, "cross_attention_dim": 1024,
    "down_block_types": ["CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"],
    "downsample_padding": 1, "dual_cross_attention": False, "flip_sin_to_cos": True, "freq_shift": 0,
    "in_channels": 4, "layers_per_block": 2, "mid_block_scale_factor": 1, "norm_eps": 1e-05, "norm_num_groups": 32,
    "num_class_embeds": None, "only_cross_attention": False, "out_channels": 4, "sample_size": 96,
    "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"],
    "upcast_attention": True, "use_linear_projection": True,
}
VAE = {
    "act_fn": "silu", "block_out_channels": [128, 256, 512, 512],
    "down_block_types": ["DownEncoderBlock2D"] * 4, "up_block_types": ["UpDecoderBlock2D"] * 4,
    "in_channels": 3, "latent_channels": 4, "layers_per_block": 2, "norm_num_groups": 32, "out_channels": 3,
    "sample_size": 768,
}
TEXT_ENCODER = {
    "architectures": ["CLIPTextModel"], "attention_dropout": 0.0, "bos_token_id": 0, "dropout": 0.0,
    "eos_token_id": 2, "hidden_act": "gelu", "hidden_size": 1024, "initializer_factor": 1.0,
    "initializer_range": 0.02, "intermediate_size": 4096, "layer_norm_eps": 1e-05, "max_position_embeddings": 77,
    "model_type": "clip_text_model", "num_attention_heads": 16, "num_hidden_layers": 23, "pad_token_id": 1,
    "projection_dim": 512, "vocab_size": 49408,
}
SCHEDULER = {
    "_class_name": "DDIMScheduler", "beta_end": 0.012, "beta_schedule": "scaled_linear", "beta_start": 0.00085,
    "clip_sample": False, "num_train_timesteps": 1000, "prediction_type": "v_prediction", "set_alpha_to_one": False,
    "skip_prk_steps": True, "steps_offset": 1, "trained_betas": None,
}
MODEL_INDEX = {
    "_class_name": "StableDiffusionPipeline", "feature_extractor": ["transformers", "CLIPImageProcessor"],
    "requires_safety_checker": False, "safety_checker": [None, None], "scheduler": ["diffusers", "DDIMScheduler"],
    "text_encoder": ["transformers", "CLIPTextModel"], "tokenizer": ["transformers", "CLIPTokenizer"],
    "unet": ["diffusers", "UNet2DConditionModel"], "vae": ["diffusers", "AutoencoderKL"],
}
FEATURE_EXTRACTOR = {
    "crop_size": 224, "do_center_crop": True, "do_normalize": True, "do_resize": True,
    "feature_extractor_type": "CLIPFeatureExtractor", "image_mean": [0.48145466, 0.4578275, 0.40821073],
    "image_std": [0.26862954, 0.26130258, 0.27577711], "resample": 3, "size": 224,
}
# The release's CLIP special tokens: start/end of text at the top of the 49408-entry vocabulary,
# and SD 2's pad token "!" (id 0), which fills the 77 positions after the end token.
BOS, EOS, PAD = "<|startoftext|>", "<|endoftext|>", "!"
TOKENIZER_CONFIG = {
    "add_prefix_space": False, "bos_token": BOS, "do_lower_case": True, "eos_token": EOS, "errors": "replace",
    "model_max_length": 77, "pad_token": PAD, "tokenizer_class": "CLIPTokenizer", "unk_token": EOS,
}
SPECIAL_TOKENS = {"bos_token": BOS, "eos_token": EOS, "pad_token": PAD, "unk_token": EOS}


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def _write_tokenizer(folder: Path) -> None:
    """vocab.json / merges.txt over single bytes (sorted, so "!" is id 0 as in CLIP's), end-of-word
    variants after them, and the two text markers at CLIP's ids 49406 and 49407."""
    from tokenizers.pre_tokenizers import ByteLevel

    symbols = sorted(ByteLevel.alphabet())
    vocab = {s: i for i, s in enumerate(symbols)}
    vocab.update({s + "</w>": i + len(symbols) for i, s in enumerate(symbols)})
    vocab.update({BOS: TEXT_ENCODER["vocab_size"] - 2, EOS: TEXT_ENCODER["vocab_size"] - 1})
    _write_json(folder / "vocab.json", vocab)
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    _write_json(folder / "tokenizer_config.json", TOKENIZER_CONFIG)
    _write_json(folder / "special_tokens_map.json", SPECIAL_TOKENS)


# Small widths of the same layout (tests): every key the release has, fewer and narrower tensors.
TINY = {
    "unet": {"block_out_channels": [32, 32, 64, 64], "attention_head_dim": [2, 2, 4, 4], "cross_attention_dim": 32,
             "layers_per_block": 1, "norm_num_groups": 8, "sample_size": 8},
    "vae": {"block_out_channels": [16, 16, 16, 16], "layers_per_block": 1, "norm_num_groups": 8, "sample_size": 64},
    "text_encoder": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
                     "projection_dim": 16},
}


def write_sd21_folder(dest: Path, seed: int = 0, shrink: dict | None = None) -> Path:
    """Build every network of SD 2.1 from its config with weights drawn from `seed`, and save the
    pipeline folder at `dest` (about 5.2 GB of float32 safetensors). `shrink` (e.g. TINY)
    overrides config values per part, for a small folder of the same layout."""
    from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    shrink = shrink or {}
    dest = Path(dest)
    torch.manual_seed(seed)
    UNet2DConditionModel(**{**UNET, **shrink.get("unet", {})}).save_pretrained(dest / "unet")
    AutoencoderKL(**{**VAE, **shrink.get("vae", {})}).save_pretrained(dest / "vae")
    config = {k: v for k, v in TEXT_ENCODER.items() if k not in ("architectures", "model_type")}
    CLIPTextModel(CLIPTextConfig(**{**config, **shrink.get("text_encoder", {})})).save_pretrained(dest / "text_encoder")
    DDIMScheduler.from_config({k: v for k, v in SCHEDULER.items() if k != "_class_name"}).save_pretrained(
        dest / "scheduler")
    _write_tokenizer(dest / "tokenizer")
    _write_json(dest / "feature_extractor" / "preprocessor_config.json", FEATURE_EXTRACTOR)
    _write_json(dest / "model_index.json", MODEL_INDEX)
    return dest
