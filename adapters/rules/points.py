"""Where a question's labelled points are, and its images without the drawn markers.

Known positions (a `--markers` sidecar, or generated data) win; otherwise the marker parser reads
them from the drawing. Rules call only these two functions, so every rule gets the same answer.
"""

from __future__ import annotations

from PIL import Image

from ..questions import MCQuestion, QuestionError


def marker_points(question: MCQuestion, image_index: int, labels: list[str]) -> dict[str, tuple[float, float]]:
    """{label: (x, y)} on image `image_index` (0-based) for every label asked, or QuestionError."""
    key = f"image_{image_index + 1}"
    if question.markers is not None:
        known = question.markers.get(key, {})
        missing = [label for label in labels if label not in known]
        if missing:
            raise QuestionError(f"{question.idx}: the markers file has no {', '.join(missing)} on {key}")
        return {label: _centre(known[label]) for label in labels}
    from ..markers import find_markers

    found = find_markers(question)
    return {label: found.point(key, label) for label in labels}


def scene_image(question: MCQuestion, image_index: int) -> Image.Image:
    """Image `image_index` with its markers inpainted, so a specialist sees the scene, not the drawing."""
    from ..markers import inpaint_markers

    return inpaint_markers(question, image_index)


def _centre(value) -> tuple[float, float]:
    """A point [x, y] as is; a box [x0, y0, x1, y1] by its centre."""
    if len(value) == 4:
        return ((value[0] + value[2]) / 2.0, (value[1] + value[3]) / 2.0)
    return (float(value[0]), float(value[1]))
