"""The corner finder (nets.corner_finder): its training data (random boxes, training scenes
that mark every corner), its training script, and the record written with its weights."""

import numpy as np
from box_scenes import noisy
from marker_oracles import trained_and_continued

from adapters.markers.draw.scenes import FAR_CORNER, box_training_scene, random_boxes
from adapters.markers.general.nets.corner_finder import BOX_LABELS, CORNER_CLASSES, CornerFinder
from train.markers_corners import CornerStream
from train.markers_corners import main as train_main


def test_random_boxes_keep_apart_and_inside():
    rng = np.random.default_rng(0)
    for _ in range(50):
        boxes = list(random_boxes(rng, ["A", "B", "C"], 240, 320).values())
        for i, a in enumerate(boxes):
            assert 3 <= a[0] < a[2] <= 317 and 3 <= a[1] < a[3] <= 237 and a[2] - a[0] >= 30
            for b in boxes[i + 1:]:
                assert min(abs(a[k] - b[k]) for k in range(4)) >= 5 and np.hypot(a[0] - b[0], a[1] - b[1]) >= 25


def test_training_scene_marks_every_corner():
    scene = box_training_scene(np.random.default_rng(1), ["hershey-simplex"])
    labelled = [p for p in scene.points if p[2] in BOX_LABELS]
    assert [p[2] for p in labelled] == sorted(p[2] for p in labelled) and labelled[0][2] == "A"
    assert sum(p[2] == FAR_CORNER for p in scene.points) >= len(labelled)  # decoy rectangles' far corners too


def test_corner_training_script_writes_weights_with_their_record(tmp_path):
    finder, _ = trained_and_continued(train_main, CornerFinder, tmp_path / "corners.safetensors",
                                      ["--batch", "2", "--width", "4"])
    assert finder.net.classes == CORNER_CLASSES and finder.record["images"] == 4
    assert all(set(p.scores) == set(CORNER_CLASSES) for p in finder.find(noisy(9, 101, 130), min_score=0.0))


def test_corner_training_with_any_labels_draws_them_from_a_to_d_and_records_it(tmp_path):
    stream, rng = CornerStream(0, ["hershey-simplex"], any_labels=True), np.random.default_rng(3)
    drawn = [stream.style_fixed(rng)["labels"] for _ in range(200)]
    assert sum("D" in labels for labels in drawn) > 0.5 * sum("A" in labels for labels in drawn)  # 1 in 4 A's else
    scene = stream.scene(rng, ["hershey-simplex"], **stream.style_fixed(rng))
    assert all(label in "ABCD" for _, _, label in scene.points if label in BOX_LABELS)
    rng, untouched = np.random.default_rng(4), np.random.default_rng(4)
    assert CornerStream(0, ["hershey-simplex"]).style_fixed(rng) == {} and rng.uniform() == untouched.uniform()
    finder, _ = trained_and_continued(train_main, CornerFinder, tmp_path / "corners.safetensors",
                                      ["--batch", "2", "--width", "4", "--any-labels"])
    assert finder.record["any_labels"] is True
