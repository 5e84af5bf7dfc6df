"""timm models from a local weight file, offline.

timm's own loader does the work: `pretrained_cfg_overlay=dict(file=PATH)` points the
pretrained config at the file, so the model's real preprocessing config (mean, std, crop,
interpolation) still comes with it. A safetensors file for a model whose published default is
an .npz (the augreg ViTs) needs custom_load=False, or timm would try its .npz reader.
"""

from __future__ import annotations

from pathlib import Path


def create_timm_model(name: str, path: str | Path, **kwargs):
    """timm.create_model(name, pretrained=True) with the weights read from `path` only."""
    import timm

    from checkpoints.convert.common import reading
    from checkpoints.formats import FORMATS, WeightFormatError, check_fits, container, describe

    path = Path(path)
    check_fits(path, ["timm"])
    if path.suffix != ".npz":
        if (path.suffix == ".safetensors") != (container(path) == "safetensors"):
            raise WeightFormatError(f"{path} {describe(path)} but is named {path.suffix or 'without a suffix'}: timm "
                                    "picks its reader by the name; name a safetensors file .safetensors, a PyTorch "
                                    "file .pth")
        check_fits_timm(name, path)
    overlay = {"file": str(path)}
    default = timm.models.get_pretrained_cfg(name)
    if default is not None and default.custom_load and path.suffix != ".npz":
        overlay["custom_load"] = False
    with reading(path, FORMATS["timm"].description):
        return timm.create_model(name, pretrained=True, pretrained_cfg_overlay=overlay, **kwargs)


def _shapes_in_file(path: Path) -> dict[str, tuple[int, ...]]:
    """{tensor name: shape} of a safetensors or torch state-dict file, read without building a model."""
    from checkpoints.convert.common import load_torch_file, reading, strip_common_prefix, tensor_dict
    from checkpoints.formats import FORMATS, container

    expected = FORMATS["timm"].description
    if container(path) == "safetensors":
        from safetensors import safe_open

        with reading(path, expected):
            with safe_open(str(path), framework="pt") as f:
                return {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
    state = tensor_dict(load_torch_file(path, expected), path, "a state dict")
    return {k: tuple(v.shape) for k, v in strip_common_prefix(state).items()}


def check_fits_timm(name: str, path: str | Path) -> None:
    """StateDictError unless the file at `path` holds exactly timm `name`'s tensors (every name,
    every shape): timm's own loader drops the classifier and then loads non-strictly, so a
    file of other tensors would leave the model at its random initialisation, unnoticed."""
    import timm
    import torch

    from checkpoints.convert.common import StateDictError

    path = Path(path)
    got = _shapes_in_file(path)
    with torch.device("meta"):  # names and shapes only: no memory, no initialisation
        model = timm.create_model(name, pretrained=False)
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    missing = [k for k in expected if k not in got]
    unexpected = [k for k in got if k not in expected]
    shapes = [f"{k} {got[k]} (expected {expected[k]})" for k in expected if k in got and got[k] != expected[k]]
    if missing or unexpected or shapes:
        parts = [f"{len(missing)} missing (first: {', '.join(missing[:3])})" if missing else "",
                 f"{len(unexpected)} unexpected (first: {', '.join(unexpected[:3])})" if unexpected else "",
                 f"{len(shapes)} of another shape (first: {'; '.join(shapes[:2])})" if shapes else ""]
        raise StateDictError(f"{path} does not hold the weights of {name}: tensors "
                             + ", ".join(p for p in parts if p) + f"; of {len(expected)} expected")
