"""Ordinal shading: official key layout loads strictly, the v1 pipeline's algebra, the runner path.

The official layout is written here WITHOUT our module: the encoders' keys come from the models
the official code built them from (torchvision's ResNeXt-101 32x8d, which torch.hub's WSL
model is; the TF EfficientNet-Lite3 that gen-efficientnet and timm share), remapped the way
MiDaS `_make_resnet_backbone` / `_make_efficientnet_backbone` wrap them; the decoder keys and
shapes are listed from the official MidasNet / MidasNet_small constructors.
"""

import numpy as np
import pytest
import torch
from PIL import Image
from skimage.transform import resize as skimage_resize

from specialists.ordinal_shading import MidasNetSmall, OrdinalShading, _resize, equalize, inverse_to_shading

# --- the official layout, built independently -----------------------------------------------------


def _remap(state: dict, prefixes: dict[str, str]) -> dict:
    out = {}
    for key, shape in state.items():
        for old, new in prefixes.items():
            if key.startswith(old):
                out[new + key[len(old):]] = shape
                break
    return out


def _decoder(widths_in, widths_out, fusion_out, head_in, head_hidden) -> dict:
    """scratch.* shapes of a MiDaS decoder: *_rn convs, refinenet units, output_conv 0/2/4."""
    shapes = {}
    for i, (c_in, c_out) in enumerate(zip(widths_in, widths_out), start=1):
        shapes[f"scratch.layer{i}_rn.weight"] = (c_out, c_in, 3, 3)
        for unit in ("resConfUnit1", "resConfUnit2"):
            for conv in ("conv1", "conv2"):
                shapes[f"scratch.refinenet{i}.{unit}.{conv}.weight"] = (c_out, c_out, 3, 3)
                shapes[f"scratch.refinenet{i}.{unit}.{conv}.bias"] = (c_out,)
        if fusion_out:
            shapes[f"scratch.refinenet{i}.out_conv.weight"] = (fusion_out[i - 1], c_out, 1, 1)
            shapes[f"scratch.refinenet{i}.out_conv.bias"] = (fusion_out[i - 1],)
    shapes.update({"scratch.output_conv.0.weight": (head_hidden, head_in, 3, 3), "scratch.output_conv.0.bias": (head_hidden,),
                   "scratch.output_conv.2.weight": (32, head_hidden, 3, 3), "scratch.output_conv.2.bias": (32,),
                   "scratch.output_conv.4.weight": (1, 32, 1, 1), "scratch.output_conv.4.bias": (1,)})
    return shapes


def official_ordinal_shapes() -> dict:
    import torchvision

    with torch.device("meta"):
        resnext = torchvision.models.resnext101_32x8d()
    encoder = {k: tuple(v.shape) for k, v in resnext.state_dict().items()}
    shapes = _remap(encoder, {"conv1.": "pretrained.layer1.0.", "bn1.": "pretrained.layer1.1.",
                              "layer1.": "pretrained.layer1.4.", "layer2.": "pretrained.layer2.",
                              "layer3.": "pretrained.layer3.", "layer4.": "pretrained.layer4."})
    shapes.update(_decoder([256, 512, 1024, 2048], [256] * 4, None, 256, 128))
    return shapes


def official_intrinsic_shapes() -> dict:
    import timm

    with torch.device("meta"):
        effnet = timm.create_model("tf_efficientnet_lite3", pretrained=False)
    encoder = {k: tuple(v.shape) for k, v in effnet.state_dict().items()}
    shapes = _remap(encoder, {"conv_stem.": "pretrained.layer1.0.", "bn1.": "pretrained.layer1.1.",
                              "blocks.0.": "pretrained.layer1.3.", "blocks.1.": "pretrained.layer1.4.",
                              "blocks.2.": "pretrained.layer2.0.", "blocks.3.": "pretrained.layer3.0.",
                              "blocks.4.": "pretrained.layer3.1.", "blocks.5.": "pretrained.layer4.0.",
                              "blocks.6.": "pretrained.layer4.1."})
    shapes["pretrained.layer1.0.weight"] = (32, 5, 3, 3)  # the official 5-channel Conv2dSame stem
    shapes.update(_decoder([32, 48, 136, 384], [64, 128, 256, 512], [64, 64, 128, 256], 64, 32))
    return shapes


