"""Read which label is written at a drawn box's top-left corner: the patch reader's network over
a smaller patch centred on the corner that boxes/fit.py fitted.

The corner finder reads labels too, but from a whole-image heatmap at a quarter of the image's
resolution, where a 1 px label on noise and a rectangle's corner look much alike (its readings
at true corners spread over 0.3-0.5 for several labels); the glyph classifier
(boxes/label_word.py) reads only what it can cut out by colour. This reader sees the RGB
around the exact corner (the label above it, or inside the box when there is no room above) and
answers one of BOX_LABELS or "none" (a decoy rectangle's corner, a far corner, two boxes' lines crossing). Trained by
train/markers_corner_reader.py on draw.scenes.box_training_scene renders in the training fonts
only; the weights ship in weights/ with their record.

    reader = default_corner_reader()           # None when no weights file is installed
    probs = reader.probabilities(rgb, [(x0, y0), ...])   -> (n, len(CLASSES)) float32
"""

from __future__ import annotations

import functools
from pathlib import Path

from adapters.markers.general.nets.corner_finder import BOX_LABELS
from adapters.markers.general.nets.patch_reader import NONE, PatchReader, PatchReaderNet

CLASSES = (*BOX_LABELS, NONE)


PATCH = 64  # px: a label (8-18 px tall, padded) above or inside the corner lies within 32 px of it


WEIGHTS = Path(__file__).resolve().parent / "weights" / "corner_reader.safetensors"


class CornerReaderNet(PatchReaderNet):
    """(n, 6, PATCH, PATCH) -> (n, len(CLASSES)) logits; about 23 M multiply-adds per patch."""

    def __init__(self, width: int = 24) -> None:
        super().__init__(width, PATCH, len(CLASSES))


class CornerReader(PatchReader):
    """A trained CornerReaderNet in eval mode; `probabilities(rgb, corners)`."""

    NETWORK = CornerReaderNet
    WEIGHTS = WEIGHTS
    TRAIN = "python -m train.markers_corner_reader"
    PATCH = PATCH


@functools.lru_cache(maxsize=1)
def default_corner_reader() -> CornerReader | None:
    """The shipped reader, or None when weights/corner_reader.safetensors is absent (labels are then
    read by the corner finder and the glyph classifier alone)."""
    return CornerReader.load() if WEIGHTS.is_file() else None
