"""CV-Bench's rules: the drawn outlines found by colour, the marked objects read from the question,
Relation, Depth and Distance on fixture scenes with known answers, and Depth Anything's box
statistics and back-projection on oracle disparity maps."""

from __future__ import annotations

import hashlib
import io
import math

import cv2
import numpy as np
import pytest
import torch
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.core.registry import get
from adapters.core.solver import SolverOptions
from adapters.datasets.cv_bench.reader import CvBenchReader
from adapters.datasets.synthetic.cv_bench_release import write_cv_bench_release
from adapters.rules.coloured_boxes import find_outline_box
from adapters.rules.cv_bench import relation_decision
from adapters.rules.cv_bench_depth import back_project, box_disparity
from adapters.rules.marked_objects import mentions, relation_pair
from specialists.outputs import DisparityMap

RELATION = ("Considering the relative positions of the cup (annotated by the red box) and the chair (annotated by "
            "the blue box) in the image provided, where is the cup (annotated by the red box) located with respect "
            "to the chair (annotated by the blue box)?")


def _question(task, text, choices, image=None, meta=None, gold="A"):
    image = image if image is not None else np.full((100, 160, 3), 128, np.uint8)
    return MCQuestion("cv_bench_1", task, text, choices, gold, QuestionSource("cv-bench", "test"), question=text,
                      meta={"source": "COCO", **(meta or {})}, _image_loader=lambda: [Image.fromarray(image)])


def _textured(seed=0):
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(120, 25, (120, 200, 3)), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    root = tmp_path_factory.mktemp("cvb")
    rows = write_cv_bench_release(root, 10, seed=5)
    reader = CvBenchReader(root)
    questions = {task: list(reader.questions(task)) for task in reader.tasks}
    return rows, questions


# --- outlines and marked objects ------------------------------------------------------------------


def _drawn_extent(corner0, corner1, thickness):
    """The outer edge (x0, y0, x1, y1; x1, y1 exclusive) of the pixels OpenCV draws for a rectangle."""
    canvas = np.zeros((120, 200), np.uint8)
    cv2.rectangle(canvas, corner0, corner1, 255, thickness)
    ys, xs = np.nonzero(canvas)
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


def test_outlines_are_found_by_colour_and_filled_shapes_passed_over():
    image = _textured()
    cv2.rectangle(image, (20, 30), (69, 79), (255, 0, 0), 2)
    cv2.rectangle(image, (120, 20), (150, 50), (230, 10, 10), -1)  # a filled red object
    cv2.rectangle(image, (100, 70), (179, 109), (0, 0, 255), 3)
    red = _drawn_extent((20, 30), (69, 79), 2)
    assert find_outline_box(image, "red") == red
    assert find_outline_box(image, "blue") == _drawn_extent((100, 70), (179, 109), 3)
    assert find_outline_box(image, "green") is None
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=80)
    jpeg = np.asarray(Image.open(buffer).convert("RGB"))
    assert np.allclose(find_outline_box(jpeg, "red"), red, atol=2)


def test_marked_objects_are_read_from_cv_benchs_wording():
    relation = _question("CV_Bench_Relation", RELATION, ("left", "right"))
    assert [(m.name, m.colour) for m in mentions(relation)] == [("cup", "red"), ("chair", "blue")]
    distance = _question("CV_Bench_Distance", "Which object is closer to the traffic cone (highlighted by a red box), "
                         "the motorcycle (highlighted by a blue box) or the bus (highlighted by a green box)?",
                         ("motorcycle", "bus"))
    assert [(m.name, m.colour) for m in mentions(distance)] == [("traffic cone", "red"), ("motorcycle", "blue"),
                                                                ("bus", "green")]


def test_the_subject_is_the_object_after_where_is_even_when_two_share_a_name():
    text = ("Considering the relative positions of the chair (annotated by the blue box) and the chair (annotated by "
            "the red box), where is the chair (annotated by the red box) located with respect to the chair "
            "(annotated by the blue box)?")
    image = _textured()
    cv2.rectangle(image, (140, 40), (179, 79), (255, 0, 0), 2)  # red, on the right
    cv2.rectangle(image, (10, 40), (49, 79), (0, 0, 255), 2)  # blue, on the left
    question = _question("CV_Bench_Relation", text, ("left", "right"), image, gold="B")
    subject, reference = relation_pair(question, [])  # no marks known: by name
    assert subject.name == reference.name == "chair"
    decision = relation_decision(question, "relation.marked_boxes")
    assert decision.pred == "B" and decision.details["subject"]["colour"] == "red"
    assert decision.details["subject"]["box_from"] == "drawn"


# --- Relation ----------------------------------------------------------------------------------------------


def test_relation_from_the_drawn_boxes_answers_the_fixture(release):
    _, questions = release
    solver = get("marked_box_relation").build(SolverOptions())
    decisions = [solver.decide(q) for q in questions["CV_Bench_Relation"]]
    assert all(d.pred == q.gold for d, q in zip(decisions, questions["CV_Bench_Relation"]))
    assert {d.details["subject"]["box_from"] for d in decisions} == {"drawn"}
    assert {q.choices for q in questions["CV_Bench_Relation"]} == {("left", "right"), ("above", "below")}


