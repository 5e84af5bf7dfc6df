"""The shipped corner finder's and corner reader's outputs on the box benchmark's images, played
back: `recorded_finder()` and `recorded_reader()` stand in for default_corner_finder() and
default_corner_reader() in the tests that reach one of the box reader's rules through what the
networks read on a benchmark image (seed 10 image 183's B, placed by elimination where two
outlines start at its corner).

Such a test pins the rule, not the networks: played back from RECORDINGS, the readings stay the
ones the rule was written against, so a retrained finder or reader can ship without moving the
rules' tests (how well a network reads is measured by benchmarks/box_accuracy.py, not by tests).
The adversarial scenes and the parser's end-to-end tests keep the shipped networks.

Recording: `BOX_NETWORKS=record pytest tests/markers` runs the shipped networks where
an output was never recorded and merges it into RECORDINGS at exit, with the sha256 of the
weights that gave them; it refuses to merge outputs of other weights (delete RECORDINGS to record
afresh after shipping a network). An image or a reader position never recorded is an error that
says so (the image is keyed by its pixels: a change to the renderer or to the photographs the
benchmark images are drawn over, tests/benchmark_sample.py, asks for a new recording)."""

import atexit
import hashlib
import json
import os
from pathlib import Path

import numpy as np

from adapters.markers.general.nets.centre_finder import MIN_SCORE, Proposal
from adapters.markers.general.nets.corner_reader import CLASSES

RECORDINGS = Path(__file__).parent / "data" / "box_network_outputs.json"
RECORDING = os.environ.get("BOX_NETWORKS") == "record"
# px: a reader position is the recorded one when both coordinates are this near it. Corners are
# fitted in floating point, and numpy / OpenCV / SciPy releases move them in the fifth decimal;
# the reader's output does not change over such a step, while recorded positions of one image
# lie at least 0.07 px apart.
AT = 0.01


def image_key(rgb: np.ndarray) -> str:
    """What an image's outputs are filed under: a hash of its shape and pixels."""
    digest = hashlib.sha256(str(rgb.shape).encode() + np.ascontiguousarray(rgb).tobytes())
    return digest.hexdigest()[:24]


def _short(values) -> list[float]:
    """Scores the networks computed in float32, written in float32's shortest decimals (half the
    digits of float64's); _exact gives back the very same values."""
    return [float(str(np.float32(v))) for v in values]


def _exact(values) -> list[float]:
    return [float(np.float32(v)) for v in values]


class _Recordings:
    """RECORDINGS in memory: {"finder": sha256, "reader": sha256, "finder_classes": [...],
    "reader_classes": [...], "images": {key: {"proposals": [[x, y, [score per finder class]],
    ...], "readings": [[x, y, [probability per reader class]], ...]}}}."""

    def __init__(self) -> None:
        self.data = json.loads(RECORDINGS.read_text()) if RECORDINGS.is_file() else {"images": {}}
        if RECORDING:
            atexit.register(self.save)

    def image(self, rgb: np.ndarray) -> dict:
        key = image_key(rgb)
        if key not in self.data["images"]:
            if not RECORDING:
                raise LookupError(f"no recorded network outputs for image {key} in {RECORDINGS}: record them with "
                                  "BOX_NETWORKS=record pytest tests/markers")
            self.data["images"][key] = {"proposals": None, "readings": []}
        return self.data["images"][key]

    def weights(self, network: str, sha256: str) -> None:
        """Note that `network` ("finder", "reader") with weights `sha256` records here; outputs of
        two sets of weights are never mixed in one file."""
        recorded = self.data.setdefault(network, sha256)
        if recorded != sha256:
            raise ValueError(f"{RECORDINGS} holds the corner {network}'s outputs with weights {recorded[:12]}…, and "
                             f"the shipped ones are {sha256[:12]}…: delete it and record every test afresh")

    def save(self) -> None:
        RECORDINGS.parent.mkdir(parents=True, exist_ok=True)
        RECORDINGS.write_text(json.dumps(self.data, sort_keys=True, separators=(",", ":")) + "\n")


_recordings: _Recordings | None = None


def _store() -> _Recordings:
    global _recordings
    if _recordings is None:
        _recordings = _Recordings()
    return _recordings


class RecordedFinder:
    """The shipped corner finder's proposals (`find(rgb)`), as recorded."""

    def find(self, rgb: np.ndarray, min_score: float = MIN_SCORE) -> list[Proposal]:
        if min_score != MIN_SCORE:
            raise ValueError(f"proposals are recorded at the finder's MIN_SCORE ({MIN_SCORE}), not at {min_score}")
        entry = _store().image(rgb)
        if entry["proposals"] is None:  # (the image was new to a reader call)
            if not RECORDING:
                raise LookupError(f"no recorded corner finder proposals for image {image_key(rgb)}: record them with "
                                  "BOX_NETWORKS=record pytest tests/markers")
            from adapters.markers.general.nets.corner_finder import default_corner_finder
            finder = default_corner_finder()
            _store().weights("finder", finder.record["sha256"])
            classes = _store().data.setdefault("finder_classes", list(finder.net.classes))
            entry["proposals"] = [[p.x, p.y, _short(p.scores[c] for c in classes)] for p in finder.find(rgb)]
        classes = _store().data["finder_classes"]
        return [Proposal(x, y, dict(zip(classes, _exact(scores)))) for x, y, scores in entry["proposals"]]


class RecordedReader:
    """The shipped corner reader's probabilities (`probabilities(rgb, corners)`), as recorded at
    each position asked for."""

    def probabilities(self, rgb: np.ndarray, corners, batch: int | None = None) -> np.ndarray:
        # (batch: the shipped reader's keyword, of no use here)
        if not len(corners):
            return np.zeros((0, len(CLASSES)), np.float32)
        entry = _store().image(rgb)
        if _store().data.get("reader_classes", list(CLASSES)) != list(CLASSES):
            raise ValueError(f"the corner reader's classes are {list(CLASSES)}, the recorded readings' "
                             f"{_store().data['reader_classes']}: record them again")

        def recorded(x: float, y: float) -> list[float] | None:
            near = [(max(abs(rx - x), abs(ry - y)), p) for rx, ry, p in entry["readings"]]
            nearest = min(near, key=lambda item: item[0], default=(np.inf, None))
            return nearest[1] if nearest[0] <= AT else None

        corners = [(float(x), float(y)) for x, y in corners]
        unread = [(x, y) for x, y in corners if recorded(x, y) is None]
        if unread and not RECORDING:
            raise LookupError(f"no recorded corner reading at {unread[0]} of image {image_key(rgb)}: record with "
                              "BOX_NETWORKS=record pytest tests/markers")
        if unread:  # the whole batch as asked for (a network's output may differ in the last bits by batch)
            from adapters.markers.general.nets.corner_reader import default_corner_reader
            reader = default_corner_reader()
            _store().weights("reader", reader.record["sha256"])
            for (x, y), row in zip(corners, reader.probabilities(rgb, corners).tolist()):
                if recorded(x, y) is None:
                    entry["readings"].append([x, y, _short(row)])
            _store().data.setdefault("reader_classes", list(CLASSES))
        return np.array([_exact(recorded(x, y)) for x, y in corners], np.float32).reshape(len(corners), len(CLASSES))


def recorded_finder() -> RecordedFinder:
    return RecordedFinder()


def recorded_reader() -> RecordedReader:
    return RecordedReader()

