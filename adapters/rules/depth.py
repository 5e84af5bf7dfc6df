"""Relative depth: which marked point is closer to the camera?

`depth.lower_is_closer` is the weight-free floor: on a ground plane seen from above the horizon,
lower in the image means closer. Dense-depth specialists answer through `disparity_decision`.
"""

from __future__ import annotations

from adapters.core.questions import Decision, MCQuestion
from adapters.core.solver import Solver
from adapters.rules.choices import letters_by_label
from adapters.rules.evidence import disparity_view
from adapters.rules.model_solver import ModelSolver
from adapters.rules.points import marker_points, scene_image
from specialists.outputs import DisparityMap

SAMPLE_RADIUS = 3.0


def disparity_decision(question: MCQuestion, disparity: DisparityMap, rule: str, details: dict | None = None) -> Decision:
    """Median disparity over a small disc at each point; larger disparity = closer = higher score."""
    by_label = letters_by_label(question)
    points = marker_points(question, 0, list(by_label))
    values = {label: disparity.at(*points[label], radius=SAMPLE_RADIUS) for label in by_label}
    return Decision.from_scores({by_label[k]: v for k, v in values.items()}, rule, {"disparity": values, **(details or {})})


class LowerIsCloser(Solver):
    """Scores each point by its image row: a monocular prior, no model."""


    def decide(self, question: MCQuestion) -> Decision:
        by_label = letters_by_label(question)
        points = marker_points(question, 0, list(by_label))
        rows = {label: float(points[label][1]) for label in by_label}
        return Decision.from_scores({by_label[k]: v for k, v in rows.items()}, "depth.lower_is_closer", {"row": rows})


class DepthAnythingDepth(ModelSolver):
    """`depth.depth_anything_disparity`: Depth Anything disparity at the points, markers inpainted."""

    rule = "depth.depth_anything_disparity"
    inpaint = True

    def build_tiny(self):
        from specialists.depth_anything import DepthAnything

        o = self.options
        return DepthAnything.tiny(o.seed, o.device, o.precision, resize=self.settings["resize"],
                                 positions=self.settings["positions"])

    def build_real(self, path):
        from specialists.depth_anything import DepthAnything

        o = self.options
        return DepthAnything.from_pretrained(path, o.device, o.precision, o.batch_size, self.settings["resize"],
                                             self.settings["positions"])

    def model_input(self, question: MCQuestion):
        return scene_image(question, 0) if self.inpaint else question.images[0]

    def decision(self, question: MCQuestion, output: DisparityMap) -> Decision:
        decision = disparity_decision(question, output, self.rule, {"markers_inpainted": self.inpaint})
        if self.options.keep_evidence:
            points = marker_points(question, 0, list(letters_by_label(question)))  # cached by the marker step
            decision = decision.with_evidence(depth=disparity_view(output.disparity, points))
        return decision


class DepthAnythingDepthRaw(DepthAnythingDepth):
    """The same on the image as drawn (markers left in), to measure what inpainting changes."""

    rule = "depth.depth_anything_disparity_raw"
    inpaint = False
