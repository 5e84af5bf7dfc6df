"""Official weight formats -> what our loaders take; one module per format.

`validate(format, path)` reads a file (or folder) the way its converter would and raises a
StateDictError (a ValueError) naming what is wrong; `import` calls it before pinning a hash.
"""

from __future__ import annotations

import json
from pathlib import Path

from checkpoints.convert.common import StateDictError, load_torch_file, reading, tensor_dict
from checkpoints.formats import FORMATS, WeightFormatError, check_fits, container


def _json_folder(path: Path) -> None:
    configs = [p for p in path.rglob("*.json") if not any(part.startswith(".") for part in p.relative_to(path).parts)]
    for config in configs:
        with reading(config, "a JSON config"):
            json.loads(config.read_text(encoding="utf-8"))


def _safetensors(path: Path) -> None:
    from safetensors import safe_open

    with reading(path, "a safetensors file"):
        with safe_open(str(path), framework="pt") as f:
            if not list(f.keys()):
                raise StateDictError(f"{path}: a safetensors file with no tensors")


def _plain_state_dict(path: Path) -> None:
    tensor_dict(load_torch_file(path, "a PyTorch state-dict file"), path, "a state dict")


def validate(fmt: str, path: str | Path, files: tuple[str, ...] | list[str] = (), name: str | None = None) -> None:
    """Check that `path` holds weights in format `fmt` (the manifest's `format`); `files`: a
    folder entry's files, in order (the ordinal-shading stages); `name`: the checkpoint's, which
    for format "timm" is its timm model, whose every tensor the file must hold."""
    from checkpoints.convert.adm import read_adm_state_dict
    from checkpoints.convert.dire import dire_state_dict
    from checkpoints.convert.loftr import loftr_state_dict
    from checkpoints.convert.ordinal_shading import STAGE_ORDER, ordinal_shading_stage, ordinal_shading_v1

    path = Path(path)
    if fmt not in FORMATS:
        raise ValueError(f"no validator for weight format {fmt!r}")
    check_fits(path, [fmt])  # a text or empty file is refused here, before any library reads it
    if fmt in ("diffusers", "transformers"):
        _json_folder(path)
        from checkpoints.convert.pretrained_folders import check_diffusers_folder, check_transformers_folder

        (check_diffusers_folder if fmt == "diffusers" else check_transformers_folder)(path)
    elif fmt == "timm":
        _safetensors(path) if container(path) == "safetensors" else _plain_state_dict(path)
        if name is not None:
            from checkpoints.convert.timm_weights import check_fits_timm

            check_fits_timm(name, path)
    elif fmt in ("torchvision-state-dict", "timm-state-dict"):
        _plain_state_dict(path)
    elif fmt == "depth-anything-pth":
        from checkpoints.convert.depth_anything import official_state_dict, release_version

        release_version(path)
        official_state_dict(path)
    elif fmt == "loftr-lightning":
        loftr_state_dict(path)
    elif fmt == "peft-lora":
        from checkpoints.convert.lora import read_lora_adapter

        read_lora_adapter(path)
    elif fmt == "torchvision-vgg19":
        from checkpoints.convert.vgg import vgg19_state_dict

        vgg19_state_dict(path)
    elif fmt == "dire-resnet50":
        dire_state_dict(path)
    elif fmt == "adm":
        read_adm_state_dict(path)
    elif fmt == "ordinal-shading-v1":
        ordinal_shading_v1(path)
    elif fmt == "ordinal-shading-stages":
        for stage, file in zip(STAGE_ORDER, files):
            ordinal_shading_stage(path / file, stage)
    else:
        raise ValueError(f"no validator for weight format {fmt!r}")


__all__ = ["StateDictError", "WeightFormatError", "validate"]
