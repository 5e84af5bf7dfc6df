"""Precision names of the command line, and moving a model onto its device and dtype."""

from __future__ import annotations

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def dtype_of(precision: str) -> torch.dtype:
    if precision not in DTYPES:
        raise ValueError(f"unknown precision {precision!r}; choose one of {', '.join(DTYPES)}")
    return DTYPES[precision]


def place(module: torch.nn.Module, device: torch.device | str, dtype: torch.dtype) -> torch.nn.Module:
    """Move to `device`; cast only when needed (diffusers warns on a redundant dtype cast); eval mode."""
    module = module.to(device)
    if next(module.parameters()).dtype != dtype:
        module = module.to(dtype)
    return module.eval()