def random_state(shapes: dict, seed: int) -> dict:
    generator = torch.Generator().manual_seed(seed)
    state = {}
    for key, shape in shapes.items():
        if key.endswith("num_batches_tracked"):
            state[key] = torch.tensor(0)
        elif key.endswith("running_var"):
            state[key] = torch.ones(shape)
        elif key.endswith("running_mean"):
            state[key] = torch.zeros(shape)
        else:
            state[key] = torch.randn(shape, generator=generator) * 0.02
    return state


@pytest.fixture(scope="module")
def v1_file(tmp_path_factory):
    """final_weights.pt as released: {"ord_state_dict", "iid_state_dict"}, official names and shapes."""
    states = {"ord_state_dict": random_state(official_ordinal_shapes(), 1),
              "iid_state_dict": random_state(official_intrinsic_shapes(), 2)}
    path = tmp_path_factory.mktemp("ordinal") / "final_weights.pt"
    torch.save(states, path)
    return path, states


def test_official_v1_weights_load_strictly_and_run(v1_file):
    path, states = v1_file
    model = OrdinalShading.from_checkpoint(path, base_size=64, max_size=64)
    for net, state in ((model.ordinal_net, states["ord_state_dict"]), (model.intrinsic_net, states["iid_state_dict"])):
        loaded = net.state_dict()
        assert set(loaded) == set(state)
        for key in ("pretrained.layer1.0.weight", "scratch.layer4_rn.weight", "scratch.output_conv.4.weight"):
            assert torch.equal(loaded[key], state[key])
    image = Image.fromarray(np.random.default_rng(0).integers(0, 255, (40, 56, 3), dtype=np.uint8))
    (layers,) = model([image])
    assert layers.albedo.shape == (3, 40, 56) and torch.isfinite(layers.albedo).all()


def test_v2_stage_files_run_the_same_two_networks(v1_file, tmp_path):
    _, states = v1_file
    torch.save(states["ord_state_dict"], tmp_path / "stage_0_v21.pt")
    torch.save(states["iid_state_dict"], tmp_path / "stage_1_v21.pt")
    model = OrdinalShading.from_checkpoint(tmp_path)
    key = "scratch.refinenet1.out_conv.weight"
    assert torch.equal(model.intrinsic_net.state_dict()[key], states["iid_state_dict"][key])


def test_a_missing_official_key_is_refused():
    state = random_state(official_intrinsic_shapes(), 3)
    del state["scratch.refinenet4.out_conv.bias"]
    with pytest.raises(RuntimeError, match="refinenet4.out_conv.bias"):
        MidasNetSmall().load_state_dict(state, strict=True)


def test_a_folder_without_stage_files_is_explained(tmp_path):
    with pytest.raises(ValueError, match="stage_0.pt"):
        OrdinalShading.from_checkpoint(tmp_path)


# --- the pipeline's algebra -----------------------------------------------------------------------


def test_image_albedo_times_shading_is_the_linear_image():
    """albedo "image": shading resized to the image, albedo from the image's own pixels."""
    model = OrdinalShading.tiny(seed=0, albedo="image")
    rng = np.random.default_rng(1)
    images = [Image.fromarray(rng.integers(0, 255, (45, 70, 3), dtype=np.uint8)) for _ in range(3)]
    images.append(Image.fromarray(rng.integers(0, 255, (33, 30, 3), dtype=np.uint8)))  # a second size bucket
    for image, layers in zip(images, model(images)):
        linear = torch.from_numpy(np.asarray(image, dtype=np.float32) / 255.0).permute(2, 0, 1) ** 2.2
        assert layers.albedo.shape == (3, image.height, image.width)
        assert (layers.shading > 0).all()
        torch.testing.assert_close(layers.albedo * layers.shading, linear, atol=1e-5, rtol=1e-4)


def _srgb(image: Image.Image) -> torch.Tensor:
    return torch.from_numpy(np.asarray(image, dtype=np.float32) / 255.0).permute(2, 0, 1)[None]


