"""Multi-view reasoning: did the camera move left or right between the two frames?

BLINK's prompt: the camera moves "clockwise (left) or counter-clockwise (right)" around the
object. We answer with the direction of the second camera centre in the FIRST camera's frame
(x right, y down, z forward): x < 0 is left. `tests/specialists/test_weightfree_models.py` checks this convention
on rendered orbits whose motion is known.
"""

from __future__ import annotations

import cv2
import numpy as np

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver, SolverOptions
from adapters.core.spec import SpecialistSpec
from adapters.rules.choices import letter_for_word
from specialists.outputs import Matches
from specialists.sift import SiftMatcher

MIN_MATCHES = 8


def direction_letters(question: MCQuestion) -> tuple[str, str]:
    left, right = letter_for_word(question, "left"), letter_for_word(question, "right")
    if left is None or right is None:
        raise QuestionError(f"{question.idx}: options {question.choices} do not name left and right")
    return left, right


def assumed_intrinsics(width: int, height: int) -> np.ndarray:
    """Unknown cameras: principal point at the centre, focal length max(W, H) pixels."""
    f = float(max(width, height))
    return np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]])


def camera_motion(matches: Matches, K: np.ndarray) -> tuple[np.ndarray, int]:
    """Second camera centre in the first camera's frame (unit length) and the pose inlier count.

    recoverPose gives R, t with X2 = R X1 + t, so camera 2 sits at C2 = -R^T t in frame 1.
    Raises QuestionError when no essential matrix fits or no match lies in front of both cameras.
    """
    p0, p1 = matches.keypoints0.numpy().astype(np.float64), matches.keypoints1.numpy().astype(np.float64)
    try:
        E, mask = cv2.findEssentialMat(p0, p1, K, method=cv2.USAC_MAGSAC, prob=0.999, threshold=1.0)
    except cv2.error as error:  # degenerate point sets make OpenCV raise rather than return None
        raise QuestionError(f"no essential matrix fits the matches ({str(error).strip().splitlines()[-1]})") from error
    if E is None or E.shape != (3, 3):
        raise QuestionError("no essential matrix fits the matches")
    inliers, R, t, _ = cv2.recoverPose(E, p0, p1, K, mask=mask)
    if inliers == 0:
        raise QuestionError("no match lies in front of both cameras for the fitted essential matrix")
    centre = (-R.T @ t).reshape(3)
    return centre / max(np.linalg.norm(centre), 1e-12), int(inliers)


def essential_decision(question: MCQuestion, matches: Matches, rule: str, fallback_rule: str | None = None) -> Decision:
    """Matches -> essential matrix (assumed intrinsics) -> relative pose -> sign of sideways motion.

    fallback_rule: when the essential matrix cannot be had (under 8 matches, no fit, no match in
    front of both cameras), answer with `flow_decision` under this rule name, the reason in the
    details; None: such a question fails with that reason.
    """
    left, right = direction_letters(question)
    try:
        _require_matches(question, matches, MIN_MATCHES)
        width, height = question.images[0].size
        centre, inliers = camera_motion(matches, assumed_intrinsics(width, height))
    except QuestionError as failure:
        if fallback_rule is None:
            raise
        return flow_decision(question, matches, fallback_rule, {"fallback_from": rule, "fallback_reason": str(failure)})
    details = {"camera2_centre_in_camera1": centre.tolist(), "pose_inliers": inliers, "matches": len(matches)}
    return Decision.from_scores({left: -centre[0], right: centre[0]}, rule, details)


def flow_decision(question: MCQuestion, matches: Matches, rule: str, details: dict | None = None) -> Decision:
    """The sign of the mean horizontal displacement of matches.

    A camera orbiting left while it keeps the object centred turns right, so the background (most
    of a typical frame) slides LEFT in the image: mean dx < 0 -> left. Points nearer than the
    object slide the other way, which is where this rule fails.
    """
    left, right = direction_letters(question)
    if len(matches) == 0:  # no evidence either way: an abstention, not a failure of the pipeline
        reason = {"matches": 0, "abstain_reason": "no match between the two frames", **(details or {})}
        return Decision.from_scores({left: float("nan"), right: float("nan")}, rule, reason)
    dx = float((matches.keypoints1[:, 0] - matches.keypoints0[:, 0]).mean())
    return Decision.from_scores({left: -dx, right: dx}, rule, {"mean_dx_px": dx, "matches": len(matches), **(details or {})})


def _require_matches(question: MCQuestion, matches: Matches, at_least: int) -> None:
    if len(matches) < at_least:
        raise QuestionError(f"{question.idx}: only {len(matches)} matches between the two frames (the rule needs {at_least})")


def question_frames(question: MCQuestion):
    if len(question.images) < 2:
        raise QuestionError(f"{question.idx}: multi-view reasoning needs two images, got {len(question.images)}")
    return question.images[0], question.images[1]


class EssentialDirection(Solver):
    """`multiview.essential_direction` on SIFT matches."""

    rule = "multiview.essential_direction"
    flow_rule = "multiview.mean_horizontal_flow"

    def __init__(self, options: SolverOptions, spec: SpecialistSpec) -> None:
        super().__init__(options, spec)
        self.matcher = SiftMatcher()

    def decide(self, question: MCQuestion) -> Decision:
        fallback = self.flow_rule if self.settings["fallback"] == "flow" else None
        return essential_decision(question, self.matcher(*question_frames(question)), self.rule, fallback)


class MeanFlowDirection(EssentialDirection):
    """`multiview.mean_horizontal_flow` on SIFT matches."""

    rule = "multiview.mean_horizontal_flow"

    def decide(self, question: MCQuestion) -> Decision:
        return flow_decision(question, self.matcher(*question_frames(question)), self.rule)
