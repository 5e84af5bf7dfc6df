"""Depth Anything against the official pipeline's rules, without the official code: its float
bicubic resize (cv2), its DINOv2 position-embedding resize, its upsampling per version, and its
release files (random weights written in the official key layout) converted and imported."""

import math
import re

import cv2
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from adapters.core.registry import get
from checkpoints.convert.common import StateDictError
from specialists.depth_anything import DepthAnything, dpt_preprocess
from specialists.engine import ImageRequest

MEAN, STD = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])


def _pixels(seed, shape):
    return np.random.default_rng(seed).integers(0, 256, (*shape, 3), dtype=np.uint8)


@pytest.mark.parametrize("shape", [(48, 64), (700, 500), (61, 37)])
def test_lower_bound_pixels_are_the_official_float_cv2_bicubic(shape):
    """Official: divide by 255, cv2.resize INTER_CUBIC on the floats (no antialias, values
    overshoot 0-1 at edges and are kept), then normalise. A uint8 antialiased resize differs by
    far more than float rounding, downscaling most."""
    processor = DepthAnything.tiny(seed=0).processor
    pixels = _pixels(3, shape)
    preprocess = dpt_preprocess(processor, "lower_bound")
    h, w = preprocess.resized_size(*shape)
    official = (cv2.resize(pixels / 255.0, (w, h), interpolation=cv2.INTER_CUBIC) - MEAN) / STD
    ours = preprocess(torch.from_numpy(pixels).permute(2, 0, 1)[None])[0].permute(1, 2, 0).double().numpy()
    assert ours.shape == official.shape
    # both place their taps in float32 coordinates, rounded differently: on pixel noise scaled
    # down 8x that moves values by up to 4e-4 here, where rounding to uint8 alone moves them by
    # up to 0.5 / 255 / 0.229 = 8.6e-3 (and antialiasing by tenths)
    np.testing.assert_allclose(ours, official, atol=1e-3, rtol=0)


def _official_positions(position_embeddings, height, width, patch=14):
    """DINOv2's interpolate_pos_encoding as the Depth Anything code has it, in the test's words."""
    grid = math.isqrt(position_embeddings.shape[1] - 1)
    dim = position_embeddings.shape[-1]
    table = position_embeddings[:, 1:].reshape(1, grid, grid, dim).permute(0, 3, 1, 2)
    h0, w0 = height // patch + 0.1, width // patch + 0.1
    table = F.interpolate(table, scale_factor=(h0 / grid, w0 / grid), mode="bicubic")
    return torch.cat((position_embeddings[:, :1], table.permute(0, 2, 3, 1).reshape(1, -1, dim)), dim=1)


def test_position_embeddings_are_resized_as_the_official_dinov2_and_only_in_this_model():
    official = DepthAnything.tiny(seed=0)  # positions="official" by default
    plain = DepthAnything.tiny(seed=0, positions="transformers")
    embeddings = official.model.backbone.embeddings
    tokens = torch.zeros(1, 1 + 4 * 6, 32)
    expected = _official_positions(embeddings.position_embeddings.detach(), 56, 84)
    torch.testing.assert_close(embeddings.interpolate_pos_encoding(tokens, 56, 84), expected, atol=1e-6, rtol=0)
    transformers_rule = plain.model.backbone.embeddings.interpolate_pos_encoding(tokens, 56, 84)
    assert transformers_rule.shape == expected.shape and (transformers_rule - expected).abs().max() > 1e-3
    # in the model, on a non-square input: the encoder's features part by more than rounding
    pixels = official.preprocess(torch.from_numpy(_pixels(4, (40, 60))).permute(2, 0, 1)[None])
    with torch.no_grad():
        ours, theirs = (m.model.backbone(pixels).feature_maps[0] for m in (official, plain))
    assert (ours - theirs).abs().max() > 1e-3 * theirs.abs().max()
    with pytest.raises(ValueError, match="official, transformers"):
        DepthAnything.tiny(seed=0, positions="nearest")


