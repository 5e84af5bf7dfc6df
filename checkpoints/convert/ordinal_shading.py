"""Ordinal-shading weights (Careaga & Aksoy, compphoto/Intrinsic) -> validated plain state dicts.

v1 `final_weights.pt` is one dict {"ord_state_dict": ..., "iid_state_dict": ...}; v2 / v2.1
ship one state dict per stage (stage_0 .. stage_4). The networks themselves (MiDaS-style
MidasNet / MidasNet_small) belong to the ordinal-shading specialist: here the dicts keep the
official key names and are checked by their first and last convolutions, whose channel counts
identify each stage (official pipeline: input and output channels per network).
"""

from __future__ import annotations

from pathlib import Path

from checkpoints.convert.common import StateDictError, load_torch_file, require_shape, strip_common_prefix, tensor_dict
from checkpoints.formats import FORMATS

FIRST_CONV = "pretrained.layer1.0.weight"  # ResNeXt conv1 / EfficientNet conv_stem
LAST_CONV = "scratch.output_conv.4.weight"  # the 1x1 output convolution
# stage key -> (input channels, output channels) of its network
STAGES = {
    "ord": (3, 1),  # stage 0, MidasNet: linear RGB -> ordinal shading
    "iid": (5, 1),  # stage 1, MidasNet_small: RGB + base + full ordinal -> inverse shading
    "col": (7, 2),  # stage 2: shading chroma (v2)
    "alb": (9, 3),  # stage 3: albedo (v2)
    "dif": (9, 3),  # stage 4: diffuse shading (v2)
}
STAGE_ORDER = ("ord", "iid", "col", "alb", "dif")


def _checked(state, stage: str, path) -> dict:
    state = strip_common_prefix(tensor_dict(state, path, f"the {stage} network's state dict"))
    c_in, c_out = STAGES[stage]
    require_shape(state, FIRST_CONV, lambda s: len(s) == 4 and s[1] == c_in, f"a conv taking {c_in} channels ({stage})", path)
    require_shape(state, LAST_CONV, lambda s: len(s) == 4 and s[0] == c_out, f"a conv giving {c_out} channels ({stage})", path)
    return state


def ordinal_shading_v1(path: str | Path) -> dict[str, dict]:
    """{"ord": ordinal net state dict, "iid": intrinsic net state dict} from final_weights.pt."""
    checkpoint = load_torch_file(path, FORMATS["ordinal-shading-v1"].description)
    if not isinstance(checkpoint, dict) or not {"ord_state_dict", "iid_state_dict"} <= set(checkpoint):
        found = sorted(checkpoint)[:5] if isinstance(checkpoint, dict) else type(checkpoint).__name__
        raise StateDictError(f"{path}: expected a dict with 'ord_state_dict' and 'iid_state_dict' (v1 weights); found {found}")
    return {"ord": _checked(checkpoint["ord_state_dict"], "ord", path),
            "iid": _checked(checkpoint["iid_state_dict"], "iid", path)}


def ordinal_shading_stage(path: str | Path, stage: str) -> dict:
    """One v2 stage file (stage_N.pt / stage_N_v21.pt) as the state dict of network `stage`."""
    if stage not in STAGES:
        raise ValueError(f"unknown ordinal-shading stage {stage!r}; one of {', '.join(STAGE_ORDER)}")
    return _checked(load_torch_file(path, f"ordinal-shading stage {stage} weights (a PyTorch file)"), stage, path)


def ordinal_shading_stages(folder: str | Path, files: list[str] | tuple[str, ...]) -> dict[str, dict]:
    """The v2 / v2.1 stage files (in stage order 0..4) of one folder -> {stage: state dict}."""
    if len(files) > len(STAGE_ORDER):
        raise ValueError(f"at most {len(STAGE_ORDER)} stage files, got {len(files)}")
    return {stage: ordinal_shading_stage(Path(folder) / file, stage) for stage, file in zip(STAGE_ORDER, files)}
