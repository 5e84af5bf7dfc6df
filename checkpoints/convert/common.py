"""Reading official weight files safely (tensors only, never arbitrary pickled code)."""

from __future__ import annotations

import pickle
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from checkpoints.formats import (
    FIX,
    FORMATS,
    StateDictError,
    WeightFormatError,
    check_fits,
    check_torch_file,
    wrong_format,
)

__all__ = ["StateDictError", "WeightFormatError", "load_torch_file", "tensor_dict", "wrong_format"]


def load_torch_file(path: str | Path, expected: str = "a PyTorch weight file") -> Any:
    """torch.load with weights_only=True on CPU (memory-mapped when the file allows it).
    `expected`: what the file should be, for the message when it is not (WeightFormatError)."""
    import torch

    check_torch_file(path, expected)
    try:
        try:
            return torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as err:
            if "mmap" not in str(err):  # legacy (non-zip) files cannot be memory-mapped
                raise
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        if "Unsupported operand" in str(err) or "invalid load key" in str(err):  # bytes that are no pickle at all
            raise StateDictError(f"{path} is a damaged PyTorch file ({_first_line(err)}), expected {expected}: "
                                 f"download it again, or {FIX}") from None
        raise StateDictError(f"{path}: holds objects other than tensors and plain containers, refused "
                             f"for safety (torch.load weights_only=True): {_first_line(err)}") from None
    except Exception as err:  # a truncated zip, a damaged pickle: the unpickler raises whatever it meets
        raise StateDictError(f"{path} is a damaged PyTorch file ({type(err).__name__}: {_first_line(err)}), "
                             f"expected {expected}: download it again, or {FIX}") from None


def _first_line(err: BaseException) -> str:
    """An exception's first line, or its type when it says nothing."""
    lines = str(err).strip().splitlines()
    return lines[0][:160] if lines else type(err).__name__


def tensor_dict(obj: Any, path: str | Path, what: str) -> dict:
    """`obj` as a {str: Tensor} dict, or a StateDictError naming what was expected."""
    import torch

    if not isinstance(obj, dict) or not obj:
        raise StateDictError(f"{path}: expected {what} (a non-empty dict of tensors), found {type(obj).__name__}")
    bad = [k for k, v in obj.items() if not (isinstance(k, str) and isinstance(v, torch.Tensor))]
    if bad:
        raise StateDictError(f"{path}: expected {what}; entries that are not tensors: {bad[:5]}")
    return dict(obj)


def strip_common_prefix(state: dict, prefixes: tuple[str, ...] = ("module.", "_orig_mod.")) -> dict:
    """Drop a wrapper prefix (DataParallel `module.`, torch.compile `_orig_mod.`) carried by EVERY key."""
    for prefix in prefixes:
        if all(k.startswith(prefix) for k in state):
            state = {k[len(prefix):]: v for k, v in state.items()}
    return state


def require_shape(state: dict, key: str, check, expected: str, path: str | Path) -> None:
    """Raise unless state[key] exists and `check(shape)` holds; `expected` describes the shape."""
    if key not in state:
        raise StateDictError(f"{path}: no {key!r} among its {len(state)} keys (first: {list(state)[:3]}); "
                             f"not the expected layout ({expected})")
    shape = tuple(state[key].shape)
    if not check(shape):
        raise StateDictError(f"{path}: {key} has shape {shape}; expected {expected}")


def load_strictly(module, state: dict, where: str | Path, expected: str, **kwargs) -> None:
    """module.load_state_dict(state, strict=True); a missing, unexpected or misshapen tensor
    becomes a StateDictError naming `where` and what it should have been."""
    try:
        module.load_state_dict(state, strict=True, **kwargs)
    except RuntimeError as err:
        detail = " ".join(line.strip() for line in str(err).splitlines()[1:]) or _first_line(err)
        raise StateDictError(f"{where} does not hold {expected}: {detail[:300]}") from None


def complete_load(loaded, where: str):
    """The model of `from_pretrained(..., output_loading_info=True)` (transformers or diffusers),
    or StateDictError naming what its weight files lack, add or shape otherwise: both libraries
    initialise missing tensors at random and only log it, which would label random weights real."""
    model, info = loaded
    problems = {kind: list(info.get(kind) or []) for kind in ("missing_keys", "unexpected_keys", "mismatched_keys")}
    if any(problems.values()):
        detail = "; ".join(f"{len(v)} {k.replace('_', ' ')} (first: {', '.join(map(str, v[:3]))})"
                           for k, v in problems.items() if v)
        raise StateDictError(f"{where}: its weights do not fit the architecture its config names: {detail}")
    return model


@contextmanager
def reading(where: str | Path, expected: str):
    """Turn what a library raises on a malformed folder or file (OSError, JSONDecodeError,
    SafetensorError, ...) into a StateDictError naming `where` and what was `expected`."""
    try:
        yield
    except StateDictError:
        raise
    except Exception as err:
        raise StateDictError(f"{where} cannot be loaded as {expected} ({type(err).__name__}: {_first_line(err)}); "
                             f"{FIX}") from None


def load_pretrained_folder(model_class, processor_class, folder, dtype=None):
    """(model, processor) from a local transformers folder: the model loaded only when every
    tensor is there and fits (`complete_load`), its processor beside it; anything else than a
    transformers folder is refused (WeightFormatError) before transformers sees it."""
    folder = Path(folder)
    check_fits(folder, ["transformers"])
    kwargs = {} if dtype is None else {"dtype": dtype}
    with reading(folder, FORMATS["transformers"].description):
        model = complete_load(model_class.from_pretrained(folder, local_files_only=True, output_loading_info=True,
                                                          **kwargs), str(folder))
        return model, processor_class.from_pretrained(folder, local_files_only=True)
