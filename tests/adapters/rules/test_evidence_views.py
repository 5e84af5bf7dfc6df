"""The evidence pictures rules attach with `keep_evidence`: small, and showing what the decision
read (bright where disparity or similarity is high, match lines where the matches are)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from PIL import Image
from report_page_fixture import make_page_fixture

from adapters.core.questions import Decision
from adapters.rules.evidence import EVIDENCE_SIDE, albedo_view, disparity_view, matches_view, similarity_view
from adapters.run.runner import RunConfig, run
from specialists.outputs import FeatureMap, IntrinsicLayers


def luma(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("L"), dtype=float)


def test_the_disparity_view_is_a_thumbnail_bright_where_the_scene_is_close():
    disparity = torch.linspace(0, 1, 900).repeat(600, 1)  # (600, 900): closer to the right
    view = disparity_view(disparity, {"A": (100.0, 300.0), "B": (800.0, 300.0)})
    assert view.size == (EVIDENCE_SIDE, round(600 * EVIDENCE_SIDE / 900))
    grey = luma(view)
    assert grey[20:40, -40:-20].mean() > grey[20:40, 20:40].mean() + 100
    # the points are drawn (cyan ring) where the rule read them, in the thumbnail's pixels
    rgb = np.asarray(view).astype(int)
    x, y = round(800 * EVIDENCE_SIDE / 900), round(300 * EVIDENCE_SIDE / 900)
    ring = rgb[y - 6:y + 7, x - 6:x + 7]
    assert ((ring[..., 2] > 200) & (ring[..., 0] < 80)).any()


def test_the_albedo_view_keeps_dark_surfaces_dark_and_maps_points_of_a_working_size():
    albedo = torch.full((3, 50, 100), 0.8)
    albedo[:, :, :50] = 0.1
    layers = IntrinsicLayers(albedo, torch.ones(50, 100), image_size=(200, 400))  # computed at a quarter size
    view = albedo_view(layers, {"A": (100.0, 100.0)})
    assert view.size == (EVIDENCE_SIDE, EVIDENCE_SIDE // 2)
    grey = luma(view)
    assert grey[5:20, 200:240].mean() > grey[5:20, 10:50].mean() + 80


def test_the_matches_view_draws_inliers_green_and_the_rest_grey():
    scene = Image.new("RGB", (160, 120), (0, 0, 0))
    kp0 = np.array([[20.0, 20.0], [100.0, 60.0], [140.0, 100.0]])
    kp1 = kp0 + 5
    inliers = np.array([[1], [1], [0]], np.uint8)
    view = np.asarray(matches_view(scene, scene, kp0, kp1, inliers, (60.0, 50.0), {"A": (65.0, 55.0)}, (64.0, 54.0)))
    rgb = view.astype(int)
    green = (rgb[..., 1] > rgb[..., 0] + 60) & (rgb[..., 1] > rgb[..., 2] + 60)  # not the cyan points
    grey = (rgb[..., 0] > 60) & (rgb[..., 0] == rgb[..., 1]) & (rgb[..., 1] == rgb[..., 2])  # on the black scene
    assert green.sum() > 50 and grey.sum() > 50
    assert view.shape[1] > view.shape[0]  # the two images side by side
    none = np.asarray(matches_view(scene, scene, kp0[:0], kp1[:0], None, (60.0, 50.0), {"A": (65.0, 55.0)}))
    rgb = none.astype(int)
    assert not ((rgb[..., 1] > rgb[..., 0] + 60) & (rgb[..., 1] > rgb[..., 2] + 60)).any()


def test_the_similarity_view_is_brightest_where_the_target_feature_is_refs():
    source = torch.zeros(4, 8, 8)
    source[0] = 1.0  # REF's feature: the first axis
    target = torch.zeros(4, 8, 8)
    target[1] = 1.0
    target[:, 6, 1] = torch.tensor([1.0, 0, 0, 0])  # one cell like REF: lower left of the second image
    scene = Image.new("RGB", (80, 80), (128, 128, 128))
    view = similarity_view(scene, scene, FeatureMap(source, (80, 80)), FeatureMap(target, (80, 80)), (40.0, 40.0), {})
    rgb = np.asarray(view).astype(float)
    right = rgb[:, rgb.shape[1] // 2 + 4:]
    height = right.shape[0]
    cell = right[int(height * 6 / 8):int(height * 7 / 8), int(right.shape[1] * 1 / 8):int(right.shape[1] * 2 / 8)]
    assert cell.mean() > right[: height // 2, right.shape[1] // 2:].mean() + 40


def test_a_decision_carries_evidence_outside_its_json():
    decision = Decision.from_scores({"A": 1.0, "B": 0.0}, "rule").with_evidence(depth=Image.new("RGB", (4, 4)))
    assert set(decision.evidence) == {"depth"} and "evidence" not in decision.to_json()
    assert decision == Decision.from_scores({"A": 1.0, "B": 0.0}, "rule")  # pictures are not part of the answer


@pytest.mark.parametrize("specialist, task, view", [("depth_anything", "Relative_Depth", "depth"),
                                                    ("dift", "Visual_Correspondence", "similarity"),
                                                    ("ordinal_shading", "Relative_Reflectance", "albedo")])
def test_neural_rules_keep_their_dense_output_as_a_picture(tmp_path, specialist, task, view):
    """Tiny random weights: the numbers mean nothing, but the picture is of what the rule read."""
    made = make_page_fixture(tmp_path)
    out = tmp_path / "run"
    run(RunConfig(str(out), tasks=[task], specialist=[specialist], checkpoint="tiny-random", limit=1,
                  blink_root=str(made["blink"]), markers=str(made["markers"]), keep_evidence=True, progress=False))
    [sample] = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert sample["status"] == "ok" and list(sample["evidence"]) == [view]
    with Image.open(out / sample["evidence"][view]) as picture:
        assert max(picture.size) <= 2 * EVIDENCE_SIDE and luma(picture).std() > 1
