"""Counting, Spatial_Relation and Object_Localization: question parsing, the rules on oracle
detections, and the tiny OWLv2 through the whole path."""

import json
import math

import numpy as np
import pytest
import torch
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionError, QuestionSource
from adapters.core.registry import get
from adapters.rules.detection import (
    count_objects,
    counting_decision,
    localization_decision,
    relation_holds,
    spatial_decision,
)
from adapters.rules.phrases import counted_object, localized_object, option_number, relation_triple, singular
from specialists.outputs import Detections


def _q(task, text, choices):
    return MCQuestion(f"val_{task}_1", task, text, choices, None, QuestionSource("t", "val"), question=text)


@pytest.mark.parametrize("text, expected", [
    ("How many blue floats are there?", "blue float"),
    ("How many black toilets are in the image?", "black toilet"),
    ("How many TVs are hung up on the wall?", "TV"),
    ("How many people can you see?", "person"),
    ("How many boxes?", "box"),
    ("How many strawberries are on the plate?", "strawberry"),
    ("Count the number of glasses in the image.", "glasses"),
])
def test_the_counted_object_is_read_and_made_singular(text, expected):
    assert counted_object(_q("Counting", text, ("0", "1", "2", "3"))) == expected


@pytest.mark.parametrize("text, expected", [
    ("Is the car beneath the cat?", ("car", "below", "cat")),
    ("Is the bed on the left side of the dining table?", ("bed", "left", "dining table")),
    ("Is the dog in front of the sofa?", ("dog", "in_front", "sofa")),
    ("Is the book on the table?", ("book", "on", "table")),
    ("Are the scissors inside the drawer?", ("scissors", "inside", "drawer")),
    ("Is the lamp next to the bed?", ("lamp", "near", "bed")),
    ("Is the cup on top of the laptop?", ("cup", "on", "laptop")),
    ("Is the person touching the horse?", ("person", "touching", "horse")),
    ("Is the tv to the right of the potted plant?", ("tv", "right", "potted plant")),
])
def test_relation_questions_are_split_into_subject_relation_object(text, expected):
    assert relation_triple(_q("Spatial_Relation", text, ("yes", "no"))) == expected


def test_text_no_rule_fits_is_an_explained_error():
    with pytest.raises(QuestionError, match="cannot read what to count"):
        counted_object(_q("Counting", "What colour is the car?", ("red", "blue")))
    with pytest.raises(QuestionError, match="no known spatial relation"):
        relation_triple(_q("Spatial_Relation", "Is the cat facing the dog?", ("yes", "no")))
    with pytest.raises(QuestionError, match="negated"):
        relation_triple(_q("Spatial_Relation", "Is the cat not on the mat?", ("yes", "no")))


def test_the_localised_object_and_numbers_in_options():
    text = ("A bounding box is an annotated rectangle surrounding an object. Given the two bounding boxes on the "
            "image, labeled by A and B, which bounding box more accurately localizes and encloses the tank top (clothing)?")
    assert localized_object(_q("Object_Localization", text, ("Box A", "Box B"))) == "tank top"
    assert [option_number(c) for c in ("3", "(C) 12", "two", "none")] == [3, 12, 2, 0]
    assert singular("wine glasses") == "wine glasses" and singular("buses") == "bus"


def _detections(boxes, scores, labels, queries):
    return Detections(torch.tensor(boxes, dtype=torch.float32), torch.tensor(scores), torch.tensor(labels), queries)


def test_counting_keeps_confident_distinct_boxes_and_picks_the_nearest_option():
    boxes = [[0, 0, 10, 10], [1, 1, 11, 11], [30, 30, 40, 40], [60, 0, 70, 10], [80, 80, 90, 90]]
    # two near-duplicates (one object), two more objects, one box under the threshold
    det = _detections(boxes, [0.9, 0.8, 0.7, 0.4, 0.05], [0, 0, 0, 0, 0], ("float",))
    assert count_objects(det, 0, 0.1) == 3
    decision = counting_decision(_q("Counting", "How many floats are there?", ("1", "2", "3", "5")), det, 0.1, "r")
    assert decision.pred == "C" and decision.details["count"] == 3


@pytest.mark.parametrize("relation, subject, obj, holds", [
    ("left", [0, 40, 20, 60], [60, 40, 80, 60], True),
    ("left", [60, 40, 80, 60], [0, 40, 20, 60], False),
    ("below", [40, 70, 60, 90], [40, 10, 60, 30], True),
    ("on", [30, 10, 50, 31], [10, 30, 90, 60], True),   # a cup resting on a table top
    ("on", [30, 70, 50, 90], [10, 30, 90, 60], False),  # under it instead
    ("inside", [40, 40, 50, 50], [20, 20, 80, 80], True),
    ("inside", [0, 0, 30, 30], [20, 20, 80, 80], False),
    ("touching", [0, 0, 20, 20], [20, 5, 40, 25], True),
    ("near", [0, 0, 20, 20], [200, 200, 220, 220], False),
])
def test_relations_from_box_geometry(relation, subject, obj, holds):
    assert (relation_holds(relation, subject, obj) > 0) == holds


