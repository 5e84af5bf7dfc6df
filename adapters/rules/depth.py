"""Relative depth: which marked point is closer to the camera?

`depth.lower_is_closer` is the weight-free floor: on a ground plane seen from above the horizon,
lower in the image means closer. Dense-depth specialists answer through `disparity_decision`.
"""

from __future__ import annotations

from specialists.outputs import DisparityMap

from ..questions import Decision, MCQuestion
from ..solver import Solver, SolverOptions
from .choices import letters_by_label
from .loading import load_weights
from .points import marker_points, scene_image

SAMPLE_RADIUS = 3.0


def disparity_decision(question: MCQuestion, disparity: DisparityMap, rule: str, details: dict | None = None) -> Decision:
    """Median disparity over a small disc at each point; larger disparity = closer = higher score."""
    by_label = letters_by_label(question)
    points = marker_points(question, 0, list(by_label))
    values = {label: disparity.at(*points[label], radius=SAMPLE_RADIUS) for label in by_label}
    return Decision.from_scores({by_label[k]: v for k, v in values.items()}, rule, {"disparity": values, **(details or {})})


class LowerIsCloser(Solver):
    """Scores each point by its image row: a monocular prior, no model."""

    specialist = "lower_is_closer"

    def decide(self, question: MCQuestion) -> Decision:
        by_label = letters_by_label(question)
        points = marker_points(question, 0, list(by_label))
        rows = {label: float(points[label][1]) for label in by_label}
        return Decision.from_scores({by_label[k]: v for k, v in rows.items()}, "depth.lower_is_closer", {"row": rows})


class DepthAnythingDepth(Solver):
    """`depth.depth_anything_disparity`: Depth Anything disparity at the points, markers inpainted."""

    specialist = "depth_anything"
    rule = "depth.depth_anything_disparity"
    inpaint = True
    default_checkpoint = "depth-anything-v2-small"

    def __init__(self, options: SolverOptions) -> None:
        from specialists.depth_anything import DepthAnything

        super().__init__(options)
        self.model, self._checkpoint = load_weights(
            options, self.default_checkpoint,
            tiny=lambda: DepthAnything.tiny(options.seed, options.device, options.precision),
            real=lambda path: DepthAnything.from_pretrained(path, options.device, options.precision, options.batch_size),
        )

    @property
    def checkpoint(self):
        return self._checkpoint

    def decide(self, question: MCQuestion) -> Decision:
        return self.decide_batch([question])[0]  # type: ignore[return-value]

    def decide_batch(self, questions):
        """One batched Depth Anything call (aspect buckets inside), then the rule per question."""
        results: list = [None] * len(questions)
        images, members = [], []
        for i, q in enumerate(questions):
            try:
                images.append(scene_image(q, 0) if self.inpaint else q.images[0])
                members.append(i)
            except Exception as exc:
                results[i] = exc
        for i, disparity in zip(members, self.model(images) if images else []):
            try:
                results[i] = disparity_decision(questions[i], disparity, self.rule, {"markers_inpainted": self.inpaint})
            except Exception as exc:
                results[i] = exc
        return results


class DepthAnythingDepthRaw(DepthAnythingDepth):
    """The same on the image as drawn (markers left in), to measure what inpainting changes."""

    specialist = "depth_anything_raw"
    rule = "depth.depth_anything_disparity_raw"
    inpaint = False
