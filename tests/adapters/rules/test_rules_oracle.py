"""Decision rules on ORACLE dense outputs whose answer is known; markers given as known positions."""

import math

import pytest
import torch

from adapters.core.questions import MCQuestion, QuestionError, QuestionSource
from adapters.rules.depth import disparity_decision
from adapters.rules.dift_correspondence import cosine_decision
from adapters.rules.multiview import essential_decision, flow_decision
from adapters.rules.reflectance import reflectance_decision
from specialists.outputs import DisparityMap, FeatureMap, IntrinsicLayers, Matches

SOURCE = QuestionSource("test", "val")


class _Image:  # only .size is read by the multi-view rules
    size = (320, 240)


def question(task, choices, markers, gold=None, images=1):
    return MCQuestion(f"val_{task}_1", task, "prompt", choices, gold, SOURCE, markers=markers,
                      _images=[_Image()] * images)


def test_depth_picks_larger_disparity_and_never_about_the_same():
    disparity = torch.ones(50, 60)
    disparity[30:40, 40:50] = 5.0  # B's area is nearer
    q = question("Relative_Depth", ("A is closer", "B is closer"), {"image_1": {"A": (10, 10), "B": (45, 35)}})
    d = disparity_decision(q, DisparityMap(disparity), "depth.disparity_at_points")
    assert d.pred == "B" and d.details["disparity"] == {"A": 1.0, "B": 5.0}
    flipped = question("Relative_Depth", ("B is closer", "A is closer"), q.markers)
    assert disparity_decision(flipped, DisparityMap(disparity), "r").pred == "A"  # option order does not matter


def test_cosine_rule_finds_the_true_match():
    torch.manual_seed(0)
    source = torch.randn(16, 8, 8)
    target = torch.randn(16, 8, 8)
    target[:, 5, 2] = source[:, 1, 6]  # the feature at REF reappears at C's location
    # 64x64 image over an 8x8 map: pixel centre of cell (row r, col c) is (8c + 3.5, 8r + 3.5)
    ref = (8 * 6 + 3.5, 8 * 1 + 3.5)
    candidates = {"A": (3.5, 3.5), "B": (59.5, 59.5), "C": (8 * 2 + 3.5, 8 * 5 + 3.5), "D": (35.5, 11.5)}
    letters = {"A": "A", "B": "B", "C": "C", "D": "D"}
    d = cosine_decision(FeatureMap(source, (64, 64)), FeatureMap(target, (64, 64)), ref, candidates, letters, "r")
    assert d.pred == "C" and d.details["cosine"]["C"] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("ratio, expected", [(2.0, "A"), (0.5, "B"), (1.05, "C"), (0.95, "C"),
                                             (1.1, "C"), (1.1001, "A"), (1 / 1.1, "C"), (1 / 1.1001, "B")])
def test_reflectance_iid_rule(ratio, expected):
    """l_B / l_A = ratio; delta 0.10."""
    albedo = torch.full((3, 40, 40), 0.2)
    albedo[:, 20:, :] = 0.2 * ratio
    q = question("Relative_Reflectance", ("A is darker", "B is darker", "About the same"),
                 {"image_1": {"A": (10, 5), "B": (10, 30)}})
    d = reflectance_decision(q, IntrinsicLayers(albedo, torch.ones(40, 40)), "r")
    assert d.pred == expected


def test_reflectance_without_a_same_option_never_says_same():
    albedo = torch.full((3, 40, 40), 0.2)
    albedo[:, 20:, :] = 0.21
    q = question("Relative_Reflectance", ("A is darker", "B is darker"), {"image_1": {"A": (10, 5), "B": (10, 30)}})
    assert reflectance_decision(q, IntrinsicLayers(albedo, torch.ones(40, 40)), "r").pred == "A"


