"""Stand-ins for the marker networks with set outputs, so the parser's rules for using them are
tested apart from the networks' skill; the scene those rules are tested on (A and B drawn whole,
C's ring bare); and the check both networks' training scripts share."""

import json

import cv2
import numpy as np

from adapters.markers import MarkerStyle, draw_points
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.nets.patch_reader import CLASSES, NONE
from adapters.markers.labels import LABELS


def grey(h=200, w=260, value=120):
    return np.full((h, w, 3), value, np.uint8)


STYLE = MarkerStyle(radius=8, ring_width=2, font="hershey-simplex", label_height=12, side="right")
POINTS = {"A": (60.0, 60.0), "B": (190.0, 60.0), "C": (120.0, 150.0)}


def without_c():
    """A and B drawn whole; nothing at C (no ring the detector could find, no word)."""
    return draw_points(grey(), {"A": POINTS["A"], "B": POINTS["B"]}, STYLE)


def blotted(*rings):
    """without_c() with C's ring (and any other `rings`, (x, y) each) drawn bare in STYLE: no word
    can be read as C."""
    image = without_c()
    for x, y in [POINTS["C"], *rings]:
        cv2.circle(image, (int(x), int(y)), int(STYLE.radius), STYLE.colour, STYLE.ring_width, cv2.LINE_AA)
    return image


class OracleReader:
    """Probabilities set per place: {(x, y): {class: p}} (nearest within 3 px), else sure 'none'.
    classes: the patch reader's (default) or the corner reader's."""

    def __init__(self, table, classes=CLASSES):
        self.table, self.classes = table, classes

    def probabilities(self, rgb, centres):
        out = np.zeros((len(centres), len(self.classes)), np.float32)
        for i, (x, y) in enumerate(centres):
            row = next((v for (tx, ty), v in self.table.items() if np.hypot(tx - x, ty - y) < 3), {NONE: 1.0})
            for name, p in row.items():
                out[i, self.classes.index(name)] = p
        return out


class OracleFinder:
    """Proposals set: [(x, y, {class: score})]; unnamed classes (of `classes`: the centre
    finder's labels, or the corner finder's classes) score 0."""

    def __init__(self, proposals, classes=LABELS):
        self.proposals, self.classes = proposals, classes

    def find(self, rgb):
        return [Proposal(x, y, {c: scores.get(c, 0.0) for c in self.classes}) for x, y, scores in self.proposals]


def trained_and_continued(train_main, network, path, args):
    """Run a marker network's training script (`args`: its size options) for 2 steps into
    `path`, then 1 more step from there (--init), and check what both records must say: the
    steps, the weights' sha256, the device, held-out fonts never trained on, JSON-ready, where
    the continued run started. Returns (first, continued) as loaded by `network.load`."""
    assert train_main(["--output", str(path), "--steps", "2", *args, "--workers", "0"]) == 0
    first = network.load(path)
    record = first.record
    assert record["steps"] == 2 and record["held_out_fonts"] and len(record["sha256"]) == 64
    assert record["device"] == "cpu"  # where it was trained: --device's default
    assert not set(record["held_out_fonts"]) & set(record["fonts"])  # the held-out fonts stay unseen
    json.dumps(record)
    more = path.with_name("more" + path.suffix)
    assert train_main(["--output", str(more), "--steps", "1", *args, "--init", str(path), "--workers", "0"]) == 0
    continued = network.load(more)
    assert continued.record["init"]["sha256"] == record["sha256"] and continued.net.width == first.net.width
    return first, continued
