"""Jigsaw's weight-free seam rule: the hole found, the smoother seam chosen, any named corner."""

import numpy as np
import pytest
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionError, QuestionSource
from adapters.core.registry import get
from adapters.core.solver import SolverOptions
from adapters.datasets.synthetic.generators import JIGSAW_QUESTION, jigsaw
from adapters.markers.draw.textures import TextureSource, procedural_texture
from adapters.rules.jigsaw import find_hole, hole_from_pieces, missing_corner, seam_cost

CHOICES = ("the second image", "the third image")


def _question(images, gold=None, text=JIGSAW_QUESTION):
    return MCQuestion("val_Jigsaw_1", "Jigsaw", text, CHOICES, gold, QuestionSource("t", "val"), question=text,
                      _images=[Image.fromarray(np.ascontiguousarray(i)) for i in images])


def _scene(seed=0, height=120, width=160):
    """A smooth picture (blurred texture): local continuity is what the rule relies on."""
    import cv2

    return cv2.GaussianBlur(procedural_texture(np.random.default_rng(seed), height, width), (0, 0), 2)


def test_generated_questions_are_answered_and_their_holes_found():
    rule = get("seam").build(SolverOptions())
    for number in range(30):
        rng = np.random.default_rng([0, 4, number])
        draft = jigsaw(rng, TextureSource(rng))
        decision = rule.decide(_question(draft.images, draft.answer))
        assert decision.pred == draft.answer, (number, decision.details)
        assert decision.details["hole_xywh_mirrored"] == draft.truth["hole"]


def test_the_dark_corner_search_keeps_dark_picture_content_out_of_the_hole():
    """A dark stripe runs along the hole's left edge for a third of its height: a row- or
    column-wise dark run would take it in; the best-separating rectangle does not."""
    picture = _scene()
    picture[70:, 100:] = 0  # the hole: 50 rows x 60 columns
    picture[70:87, 60:100] = 5  # dark content touching the hole from the left
    assert find_hole(picture) == (100, 70)
    with pytest.raises(QuestionError, match="no blacked-out"):
        find_hole(_scene(1))


def test_pieces_cut_at_the_hole_size_place_it_exactly():
    picture = _scene()
    picture[70:, 100:] = 0
    assert hole_from_pieces(picture, [np.zeros((50, 60, 3), np.uint8)] * 2) == (100, 70)
    assert hole_from_pieces(picture, [np.zeros((50, 60, 3), np.uint8), np.zeros((40, 60, 3), np.uint8)]) is None
    assert hole_from_pieces(_scene(1), [np.zeros((50, 60, 3), np.uint8)] * 2) is None  # that corner is not dark


def test_the_true_piece_has_the_smoother_seam_even_resized():
    picture = _scene(2)
    truth = picture[70:, 100:].copy()
    wrong = picture[0:50, 0:60].copy()  # same picture, same colours, wrong place
    holed = picture.copy()
    holed[70:, 100:] = 0
    big_truth, big_wrong = (np.asarray(Image.fromarray(p).resize((90, 75), Image.BICUBIC)) for p in (truth, wrong))
    assert seam_cost(holed, big_truth, 100, 70) < seam_cost(holed, big_wrong, 100, 70)
    decision = get("seam").build(SolverOptions()).decide(_question([holed, big_wrong, big_truth], "B"))
    assert decision.pred == "B" and decision.details["hole_from"] == "dark corner"


@pytest.mark.parametrize("corner, bottom, right", [("upper left", False, False), ("top-right", False, True),
                                                   ("lower right", True, True), ("bottom left", True, False)])
def test_a_named_corner_is_mirrored_to_the_lower_right(corner, bottom, right):
    text = JIGSAW_QUESTION.replace("lower right", corner)
    picture = _scene(3)
    flip = (slice(None, None, 1 if bottom else -1), slice(None, None, 1 if right else -1))
    mirrored = picture[flip]  # the picture as seen with the named corner at the lower right
    truth, wrong = mirrored[70:, 100:][flip], _scene(4)[:50, :60]
    holed = mirrored.copy()
    holed[70:, 100:] = 0
    question = _question([holed[flip], truth, wrong], "A", text)
    assert missing_corner(question) == (bottom, right)
    decision = get("seam").build(SolverOptions()).decide(question)
    assert decision.pred == "A" and decision.details["corner"] == corner.replace("top-", "upper ").replace(
        "bottom", "lower")


def test_too_few_images_or_an_option_naming_no_image_is_explained():
    rule = get("seam").build(SolverOptions())
    with pytest.raises(QuestionError, match="needs the picture and two pieces"):
        rule.decide(_question([_scene()] * 2))
    bad = MCQuestion("val_Jigsaw_2", "Jigsaw", JIGSAW_QUESTION, ("left", "right"), None, QuestionSource("t", "val"),
                     question=JIGSAW_QUESTION, _images=[Image.fromarray(_scene())] * 3)
    with pytest.raises(QuestionError, match="names no image"):
        rule.decide(bad)