def test_depth_relations_abstain_with_the_reason():
    det = _detections([[0, 0, 10, 10], [20, 0, 30, 10]], [0.9, 0.8], [0, 1], ("dog", "sofa"))
    decision = spatial_decision(_q("Spatial_Relation", "Is the dog in front of the sofa?", ("yes", "no")), det,
                                "in_front", "r")
    assert decision.abstained and "depth order" in decision.details["abstain_reason"]
    assert math.isnan(decision.scores["A"])
    assert spatial_decision(_q("Spatial_Relation", "Is the dog left of the sofa?", ("yes", "no")), det,
                            "left", "r").pred == "A"


def test_localization_picks_the_drawn_box_overlapping_the_detection():
    det = _detections([[10, 10, 50, 50], [0, 0, 5, 5]], [0.9, 0.2], [0, 0], ("fireplug",))
    q = _q("Object_Localization", "Which bounding box more accurately localizes and encloses the fireplug?",
           ("Box A", "Box B"))
    decision = localization_decision(q, det, {"A": (0, 0, 80, 80), "B": (12, 12, 48, 52)}, "r")
    assert decision.pred == "B" and decision.details["iou"]["B"] > decision.details["iou"]["A"]


def test_no_box_for_a_named_object_abstains_saying_which():
    """All boxes answer "sofa": nothing is known of the dog, so the rule declines, naming it."""
    det = _detections([[0, 0, 10, 10], [20, 0, 30, 10]], [0.9, 0.8], [1, 1], ("dog", "sofa"))
    decision = spatial_decision(_q("Spatial_Relation", "Is the dog left of the sofa?", ("yes", "no")), det, "left", "r")
    assert decision.abstained and decision.pred is None
    assert decision.details["abstain_reason"] == "the detector found no box for 'dog'"
    nothing = _detections(np.zeros((0, 4)), [], [], ("fireplug",))
    q = _q("Object_Localization", "Which bounding box more accurately localizes and encloses the fireplug?",
           ("Box A", "Box B"))
    decision = localization_decision(q, nothing, {"A": (0, 0, 80, 80), "B": (12, 12, 48, 52)}, "r")
    assert decision.abstained and decision.details["abstain_reason"] == "the detector found no box for 'fireplug'"
    # a drawn box the marker step did not find is still an error: that step broke, not the detector
    with pytest.raises(QuestionError, match="box B was not found"):
        localization_decision(q, nothing, {"A": (0, 0, 80, 80)}, "r")


def test_a_detector_finding_no_box_is_an_abstention_scored_wrong_not_an_error(tmp_path, monkeypatch):
    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
    from adapters.run.runner import RunConfig, run
    from specialists.owlv2 import Owlv2Detector

    def only_cats(self, images, queries):  # every box answers the first phrase
        return [_detections([[0, 0, 10, 10]], [0.9], [0], tuple(phrases)) for phrases in queries]

    monkeypatch.setattr(Owlv2Detector, "__call__", only_cats)
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    image = Image.fromarray(np.random.default_rng(5).integers(0, 255, (60, 90, 3), dtype=np.uint8))
    write_blink_folder(tmp_path / "blink", [BlinkRow("Spatial_Relation", 1, "Is the cat on the left of the dog?",
                                                     ("yes", "no"), "A", [image])])
    results = run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), checkpoint="tiny-random",
                            specialist=["owlv2"], progress=False))
    summary = results["tasks"]["Spatial_Relation"]
    assert (summary["n"], summary["accuracy"], summary["abstained"], summary["errors"]) == (1, 0.0, 1, 0)
    (sample,) = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert sample["status"] == "abstained" and sample["correct"] is False and sample["error"] is None
    assert sample["decision"]["details"]["abstain_reason"] == "the detector found no box for 'dog'"


def test_tiny_owlv2_boxes_are_in_image_pixels():
    from specialists.owlv2 import Owlv2Detector

    model = Owlv2Detector.tiny()
    image = Image.fromarray(np.random.default_rng(0).integers(0, 255, (48, 80, 3), dtype=np.uint8))
    (det,) = model([image], [("cat", "dog")])
    assert det.boxes.shape[1] == 4 and det.queries == ("cat", "dog")
    # scaled by the padded square's side (80): boxes may run into the padding below the image
    assert float(det.boxes.abs().max()) <= 2 * 80
    assert set(det.labels.tolist()) <= {0, 1} and bool(((det.scores >= 0) & (det.scores <= 1)).all())


