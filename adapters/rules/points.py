"""Where a question's labelled points are, and its images without the drawn markers.

Both go through the marker package: known positions (a `--markers` file, or the synthetic
generator's) win, otherwise the drawn markers are parsed. Rules call only these two functions.
"""

from __future__ import annotations

from PIL import Image

from adapters.core.questions import MCQuestion
from adapters.markers import find_markers, inpaint_markers


def marker_points(question: MCQuestion, image_index: int, labels: list[str]) -> dict[str, tuple[float, float]]:
    """{label: (x, y)} on image `image_index` (0-based) for every label asked, or MarkerError."""
    key = f"image_{image_index + 1}"
    found = find_markers(question, {key: list(labels)})
    return {label: found.point(key, label) for label in labels}


def scene_image(question: MCQuestion, image_index: int) -> Image.Image:
    """Image `image_index` with its markers inpainted, so a specialist sees the scene, not the drawing."""
    return inpaint_markers(question, image_index)
