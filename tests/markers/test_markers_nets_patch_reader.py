"""The patch reader: its input, its training script's file, and the parser's rule for using it
(tested with oracle probabilities, so the rule is checked apart from the network's skill)."""

import cv2
import numpy as np
import pytest
import torch
from marker_oracles import POINTS, STYLE, OracleReader, blotted, grey, trained_and_continued

from adapters.markers import MarkerStyle, draw_points, parse_image
from adapters.markers.draw.scenes import training_scene
from adapters.markers.general.nets.patch_reader import CLASSES, NONE, PATCH, PatchReader, PatchReaderNet, crop_patches
from adapters.markers.general.points.rings import find_circles
from adapters.markers.labels import REF as REF_CLASS
from train.markers_reader import OFF_CENTRE, SMALL_LABEL_HEIGHT, PatchStream
from train.markers_reader import main as train_main


def test_patches_are_centred_and_mark_the_image_border():
    image = grey()
    image[100, 130] = (255, 0, 0)
    patches = crop_patches(image, [(130, 100), (0, 0)])
    assert patches.shape == (2, 6, PATCH, PATCH)
    half = PATCH // 2
    assert patches[0, 0, half, half] == pytest.approx(0.5)  # the red pixel sits at the centre
    assert patches[0, 3].min() == 1.0  # wholly inside the image
    inside = patches[1, 3]  # a corner point: the upper-left quarter lies outside
    assert inside[:half, :half].max() == 0 and inside[half:, half:].min() == 1
    assert patches[1, :3][:, :half, :half].abs().max() == 0
    assert patches[0, 4, 0, 0] < 0 < patches[0, 4, 0, -1] and patches[0, 5, 0, 0] < 0 < patches[0, 5, -1, 0]


def test_network_maps_patches_to_class_logits():
    logits = PatchReaderNet(width=8)(torch.zeros(3, 6, PATCH, PATCH))
    assert logits.shape == (3, len(CLASSES)) and CLASSES[-1] == NONE


def test_training_script_writes_weights_with_their_record(tmp_path):
    reader, _ = trained_and_continued(train_main, PatchReader, tmp_path / "reader.pt", ["--batch", "8", "--width", "8"])
    assert reader.net.width == 8
    probs = reader.probabilities(grey(), [(50, 60), (120, 100)])
    assert probs.shape == (2, len(CLASSES)) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)


def test_small_label_scenes_draw_the_hardest_labels_and_none_when_not_asked():
    stream = PatchStream(0, ["hershey-simplex"], small_labels=1.0, photos=True)
    rng = np.random.default_rng(0)
    styles = [training_scene(rng, ["hershey-simplex"], **stream.style_fixed(rng)).style for _ in range(6)]
    low, high = SMALL_LABEL_HEIGHT
    assert all(low <= s.label_height <= high and s.polarity == "colour" for s in styles)
    plain = PatchStream(0, ["hershey-simplex"], photos=True)  # the default: every style random, no draw spent
    rng, untouched = np.random.default_rng(1), np.random.default_rng(1)
    assert plain.style_fixed(rng) == {} and rng.uniform() == untouched.uniform()


def test_off_centre_patches_lie_near_a_marker_and_off_every_one_and_read_none():
    stream = PatchStream(0, ["hershey-simplex"], off_centre=2)
    rng = np.random.default_rng(4)
    scene = stream.scene(rng, ["hershey-simplex"])
    markers = [(x, y) for x, y, label in scene.points if label is not None]
    samples = list(stream.samples(scene, rng))
    assert len(samples) > len(scene.points)  # the scene's points, then the off-centre places
    off = stream.off_centre_points(scene, np.random.default_rng(5))
    assert len(off) >= len(markers)  # 2 tries per marker, few too near another
    distances = [[np.hypot(x - mx, y - my) for mx, my in markers] for x, y in off]
    assert all(min(d) >= OFF_CENTRE[0] and min(d) <= OFF_CENTRE[1] for d in distances)
    assert all(int(target) == CLASSES.index(NONE) for _, target in samples[len(scene.points):])
    assert PatchStream(0, ["hershey-simplex"]).off_centre_points(scene, rng) == []


def test_reader_training_records_its_small_label_fraction_and_off_centre_count(tmp_path):
    reader, _ = trained_and_continued(train_main, PatchReader, tmp_path / "reader.pt",
                                      ["--batch", "8", "--width", "8", "--small-labels", "0.5", "--off-centre", "1"])
    assert reader.record["small_labels"] == 0.5 and reader.record["off_centre"] == 1
    for wrong in (["--small-labels", "1.5"], ["--off-centre", "-1"]):
        with pytest.raises(SystemExit):
            train_main([*wrong, "--output", str(tmp_path / "never.pt")])


def test_missing_weights_name_the_command_that_makes_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="train.markers_reader"):
        PatchReader.load(tmp_path / "absent.pt")


SURE = {POINTS["A"]: {"A": 1.0}, POINTS["B"]: {"B": 1.0}}  # what a good reader sees at A and B
DECOY = (215.0, 150.0)  # an unlabelled ring in the markers' style


