"""Depth Anything on a tiny random-weight instance of the real transformers architecture."""

import numpy as np
import pytest
import torch
from PIL import Image

from specialists.depth_anything import DepthAnything, dpt_preprocess


@pytest.fixture(scope="module")
def model():
    return DepthAnything.tiny(seed=0)


def _image(seed, shape):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 255, (*shape, 3), dtype=np.uint8))


def test_disparity_at_original_size_and_batch_invariant(model):
    images = [_image(0, (48, 64)), _image(1, (60, 80)), _image(2, (48, 64)), _image(3, (64, 48))]
    batched = model(images)
    assert [tuple(d.disparity.shape) for d in batched] == [(48, 64), (60, 80), (48, 64), (64, 48)]
    for image, together in zip(images, batched):
        (alone,) = model([image])
        assert torch.allclose(alone.disparity, together.disparity, atol=1e-4)


def test_same_aspect_images_share_one_forward(model, monkeypatch):
    calls = []
    forward = model.model.forward
    monkeypatch.setattr(model.model, "forward", lambda **kw: calls.append(kw["pixel_values"].shape[0]) or forward(**kw))
    model([_image(i, (48, 64)) for i in range(3)] + [_image(9, (64, 48))])
    assert sorted(calls) == [1, 3]


def test_from_pretrained_reads_a_transformers_folder(model, tmp_path):
    model.model.save_pretrained(tmp_path)
    model.processor.save_pretrained(tmp_path)
    loaded = DepthAnything.from_pretrained(tmp_path)
    image = _image(5, (48, 64))
    assert torch.allclose(loaded([image])[0].disparity, model([image])[0].disparity, atol=1e-5)
    with pytest.raises(ValueError, match=r"nothing does not exist, not a transformers model folder \(config.json"):
        DepthAnything.from_pretrained(tmp_path / "nothing")


@pytest.mark.parametrize("shape", [(48, 64), (64, 48), (700, 500), (30, 200)])
def test_engine_preprocessing_reproduces_the_dpt_processor(model, shape):
    """The engine's "fit" Preprocess built from the processor (resize rule "transformers") gives
    the processor's own pixels: same size (scale closest to 1, multiples of 14) and values to
    float rounding."""
    image = _image(7, shape)
    expected = model.processor(images=image, return_tensors="pt")["pixel_values"]
    ours = dpt_preprocess(model.processor, "transformers")(torch.from_numpy(np.array(image)).permute(2, 0, 1)[None])
    assert ours.shape == expected.shape
    torch.testing.assert_close(ours, expected, atol=1e-5, rtol=0)


def test_from_pretrained_and_import_refuse_weights_that_do_not_fit_the_config(model, tmp_path, monkeypatch):
    """transformers would initialise the missing tensors at random and only log it; `checkpoints
    import` refuses such a folder before it is installed, with the same message."""
    import json

    from safetensors.torch import load_file, save_file

    from checkpoints.install import import_checkpoint

    model.model.save_pretrained(tmp_path)
    model.processor.save_pretrained(tmp_path)
    weights = next(tmp_path.glob("*.safetensors"))
    state = load_file(str(weights))
    dropped = sorted(k for k in state if "head" in k)[:1]
    save_file({k: v for k, v in state.items() if k not in dropped}, str(weights), metadata={"format": "pt"})
    with pytest.raises(ValueError, match=r"do not fit the architecture its config names: 1 missing keys"):
        DepthAnything.from_pretrained(tmp_path)
    assert json.loads((tmp_path / "config.json").read_text())["model_type"] == "depth_anything"
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    with pytest.raises(ValueError, match=r"1 missing keys \(first: head\."):
        import_checkpoint("depth-anything-v1-large", tmp_path)
    assert not (tmp_path / "home" / "depth-anything-v1-large").exists()


# The official v1 run.py rule worked by hand: scale = max(518 / h, 518 / w); each side rounded
# to the nearest multiple of 14, or up if that falls below 518. 375x500: scale 1.381, 690.7 ->
# 686; 333x500: 1.556, 777.8 -> 56 x 14 = 784; 1000x600: 0.863, 863.3 -> 868 (61.67 rounds to
# 62); 192x256 (smaller than 518 both ways): 2.698, 690.7 -> 686. transformers' rule instead
# scales as little as possible: 375x500 -> 392x518, about 1.75x fewer pixels.
@pytest.mark.parametrize("shape, official, transformers", [
    ((375, 500), (518, 686), (392, 518)),
    ((333, 500), (518, 784), (350, 518)),
    ((1000, 600), (868, 518), (868, 518)),
    ((192, 256), (518, 686), (392, 518)),
])
def test_lower_bound_is_the_official_v1_resize(shape, official, transformers):
    from specialists.engine import Preprocess

    assert Preprocess(518, "lower_bound", multiple_of=14).resized_size(*shape) == official
    assert Preprocess(518, "fit", multiple_of=14).resized_size(*shape) == transformers


def test_the_resize_rule_is_a_choice_of_the_wrapper():
    official = DepthAnything.tiny(seed=0)
    as_transformers = DepthAnything.tiny(seed=0, resize="transformers")
    assert official.preprocess.mode == "lower_bound" and as_transformers.preprocess.mode == "fit"
    image = _image(1, (30, 40))  # processed at 56x70 (lower bound) against 42x56 (transformers)
    assert official.preprocess.resized_size(30, 40) == (56, 70)
    a, b = official([image])[0].disparity, as_transformers([image])[0].disparity
    assert a.shape == b.shape == (30, 40) and not torch.allclose(a, b)
    with pytest.raises(ValueError, match="lower_bound, transformers"):
        DepthAnything.tiny(seed=0, resize="nearest")


def test_a_thin_image_is_refused_by_the_lower_bound_rule_with_the_way_out():
    from specialists.engine import EngineInputError, Preprocess

    with pytest.raises(EngineInputError, match="too thin.*depth_anything.resize=transformers"):
        Preprocess(518, "lower_bound", multiple_of=14).resized_size(2, 2000)
