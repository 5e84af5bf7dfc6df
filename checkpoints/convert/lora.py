"""A peft LoRA adapter folder on a ViT's attention (DreamSim's released adapters): its pairs read
and checked, for `specialists.dreamsim` to merge into the backbone's weights (no peft needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import torch

from checkpoints.convert.common import StateDictError, load_torch_file, reading, tensor_dict
from checkpoints.formats import check_fits

_LORA_KEY = re.compile(r"(?:^|\.)blocks\.(\d+)\.attn\.qkv\.lora_([AB])\.weight$")


def read_lora_adapter(folder: str | Path) -> tuple[dict[int, tuple[torch.Tensor, torch.Tensor]], float]:
    """A peft adapter folder -> ({block: (A (r, in), B (out, r))}, scale alpha / r).

    Only `attn.qkv` LoRA pairs are accepted (DreamSim's target); any other tensor, a block with
    half a pair, or a rank that disagrees with adapter_config.json is refused with the reason."""
    folder = Path(folder)
    check_fits(folder, ["peft-lora"])
    config_file = folder / "adapter_config.json"
    with reading(config_file, "a peft adapter config (JSON)"):
        config = json.loads(config_file.read_text(encoding="utf-8"))
    if not isinstance(config, dict):
        raise StateDictError(f"{config_file}: expected a JSON object (peft's adapter config), found {type(config).__name__}")
    rank, alpha = int(config.get("r", 0)), float(config.get("lora_alpha", 0))
    if rank <= 0 or "qkv" not in (config.get("target_modules") or []):
        raise StateDictError(f"{config_file}: expected a LoRA on qkv with r > 0, got r={rank}, "
                             f"target_modules={config.get('target_modules')}")
    weights = folder / "adapter_model.safetensors"
    if weights.is_file():
        from safetensors.torch import load_file

        with reading(weights, "a safetensors file of LoRA tensors"):
            state = load_file(str(weights))
    elif (folder / "adapter_model.bin").is_file():
        state = tensor_dict(load_torch_file(folder / "adapter_model.bin", "a PyTorch file of LoRA tensors"),
                            folder / "adapter_model.bin", "a LoRA adapter")
    else:
        raise StateDictError(f"{folder}: no adapter_model.safetensors or adapter_model.bin")
    branches = {m.group(1) for m in (re.search(r"extractor_list\.(\d+)\.", k) for k in state) if m}
    if len(branches) > 1:
        raise StateDictError(f"{folder}: an adapter for {len(branches)} backbones (the DreamSim ensemble); "
                             "only the single-branch dino_vitb16 adapter is supported")
    pairs: dict[int, dict[str, torch.Tensor]] = {}
    for key, tensor in state.items():
        match = _LORA_KEY.search(key)
        if match is None:
            raise StateDictError(f"{folder}: unexpected tensor {key!r} (only blocks.N.attn.qkv.lora_A/B are merged)")
        pairs.setdefault(int(match.group(1)), {})[match.group(2)] = tensor.float()
    lora = {}
    for block, pair in sorted(pairs.items()):
        if set(pair) != {"A", "B"} or pair["A"].shape[0] != rank or pair["B"].shape[1] != rank:
            raise StateDictError(f"{folder}: block {block}'s LoRA pair is incomplete or not of rank {rank}")
        lora[block] = (pair["A"], pair["B"])
    if not lora:
        raise StateDictError(f"{folder}: the adapter holds no LoRA pair")
    return lora, alpha / rank
