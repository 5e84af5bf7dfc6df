"""CV-Bench's Depth and Distance from Depth Anything's disparity inside the marked objects' boxes
(`depth_anything_boxes`).

Each object's disparity is one statistic of the map over its box (setting `statistic`):
- centre_median (default): the median over the box's central half (a quarter of its width and
  height cut from each side): the drawn outline, and the background a box's corners hold, stay out;
- box_median: the median over the whole box;
- centre_point: the median over a disc of SAMPLE_RADIUS px at the box's centre.
Depth: larger disparity = closer; the option with the larger statistic wins.
Distance: each box centre (u, v) is back-projected to 3D with depth z = 1 / disparity and a
pinhole camera whose principal point is the image centre and whose horizontal field of view is
the setting `fov` (f = (W / 2) / tan(fov / 2)): P = ((u - W/2) z / f, (v - H/2) z / f, z). Depth
Anything's disparity is relative (known up to scale and shift): the shift is taken as zero, and
the scale cancels (every point scales alike, so the nearer option stays the nearer). The option
whose point is nearest the anchor's wins. A non-positive disparity has no depth: that question
fails with the reason.
"""

from __future__ import annotations

import math

import numpy as np

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.rules.cv_bench import abstain_without_box, box_details, depth_objects, distance_objects
from adapters.rules.depth import SAMPLE_RADIUS, DepthAnythingDepth
from adapters.rules.marked_objects import Box, MarkedObject
from specialists.outputs import DisparityMap

STATISTICS = ("centre_median", "box_median", "centre_point")


def box_disparity(disparity: DisparityMap, box: Box, statistic: str) -> float:
    """The statistic of the (H, W) disparity map over `box` (x0, y0, x1, y1 pixels, clipped to the map)."""
    height, width = disparity.disparity.shape
    x0, y0, x1, y1 = max(0.0, box[0]), max(0.0, box[1]), min(float(width), box[2]), min(float(height), box[3])
    if x1 <= x0 or y1 <= y0:
        raise QuestionError(f"box {tuple(round(v, 1) for v in box)} lies outside the {width}x{height} image")
    if statistic == "centre_point":
        return disparity.at(min((x0 + x1) / 2, width - 1), min((y0 + y1) / 2, height - 1), radius=SAMPLE_RADIUS)
    if statistic == "centre_median":
        dx, dy = (x1 - x0) / 4, (y1 - y0) / 4
        x0, y0, x1, y1 = x0 + dx, y0 + dy, x1 - dx, y1 - dy
    elif statistic != "box_median":
        raise ValueError(f"statistic {statistic!r}: choose one of {', '.join(STATISTICS)}")
    ix0, iy0 = int(math.floor(x0)), int(math.floor(y0))
    ix1, iy1 = max(ix0 + 1, int(math.ceil(x1))), max(iy0 + 1, int(math.ceil(y1)))
    return float(disparity.disparity[iy0:iy1, ix0:ix1].float().median())


def back_project(box: Box, disparity: float, size: tuple[int, int], fov_degrees: float, name: str = "an object") -> np.ndarray:
    """The box centre as a 3D point (3,) in the camera frame (see the module's doc); size: (W, H)."""
    if not disparity > 0:
        raise QuestionError(f"disparity {disparity:.3g} in the box of {name}: not positive, so it has no depth")
    width, height = size
    z = 1.0 / disparity
    focal = (width / 2) / math.tan(math.radians(fov_degrees) / 2)
    u, v = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return np.array([(u - width / 2) * z / focal, (v - height / 2) * z / focal, z])


class DepthAnythingBoxes(DepthAnythingDepth):
    """Depth Anything on the image as CV-Bench gives it (outlines drawn), read inside the boxes."""

    def model_input(self, question: MCQuestion):
        if question.task == "CV_Bench_Depth":
            options, note = depth_objects(question)
            anchor = None
        elif question.task == "CV_Bench_Distance":
            anchor, options, note = distance_objects(question)
        else:
            raise QuestionError(f"{question.idx}: {self.specialist} answers CV_Bench_Depth and CV_Bench_Distance, "
                                f"not {question.task}")
        return question.images[0], (anchor, options, note)

    def run_model(self, inputs):
        maps = self.model([image for image, _ in inputs])
        return [(disparity, image.size, marked) for disparity, (image, marked) in zip(maps, inputs)]

    def decision(self, question: MCQuestion, output) -> Decision:
        disparity, size, (anchor, options, note) = output
        statistic = self.settings["statistic"]
        everyone: dict[str, MarkedObject] = {**({"anchor": anchor} if anchor else {}), **options}
        details = {**note, **box_details(everyone), "statistic": statistic}
        if question.task == "CV_Bench_Depth":
            rule = f"depth.depth_anything_{statistic}"
            if missing := [o for o in options.values() if o.box is None]:
                return abstain_without_box(question, rule, missing, details)
            values = {letter: box_disparity(disparity, o.box, statistic) for letter, o in options.items()}
            return Decision.from_scores(values, rule, {**details, "disparity": values})
        rule = "distance.depth_anything_backprojected"
        if missing := [o for o in everyone.values() if o.box is None]:
            return abstain_without_box(question, rule, missing, details)
        fov = float(self.settings["fov"])
        values = {key: box_disparity(disparity, o.box, statistic) for key, o in everyone.items()}
        points = {key: back_project(everyone[key].box, value, size, fov, repr(everyone[key].name))
                  for key, value in values.items()}
        distances = {letter: float(np.linalg.norm(points[letter] - points["anchor"])) for letter in options}
        return Decision.from_scores({k: -v for k, v in distances.items()}, rule,
                                    {**details, "disparity": values, "fov_degrees": fov, "distance_3d": distances})
