"""Where the patch reader surely reads a label at a ring unlike the placed markers' rings, a ring
in their style is looked for around it (tested with oracle probabilities, apart from the
network's skill)."""

import cv2
import numpy as np
import pytest
from marker_oracles import POINTS, STYLE, OracleReader, blotted, without_c

from adapters.markers import parse_image
from adapters.markers.colour import to_lab
from adapters.markers.general.nets.patch_reader import CLASSES, NONE
from adapters.markers.general.points.patch_opinion import _refit_in_style
from adapters.markers.general.points.rings import Circle, find_circles
from adapters.markers.general.points.state import rings_alike
from adapters.markers.general.thresholds import PATCH_MIN_PROBABILITY, REFIT_OFF


def row(**p):
    out = np.zeros((1, len(CLASSES)))
    for name, value in p.items():
        out[0, CLASSES.index(NONE if name == "none" else name)] = value
    return out


def placed_rings(image):
    return [c for c in find_circles(image) if min(np.hypot(c.x - x, c.y - y) for x, y in
                                                  (POINTS["A"], POINTS["B"])) < 2]


def scene_ring_at_c():
    """What the circle search can find at C in place of C's own ring: a small ring of another colour."""
    x, y = POINTS["C"]
    return Circle(x + 0.4, y - 0.3, 4.0, 3.0, (0, 160, 60), (58.0, -50.0, 40.0), 30.0, 0.9, 5.5)


@pytest.mark.parametrize("image, reading_there, found", [
    (blotted(), 0.97, True),  # C's ring is drawn in the markers' style: it takes the candidate's place
    (without_c(), 0.97, False),  # no ring of that style there: the candidate stays, unlike the others
    (blotted(), PATCH_MIN_PROBABILITY - 0.1, False),  # the reader is unsure at the ring found
])
def test_a_ring_in_the_placed_style_is_looked_for_where_a_label_is_read_surely(image, reading_there, found):
    rings = placed_rings(image)
    assert len(rings) == 2
    odd = scene_ring_at_c()
    assert not rings_alike([odd, *rings])
    parsed = parse_image(image, list(POINTS), patch_reader=False)
    assert set(parsed.missing) == {"C"}
    candidates = [odd]
    probabilities = row(C=0.95, none=0.05)
    reader = OracleReader({POINTS["C"]: {"C": reading_there, NONE: 1 - reading_there}})
    assert _refit_in_style(image, to_lab(image), parsed, reader, "C", candidates, probabilities, rings) == found
    if found:
        ring = candidates[0]
        assert rings_alike([ring, *rings]) and np.hypot(ring.x - odd.x, ring.y - odd.y) <= REFIT_OFF
        assert probabilities[0, CLASSES.index("C")] == pytest.approx(reading_there)
    else:
        assert candidates[0] is odd


def test_a_label_read_at_a_scene_ring_inside_its_own_ring_is_placed_on_its_own_ring():
    """A small green ring at C's centre takes the circle search's peak there (C's own ring, drawn
    bare, is not found as a circle); the reader reads C at that centre: C is placed on its own
    ring, of the placed markers' radius."""
    image = blotted()
    x, y = POINTS["C"]
    cv2.circle(image, (int(x), int(y)), 5, (0, 150, 0), 3, cv2.LINE_AA)
    at_c = [c for c in find_circles(image) if np.hypot(c.x - x, c.y - y) < 4]
    assert at_c and all(abs(c.r - STYLE.radius) > 2 for c in at_c)  # only the scene ring is found there
    reader = OracleReader({POINTS["A"]: {"A": 1.0}, POINTS["B"]: {"B": 1.0}, POINTS["C"]: {"C": 0.97}})
    parsed = parse_image(image, list(POINTS), patch_reader=reader, centre_finder=False)
    assert not parsed.missing and parsed.markers["C"].source == "patch"
    assert parsed.markers["C"].radius == pytest.approx(STYLE.radius, abs=1.0)
    assert np.hypot(*np.subtract(parsed.markers["C"].xy, POINTS["C"])) <= 1