def test_network_albedo_is_divided_at_network_size_then_resized():
    """albedo "network" (official): albedo = linear full-size input / shading at network size,
    resized to the image; at a size the network takes as is, albedo x shading is the image."""
    model = OrdinalShading.tiny(seed=0, resolution="long_side", albedo="network")
    at_size = Image.fromarray(np.random.default_rng(2).integers(0, 255, (64, 96, 3), dtype=np.uint8))
    assert model.full_size(np.asarray(at_size) / 255.0) == (64, 96)
    (layers,) = model([at_size])
    torch.testing.assert_close(layers.albedo * layers.shading, _srgb(at_size)[0] ** 2.2, atol=1e-5, rtol=1e-4)

    odd = Image.fromarray(np.random.default_rng(3).integers(0, 255, (45, 70, 3), dtype=np.uint8))
    full = model.full_size(np.asarray(odd) / 255.0)
    assert full == (64, 96)
    out = model.decompose(_srgb(odd), full)
    linear_full = _resize(_srgb(odd), full).clamp(0, 1) ** 2.2
    quotient = linear_full / inverse_to_shading(out["inverse_shading"]).clamp_min(1e-5)
    expected = _resize(quotient, (45, 70))
    torch.testing.assert_close(out["albedo"], expected)
    # not the image-side quotient: dividing after resizing gives another albedo
    image_side = OrdinalShading(model.ordinal_net, model.intrinsic_net, base_size=64, max_size=128,
                                resolution="long_side", albedo="image").decompose(_srgb(odd), full)
    assert (image_side["albedo"] - out["albedo"]).abs().max() > 1e-3


@pytest.mark.parametrize("size, out", [((45, 70), (64, 96)), ((256, 384), (96, 128)), ((50, 60), (64, 33)),
                                       ((40, 50), (7, 9)), ((64, 96), (64, 96))])
def test_resizes_are_the_official_skimage_resize(size, out):
    """Every resize of the official pipeline is skimage.transform.resize (order 1, Gaussian
    anti-aliasing on shrinking axes, mirrored edges): enlarging, shrinking, both at once."""
    image = np.random.default_rng(4).random((*size, 3)).astype(np.float32)
    expected = skimage_resize(image, out, order=1, anti_aliasing=True)
    ours = _resize(torch.from_numpy(image).permute(2, 0, 1)[None], out)[0].permute(1, 2, 0).numpy()
    np.testing.assert_allclose(ours, expected, atol=1e-6)


def test_long_side_sizes_are_multiples_of_32():
    model = OrdinalShading.tiny(seed=0, base_size=384, max_size=1500, resolution="long_side")

    def full(h, w):
        return model.full_size(np.zeros((h, w, 3), np.float32))

    assert full(480, 640) == (480, 640) and model.base_size_for((480, 640)) == (288, 384)
    assert full(100, 200) == (192, 384)  # full size is never below base size
    assert full(3000, 2000) == (1504, 1024)  # long side capped at 1500, rounded up
    assert model.base_size_for((1504, 1024)) == (384, 288)


# Sizes worked by hand from the official procedure (chrislib `calculateprocessingres` with
# basesize 384, confidence 0.0, then `get_optimal_dims`) for a BLINK-sized 375x500 image:
# - flat: the gradient's range is 0, so every pixel binarises to an edge; every tried size
#   p = 12, 18, ..., 42 (below min(3000, 3 * 500) / 32 = 46.9) passes: R0 = 42 * 32 = 1344;
#   long side min(max(1344, 500), 1500) = 1344, scale 2.688: 375 -> 1008 -> 1024, 500 -> 1344.
# - one vertical edge: at p = 12 the dilated map (12x12 kernel) covers a band of 12 columns
#   around one column of a 12-wide map, leaving the far columns bare: R0 stays 384; long side
#   max(384, 500) = 500, scale 1: 375 -> 384, 500 -> 512.
# - a 96x128 image: 3 * 128 / 32 = 12 leaves no size to try: R0 = 384, scale 3: (288, 384).
@pytest.mark.parametrize("name, image, expected", [
    ("flat", np.full((375, 500, 3), 0.5, np.float32), (1024, 1344)),
    ("one edge", np.concatenate([np.full((375, 250, 3), 0.2, np.float32), np.full((375, 250, 3), 0.9, np.float32)], 1),
     (384, 512)),
    ("small", np.full((96, 128, 3), 0.5, np.float32), (288, 384)),
])
def test_resolution_search_matches_the_published_procedure(name, image, expected):
    from specialists.resolution_search import optimal_size

    assert optimal_size(image) == expected
    assert OrdinalShading.tiny(seed=0, base_size=384, max_size=1500).full_size(image) == expected