def test_the_rows_bbox_wins_over_the_drawing_and_a_missing_box_abstains_by_name():
    image = _textured()
    cv2.rectangle(image, (10, 40), (49, 79), (255, 0, 0), 2)  # the red (cup) drawn on the left
    cv2.rectangle(image, (140, 40), (179, 79), (0, 0, 255), 2)
    drawn = _question("CV_Bench_Relation", RELATION, ("left", "right"), image)
    assert relation_decision(drawn, "r").pred == "A"
    # the row's boxes say the cup is on the right: the dataset's boxes are used
    given = _question("CV_Bench_Relation", RELATION, ("left", "right"), image,
                      meta={"bbox": [[150, 40, 180, 80], [10, 40, 50, 80]]})
    decision = relation_decision(given, "r")
    assert decision.pred == "B" and decision.details["subject"]["box_from"] == "dataset"
    # a bbox of the wrong count is not used, and the decision says so
    odd = _question("CV_Bench_Relation", RELATION, ("left", "right"), image, meta={"bbox": [[150, 40, 180, 80]]})
    assert relation_decision(odd, "r").details["bbox_unused"] == "bbox lists 1 box(es) for 2 marked object(s)"
    bare = _question("CV_Bench_Relation", RELATION, ("left", "right"), _textured())
    decision = relation_decision(bare, "r")
    assert decision.abstained and "no box for 'cup' or 'chair'" in decision.details["abstain_reason"]
    # a detector's boxes fill in for the missing marks
    filled = relation_decision(bare, "r", detected=((150.0, 10.0, 190.0, 50.0), (20.0, 10.0, 60.0, 50.0)))
    assert filled.pred == "B" and filled.details["reference"]["box_from"] == "detector"


# --- Depth and Distance, weight-free ---------------------------------------------------------------------


def test_box_bottom_answers_ground_plane_depth(release):
    _, questions = release
    solver = get("box_bottom").build(SolverOptions())
    for question in questions["CV_Bench_Depth"]:
        decision = solver.decide(question)
        assert decision.pred == question.gold and decision.rule == "depth.lower_box_bottom"
        bottoms = decision.details["box_bottom"]
        assert bottoms[decision.pred] == max(bottoms.values())


def test_image_distance_picks_the_option_nearest_the_anchor_in_pixels(release):
    rows, questions = release
    solver = get("image_distance").build(SolverOptions())
    by_idx = {f"cv_bench_{r['idx']}": r for r in rows}
    right = 0
    for question in questions["CV_Bench_Distance"]:
        anchor, a, b = (o["box"] for o in by_idx[question.idx]["truth"]["objects"])
        centre = lambda box: ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        expected = "A" if math.dist(centre(a), centre(anchor)) < math.dist(centre(b), centre(anchor)) else "B"
        decision = solver.decide(question)
        assert decision.pred == expected and decision.details["anchor"]["box_from"] == "dataset"
        right += decision.pred == question.gold
    assert right < len(questions["CV_Bench_Distance"])  # image distance is not 3D distance: a baseline


# --- Depth Anything inside the boxes ---------------------------------------------------------------------


def test_box_statistics_on_a_hand_made_map():
    values = torch.full((40, 40), 1.0)
    values[8:32, 8:32] = 5.0  # the box 8-32: its border ring (outline, background) at 5,
    values[14:26, 14:26] = 2.0  # its central half at 2
    disparity = DisparityMap(values)
    box = (8.0, 8.0, 32.0, 32.0)
    assert box_disparity(disparity, box, "centre_median") == 2.0
    assert box_disparity(disparity, box, "box_median") == 5.0
    assert box_disparity(disparity, box, "centre_point") == 2.0
    # clipped to the map
    assert box_disparity(disparity, (30.0, 30.0, 60.0, 60.0), "box_median") == float(values[30:, 30:].median())
    with pytest.raises(Exception, match="lies outside the 40x40 image"):
        box_disparity(disparity, (50.0, 50.0, 60.0, 60.0), "box_median")


def test_back_projection_by_hand():
    # 200 x 100 image, fov 90: f = 100; centre (150, 50), disparity 0.5 -> z = 2, X = (150 - 100) * 2 / 100
    point = back_project((140.0, 40.0, 160.0, 60.0), 0.5, (200, 100), 90.0)
    assert point == pytest.approx([1.0, 0.0, 2.0])
    with pytest.raises(Exception, match="disparity 0 in the box of 'lamp': not positive"):
        back_project((0, 0, 1, 1), 0.0, (200, 100), 90.0, "'lamp'")


class _OracleDepth:
    """The fixture's true disparity for each of its images (as a Depth Anything wrapper is called)."""

    def __init__(self, rows):
        self.maps = {hashlib.sha1(r["pixels"].tobytes()).hexdigest(): r["truth"]["disparity"]
                     for r in rows if "disparity" in r["truth"]}

    def __call__(self, images):
        return [DisparityMap(torch.from_numpy(self.maps[hashlib.sha1(np.asarray(im).tobytes()).hexdigest()]))
                for im in images]


def test_depth_anything_boxes_on_the_true_disparity_answers_depth_and_distance(release):
    rows, questions = release
    solver = get("depth_anything_boxes").build(SolverOptions(checkpoint="tiny-random"))
    assert solver.settings["statistic"] == "centre_median" and solver.settings["fov"] == "60"
    solver.model = _OracleDepth(rows)
    for task, rule in (("CV_Bench_Depth", "depth.depth_anything_centre_median"),
                       ("CV_Bench_Distance", "distance.depth_anything_backprojected")):
        decisions = solver.decide_batch(questions[task])
        assert all(d.rule == rule and d.pred == q.gold for d, q in zip(decisions, questions[task])), task
    distance = decisions[0].details
    assert set(distance["distance_3d"]) == {"A", "B"} and distance["fov_degrees"] == 60.0
