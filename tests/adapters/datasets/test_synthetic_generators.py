"""The synthetic generators: answers follow from the construction, deterministically."""

import numpy as np
import pytest

from adapters.datasets.synthetic.generators import (
    IIW_DELTA,
    multi_view,
    relative_depth,
    relative_reflectance,
    visual_correspondence,
)
from adapters.datasets.synthetic.scene3d import look_at, random_scene, render
from adapters.markers.draw.textures import TextureSource


def _draft(generator, k, images=None):
    rng = np.random.default_rng([7, k])
    return generator(rng, TextureSource(rng, images))


def test_same_seed_same_question():
    a, b = _draft(relative_depth, 1), _draft(relative_depth, 1)
    assert np.array_equal(a.images[0], b.images[0]) and a.points == b.points and a.answer == b.answer
    assert not np.array_equal(a.images[0], _draft(relative_depth, 2).images[0])


@pytest.mark.parametrize("k", range(4))
def test_visual_correspondence_truth(k):
    d = _draft(visual_correspondence, k)
    labels = d.points[1]
    true = np.array(d.truth["true_match"])
    assert np.allclose(labels[d.answer], true)
    xy = np.array(list(labels.values()))
    gaps = np.linalg.norm(xy[:, None] - xy[None], axis=-1)[np.triu_indices(4, 1)]
    assert gaps.min() >= 20
    H = np.array(d.truth["homography"])
    ref = np.array([*d.points[0]["REF"], 1.0])
    mapped = H @ ref
    assert np.allclose(mapped[:2] / mapped[2], true, atol=1e-6)


@pytest.mark.parametrize("k", range(3))
def test_relative_depth_truth(k):
    d = _draft(relative_depth, k)
    da, db = d.truth["depth_A"], d.truth["depth_B"]
    assert max(da, db) / min(da, db) >= 1.3
    assert d.answer == ("A" if da < db else "B")


def test_reflectance_labels_follow_iid_rule_and_cover_all_answers():
    answers = set()
    for k in range(12):
        d = _draft(relative_reflectance, k)
        la, lb = d.truth["albedo_luminance_A"], d.truth["albedo_luminance_B"]
        expected = "A" if lb / la > 1 + IIW_DELTA else "B" if la / lb > 1 + IIW_DELTA else "C"
        assert d.answer == expected
        answers.add(d.answer)
    assert answers == {"A", "B", "C"}


def test_render_depth_matches_projection():
    """A point rendered at pixel (u, v) with depth z back-projects onto the scene's surfaces."""
    rng = np.random.default_rng(0)
    scene = random_scene(rng, TextureSource(rng).sample, n_objects=(1, 2))
    camera = look_at(np.array([0.0, 3.0, -7.0]), np.array([0.0, 0.4, 0.0]), 300.0, 160, 120)
    _, depth = render(scene, camera, supersample=1)
    v, u = 110, 80  # bottom centre: the ground plane in front of the camera
    ray = np.linalg.inv(camera.K) @ np.array([u + 0.5, v + 0.5, 1.0])
    world = camera.centre + camera.R.T @ (ray * depth[v, u])
    assert abs(world[1]) < 1e-6  # on the ground Y = 0
    assert np.allclose(camera.project(world[None])[0], [u + 0.5, v + 0.5], atol=1e-6)


def test_multi_view_label_is_the_sideways_motion():
    for k in range(3):
        d = _draft(multi_view, k)
        assert d.answer == ("A" if d.truth["sideways_in_camera1"] < 0 else "B")
        assert 8 <= abs(d.truth["orbit_degrees"]) <= 25


def test_photo_textures(tmp_path):
    from PIL import Image

    Image.fromarray(np.random.default_rng(0).integers(0, 255, (100, 150, 3), dtype=np.uint8)).save(tmp_path / "p.png")
    source = TextureSource(np.random.default_rng(0), tmp_path)
    assert source.kind == "photos" and source.sample(40, 60).shape == (40, 60, 3)
    with pytest.raises(ValueError, match="no readable photos"):
        TextureSource(np.random.default_rng(0), tmp_path / "..")  # holds only folders
