"""Official Depth Anything state dicts (depth_anything_vitl14.pth, depth_anything_v2_vitl.pth)
-> transformers' DepthAnythingForDepthEstimation.

The release files are plain state dicts of the official `DPT_DINOv2` / `DepthAnythingV2`: the
DINOv2 encoder under "pretrained." (fused qkv, `ls1.gamma` layer scales) and the DPT head under
"depth_head.". v1 and v2 files of one size have the same keys and shapes; they differ in which
encoder blocks feed the head (v1 the last four, v2 four spread ones), so the version is read
from the release file's name.
"""

from __future__ import annotations

import re
from pathlib import Path

from checkpoints.convert.common import StateDictError, load_torch_file, require_shape, strip_common_prefix, tensor_dict
from checkpoints.formats import FORMATS

# the encoder blocks (0-based) whose outputs the v2 head reads, by encoder width
V2_BLOCKS = {384: (2, 5, 8, 11), 768: (2, 5, 8, 11), 1024: (4, 11, 17, 23)}
RELEASE_NAMES = "depth_anything_vitl14.pth (v1) or depth_anything_v2_vitl.pth (v2)"

_BLOCK_KEYS = {
    "norm1": "norm1", "norm2": "norm2", "attn.proj": "attention.o_proj", "ls1.gamma": "layer_scale1.lambda1",
    "ls2.gamma": "layer_scale2.lambda1", "mlp.fc1": "mlp.fc1", "mlp.fc2": "mlp.fc2",
}
_HEAD_KEYS = {"output_conv1": "head.conv1", "output_conv2.0": "head.conv2", "output_conv2.2": "head.conv3"}
_FUSION_UNITS = {"out_conv": "projection", "resConfUnit1.conv1": "residual_layer1.convolution1",
                 "resConfUnit1.conv2": "residual_layer1.convolution2",
                 "resConfUnit2.conv1": "residual_layer2.convolution1",
                 "resConfUnit2.conv2": "residual_layer2.convolution2"}


def release_version(path: str | Path) -> str:
    """"v1" or "v2" from the official file name (the two versions' files are otherwise alike)."""
    name = Path(path).name
    if re.fullmatch(r"depth_anything_v2_vit[sblg]\.pth", name):
        return "v2"
    if re.fullmatch(r"depth_anything_vit[sblg]14\.pth", name):
        return "v1"
    raise StateDictError(f"{path}: an official Depth Anything file keeps its release name, {RELEASE_NAMES}, "
                         "which says its version; rename it so")


def official_state_dict(path: str | Path) -> dict:
    """The official state dict of `path`, checked for the encoder and head an importer needs."""
    state = strip_common_prefix(tensor_dict(load_torch_file(path, FORMATS["depth-anything-pth"].description), path,
                                            "a Depth Anything state dict"))
    expected = "the official Depth Anything layout (pretrained.* DINOv2 encoder, depth_head.* DPT head)"
    require_shape(state, "pretrained.pos_embed", lambda s: len(s) == 3 and s[0] == 1, expected, path)
    require_shape(state, "depth_head.scratch.output_conv2.2.weight", lambda s: len(s) == 4 and s[0] == 1, expected,
                  path)
    return state


def _config(state: dict, version: str):
    from transformers import DepthAnythingConfig, Dinov2Config

    hidden = state["pretrained.pos_embed"].shape[-1]
    depth = 1 + max(int(k.split(".")[2]) for k in state if k.startswith("pretrained.blocks."))
    if version == "v2" and hidden not in V2_BLOCKS:
        raise StateDictError(f"a v2 encoder of width {hidden}: only ViT-S/B/L (384, 768, 1024) are released")
    blocks = V2_BLOCKS[hidden] if version == "v2" else tuple(range(depth - 4, depth))
    positions = state["pretrained.pos_embed"].shape[1] - 1
    backbone = Dinov2Config(
        hidden_size=hidden, num_hidden_layers=depth, num_attention_heads=hidden // 64,
        intermediate_size=state["pretrained.blocks.0.mlp.fc1.weight"].shape[0], patch_size=14,
        image_size=round(positions**0.5) * 14, layerscale_value=1.0, reshape_hidden_states=False,
        out_indices=[b + 1 for b in blocks],
    )
    return DepthAnythingConfig(
        backbone_config=backbone, reassemble_hidden_size=hidden,
        neck_hidden_sizes=[state[f"depth_head.projects.{i}.weight"].shape[0] for i in range(4)],
        fusion_hidden_size=state["depth_head.scratch.layer1_rn.weight"].shape[0],
        head_hidden_size=state["depth_head.scratch.output_conv2.0.weight"].shape[0],
        depth_estimation_type="relative",
    )


