"""Import-time checks of transformers and diffusers model folders: every tensor of the
architecture their config names is in the weight files, with its shape, and nothing else.

Both libraries would load a folder missing tensors by initialising them at random and only
logging it, so a wrong folder imported under a checkpoint's name would later answer with random
weights labelled real. The check loads each model the way the specialists load it
(`from_pretrained(..., output_loading_info=True)` through `common.complete_load`), so import and
load refuse exactly the same folders.
"""

from __future__ import annotations

import json
from pathlib import Path

from checkpoints.convert.common import StateDictError, complete_load, reading
from checkpoints.formats import FORMATS, check_fits


def _json_object(path: Path) -> dict:
    with reading(path, "a JSON config"):
        data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise StateDictError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def _model_class(library: str, class_name: str, where: Path):
    import importlib

    cls = getattr(importlib.import_module(library), class_name, None)
    if cls is None:
        raise StateDictError(f"{where}: its config names {library}.{class_name}, which this {library} does not have; "
                             f"check the folder or upgrade {library}")
    return cls


def check_transformers_folder(folder: Path) -> None:
    """The model class in config.json's `architectures` loads from `folder` with every tensor."""
    check_fits(folder, ["transformers"])
    config_file = folder / "config.json"
    architectures = _json_object(config_file).get("architectures") or []
    if not architectures:
        raise StateDictError(f"{config_file}: names no model class (`architectures`); re-save the model with "
                             "save_pretrained")
    cls = _model_class("transformers", architectures[0], folder)
    with reading(folder, FORMATS["transformers"].description):
        complete_load(cls.from_pretrained(folder, local_files_only=True, output_loading_info=True), str(folder))


def check_diffusers_folder(folder: Path) -> None:
    """Each weighted component of model_index.json (UNet, VAE, text encoder, ...) loads from its
    subfolder with every tensor; schedulers and tokenizers carry no weights and are skipped."""
    check_fits(folder, ["diffusers"])
    index = _json_object(folder / "model_index.json")
    for part, spec in index.items():
        if part.startswith("_") or not isinstance(spec, list) or len(spec) != 2 or spec[0] is None:
            continue
        library, class_name = spec
        if "Scheduler" in class_name or "Tokenizer" in class_name or "FeatureExtractor" in class_name \
                or "ImageProcessor" in class_name or library not in ("diffusers", "transformers"):
            continue
        if not (folder / part).is_dir():
            raise StateDictError(f"{folder}: model_index.json names {part}/ ({class_name}), which is not there")
        cls = _model_class(library, class_name, folder / part)
        with reading(folder / part, f"the {part} of a diffusers pipeline ({class_name})"):
            complete_load(cls.from_pretrained(folder, subfolder=part, local_files_only=True, output_loading_info=True),
                          str(folder / part))
