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

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"timm weights for {name}: {path} is not a file")
    overlay = {"file": str(path)}
    default = timm.models.get_pretrained_cfg(name)
    if default is not None and default.custom_load and path.suffix != ".npz":
        overlay["custom_load"] = False
    return timm.create_model(name, pretrained=True, pretrained_cfg_overlay=overlay, **kwargs)