def test_v2_upsamples_with_align_corners_v1_without():
    model = DepthAnything.tiny(seed=0)
    image = Image.fromarray(_pixels(5, (30, 50)))
    (predicted,) = model.engine.run([ImageRequest(0, "depth_anything", image)]).values()
    for version, corners in (("v1", False), ("v2", True)):
        wrapper = DepthAnything(model.model, model.processor, version=version)
        expected = F.interpolate(predicted[None, None], size=(30, 50), mode="bilinear", align_corners=corners)[0, 0]
        torch.testing.assert_close(wrapper([image])[0].disparity, expected, atol=1e-6, rtol=0)


# --- official release files: random weights in the official key layout -------------------------

def _official_layout(model) -> dict:
    """A transformers DepthAnything state dict written back in the official key layout (fused
    qkv, ls*.gamma, depth_head.scratch.refinenet4 first), as the release .pth files hold it."""
    state, out = model.state_dict(), {}
    fusion = {"projection": "out_conv", "residual_layer1.convolution1": "resConfUnit1.conv1",
              "residual_layer1.convolution2": "resConfUnit1.conv2", "residual_layer2.convolution1": "resConfUnit2.conv1",
              "residual_layer2.convolution2": "resConfUnit2.conv2"}
    block = {"norm1": "norm1", "norm2": "norm2", "attention.o_proj": "attn.proj", "mlp.fc1": "mlp.fc1",
             "mlp.fc2": "mlp.fc2"}
    for key, value in state.items():
        if m := re.match(r"backbone\.encoder\.layer\.(\d+)\.(.+)\.(weight|bias|lambda1)$", key):
            i, inner, param = m.groups()
            if inner == "attention.q_proj":
                out[f"pretrained.blocks.{i}.attn.qkv.{param}"] = torch.cat(
                    [state[f"backbone.encoder.layer.{i}.attention.{p}_proj.{param}"] for p in "qkv"])
            elif inner.startswith("layer_scale"):
                out[f"pretrained.blocks.{i}.ls{inner[-1]}.gamma"] = value
            elif inner in block:
                out[f"pretrained.blocks.{i}.{block[inner]}.{param}"] = value
        elif m := re.match(r"neck\.reassemble_stage\.layers\.(\d)\.(projection|resize)\.(\w+)$", key):
            out[f"depth_head.{'projects' if m[2] == 'projection' else 'resize_layers'}.{m[1]}.{m[3]}"] = value
        elif m := re.match(r"neck\.convs\.(\d)\.weight$", key):
            out[f"depth_head.scratch.layer{int(m[1]) + 1}_rn.weight"] = value
        elif m := re.match(r"neck\.fusion_stage\.layers\.(\d)\.(.+)\.(\w+)$", key):
            out[f"depth_head.scratch.refinenet{4 - int(m[1])}.{fusion[m[2]]}.{m[3]}"] = value
        elif m := re.match(r"head\.conv(\d)\.(\w+)$", key):
            out[f"depth_head.scratch.{['output_conv1', 'output_conv2.0', 'output_conv2.2'][int(m[1]) - 1]}.{m[2]}"] = value
        else:
            top = {"backbone.embeddings.cls_token": "cls_token", "backbone.embeddings.mask_token": "mask_token",
                   "backbone.embeddings.position_embeddings": "pos_embed",
                   "backbone.embeddings.patch_embeddings.projection.weight": "patch_embed.proj.weight",
                   "backbone.embeddings.patch_embeddings.projection.bias": "patch_embed.proj.bias",
                   "backbone.layernorm.weight": "norm.weight", "backbone.layernorm.bias": "norm.bias"}
            out[f"pretrained.{top[key]}"] = value
    return {k: v.clone() for k, v in out.items()}


