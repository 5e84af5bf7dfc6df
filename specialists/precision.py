"""Precision names of the command line, whether bf16 is fast on a device, and moving a model onto its
device and dtype."""

from __future__ import annotations

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def dtype_of(precision: str) -> torch.dtype:
    if precision not in DTYPES:
        raise ValueError(f"unknown precision {precision!r}; choose one of {', '.join(DTYPES)}")
    return DTYPES[precision]


def bf16_is_fast(device: torch.device | str) -> bool:
    """Whether bf16 speeds models up on `device`: CUDA GPUs with bf16 support, CPUs with AVX-512
    bf16 or AMX units. Elsewhere torch emulates bf16, slower than fp32: on a 2-core AVX2 CPU (AMD
    EPYC, torch 2.14) the marker corner reader fitted 46-48 patches/s under bf16 autocast, 456-495
    in fp32."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    # torch.cpu names these capabilities only in private helpers; without them, fp32 is the safe choice
    probes = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    return device.type == "cpu" and any(probe() for probe in probes if probe is not None)


def place(module: torch.nn.Module, device: torch.device | str, dtype: torch.dtype) -> torch.nn.Module:
    """Move to `device`; cast only when needed (diffusers warns on a redundant dtype cast); eval mode."""
    module = module.to(device)
    if next(module.parameters()).dtype != dtype:
        module = module.to(dtype)
    return module.eval()
