"""The played-back network outputs the box rules' tests use (marker_recordings): exact, and an
unrecorded image or reader position is an error that says how to record it."""

import marker_recordings
import numpy as np
import pytest
from box_scenes import benchmark_image
from marker_recordings import _exact, _short, image_key, recorded_finder, recorded_reader

from adapters.markers.general.nets.corner_reader import CLASSES


def test_scores_written_short_come_back_as_the_very_same_float32_values():
    values = np.random.default_rng(0).random(2000).astype(np.float32).tolist() + [0.0, 1.0, 7.721744623268023e-06]
    short = _short(values)
    assert _exact(short) == values
    assert len(str(short)) < 0.75 * len(str(values))  # (why they are written short)


def test_an_image_never_recorded_is_an_error_naming_how_to_record(monkeypatch):
    monkeypatch.setattr(marker_recordings, "RECORDING", False)
    image = np.full((240, 320, 3), 17, np.uint8)
    with pytest.raises(LookupError, match="BOX_NETWORKS=record"):
        recorded_finder().find(image)
    with pytest.raises(LookupError, match=image_key(image)):
        recorded_reader().probabilities(image, [(10.0, 10.0)])


def test_a_recorded_image_plays_back_its_proposals_and_readings_and_refuses_a_new_position(monkeypatch):
    """Seed 64 image 176 (a 4-box image): its proposals come back as
    Proposals over the finder's classes, each reading at a recorded position as float32 over the
    reader's classes, in the order asked; a position no test asked for is refused."""
    monkeypatch.setattr(marker_recordings, "RECORDING", False)
    drawn, boxes, _ = benchmark_image(64, 176)
    proposals = recorded_finder().find(drawn)
    assert proposals and all(set(p.scores) >= set(boxes) | {"far"} for p in proposals)
    readings = marker_recordings._store().data["images"][image_key(drawn)]["readings"]
    asked = [(x, y) for x, y, _ in readings[:3]][::-1]
    played = recorded_reader().probabilities(drawn, asked)
    assert played.dtype == np.float32 and played.shape == (len(asked), len(CLASSES))
    assert played.tolist() == [_exact(p) for _, _, p in readings[:3]][::-1]
    with pytest.raises(LookupError, match="no recorded corner reading"):
        recorded_reader().probabilities(drawn, [(asked[0][0] + 0.5, asked[0][1])])


def test_no_corners_asked_need_no_recording_and_two_sets_of_weights_never_mix(monkeypatch):
    monkeypatch.setattr(marker_recordings, "RECORDING", False)
    unrecorded = np.full((240, 320, 3), 17, np.uint8)
    assert recorded_reader().probabilities(unrecorded, []).shape == (0, len(CLASSES))
    store = marker_recordings._Recordings()
    recorded = store.data["finder"]
    store.weights("finder", recorded)  # the same weights: fine
    with pytest.raises(ValueError, match="delete it and record every test afresh"):
        store.weights("finder", "0" * 64)