def test_the_search_sizes_images_by_their_edges_not_their_shape():
    """Two images of one size get different network sizes, and run in separate batches."""
    model = OrdinalShading.tiny(seed=0, base_size=32, max_size=128)
    flat = Image.fromarray(np.full((40, 56, 3), 128, np.uint8))
    edge = np.full((40, 56, 3), 40, np.uint8)
    edge[:, 28:] = 220
    sizes = {model.full_size(np.asarray(img) / 255.0) for img in (flat, Image.fromarray(edge))}
    assert len(sizes) == 2
    layers = model([flat, Image.fromarray(edge)])
    assert all(l.albedo.shape == (3, 40, 56) and torch.isfinite(l.albedo).all() for l in layers)


def test_equalize_rescales_the_full_estimate_to_the_base_albedo():
    torch.manual_seed(0)
    linear = torch.rand(2, 3, 8, 8) * 0.8 + 0.1
    shading = torch.rand(2, 1, 8, 8) + 0.5
    base = 1 / (1 + shading)
    torch.testing.assert_close(equalize(linear, base, base), base)
    # a full estimate whose implied albedo is 3x the base one (shading / 3) is brought back to base
    full = 1 / (1 + shading / 3)
    torch.testing.assert_close(equalize(linear, base, full), base, atol=1e-5, rtol=1e-5)


def test_random_half_fit_draws_the_official_pixels():
    """fit "random_half": the pixels np.random.randn(h, w) > 0 of numpy's global generator, one
    least-squares scale from full to base albedo over them (as the official equalisation)."""
    rng = np.random.default_rng(5)
    linear = rng.random((1, 3, 12, 16), dtype=np.float32) * 0.8 + 0.1
    base, full = (rng.random((1, 1, 12, 16), dtype=np.float32) * 0.8 + 0.1 for _ in range(2))
    bright = 0.3 * linear[:, 0] + 0.59 * linear[:, 1] + 0.11 * linear[:, 2]
    full_albedo = bright / (1 / full[:, 0] - 1)
    base_albedo = bright / (1 / base[:, 0] - 1)
    np.random.seed(7)
    chosen = np.random.randn(12, 16) > 0
    scale = np.linalg.lstsq(full_albedo[0][chosen].reshape(-1, 1), base_albedo[0][chosen], rcond=None)[0]
    expected = 1 / (1 + bright / (scale * full_albedo))
    np.random.seed(7)
    ours = equalize(*(torch.from_numpy(a) for a in (linear, base, full)), fit="random_half")
    np.testing.assert_allclose(ours[:, 0].numpy(), expected, rtol=1e-5)
    every = equalize(*(torch.from_numpy(a) for a in (linear, base, full)), fit="all")
    assert (every - ours).abs().max() > 1e-4  # the draw matters: "all" fits another scale


# --- through the runner ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("home")


def test_tiny_random_through_the_runner(tmp_path, monkeypatch, home):
    from adapters.run.runner import RunConfig, run

    monkeypatch.setenv("SPECIALISTS_HOME", str(home))
    results = run(RunConfig(str(tmp_path / "run"), benchmark="synthetic", synthetic_n=2, tasks=["Relative_Reflectance"],
                            specialist=["ordinal_shading"], checkpoint="tiny-random", batch_size=2, progress=False))
    summary = results["tasks"]["Relative_Reflectance"]
    assert (summary["n"], summary["errors"]) == (2, 0)
    assert summary["rules"] == ["reflectance.ordinal_shading_iid"]
    assert summary["checkpoint"]["tiny_random"] is True