def test_tiny_random_through_the_runner(tmp_path, monkeypatch):
    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
    from adapters.run.runner import RunConfig, run

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    rng = np.random.default_rng(1)

    def image():
        return Image.fromarray(rng.integers(0, 255, (60, 90, 3), dtype=np.uint8))

    rows = [BlinkRow("Counting", k, "How many dogs are there?", ("0", "1", "2", "3"), "B", [image()]) for k in (1, 2)]
    rows += [BlinkRow("Spatial_Relation", k, "Is the cat on the left of the dog?", ("yes", "no"), "A", [image()])
             for k in (1, 2)]
    write_blink_folder(tmp_path / "blink", rows)
    results = run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), checkpoint="tiny-random",
                            settings=["owlv2.threshold=0.05"], progress=False))
    assert {t: (v["specialist"], v["n"], v["errors"]) for t, v in results["tasks"].items()} == {
        "Counting": ("owlv2", 2, 0), "Spatial_Relation": ("owlv2", 2, 0)}
    samples = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert {s["decision"]["details"].get("object") for s in samples} == {"dog"}
    assert {s["decision"]["details"].get("subject") for s in samples} == {None, "cat"}


def test_grounding_dino_reads_phrases_from_one_caption():
    from specialists.grounding_dino import GroundingDinoDetector, caption

    text, spans = caption(["cat", "potted plant"])
    assert text == "cat. potted plant." and [text[a:b] for a, b in spans] == ["cat", "potted plant"]
    model = GroundingDinoDetector.tiny()
    image = Image.fromarray(np.random.default_rng(2).integers(0, 255, (60, 90, 3), dtype=np.uint8))
    (det,) = model([image], [("cat", "dog")])
    assert det.queries == ("cat", "dog") and set(det.labels.tolist()) <= {0, 1}
    assert float(det.boxes[:, 0::2].abs().max()) <= 2 * 90 and float(det.boxes[:, 1::2].abs().max()) <= 2 * 60


def test_grounding_dino_is_an_option_with_the_same_rules(tmp_path, monkeypatch):
    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
    from adapters.run.runner import RunConfig, run

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    rng = np.random.default_rng(3)
    rows = [BlinkRow("Counting", 1, "How many dogs are there?", ("0", "1", "2"), "B",
                     [Image.fromarray(rng.integers(0, 255, (60, 90, 3), dtype=np.uint8))])]
    write_blink_folder(tmp_path / "blink", rows)
    results = run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), checkpoint="tiny-random",
                            specialist=["grounding_dino"], progress=False))
    summary = results["tasks"]["Counting"]
    assert (summary["specialist"], summary["errors"], summary["rules"]) == ("grounding_dino", 0,
                                                                            ["counting.grounding_dino_count"])
    assert summary["settings"] == {"threshold": "0.35", "box_score": "all_tokens", "boxes": "as_published"}


def test_drawn_blink_boxes_reach_the_localization_rule_without_a_markers_file():
    """The solver asks the marker step for boxes A and B: BLINK's drawing is read as boxes."""
    from adapters.core.solver import SolverOptions
    from adapters.markers.blink.draw import blink_jpeg, draw_blink_boxes

    rng = np.random.default_rng(4)
    picture = rng.integers(90, 160, (375, 500, 3), dtype=np.uint8)
    drawn, _ = draw_blink_boxes(picture, {"A": (60, 50, 260, 200), "B": (200, 120, 430, 330)})
    text = "Which bounding box more accurately localizes and encloses the dog?"
    question = MCQuestion("val_Object_Localization_1", "Object_Localization", text, ("Box A", "Box B"), "A",
                          QuestionSource("t", "val"), question=text, _images=[Image.fromarray(blink_jpeg(drawn))])
    (decision,) = get("owlv2").build(SolverOptions(checkpoint="tiny-random")).decide_batch([question])
    assert not isinstance(decision, Exception), decision
    assert set(decision.details["iou"]) == {"A", "B"}


@pytest.mark.parametrize("text, expected", [
    ("Is the cat at the right side of the laptop?", ("cat", "right", "laptop")),
    ("Is the bench adjacent to the tree?", ("bench", "near", "tree")),
    ("Does the bowl contain the apple?", ("bowl", "contains", "apple")),
])
def test_vsr_phrasings(text, expected):
    assert relation_triple(_q("Spatial_Relation", text, ("yes", "no"))) == expected
    assert relation_holds("contains", [0, 0, 100, 100], [20, 20, 40, 40]) > 0


def test_plurals_ending_in_ie():
    assert [singular(w) for w in ("cookies", "movies", "strawberries", "wolves")] == ["cookie", "movie", "strawberry",
                                                                                     "wolf"]
