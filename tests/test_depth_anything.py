"""Depth Anything on a tiny random-weight instance of the real transformers architecture."""

import numpy as np
import pytest
import torch
from PIL import Image

from specialists.depth_anything import DepthAnything


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
    with pytest.raises(ValueError, match="no config.json"):
        DepthAnything.from_pretrained(tmp_path / "nothing")
