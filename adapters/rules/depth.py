"""Relative depth: which marked point is closer to the camera?

`depth.lower_is_closer` is the weight-free floor: on a ground plane seen from above the horizon,
lower in the image means closer. Dense-depth specialists answer through `disparity_decision`.
"""

from __future__ import annotations

from specialists.outputs import DisparityMap

from ..questions import Decision, MCQuestion
from ..solver import Solver
from .choices import letters_by_label
from .points import marker_points

SAMPLE_RADIUS = 3.0


def disparity_decision(question: MCQuestion, disparity: DisparityMap, rule: str) -> Decision:
    """Median disparity over a small disc at each point; larger disparity = closer = higher score."""
    by_label = letters_by_label(question)
    points = marker_points(question, 0, list(by_label))
    values = {label: disparity.at(*points[label], radius=SAMPLE_RADIUS) for label in by_label}
    return Decision.from_scores({by_label[k]: v for k, v in values.items()}, rule, {"disparity": values})


class LowerIsCloser(Solver):
    """Scores each point by its image row: a monocular prior, no model."""

    specialist = "lower_is_closer"

    def decide(self, question: MCQuestion) -> Decision:
        by_label = letters_by_label(question)
        points = marker_points(question, 0, list(by_label))
        rows = {label: float(points[label][1]) for label in by_label}
        return Decision.from_scores({by_label[k]: v for k, v in rows.items()}, "depth.lower_is_closer", {"row": rows})
