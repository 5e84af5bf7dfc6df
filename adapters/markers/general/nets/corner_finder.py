"""Find drawn boxes' corners in a whole image: the centre finder's network with other classes.

A box's label is written at its top-left corner (above it, or just inside it where there is no
room above), so one heatmap per label marks the top-left corner of the box that label names, and
one more ("far") marks every drawn rectangle's bottom-right corner. A 1 px anti-aliased outline on
a busy scene gives a hand-made line filter little to go on, but the corner and its label together
are plain to a small CNN; boxes/fit.py then fits each side's stroke to the sub-pixel and
boxes/measure.py checks the outline is drawn (boxes.outlines_at_corner pairs the corners).

    finder = default_corner_finder()           # None when no weights file is installed
    proposals = finder.find(rgb)               # [Proposal(x, y, scores {"A": p, ..., "far": p})]

Trained by train/markers_corners.py on draw.scenes.box_training_scene renders (training fonts
only, procedural backgrounds); the weights ship in weights/ with their record.
"""

from __future__ import annotations

import functools
from pathlib import Path

from adapters.markers.general.nets.centre_finder import CentreFinder, CentreFinderNet
from adapters.markers.labels import FAR_CORNER

BOX_LABELS = ("A", "B", "C", "D", "E")  # the labels a drawn box can carry


CORNER_CLASSES = (*BOX_LABELS, FAR_CORNER)


WEIGHTS = Path(__file__).resolve().parent / "weights" / "corner_finder.safetensors"


class CornerFinderNet(CentreFinderNet):
    """(n, 3, H, W) -> (n, len(CORNER_CLASSES) + 2, H/4, W/4): per-label top-left corner logits,
    the bottom-right corner logit, then the corner's (dx, dy) offset within the cell."""

    def __init__(self, width: int = 24) -> None:
        super().__init__(width, CORNER_CLASSES)


class CornerFinder(CentreFinder):
    """A trained CornerFinderNet in eval mode; `find(rgb)` (CentreFinder.find over its classes)."""

    NETWORK = CornerFinderNet
    WEIGHTS = WEIGHTS
    TRAIN = "python -m train.markers_corners"
    # a label's corner and another box's far corner a cell apart are both proposed: sought among
    # all classes as one, the stronger would hide the other, though both are drawn corners. The
    # one hidden is proposed with its group's scores only: a far corner's peak a cell from a
    # labelled corner, proposed with the labels read there too, would leave the label in doubt
    # between the two places
    PEAK_GROUPS = (BOX_LABELS, (FAR_CORNER,))
    # a hidden peak is mostly the heatmaps' spill beside a stronger one, not a corner, and a weak
    # one can give another label's corner an outline to it and leave that label in doubt; a
    # truly hidden corner still reads about a third or more
    HIDDEN_PEAK_MIN = 0.3


@functools.lru_cache(maxsize=1)
def default_corner_finder() -> CornerFinder | None:
    """The shipped finder, or None when weights/corner_finder.safetensors is absent (drawn boxes
    are then not parsed: the parser says so and asks for --markers FILE)."""
    return CornerFinder.load() if WEIGHTS.is_file() else None
