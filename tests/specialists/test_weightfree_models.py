"""Weight-free specialists on inputs whose answer is known: Poisson/Retinex, SIFT, relative pose."""

import cv2
import numpy as np
import pytest
from PIL import Image

from adapters.datasets.synthetic.generators import multi_view
from adapters.markers.draw.textures import TextureSource, procedural_texture
from adapters.rules.multiview import assumed_intrinsics, camera_motion
from specialists.retinex import Retinex, poisson_reintegrate
from specialists.sift import SiftMatcher


@pytest.mark.parametrize("shape", [(36, 50), (37, 51), (36, 51)])
def test_poisson_reintegration_is_exact(shape):
    u = np.random.default_rng(0).normal(size=shape).cumsum(0).cumsum(1) * 0.01
    gx, gy = np.zeros_like(u), np.zeros_like(u)
    gx[:, :-1], gy[:-1] = np.diff(u, axis=1), np.diff(u, axis=0)
    r = poisson_reintegrate(gx, gy)
    assert np.allclose(r - r.mean(), u - u.mean(), atol=1e-9)


def test_retinex_separates_albedo_from_smooth_shading():
    """Two patches of equal albedo under different light stay equal; a darker patch stays darker."""
    h, w = 120, 160
    albedo = np.full((h, w, 3), 0.5)
    albedo[20:60, 20:60] = 0.2  # dark patch, brightly lit
    albedo[70:110, 100:140] = 0.5 * 1.0  # same albedo as background, in shadow
    yy, xx = np.mgrid[0:h, 0:w]
    shading = 0.3 + 0.7 * (1 - xx / w)  # bright left, dark right: smooth
    image = ((albedo * shading[..., None]) ** (1 / 2.2) * 255).astype(np.uint8)
    layers = Retinex()(image)
    bright_bg, shadow_bg = layers.luminance_at(10, 80, 2), layers.luminance_at(150, 60, 2)
    dark_patch = layers.luminance_at(40, 40, 2)
    assert abs(np.log(bright_bg / shadow_bg)) < np.log(1.10)  # "about the same" by the IIW rule
    assert bright_bg / dark_patch > 2.0
    # the raw image says the opposite for the equal pair: the shadowed background looks darker
    assert image[80, 10].mean() > 1.5 * image[60, 150].mean()


def test_sift_matches_follow_a_known_homography():
    rng = np.random.default_rng(1)
    image = procedural_texture(rng, 240, 320)
    H = np.array([[0.95, 0.08, 12.0], [-0.05, 1.02, 6.0], [1e-4, 0, 1.0]])
    warped = cv2.warpPerspective(image, H, (320, 240))
    matches = SiftMatcher()(Image.fromarray(image), Image.fromarray(warped))
    assert len(matches) >= 20
    projected = cv2.perspectiveTransform(matches.keypoints0.numpy().reshape(-1, 1, 2).astype(np.float64), H)
    error = np.linalg.norm(projected.reshape(-1, 2) - matches.keypoints1.numpy(), axis=1)
    assert np.median(error) < 1.0


def test_essential_sign_convention_on_rendered_orbits():
    """The second camera's sideways direction recovered from matches equals the rendered motion."""
    matcher, right = SiftMatcher(), 0
    for k in range(6):
        rng = np.random.default_rng([3, k])
        draft = multi_view(rng, TextureSource(rng))
        matches = matcher(*draft.images)
        centre, _ = camera_motion(matches, assumed_intrinsics(320, 240))
        right += np.sign(centre[0]) == np.sign(draft.truth["sideways_in_camera1"])
    assert right >= 5


def test_sift_on_a_huge_photograph_works_at_a_bounded_size(monkeypatch):
    """A 6000x4000 pair is matched at a long side of 2000 (the memory bound), and the matches
    come back in the photograph's own pixels: a known 60 px shift reads as 60 px."""
    rng = np.random.default_rng(0)
    small = cv2.resize(procedural_texture(rng, 400, 600), (6060, 4000), interpolation=cv2.INTER_CUBIC)
    first, second = small[:, :6000], small[:, 60:6060]  # second = first moved 60 px left
    seen = []
    matcher = SiftMatcher()
    original = matcher._sift.detectAndCompute
    monkeypatch.setattr(matcher, "_sift", type("Recording", (), {
        "detectAndCompute": staticmethod(lambda grey, mask: seen.append(grey.shape) or original(grey, mask))})())
    matches = matcher(first, second)
    assert seen == [(1333, 2000), (1333, 2000)]
    dx = (matches.keypoints1[:, 0] - matches.keypoints0[:, 0]).median()
    assert len(matches) > 50 and abs(float(dx) + 60) < 3
    assert float(matches.keypoints0[:, 0].max()) > 4000  # full-size coordinates, not working-size ones


def test_retinex_on_a_huge_image_keeps_its_layers_small_and_reads_image_pixels():
    rgb = np.full((3000, 4500, 3), 200, np.uint8)
    rgb[:, 2250:] = 60  # the right half has the darker surface
    layers = Retinex()(rgb)
    assert tuple(layers.albedo.shape) == (3, 1000, 1500) and layers.image_size == (3000, 4500)
    left, right = layers.reflectance_at(1000, 1500, 6), layers.reflectance_at(4000, 1500, 6)
    assert right < left / 3
    with pytest.raises(ValueError, match="outside the 4500x3000 image"):
        layers.reflectance_at(4600, 10)


def test_working_size_pixels_map_to_the_image_pixels_they_average():
    """INTER_AREA averages image pixels 300-302 into working pixel 100 (factor 3): its centre,
    301, is where `_to_image` puts that working pixel, in x and (with its own factor) in y."""
    from specialists.sift import _gray, _to_image

    image = np.zeros((4000, 6000, 3), np.uint8)
    image[600:603, 300:303] = 255
    grey, (fx, fy) = _gray(image, 2000)
    assert grey.shape == (1333, 2000) and fx == 3.0 and fy == pytest.approx(4000 / 1333)
    y, x = np.unravel_index(int(np.argmax(grey)), grey.shape)
    (mx, my), = _to_image([(float(x), float(y))], (fx, fy))
    assert abs(mx - 301) <= 0.5 and abs(my - 601) <= fy / 2
