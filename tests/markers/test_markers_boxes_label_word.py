"""boxes.label_word: the word written at a drawn box's top-left corner, read by the glyph classifier as a
second opinion on the corner finder's label."""

import cv2
import numpy as np
import pytest

from adapters.markers.colour import to_lab
from adapters.markers.draw.fonts import available_fonts
from adapters.markers.draw.render import MarkerStyle, draw_boxes
from adapters.markers.general.boxes.fit import fit_outline
from adapters.markers.general.boxes.label_word import corner_words, read_corner
from adapters.markers.general.nets.glyphs import default_classifier

BOX = (40.3, 60.6, 170.2, 180.4)


def calm(seed=13, h=220, w=280):
    return np.clip(np.random.default_rng(seed).normal(150, 8, (h, w, 3)), 0, 255).astype(np.uint8)


def reading(image, box=BOX, labels=tuple("ABCDE")):
    lab = to_lab(image)
    outline = fit_outline(lab, box)
    assert outline is not None
    return read_corner(lab, outline, labels, default_classifier())


@pytest.mark.parametrize("polarity", ["colour", "box"])
def test_every_label_in_every_font_reads_as_itself(polarity):
    wrong = []
    for font in (f.name for f in available_fonts()):
        for height in (9, 16):
            for label in "ABCDE":
                style = MarkerStyle(ring_width=2, polarity=polarity, label_height=height, font=font)
                found = reading(draw_boxes(calm(), {label: BOX}, style))
                if found is None or found.nearest != label or found.contradicts(label):
                    wrong.append((font, height, label, found))
    assert not wrong


@pytest.mark.parametrize("letter", ["F", "K", "G", "3"])
def test_another_letter_contradicts_every_label(letter):
    found = reading(draw_boxes(calm(), {letter: BOX}, MarkerStyle(ring_width=2, polarity="box", label_height=12)))
    assert found.nearest == letter and all(found.contradicts(label) for label in "ABCDE")


def test_a_label_in_the_boxs_colour_written_inside_the_box_is_not_read():
    """No room above (the box starts 3 px from the top): the label is inside, on the left side's
    stroke, which is dropped with the side; what is left of it is not read at all."""
    box = (40.3, 3.4, 170.2, 120.4)
    image = draw_boxes(calm(), {"B": box}, MarkerStyle(ring_width=2, label_height=12))
    assert corner_words(to_lab(image), fit_outline(to_lab(image), box)) == []


def test_a_piece_of_another_boxs_side_contradicts_nothing():
    """Another box's side crossing the top side where the label would be reads as a line ("I"),
    which a label's stem cut off by a line reads as too: it takes no label away."""
    image = calm()
    cv2.rectangle(image, (40, 61), (170, 180), (255, 0, 0), 2, cv2.LINE_AA)
    cv2.line(image, (47, 48), (47, 100), (255, 0, 0), 2, cv2.LINE_AA)  # crosses the top side 7 px in
    found = reading(image, (40.0, 61.0, 170.0, 180.0))
    assert found.nearest == "I" and not any(found.contradicts(label) for label in "ABCDE")


@pytest.mark.parametrize("label", list("ABCDE"))
def test_a_label_on_a_dark_box_written_inside_the_box_is_read(label):
    """The dark box covers the strokes where the label is written inside, so nothing is cut off."""
    box = (40.3, 3.4, 170.2, 120.4)
    found = reading(draw_boxes(calm(), {label: box}, MarkerStyle(ring_width=2, polarity="box", label_height=12)), box)
    assert found.nearest == label and found.confirms(label)
