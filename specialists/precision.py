"""Device and precision names of the command line (checked before anything runs), whether bf16 is
fast on a device, and moving a model onto its device and dtype."""

from __future__ import annotations

import difflib

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
DEVICE_TYPES = ("cpu", "cuda", "mps")
# Words people write for a device that torch does not know, and the torch name they mean.
DEVICE_WORDS = {"gpu": "cuda", "nvidia": "cuda", "metal": "mps", "apple": "mps"}


class DeviceError(ValueError):
    """A --device this machine cannot run on: a name torch does not know, or no such device here."""


def check_device(device: str) -> torch.device:
    """`--device` as a torch.device, or DeviceError with the fix: a misspelt name gets a "did you
    mean", a GPU this machine does not have gets "use --device cpu". Checked once, before any
    model is built or question read, so no question fails for it."""
    kind, _, index = device.partition(":")
    if kind not in DEVICE_TYPES:
        word = kind.strip().lower()
        meant = word if word in DEVICE_TYPES else DEVICE_WORDS.get(word) or next(
            iter(difflib.get_close_matches(word, DEVICE_TYPES, n=1, cutoff=0.5)), None)
        hint = f"did you mean {meant}{':' + index if index else ''}? " if meant else ""
        raise DeviceError(f"--device {device}: not a device name; {hint}use cpu, cuda, cuda:N or mps")
    try:
        parsed = torch.device(device)
    except RuntimeError:
        raise DeviceError(f"--device {device}: not a device name; use cpu, cuda, cuda:N or mps") from None
    if parsed.type == "cuda":
        _check_cuda(device, parsed)
    elif parsed.type == "mps" and not torch.backends.mps.is_available():
        raise DeviceError(f"--device {device}: no MPS (Apple GPU) device is visible here "
                          "(torch.backends.mps.is_available() is False); use --device cpu")
    return parsed


def _check_cuda(device: str, parsed: torch.device) -> None:
    if not torch.cuda.is_available():
        raise DeviceError(f"--device {device}: no CUDA device is visible here (torch.cuda.is_available() is False); "
                          "use --device cpu")
    count = torch.cuda.device_count()
    if parsed.index is not None and parsed.index >= count:
        raise DeviceError(f"--device {device}: this machine shows {count} CUDA device(s), cuda:0 to cuda:{count - 1}; "
                          "pick one of them (CUDA_VISIBLE_DEVICES decides which are shown)")


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
