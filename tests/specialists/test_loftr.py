"""LoFTR wrapper: official checkpoint layout, config isolation, batching and coordinate scaling."""

import numpy as np
import pytest
import torch
from PIL import Image

from checkpoints.convert.common import StateDictError
from specialists.loftr import LoFTRMatcher, input_size, loftr_config, tiny_config


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


# --- the official release layout and the official demo's input ------------------------------------
def _captured_inputs(pairs, **settings):
    """What the network sees for each pair: (image0, image1) tensors."""
    seen = []

    class Capture(torch.nn.Module):
        def forward(self, data):
            seen.append((data["image0"], data["image1"]))
            return {"keypoints0": torch.zeros(0, 2), "keypoints1": torch.zeros(0, 2), "confidence": torch.zeros(0),
                    "batch_indexes": torch.zeros(0, dtype=torch.long)}

    LoFTRMatcher(Capture(), **settings)(pairs)
    return seen


def _file(tmp_path, name, rgb, **save):
    path = tmp_path / name
    Image.fromarray(rgb).save(path, **save)
    return path


def _decoded(path):
    from adapters.core.questions import decode_image

    return decode_image(path.read_bytes(), idx="q", column="image_1")


def _official_input(path):
    """The official demo: cv2 grey from the file, sides cut to multiples of 8 by cv2.resize, / 255."""
    import cv2

    raw = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    h, w = raw.shape
    return torch.from_numpy(cv2.resize(raw, (w // 8 * 8, h // 8 * 8)))[None][None] / 255.


def _colourful(seed, shape):
    """Saturated colours whose grey differs between a JPEG's luma plane and the RGB round trip."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (shape[0] // 4, shape[1] // 4, 3), dtype=np.uint8)
    return np.asarray(Image.fromarray(small).resize((shape[1], shape[0]), Image.BILINEAR))


def test_official_release_file_imports_and_loads_the_same_tensors(tmp_path, monkeypatch):
    """The released outdoor_ds.ckpt holds {"state_dict": plain LoFTR keys} (the demo loads it into LoFTR)."""
    from adapters.cli.main import main
    from checkpoints.resolve import resolve

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    tiny = LoFTRMatcher.tiny(seed=5)
    torch.save({"state_dict": tiny.model.state_dict()}, tmp_path / "outdoor_ds.ckpt")
    assert main(["checkpoints", "import", "loftr-outdoor", str(tmp_path / "outdoor_ds.ckpt")]) == 0
    loaded = LoFTRMatcher.from_checkpoint(resolve("loftr-outdoor").path, config=tiny_config())
    for key, value in tiny.model.state_dict().items():
        assert torch.equal(loaded.model.state_dict()[key], value)


def test_full_size_runs_with_sides_cut_to_multiples_of_8():
    """The official demo runs a 1024x731 photograph at 1024x728 (no cap on the long side)."""
    (image0, image1), = _captured_inputs([(_image(0, (731, 1024)), _image(1, (100, 130)))])
    assert image0.shape[-2:] == (728, 1024) and image1.shape[-2:] == (96, 128)


def test_size_840_is_the_official_megadepth_test_size():
    assert input_size(731, 1024, "840") == (600, 840)  # 599.6 rounds to 600, then a multiple of 8
    assert input_size(400, 300, "840") == (840, 624)  # scaled up too, as the test loader does
    (image0, _), = _captured_inputs([(_image(0, (731, 1024)), _image(1, (64, 64)))], size="840")
    assert image0.shape[-2:] == (600, 840)


def test_png_input_is_what_the_official_demo_reads(tmp_path):
    """cv2 reads a colour PNG's grey with libpng's truncating weights; resize is cv2 bilinear."""
    path = _file(tmp_path, "frame.png", _colourful(0, (100, 130)))
    (ours, _), = _captured_inputs([(_decoded(path), _decoded(path))])
    assert torch.equal(ours, _official_input(path))


def test_jpeg_input_is_its_luma_plane_as_the_official_demo_reads(tmp_path):
    path = _file(tmp_path, "frame.jpg", _colourful(1, (96, 128)), quality=90)
    import cv2

    luma = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    assert not np.array_equal(np.asarray(_decoded(path).convert("L")), luma)  # the RGB round trip moves it
    (ours, _), = _captured_inputs([(_decoded(path), _decoded(path))])
    assert torch.equal(ours, _official_input(path))
    (pil, _), = _captured_inputs([(_decoded(path), _decoded(path))], grey="pil")
    assert not torch.equal(pil, ours)


def test_jpeg_luma_is_turned_upright_by_its_exif_orientation(tmp_path):
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: viewers (and cv2.imread) turn it 90 degrees
    path = _file(tmp_path, "phone.jpg", _colourful(2, (64, 96)), quality=90, exif=exif.tobytes())
    decoded = _decoded(path)
    assert decoded.size == (64, 96)
    (ours, _), = _captured_inputs([(decoded, decoded)])
    assert torch.equal(ours, _official_input(path))


def test_loftr_solvers_pass_their_input_settings():
    from adapters.core.registry import get
    from adapters.core.solver import SolverOptions

    default = get("loftr_flow").build(SolverOptions(checkpoint="tiny-random"))
    assert (default.model.size, default.model.grey) == ("full", "cv2")
    chosen = get("loftr").build(SolverOptions(checkpoint="tiny-random", settings={"size": "840", "grey": "pil"}))
    assert (chosen.model.size, chosen.model.grey) == ("840", "pil")
