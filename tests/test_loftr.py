"""LoFTR wrapper: official checkpoint layout, config isolation, batching and coordinate scaling."""

import numpy as np
import pytest
import torch
from PIL import Image

from checkpoints.convert.common import StateDictError
from specialists.loftr import LoFTRMatcher, loftr_config, tiny_config


def _image(seed, shape):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 255, (*shape, 3), dtype=np.uint8))


def test_lightning_checkpoint_loads_strictly(tmp_path):
    tiny = LoFTRMatcher.tiny(seed=3)
    state = {f"matcher.{k}": v for k, v in tiny.model.state_dict().items()}
    torch.save({"epoch": 29, "global_step": 1000, "state_dict": state}, tmp_path / "loftr_outdoor.ckpt")
    loaded = LoFTRMatcher.from_checkpoint(tmp_path / "loftr_outdoor.ckpt", config=tiny_config())
    for key, value in tiny.model.state_dict().items():
        assert torch.equal(loaded.model.state_dict()[key], value)
    state.pop(next(iter(state)))
    torch.save({"state_dict": state}, tmp_path / "broken.ckpt")
    with pytest.raises(StateDictError, match="does not hold the LoFTR outdoor weights: Missing key"):
        LoFTRMatcher.from_checkpoint(tmp_path / "broken.ckpt", config=tiny_config())


def test_indoor_new_config_is_private():
    from kornia.feature.loftr.loftr import default_cfg

    assert loftr_config("indoor_new")["coarse"]["temp_bug_fix"] is True
    assert default_cfg["coarse"]["temp_bug_fix"] is False
    with pytest.raises(ValueError, match="unknown LoFTR variant"):
        loftr_config("outdoors")


def test_batched_pairs_match_single_pairs_in_original_pixels():
    matcher = LoFTRMatcher.tiny(seed=0)
    a, b, c = _image(0, (120, 160)), _image(1, (100, 130)), _image(2, (120, 160))
    together = matcher([(a, b), (c, b), (a, a)])
    for pair, batched in zip([(a, b), (c, b), (a, a)], together):
        (alone,) = matcher([pair])
        assert torch.allclose(alone.keypoints0, batched.keypoints0) and torch.allclose(alone.keypoints1, batched.keypoints1)
    m = together[0]
    assert len(m) > 0
    assert (m.keypoints0[:, 0] <= 160).all() and (m.keypoints0[:, 1] <= 120).all()
    assert (m.keypoints1[:, 0] <= 130).all() and (m.keypoints1[:, 1] <= 100).all()


def test_keypoints_are_scaled_back_to_original_pixels():
    """b (100x130) runs at 96x128: a match at processed (128, 96) is original (130, 100)."""

    class Fixed(torch.nn.Module):
        def forward(self, data):
            assert data["image0"].shape[-2:] == (120, 160) and data["image1"].shape[-2:] == (96, 128)
            corner = torch.tensor([[128.0, 96.0]])
            return {"keypoints0": corner.clone(), "keypoints1": corner, "confidence": torch.ones(1),
                    "batch_indexes": torch.zeros(1, dtype=torch.long)}

    (m,) = LoFTRMatcher(Fixed())([(_image(0, (120, 160)), _image(1, (100, 130)))])
    assert torch.allclose(m.keypoints0, torch.tensor([[128.0, 96.0]]))
    assert torch.allclose(m.keypoints1, torch.tensor([[130.0, 100.0]]))
