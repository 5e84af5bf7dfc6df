"""The marker renderer (what synthetic data and the parser's tests draw with) and the label reader."""

import numpy as np
import pytest
from PIL import Image

from adapters.markers.draw.fonts import available_fonts, font_by_name, text_mask
from adapters.markers.draw.render import MarkerStyle, draw_boxes, draw_points, draw_points_layout
from adapters.markers.general.nets.glyphs import HELD_OUT_FONTS, GlyphClassifier, default_classifier


def grey(h=120, w=160):
    return np.full((h, w, 3), 128, np.uint8)


def test_fonts_always_include_hershey_and_pillow():
    names = [f.name for f in available_fonts()]
    assert {"hershey-simplex", "hershey-duplex", "hershey-complex", "pil-default"} <= set(names)
    with pytest.raises(ValueError, match="unknown label font"):
        font_by_name("comic-sans-9000")


@pytest.mark.parametrize("font", ["hershey-simplex", "pil-default", "hershey-complex"])
def test_text_mask_has_the_requested_cap_height(font):
    mask = text_mask("E", font_by_name(font), 14.0)
    assert abs(mask.shape[0] - 14) <= 2  # E has no descender: ink height = cap height


def test_ring_is_centred_on_the_point_at_subpixel_precision():
    style = MarkerStyle(colour=(255, 0, 0), radius=9, ring_width=2, side="right")
    out = draw_points(grey(), {"A": (50.3, 60.7)}, style)
    red = (out[..., 0] > 180) & (out[..., 1] < 90)
    ys, xs = np.nonzero(red)
    ring = np.hypot(xs - 50.3, ys - 60.7) < 13  # the ring only, not the label to its right
    assert abs(xs[ring].mean() - 50.3) < 0.4 and abs(ys[ring].mean() - 60.7) < 0.4
    assert red[:, 62:].any()  # the label is to the right of the ring


def test_pil_in_pil_out_and_input_untouched():
    image = Image.fromarray(grey())
    out = draw_points(image, {"A": (40, 40)}, MarkerStyle())
    assert isinstance(out, Image.Image) and np.asarray(image).max() == 128


@pytest.mark.parametrize("side", ["left", "top", "bottom-right"])
def test_label_sits_on_the_requested_side(side):
    style = MarkerStyle(side=side, polarity="box", radius=8)
    _, drawn = draw_points_layout(grey(), {"A": (80, 60)}, style)
    x0, y0, x1, y1 = drawn[0].rect
    cy = (y0 + y1) / 2
    if "left" in side:
        assert x1 <= 80 - 8
    if "top" in side:
        assert y1 <= 60 - 8
    if "right" in side:
        assert x0 >= 80 + 8 / np.sqrt(2) - 1
    if side in ("left",):
        assert abs(cy - 60) <= 1


def test_label_flips_inside_the_image_near_the_border():
    _, drawn = draw_points_layout(grey(), {"A": (150, 60)}, MarkerStyle(side="right", radius=6))
    assert drawn[0].rect[2] <= 160


def test_box_polarity_draws_a_dark_box_with_light_text():
    style = MarkerStyle(polarity="box", box_colour=(0, 0, 0), text_colour=(255, 255, 255), label_height=12)
    out, drawn = draw_points_layout(grey(), {"B": (60, 60)}, style)
    x0, y0, x1, y1 = drawn[0].rect
    patch = out[y0:y1, x0:x1]
    assert (patch.max(axis=2) < 20).mean() > 0.4 and (patch.min(axis=2) > 200).any()


def test_boxes_are_outlined():
    out = draw_boxes(grey(), {"A": (30, 40, 90, 100)}, MarkerStyle(colour=(0, 255, 0), ring_width=2))
    assert out[70, 30, 1] > 200 and out[70, 60, 1] == 128  # edge drawn, inside untouched


def test_invalid_style_is_a_clear_error():
    with pytest.raises(ValueError, match="side"):
        MarkerStyle(side="diagonal")
    with pytest.raises(ValueError, match="polarity"):
        MarkerStyle(polarity="neon")


def test_random_style_is_deterministic():
    a = MarkerStyle.random(np.random.default_rng(3))
    b = MarkerStyle.random(np.random.default_rng(3))
    assert a == b and 5 <= a.radius <= 15


def test_glyph_reader_never_trained_on_held_out_fonts():
    assert not set(default_classifier().fonts) & set(HELD_OUT_FONTS)


@pytest.mark.parametrize("font", HELD_OUT_FONTS)
def test_glyph_reader_reads_held_out_fonts(font):
    reader = default_classifier()
    for text in ("A", "B", "C", "D", "E", "REF"):
        for cap in (10.0, 13.0, 16.0):
            assert reader.read(text_mask(text, font_by_name(font), cap)).label == text, (text, cap)


def test_glyph_reader_rejects_other_letters():
    reader = GlyphClassifier(fonts=("hershey-simplex", "hershey-duplex"))
    for text in ("K", "X", "7"):
        assert reader.read(text_mask(text, font_by_name("hershey-simplex"), 14.0)).label is None