def _transformers_model(hidden=64, layers=4, out_indices=(1, 2, 3, 4), seed=0):
    from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config

    torch.manual_seed(seed)
    backbone = Dinov2Config(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=hidden // 64,
                            intermediate_size=32, patch_size=14, image_size=518, layerscale_value=1.0,
                            out_indices=list(out_indices), reshape_hidden_states=False)
    config = DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=hidden,
                                 neck_hidden_sizes=[8, 16, 24, 32], fusion_hidden_size=16, head_hidden_size=8,
                                 depth_estimation_type="relative")
    model = DepthAnythingForDepthEstimation(config).eval()
    with torch.no_grad():
        for tensor in model.state_dict().values():
            tensor.add_(torch.randn_like(tensor) * 0.02)  # off the init constants: a wrong mapping shows
    return model


@pytest.mark.parametrize("file, hidden, layers, out_indices", [
    ("depth_anything_vits14.pth", 64, 4, (1, 2, 3, 4)),
    ("depth_anything_v2_vits.pth", 384, 12, (3, 6, 9, 12)),
])
def test_an_official_release_file_converts_to_the_same_tensors_and_outputs(tmp_path, file, hidden, layers,
                                                                             out_indices):
    from checkpoints.convert.depth_anything import depth_anything_from_official

    reference = _transformers_model(hidden, layers, out_indices)
    torch.save(_official_layout(reference), tmp_path / file)
    model, _, version = depth_anything_from_official(tmp_path / file)
    assert version == ("v2" if "v2" in file else "v1")
    assert list(model.config.backbone_config.out_indices) == list(out_indices)
    converted = model.state_dict()
    assert converted.keys() == reference.state_dict().keys()
    for key, tensor in reference.state_dict().items():
        assert torch.equal(converted[key], tensor), key
    image = Image.fromarray(_pixels(6, (40, 60)))
    ours = DepthAnything.from_pretrained(tmp_path / file)
    assert ours.version == version
    same = DepthAnything(reference, ours.processor, version=version)
    torch.testing.assert_close(ours([image])[0].disparity, same([image])[0].disparity, atol=1e-6, rtol=0)


def test_import_accepts_the_release_file_and_the_solver_loads_it(tmp_path, monkeypatch):
    from adapters.core.solver import SolverOptions
    from checkpoints.install import import_checkpoint

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    reference = _transformers_model()
    torch.save(_official_layout(reference), tmp_path / "depth_anything_vits14.pth")
    import_checkpoint("depth-anything-v1-small-pth", tmp_path / "depth_anything_vits14.pth")
    solver = get("depth_anything").build(SolverOptions(checkpoint="depth-anything-v1-small-pth"))
    for key, tensor in reference.state_dict().items():
        assert torch.equal(solver.model.model.state_dict()[key], tensor), key


def test_a_release_file_with_a_wrong_name_or_a_missing_tensor_is_refused(tmp_path, monkeypatch):
    from checkpoints.convert.depth_anything import depth_anything_from_official
    from checkpoints.install import import_checkpoint

    state = _official_layout(_transformers_model())
    torch.save(state, tmp_path / "weights.pth")
    with pytest.raises(StateDictError, match=r"keeps its release name, depth_anything_vitl14.pth \(v1\) or "):
        depth_anything_from_official(tmp_path / "weights.pth")
    del state["depth_head.scratch.refinenet2.out_conv.bias"]
    torch.save(state, tmp_path / "depth_anything_vits14.pth")
    with pytest.raises(StateDictError, match="neck.fusion_stage.layers.2.projection.bias"):
        depth_anything_from_official(tmp_path / "depth_anything_vits14.pth")
    (tmp_path / "other").mkdir()
    torch.save({"model": torch.zeros(1)}, tmp_path / "other" / "depth_anything_vits14.pth")
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    with pytest.raises(StateDictError, match="no 'pretrained.pos_embed'"):
        import_checkpoint("depth-anything-v1-small-pth", tmp_path / "other" / "depth_anything_vits14.pth")