def test_the_word_pass_alone_misses_a_blotted_label():
    parsed = parse_image(blotted(), list(POINTS), patch_reader=False)
    assert set(parsed.missing) == {"C"} and set(parsed.markers) == {"A", "B"}


def test_a_sure_reader_places_the_label_the_words_missed():
    parsed = parse_image(blotted(), list(POINTS), patch_reader=OracleReader({**SURE, POINTS["C"]: {"C": 0.95}}),
                         centre_finder=False)
    assert not parsed.missing
    assert np.hypot(*np.subtract(parsed.markers["C"].xy, POINTS["C"])) <= 1
    assert parsed.markers["C"].source == "patch" and parsed.markers["A"].source == "parsed"


def test_a_neighbour_that_shows_the_label_but_reads_as_its_own_is_no_rival():
    table = {**SURE, POINTS["C"]: {"C": 0.95}, DECOY: {"B": 0.6, "C": 0.3, NONE: 0.1}}
    parsed = parse_image(blotted(DECOY), list(POINTS), patch_reader=OracleReader(table), centre_finder=False)
    assert not parsed.missing and parsed.markers["C"].source == "patch"


@pytest.mark.parametrize("table, why", [
    ({POINTS["C"]: {"C": 0.4, NONE: 0.6}}, "surely enough"),  # < PATCH_MIN_PROBABILITY
    ({POINTS["C"]: {"C": 0.95}, DECOY: {"C": 0.4, NONE: 0.6}}, "two circles read as C"),
])
def test_an_unsure_reader_leaves_the_label_missing_and_says_why(table, why):
    parsed = parse_image(blotted(DECOY), list(POINTS), patch_reader=OracleReader({**SURE, **table}),
                         centre_finder=False)
    assert set(parsed.markers) == {"A", "B"} and why in parsed.missing["C"]


def test_a_ring_unlike_the_placed_markers_rings_is_no_rival():
    """Once A and B are placed, a ring no marker of theirs could be (another colour here; on the
    benchmark's seed 0, image 190, a letter's bowl a third of C's ring in size) does not compete
    for C, however much it reads as C; a ring like theirs does (the DECOY case above)."""
    image = blotted()
    x, y = DECOY
    cv2.circle(image, (int(x), int(y)), int(STYLE.radius), (0, 200, 0), STYLE.ring_width, cv2.LINE_AA)
    assert any(np.hypot(c.x - x, c.y - y) < 2 for c in find_circles(image))  # a candidate the reader judges
    table = {**SURE, POINTS["C"]: {"C": 0.95}, DECOY: {"C": 0.4, NONE: 0.6}}
    parsed = parse_image(image, list(POINTS), patch_reader=OracleReader(table), centre_finder=False)
    assert not parsed.missing and parsed.markers["C"].source == "patch"
    assert np.hypot(*np.subtract(parsed.markers["C"].xy, POINTS["C"])) <= 1


def test_a_sure_reading_beside_a_ring_unlike_the_others_is_refused():
    image = draw_points(grey(), {"A": POINTS["A"], "B": POINTS["B"]}, STYLE)
    odd = MarkerStyle(radius=14, ring_width=2, font="hershey-simplex", label_height=12, colour=(0, 200, 0))
    image = draw_points(image, {"C": POINTS["C"]}, odd)
    x, y = POINTS["C"]
    image[int(y) - 9:int(y) + 9, int(x) + 18:int(x) + 30] = odd.colour
    assert any(np.hypot(c.x - x, c.y - y) < 2 for c in find_circles(image))
    parsed = parse_image(image, list(POINTS), patch_reader=OracleReader({**SURE, POINTS["C"]: {"C": 0.99}}),
                         centre_finder=False)
    assert set(parsed.markers) == {"A", "B"} and "unlike the other markers' rings" in parsed.missing["C"]


def test_a_word_placed_marker_whose_ring_reads_as_no_marker_is_taken_back():
    image = draw_points(grey(), POINTS, STYLE)
    table = {**SURE, POINTS["C"]: {NONE: 0.95, "C": 0.05}}
    assert set(parse_image(image, list(POINTS), patch_reader=False).markers) == {"A", "B", "C"}
    parsed = parse_image(image, list(POINTS), patch_reader=OracleReader(table), centre_finder=False)
    assert set(parsed.markers) == {"A", "B"} and "read as no marker" in parsed.missing["C"]


@pytest.mark.parametrize("reading, placed", [
    ({REF_CLASS: 0.5, "C": 0.45, NONE: 0.05}, True),  # REF is not asked: C is the reading
    ({"E": 0.9, "C": 0.08, NONE: 0.02}, False),  # mostly a label not asked: another drawing's ring
    ({REF_CLASS: 0.5, "C": 0.2, NONE: 0.3}, False),  # conditioned, C is still unsure (0.4)
])
def test_the_reader_is_read_over_the_asked_labels_only(reading, placed):
    parsed = parse_image(blotted(), list(POINTS), patch_reader=OracleReader({**SURE, POINTS["C"]: reading}),
                         centre_finder=False)
    assert ("C" in parsed.markers) == placed
    if placed:
        assert parsed.markers["C"].source == "patch" and parsed.markers["C"].confidence == pytest.approx(0.45 / 0.5, abs=0.1)