def test_reflectance_compares_the_mean_of_linear_rgb_as_whdr_does():
    """A green-heavy A and a magenta B: by the mean of R, G, B (WHDR's reference) A is darker;
    by Rec. 709 luminance, which weighs green 0.72, B is."""
    albedo = torch.empty(3, 40, 40)
    albedo[:, :20, :] = torch.tensor([0.1, 0.5, 0.1]).view(3, 1, 1)  # mean 0.233, luminance 0.386
    albedo[:, 20:, :] = torch.tensor([0.4, 0.3, 0.4]).view(3, 1, 1)  # mean 0.367, luminance 0.329
    q = question("Relative_Reflectance", ("A is darker", "B is darker", "About the same"),
                 {"image_1": {"A": (10, 5), "B": (10, 30)}})
    layers = IntrinsicLayers(albedo, torch.ones(40, 40))
    default = reflectance_decision(q, layers, "r")
    assert default.pred == "A" and default.details["measure"] == "mean_rgb"
    assert reflectance_decision(q, layers, "r", measure="luminance").pred == "B"


def test_missing_marker_is_a_question_error():
    q = question("Relative_Depth", ("A is closer", "B is closer"), {"image_1": {"A": (10, 10)}})
    with pytest.raises(QuestionError, match="B on image_1"):
        disparity_decision(q, DisparityMap(torch.ones(20, 20)), "r")


def _orbit_matches(sideways: float) -> Matches:
    """Matches of a static random point cloud seen by camera 1 and by camera 2 moved sideways."""
    g = torch.Generator().manual_seed(0)
    points = torch.cat([torch.rand(200, 2, generator=g) * 8 - 4, torch.rand(200, 1, generator=g) * 10 + 5], 1)
    f, cx, cy = 320.0, 160.0, 120.0
    yaw = -math.atan2(sideways, 10.0)  # turn back toward the cloud's centre, as an orbit does
    R = torch.tensor([[math.cos(yaw), 0, math.sin(yaw)], [0, 1, 0], [-math.sin(yaw), 0, math.cos(yaw)]])
    cam2 = (points - torch.tensor([sideways, 0.0, 0.0])) @ R.T

    def project(p):
        return torch.stack([f * p[:, 0] / p[:, 2] + cx, f * p[:, 1] / p[:, 2] + cy], 1)

    return Matches(project(points), project(cam2), torch.ones(200))


@pytest.mark.parametrize("sideways, expected", [(-1.0, "A"), (1.0, "B")])
def test_essential_rule_sign_convention(sideways, expected):
    q = question("Multi-view_Reasoning", ("left", "right"), None, images=2)
    d = essential_decision(q, _orbit_matches(sideways), "r")
    assert d.pred == expected
    assert math.copysign(1, d.details["camera2_centre_in_camera1"][0]) == math.copysign(1, sideways)


def test_essential_rule_falls_back_to_the_displacement_rule():
    """Under 8 matches no essential matrix can be fitted: the flow rule answers, saying why;
    with the fallback off the question fails with that reason."""
    q = question("Multi-view_Reasoning", ("left", "right"), None, images=2)
    k0 = torch.rand(5, 2, generator=torch.Generator().manual_seed(1)) * 100
    few = Matches(k0, k0 - torch.tensor([4.0, 0.0]), torch.ones(5))
    d = essential_decision(q, few, "multiview.loftr_essential", fallback_rule="multiview.loftr_flow")
    assert d.pred == "A" and d.rule == "multiview.loftr_flow"
    assert d.details["fallback_from"] == "multiview.loftr_essential" and "only 5 matches" in d.details["fallback_reason"]
    with pytest.raises(QuestionError, match="only 5 matches"):
        essential_decision(q, few, "multiview.loftr_essential")
    # 20 matches that are 5 points repeated, with no motion at all, determine no essential matrix
    degenerate = Matches(k0.repeat(4, 1), k0.repeat(4, 1), torch.ones(20))
    assert essential_decision(q, degenerate, "e", fallback_rule="f").rule == "f"


def test_flow_rule_reads_mean_horizontal_motion():
    q = question("Multi-view_Reasoning", ("left", "right"), None, images=2)
    k0 = torch.rand(20, 2) * 100
    leftward = Matches(k0, k0 - torch.tensor([5.0, 0.0]), torch.ones(20))
    assert flow_decision(q, leftward, "r").pred == "A"
    none = flow_decision(q, Matches(k0[:0], k0[:0], torch.ones(0)), "r")
    assert none.abstained and none.details["abstain_reason"] == "no match between the two frames"