def _rename(state: dict) -> dict:
    """Official key -> transformers key; the fused qkv is split into q, k and v."""
    out = {}
    for key, value in state.items():
        name = key.removeprefix("pretrained.")
        if key.startswith("pretrained."):
            block = re.match(r"blocks\.(\d+)\.(.+)$", name)
            if block:
                layer, rest = f"backbone.encoder.layer.{block[1]}", block[2]
                if rest.startswith("attn.qkv."):
                    for proj, part in zip("qkv", value.chunk(3)):
                        out[f"{layer}.attention.{proj}_proj.{rest.rsplit('.', 1)[1]}"] = part
                elif rest.endswith(".gamma"):
                    out[f"{layer}.{_BLOCK_KEYS[rest]}"] = value
                else:
                    module, param = rest.rsplit(".", 1)
                    out[f"{layer}.{_BLOCK_KEYS[module]}.{param}"] = value
                continue
            out[{"cls_token": "backbone.embeddings.cls_token", "mask_token": "backbone.embeddings.mask_token",
                 "pos_embed": "backbone.embeddings.position_embeddings",
                 "patch_embed.proj.weight": "backbone.embeddings.patch_embeddings.projection.weight",
                 "patch_embed.proj.bias": "backbone.embeddings.patch_embeddings.projection.bias",
                 "norm.weight": "backbone.layernorm.weight", "norm.bias": "backbone.layernorm.bias"}[name]] = value
            continue
        out[_head_key(key)] = value
    return out


def _head_key(key: str) -> str:
    name = key.removeprefix("depth_head.")
    rules = (
        (r"projects\.(\d)\.(\w+)$", lambda m: f"neck.reassemble_stage.layers.{m[1]}.projection.{m[2]}"),
        (r"resize_layers\.(\d)\.(\w+)$", lambda m: f"neck.reassemble_stage.layers.{m[1]}.resize.{m[2]}"),
        (r"scratch\.layer(\d)_rn\.weight$", lambda m: f"neck.convs.{int(m[1]) - 1}.weight"),
        # the head fuses from the coarsest level: refinenet4 is transformers' first fusion layer
        (r"scratch\.refinenet(\d)\.(.+)\.(\w+)$",
         lambda m: f"neck.fusion_stage.layers.{4 - int(m[1])}.{_FUSION_UNITS[m[2]]}.{m[3]}"),
        (r"scratch\.(output_conv1|output_conv2\.\d)\.(\w+)$", lambda m: f"{_HEAD_KEYS[m[1]]}.{m[2]}"),
    )
    for pattern, rename in rules:
        match = re.match(pattern, name)
        if match:
            return rename(match)
    raise StateDictError(f"{key}: not a tensor of the official Depth Anything head")


def depth_anything_from_official(path: str | Path, dtype=None):
    """(DepthAnythingForDepthEstimation, DPTImageProcessor) from an official release file;
    every tensor must fit (a missing or extra one is a StateDictError naming it)."""
    from PIL import Image
    from transformers import DepthAnythingForDepthEstimation, DPTImageProcessor

    from checkpoints.convert.common import load_strictly

    version = release_version(path)
    state = official_state_dict(path)
    config = _config(state, version)
    model = DepthAnythingForDepthEstimation(config)
    try:
        renamed = _rename(state)
    except KeyError as err:
        raise StateDictError(f"{path}: {err.args[0]!r} is not a tensor of the official Depth Anything encoder") from None
    load_strictly(model, renamed, path, f"official Depth Anything {version} weights")
    model.eval()
    if dtype is not None:
        model.to(dtype)
    processor = DPTImageProcessor(
        do_resize=True, size={"height": 518, "width": 518}, keep_aspect_ratio=True, ensure_multiple_of=14,
        resample=Image.BICUBIC, do_normalize=True, image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225],
        do_pad=False,
    )
    return model, processor, version
