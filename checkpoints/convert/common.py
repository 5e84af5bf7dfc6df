"""Reading official weight files safely (tensors only, never arbitrary pickled code)."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any


class StateDictError(ValueError):
    """A weight file whose layout is not the official one the converter expects."""


def load_torch_file(path: str | Path) -> Any:
    """torch.load with weights_only=True on CPU (memory-mapped when the file allows it)."""
    import torch

    try:
        try:
            return torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as err:
            if "mmap" not in str(err):  # legacy (non-zip) files cannot be memory-mapped
                raise
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        if "Unsupported operand" in str(err) or "invalid load key" in str(err):  # bytes that are no pickle at all
            raise StateDictError(f"{path}: not a PyTorch weight file (random or damaged bytes); "
                                 "download it again or check the path") from None
        raise StateDictError(f"{path}: holds objects other than tensors and plain containers, refused "
                             f"for safety (torch.load weights_only=True): {_first_line(err)}") from None
    except (RuntimeError, EOFError, ValueError, OSError) as err:  # a truncated zip, an empty file
        raise StateDictError(f"{path}: not a readable PyTorch weight file ({_first_line(err)}); "
                             "download it again or check the path") from None


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


def load_pretrained_folder(model_class, processor_class, folder, dtype=None):
    """(model, processor) from a local transformers folder: the model loaded only when every
    tensor is there and fits (`complete_load`), its processor beside it; a folder without
    config.json is refused as not a transformers folder."""
    from pathlib import Path

    folder = Path(folder)
    if not (folder / "config.json").is_file():
        raise ValueError(f"{folder} is not a transformers model folder: no config.json")
    kwargs = {} if dtype is None else {"dtype": dtype}
    model = complete_load(model_class.from_pretrained(folder, local_files_only=True, output_loading_info=True, **kwargs),
                          str(folder))
    return model, processor_class.from_pretrained(folder, local_files_only=True)
