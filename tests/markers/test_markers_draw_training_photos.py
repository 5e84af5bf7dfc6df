"""The training scenes' photographs: scikit-image's sample images, tinted, never the held-out ones the tests
draw benchmark images over."""

import numpy as np
import pytest
from marker_oracles import trained_and_continued

from adapters.markers.draw.held_out_photos import HELD_OUT_PHOTOS, held_out_photos
from adapters.markers.draw.scenes import box_training_scene, load_photos, photos_warning, training_scene
from adapters.markers.draw.training_photos import TRAINING_PHOTOS, tinted, training_photos
from adapters.markers.general.nets.centre_finder import CentreFinder
from adapters.markers.general.nets.corner_finder import CornerFinder
from adapters.markers.general.nets.corner_reader import CornerReader
from adapters.markers.general.nets.patch_reader import PatchReader
from train.markers_corner_reader import main as train_corner_reader
from train.markers_corners import main as train_corner_finder
from train.markers_finder import main as train_centre_finder
from train.markers_reader import main as train_main


def test_training_photos_load_as_rgb_and_are_not_the_held_out_ones():
    photos, held_out = training_photos(), held_out_photos()
    assert len(photos) == len(TRAINING_PHOTOS) and len(held_out) == len(HELD_OUT_PHOTOS)
    for photo in (*photos, *held_out):
        assert photo.dtype == np.uint8 and photo.ndim == 3 and photo.shape[2] == 3
        assert min(photo.shape[:2]) >= 240  # a 320x240 scene's crop fits inside
    # the tests' benchmark images are drawn over the held-out photographs: training never sees them
    assert not set(HELD_OUT_PHOTOS) & set(TRAINING_PHOTOS)
    for photo in photos:
        assert not any(h.shape == photo.shape and np.array_equal(h, photo) for h in held_out)
    assert not np.array_equal(*held_out)  # two views, not one image twice


def test_benchmarks_warn_when_no_photograph_is_found(tmp_path):
    # without their photographs (scenes.PHOTOS) the benchmarks draw another sample: say so, naming the folder
    missing = tmp_path / "images"
    warning = photos_warning(load_photos(missing), missing)
    assert warning is not None and str(missing) in warning and "differs" in warning
    (missing).mkdir()
    (missing / "notes.txt").write_text("not an image")
    assert load_photos(missing) == [] and photos_warning([], missing) is not None
    assert photos_warning([np.zeros((4, 4, 3), np.uint8)], missing) is None


def test_tint_gives_grey_photos_colour_and_follows_the_seed():
    grey = np.repeat(np.arange(256, dtype=np.uint8)[None, :, None], 3, axis=2).repeat(4, axis=0)  # (4, 256, 3) ramp
    a, b = tinted(np.random.default_rng(1), grey), tinted(np.random.default_rng(1), grey)
    assert a.shape == grey.shape and a.dtype == np.uint8 and np.array_equal(a, b)
    assert np.abs(a[..., 0].astype(int) - a[..., 1]).max() > 5  # the channels differ now


def _uniform_background(image: np.ndarray) -> bool:
    """Most pixels within 3 grey levels of the median colour: the flat test photo, not a procedural one."""
    return float((np.abs(image.astype(int) - np.median(image.reshape(-1, 3), axis=0)).max(axis=2) <= 3).mean()) > 0.6


@pytest.mark.parametrize("scene", [training_scene, box_training_scene], ids=["points", "boxes"])
def test_training_scenes_cut_backgrounds_from_the_photos_when_given(scene):
    flat = (np.full((300, 400, 3), 90, np.uint8),)  # tints to one flat colour: easy to recognise
    fonts = ["hershey-simplex"]
    with_photos = sum(_uniform_background(scene(np.random.default_rng(s), fonts, photos=flat).image)
                      for s in range(40))
    without = sum(_uniform_background(scene(np.random.default_rng(s), fonts).image) for s in range(40))
    assert without == 0
    assert 6 <= with_photos <= 28  # 2 in 5 of the backgrounds (16 expected)


@pytest.mark.parametrize("train, network, size", [
    (train_main, PatchReader, ["--batch", "8", "--width", "8"]),
    (train_corner_finder, CornerFinder, ["--batch", "2", "--width", "4"]),
    (train_corner_reader, CornerReader, ["--batch", "8", "--width", "8"]),
    (train_centre_finder, CentreFinder, ["--batch", "2", "--width", "4"]),
], ids=["patch reader", "corner finder", "corner reader", "centre finder"])
def test_training_records_the_photos_it_trained_on(tmp_path, train, network, size):
    trained, _ = trained_and_continued(train, network, tmp_path / "net.safetensors", size)
    assert trained.record["photos"]["images"] == list(TRAINING_PHOTOS) and trained.record["photos"]["scikit_image"]
    plain, _ = trained_and_continued(train, network, tmp_path / "plain.safetensors", [*size, "--no-photos"])
    assert plain.record["photos"] is None
