"""Visual prompts: find the drawn points and boxes (and read their labels) in BLINK images, draw
them for synthetic data, inpaint them away, or take known coordinates from a sidecar file.

    find_markers(question) -> MarkerSet          (MarkerError when a label cannot be found)
    inpaint_markers(question, image_index) -> PIL image without the drawing
    draw_points(image, {label: (x, y)}, MarkerStyle(...)) / draw_boxes(...)
    load_markers(path) -> {idx: {"image_1": {label: coords}}}   (--markers FILE)
"""

from adapters.markers.draw.render import MarkerStyle, draw_boxes, draw_points
from adapters.markers.find import find_markers, parse_question
from adapters.markers.general.points.parse import parse_image
from adapters.markers.inpaint import inpaint_image, inpaint_markers
from adapters.markers.labels import MARKER_TASKS, expected_markers, has_markers
from adapters.markers.sidecar import MarkersFileError, apply_markers, load_markers
from adapters.markers.types import Marker, MarkerError, MarkerSet

__all__ = [
    "MARKER_TASKS", "Marker", "MarkerError", "MarkerSet", "MarkerStyle", "MarkersFileError", "apply_markers",
    "draw_boxes", "draw_points", "expected_markers", "find_markers", "has_markers", "inpaint_image",
    "inpaint_markers", "load_markers", "parse_image", "parse_question",
]
