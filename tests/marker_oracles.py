"""Stand-ins for the marker networks with set outputs, so the parser's rules for using them are
tested apart from the networks' skill."""

import numpy as np

from adapters.markers.centre_finder import Proposal
from adapters.markers.labels import LABELS
from adapters.markers.patch_reader import CLASSES, NONE


def grey(h=200, w=260, value=120):
    return np.full((h, w, 3), value, np.uint8)


class OracleReader:
    """Probabilities set per place: {(x, y): {class: p}} (nearest within 3 px), else sure 'none'."""

    def __init__(self, table):
        self.table = table

    def probabilities(self, rgb, centres):
        out = np.zeros((len(centres), len(CLASSES)), np.float32)
        for i, (x, y) in enumerate(centres):
            row = next((v for (tx, ty), v in self.table.items() if np.hypot(tx - x, ty - y) < 3), {NONE: 1.0})
            for name, p in row.items():
                out[i, CLASSES.index(name)] = p
        return out


class OracleFinder:
    """Proposals set: [(x, y, {label: score})]; unnamed labels score 0."""

    def __init__(self, proposals):
        self.proposals = proposals

    def find(self, rgb):
        return [Proposal(x, y, {label: scores.get(label, 0.0) for label in LABELS}) for x, y, scores in self.proposals]
