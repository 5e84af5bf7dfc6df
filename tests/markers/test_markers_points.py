"""The marker parser: positions and labels back from rendered questions; never a silent wrong answer."""

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.markers import MarkerError, MarkerStyle, draw_points, expected_markers, find_markers, parse_image
from adapters.markers.draw.fonts import BUILT_IN_FONTS
from adapters.markers.draw.render import with_style
from adapters.markers.draw.textures import procedural_texture
from adapters.markers.general.nets.patch_reader import NONE
from adapters.markers.inpaint import inpaint_image
from tests.benchmark_sample import benchmark_inputs
from tests.marker_oracles import OracleReader

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from markers_accuracy import evaluate, one_case  # noqa: E402

from adapters.markers.draw.scenes import jpeg  # noqa: E402
from adapters.markers.general.points import parse as points_parse_module
from adapters.markers.general.points.patch_opinion import check_words_matching_by_patches

SOURCE = QuestionSource("blink", "val")


def scene(seed=0, h=240, w=320):
    return procedural_texture(np.random.default_rng(seed), h, w)


def gradient(seed=0, h=240, w=320):
    """A smooth two-colour gradient with mild noise (a wall, a sky)."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
    a, b = rng.uniform(40, 220, 3), rng.uniform(40, 220, 3)
    image = a + (b - a) * t + rng.normal(0, 3, (h, w, 3))
    return np.clip(image, 0, 255).astype(np.uint8)


def question(task, choices, images, idx=None):
    pils = [Image.fromarray(i) for i in images]
    return MCQuestion(idx or f"val_{task}_1", task, "prompt", choices, None, SOURCE, _image_loader=lambda: pils)


def assert_right_or_raises(image, points, labels=None):
    """The parser may refuse (MarkerError-style `missing`), but every marker it returns is right."""
    parsed = parse_image(image, labels or list(points))
    for label, marker in parsed.markers.items():
        x, y = points[label]
        assert np.hypot(marker.xy[0] - x, marker.xy[1] - y) <= 2.0, (label, marker.xy, (x, y))
    assert parsed.markers or parsed.missing
    return parsed


def test_expected_labels_come_from_task_and_choices():
    depth = question("Relative_Depth", ("A is closer", "B is closer"), [scene()])
    assert expected_markers(depth).labels == {"image_1": ("A", "B")}
    refl = question("Relative_Reflectance", ("A is darker", "B is darker", "About the same"), [scene()])
    assert expected_markers(refl).labels == {"image_1": ("A", "B")}
    corr = question("Visual_Correspondence", ("Point A", "Point B", "Point C", "Point D"), [scene(), scene(1)])
    assert expected_markers(corr).labels == {"image_1": ("REF",), "image_2": ("A", "B", "C", "D")}
    with pytest.raises(ValueError, match="draws no markers"):
        expected_markers(question("Art_Style", ("x", "y"), [scene()]))


@pytest.mark.parametrize("polarity", ["colour", "box"])
@pytest.mark.parametrize("font", ["hershey-simplex", "hershey-duplex"])
def test_blink_like_question_parses_exactly(polarity, font):
    style = MarkerStyle(colour=(255, 0, 0), radius=8, ring_width=2, font=font, label_height=12,
                        side="right", polarity=polarity)
    points = {"A": (80.4, 70.2), "B": (210.7, 160.5)}
    q = question("Relative_Depth", ("A is closer", "B is closer"), [draw_points(gradient(2), points, style)])
    found = find_markers(q)
    for label, (x, y) in points.items():
        fx, fy = found.point("image_1", label)
        assert np.hypot(fx - x, fy - y) <= 1.0
    assert find_markers(q) is found  # parsed once per question


def test_correspondence_question_finds_ref_and_four_letters():
    style = MarkerStyle(colour=(230, 20, 20), radius=7, font="hershey-simplex", label_height=12, side="top-right")
    ref = {"REF": (150.0, 110.0)}
    cands = {"A": (60.0, 60.0), "B": (250.0, 60.0), "C": (60.0, 190.0), "D": (250.0, 190.0)}
    q = question("Visual_Correspondence", ("Point A", "Point B", "Point C", "Point D"),
                 [draw_points(gradient(3), ref, style), draw_points(gradient(4), cands, style)])
    found = find_markers(q)
    assert np.hypot(*np.subtract(found.point("image_1", "REF"), ref["REF"])) <= 2
    for label, xy in cands.items():
        assert np.hypot(*np.subtract(found.point("image_2", label), xy)) <= 2


def test_missing_label_raises_marker_error_naming_question_and_label():
    style = MarkerStyle(radius=8, font="hershey-simplex", label_height=12)
    q = question("Relative_Depth", ("A is closer", "B is closer"),
                 [draw_points(scene(5), {"A": (100.0, 100.0)}, style)], idx="val_Relative_Depth_7")
    with pytest.raises(MarkerError) as info:
        find_markers(q)
    assert "val_Relative_Depth_7" in str(info.value) and info.value.missing == {"image_1": ["B"]}


def test_a_label_no_step_accounts_for_is_missing_not_dropped(monkeypatch):

    real = parse_image

    def forgetful(rgb, labels, classifier=None):  # a parser step that loses B without a reason
        parsed = real(rgb, labels, classifier)
        parsed.markers.pop("B", None)
        parsed.missing.pop("B", None)
        return parsed

    monkeypatch.setattr(points_parse_module, "parse_image", forgetful)
    style = MarkerStyle(radius=8, font="hershey-simplex", label_height=12)
    q = question("Relative_Depth", ("A is closer", "B is closer"),
                 [draw_points(scene(5), {"A": (100.0, 100.0), "B": (200.0, 120.0)}, style)], idx="val_Relative_Depth_8")
    with pytest.raises(MarkerError, match="no step of the parser") as info:
        find_markers(q)
    assert info.value.missing == {"image_1": ["B"]}


def test_no_markers_at_all_is_an_error_not_a_guess():
    q = question("Relative_Depth", ("A is closer", "B is closer"), [scene(6)])
    with pytest.raises(MarkerError, match="markers not found"):
        find_markers(q)


def test_red_object_next_to_a_circle_is_right_or_an_error():
    image = scene(7)
    cv2.circle(image, (128, 100), 9, (255, 0, 0), -1)  # a red disc beside A's circle
    cv2.rectangle(image, (200, 150), (230, 175), (240, 10, 10), -1)
    points = {"A": (110.0, 100.0), "B": (220.0, 130.0)}
    drawn = draw_points(image, points, MarkerStyle(radius=8, font="hershey-simplex", label_height=12, side="left"))
    assert_right_or_raises(drawn, points)


def test_overlapping_markers_are_right_or_an_error():
    points = {"A": (150.0, 120.0), "B": (162.0, 126.0)}
    drawn = draw_points(scene(8), points, MarkerStyle(radius=9, font="hershey-simplex", label_height=11))
    assert_right_or_raises(drawn, points)


def test_label_cut_by_the_border_is_right_or_an_error():
    points = {"A": (100.0, 100.0), "B": (312.0, 120.0)}
    style = MarkerStyle(radius=7, font="hershey-simplex", label_height=13, side="right", keep_inside=False)
    assert_right_or_raises(draw_points(scene(9), points, style), points)


def test_inpainting_removes_the_drawing():
    base = np.full((160, 200, 3), 90, np.uint8)
    points = {"A": (60.0, 80.0), "B": (140.0, 80.0)}
    style = MarkerStyle(radius=8, font="hershey-simplex", label_height=12)
    drawn = draw_points(base, points, style)
    parsed = parse_image(drawn, ["A", "B"])
    assert set(parsed.markers) == {"A", "B"}
    clean = np.asarray(inpaint_image(Image.fromarray(drawn), list(parsed.markers.values()))).astype(int)
    assert np.abs(drawn.astype(int) - 90).max() > 100 and np.abs(clean - 90).max() < 25


def test_rendered_backgrounds_never_answer_wrong_silently():
    """Bounded run of benchmarks/markers_accuracy.py (120 images of 200x150), on a sample that is
    the same on every machine (no photographs, only the fonts OpenCV and Pillow bring).

    How many markers the parser finds is a figure the benchmark reports against its target (its
    `target` field), not a test. What must hold: a returned marker is at the right place, most
    markers are found, and the report's strata add up to its total.
    """
    figures = evaluate(n=120, seed=11, height=150, width=200, photos=[], fonts=list(BUILT_IN_FONTS))
    assert figures["all"]["wrong_silent"] <= 0.01 * figures["all"]["markers"]
    # a floor far under the target (0.99): it catches a parser that stops reading, not the last miss
    assert figures["all"]["found_right"] >= 0.9 * figures["all"]["markers"]
    assert figures["target"] == {"rate": 0.99, "met": figures["all"]["rate"] >= 0.99}
    assert figures["fonts"] == list(BUILT_IN_FONTS) and figures["photos"] == 0
    # every marker is counted once in each family of strata, so each family sums to the total
    strata = figures["strata"]
    for family in ("label_height_", "background_", "polarity_"):
        groups = [g for g in strata if g.startswith(family)]
        assert len(groups) >= 2, family
        assert sum(strata[g]["markers"] for g in groups) == figures["all"]["markers"]
        assert sum(strata[g]["found_right"] for g in groups) == figures["all"]["found_right"]


def test_red_label_on_orange_background():
    style = MarkerStyle(colour=(255, 0, 0), radius=8, ring_width=2, font="hershey-duplex", label_height=12)
    points = {"A": (80.4, 70.2), "B": (210.7, 160.5)}  # B lands on an orange blob of this scene
    q = question("Relative_Depth", ("A is closer", "B is closer"), [draw_points(scene(2), points, style)])
    assert np.hypot(*np.subtract(find_markers(q).point("image_1", "B"), points["B"])) <= 2


def _blot_labels(image, points, style, blotted):
    """Draw `points` and replace the labels in `blotted` by a filled ellipse of the ring colour:
    an inked blob no reader can name, as small bold labels become."""
    from adapters.markers.draw.render import draw_points_layout
    drawn, layout = draw_points_layout(image, points, style)
    for label in layout:
        if label.label in blotted:
            x0, y0, x1, y1 = label.rect
            drawn[y0:y1, x0:x1] = image[y0:y1, x0:x1]
            cv2.ellipse(drawn, ((x0 + x1) // 2, (y0 + y1) // 2), ((x1 - x0) // 2, (y1 - y0) // 2), 0, 0, 360,
                        style.colour, -1, cv2.LINE_AA)
    return drawn


ELIMINATION_STYLE = MarkerStyle(radius=9, ring_width=2, font="hershey-simplex", label_height=12, side="right")
ELIMINATION_POINTS = {"A": (60.0, 60.0), "B": (200.0, 70.0), "C": (120.0, 170.0)}


def test_the_one_unreadable_label_is_placed_by_elimination():
    drawn = _blot_labels(gradient(3), ELIMINATION_POINTS, ELIMINATION_STYLE, {"C"})
    parsed = assert_right_or_raises(drawn, ELIMINATION_POINTS)
    assert set(parsed.markers) == {"A", "B", "C"}
    assert parsed.markers["C"].source == "elimination" and parsed.markers["A"].source == "parsed"
    assert parsed.markers["C"].confidence < parsed.markers["A"].confidence
    assert parsed.markers["C"].to_json()["source"] == "elimination"


def test_elimination_refuses_two_unreadable_labels_or_two_free_circles():
    two_blotted = _blot_labels(gradient(3), ELIMINATION_POINTS, ELIMINATION_STYLE, {"B", "C"})
    parsed = assert_right_or_raises(two_blotted, ELIMINATION_POINTS)
    assert {"B", "C"} <= set(parsed.missing)
    # a fourth circle in the same style with a blotted label: C could be either
    decoy = {**ELIMINATION_POINTS, "D": (260.0, 180.0)}
    drawn = _blot_labels(gradient(3), decoy, ELIMINATION_STYLE, {"C", "D"})
    parsed = assert_right_or_raises(drawn, ELIMINATION_POINTS)
    assert "C" in parsed.missing and "2 free circles" in parsed.missing["C"]


def test_a_label_pushed_inside_by_the_border_is_read_beside_its_circle():
    """A's label goes bottom-left, has no room there nor top-right, and is clamped to the right
    border (render's keep_inside): it still labels A's ring (before: "A was read, but not beside
    any circle", on the 99% test's own images)."""
    from adapters.markers.draw.render import draw_points_layout
    from adapters.markers.general.points.rings import find_circles
    from adapters.markers.general.points.words_to_rings import placement_error
    from adapters.markers.general.thresholds import MAX_PLACEMENT_ERROR
    style = MarkerStyle(colour=(255, 0, 255), radius=10.4, ring_width=4, font="dejavusans", label_height=17.1,
                        side="bottom-left", gap=2.3, polarity="box", box_colour=(26, 6, 29),
                        text_colour=(215, 238, 242))
    points = {"A": (177.1, 121.2), "B": (22.7, 40.5), "C": (149.7, 61.8)}
    drawn, layout = draw_points_layout(gradient(3, 150, 200), points, style)
    rect = next(label.rect for label in layout if label.label == "A")
    assert rect[2] == 200  # clamped to the border
    ring = min(find_circles(drawn), key=lambda c: np.hypot(c.x - 177.1, c.y - 121.2))
    assert placement_error(rect, ring) > MAX_PLACEMENT_ERROR >= placement_error(rect, ring, (150, 200))
    parsed = parse_image(drawn, list(points), patch_reader=False, centre_finder=False)
    assert not parsed.missing and parsed.markers["A"].source == "parsed"
    assert all(np.hypot(*np.subtract(parsed.markers[k].xy, xy)) <= 2.0 for k, xy in points.items())


def test_a_circle_left_by_elimination_that_the_reader_sees_as_another_label_is_taken_back():
    """C is an inked blob, so elimination gives C the one circle left; the reader reads that
    ring as B with p=0.8 (no reading backs elimination, so less than PATCH_VETO overrules it):
    C goes back to missing, with the reason (before: a question answered wrong at 200x150)."""
    drawn = _blot_labels(gradient(3), ELIMINATION_POINTS, ELIMINATION_STYLE, {"C"})
    sure = {ELIMINATION_POINTS[k]: {k: 0.95, NONE: 0.05} for k in "AB"}
    backed = parse_image(drawn, list(ELIMINATION_POINTS), patch_reader=OracleReader(
        {**sure, ELIMINATION_POINTS["C"]: {"C": 0.3, "B": 0.6, NONE: 0.1}}), centre_finder=False)
    assert backed.markers["C"].source == "elimination"  # a weaker contrary reading does not overrule it
    parsed = parse_image(drawn, list(ELIMINATION_POINTS), patch_reader=OracleReader(
        {**sure, ELIMINATION_POINTS["C"]: {"B": 0.8, NONE: 0.2}}), centre_finder=False)
    assert set(parsed.markers) == {"A", "B"}
    assert "C was left by elimination to a circle whose surroundings read as B (p=0.80)" in parsed.missing["C"]


def _benchmark_image(seed, index, height, width):
    """Image `index` of benchmarks/markers_accuracy.py at this seed and size, and its true points."""
    photos, fonts = benchmark_inputs()
    rng = np.random.default_rng(seed)
    for _ in range(index + 1):
        image, points, _, _ = one_case(rng, photos, height, width, fonts)
    return image, points


def test_a_faint_ring_read_as_its_label_beside_the_glyph_taken_for_a_ring_is_undone():
    """The benchmark's 200x150 image 118 at seed 3. C's 1 px ring is too faint to be found and reads as
    the word "C"; the bowl of the bold C beside it is found as the circle that word labels. The
    reader sees no marker at that bowl and C at the ring inside the word: C goes back to missing
    and is placed on its ring (before: the question was answered with C 15 px off). A reader
    unsure of C at that ring leaves the words' C where it was: the check needs its evidence."""
    image, points = _benchmark_image(3, 118, 150, 200)
    words = parse_image(image, list(points), patch_reader=False, centre_finder=False)
    # the words alone take the C's bowl for its ring (what the networks must undo)
    assert np.hypot(*np.subtract(words.markers["C"].xy, points["C"])) > 10
    glyph, ring = words.markers["C"].xy, points["C"]
    parsed = parse_image(image, list(points))  # the shipped networks
    assert np.hypot(*np.subtract(parsed.markers["C"].xy, ring)) <= 2.0 and parsed.markers["C"].source == "patch"
    for label in points:  # and the others right
        assert np.hypot(*np.subtract(parsed.markers[label].xy, points[label])) <= 2.0, label
    # the same with an oracle reader: sure of A, B, D (the reader places A and D), "none" at the bowl
    sure = {points[k]: {k: 0.95, NONE: 0.05} for k in "ABD"}
    oracle = {**sure, glyph: {NONE: 0.85, "D": 0.15}, ring: {"C": 0.87, NONE: 0.13}}
    swapped = parse_image(image, list(points), patch_reader=OracleReader(oracle), centre_finder=False)
    assert swapped.markers["C"].source == "patch" and np.hypot(*np.subtract(swapped.markers["C"].xy, ring)) <= 2.0
    unsure = parse_image(image, list(points), centre_finder=False,
                         patch_reader=OracleReader({**oracle, ring: {"C": 0.4, NONE: 0.6}}))
    assert unsure.markers["C"].xy == glyph and unsure.markers["C"].source == "parsed"


FOUR_POINTS = {**ELIMINATION_POINTS, "D": (260.0, 180.0)}


def test_a_label_the_networks_place_leaves_the_other_unread_one_its_circle():
    """B and D are inked blobs: the words' elimination has two circles for two labels and cannot
    tell which is which. Once the patch reader places D on one of them, B takes the other (before:
    B stayed missing, 1 of 744 markers on the benchmark's seed 0 and seed 5 each)."""
    drawn = _blot_labels(gradient(3), FOUR_POINTS, ELIMINATION_STYLE, {"B", "D"})
    words_only = parse_image(drawn, list(FOUR_POINTS), patch_reader=False, centre_finder=False)
    assert {"B", "D"} <= set(words_only.missing) and "which is which" in words_only.missing["B"]
    # the reader backs the word-placed A and C (sure "none" there would take them back) and is
    # unsure at B's blob (a sure "none" would take back what elimination gives B; B read there
    # with p >= PATCH_MATCH_MIN would let it tell B and D apart before placing D)
    reader = OracleReader({**{FOUR_POINTS[k]: {k: 0.9, NONE: 0.1} for k in "ACD"},
                           FOUR_POINTS["B"]: {"B": 0.25, "D": 0.1, NONE: 0.65}})
    parsed = parse_image(drawn, list(FOUR_POINTS), patch_reader=reader, centre_finder=False)
    assert not parsed.missing
    assert parsed.markers["D"].source == "patch" and parsed.markers["B"].source == "elimination"
    for label, xy in FOUR_POINTS.items():
        assert np.hypot(*np.subtract(parsed.markers[label].xy, xy)) <= 2.0, label


@pytest.mark.parametrize("at_b, at_d, told", [
    ({"D": 0.41, "B": 0.40, "A": 0.13}, {"D": 0.93, "B": 0.05}, True),  # seed 0 image 197's readings
    ({"D": 0.41, "B": 0.40}, {"D": 0.45, "B": 0.40}, False),  # swapped, only about 1.1 times less likely
    ({"D": 0.70, "B": 0.20}, {"D": 0.93, "B": 0.05}, False),  # B at its circle below PATCH_MATCH_MIN
])
def test_the_patch_reader_tells_apart_the_labels_the_words_left_on_as_many_circles(at_b, at_d, told):
    """B and D are inked blobs on the two circles the words' elimination left: which is which
    the words cannot tell. The patch reader, unsure at each circle alone, tells them apart when one
    matching is PATCH_MATCH_RATIO times likelier than the swap and each label reads >= PATCH_MATCH_MIN."""
    drawn = _blot_labels(gradient(3), FOUR_POINTS, ELIMINATION_STYLE, {"B", "D"})
    table = {**{FOUR_POINTS[k]: {k: 0.9, NONE: 0.1} for k in "AC"},
             FOUR_POINTS["B"]: {**at_b, NONE: 1 - sum(at_b.values())},
             FOUR_POINTS["D"]: {**at_d, NONE: 1 - sum(at_d.values())}}
    parsed = parse_image(drawn, list(FOUR_POINTS), patch_reader=OracleReader(table), centre_finder=False)
    if told:
        assert not parsed.missing
        for label in "BD":
            assert parsed.markers[label].source == "elimination"
            assert np.hypot(*np.subtract(parsed.markers[label].xy, FOUR_POINTS[label])) <= 2.0, label
    else:
        assert "B" in parsed.missing and "no matching stands out" in parsed.missing["B"]
        assert all(np.hypot(*np.subtract(m.xy, FOUR_POINTS[label])) <= 2.0 for label, m in parsed.markers.items())


def test_a_circle_left_over_by_a_network_placement_elsewhere_is_not_taken():
    """B's and D's rings have no label beside them; a decoy ring in the markers' style has an
    unreadable blob beside it, the one circle the words' elimination finds for two labels. The
    patch reader then places D on its own ring, which the elimination never counted: the decoy
    left over is no more B's than before, so B stays missing (taking it by count alone put a
    label 128 px off on the benchmark's seed 0)."""
    decoy = (250.0, 110.0)
    drawn = _blot_labels(gradient(3), {"A": FOUR_POINTS["A"], "C": FOUR_POINTS["C"], "X": decoy},
                         ELIMINATION_STYLE, {"X"})
    for x, y in (FOUR_POINTS["B"], FOUR_POINTS["D"]):  # rings with no label
        cv2.circle(drawn, (int(x * 16), int(y * 16)), int(ELIMINATION_STYLE.radius * 16), ELIMINATION_STYLE.colour,
                   ELIMINATION_STYLE.ring_width, cv2.LINE_AA, 4)
    reader = OracleReader({FOUR_POINTS[k]: {k: 0.9, NONE: 0.1} for k in "ACD"})
    parsed = parse_image(drawn, list(FOUR_POINTS), patch_reader=reader, centre_finder=False)
    assert parsed.markers["D"].source == "patch" and "B" not in parsed.markers
    assert "1 free circles" in parsed.missing["B"]


@pytest.mark.parametrize("at_b, placed", [
    # 200x150 seed 12 image 14's reading (none 0.14): B the likeliest of all
    ({"B": 0.32, "C": 0.22, "A": 0.1, "D": 0.09, "E": 0.08, "REF": 0.05}, True),
    ({"B": 0.32, "C": 0.22, "A": 0.1}, False),  # "none" (0.36) likelier than B
    ({"C": 0.40, "B": 0.32}, False),  # another label likelier than B
])
def test_the_one_circle_left_after_a_network_placement_is_taken_where_the_reader_names_its_label(at_b, placed):
    """B's label is an inked blob, D's ring has no label: the words' elimination finds one circle
    for two labels, so it places neither. The patch reader places D on its bare ring; B's ring is
    then the one circle left for the one label left, and B goes there only where the reader's
    likeliest class at it is B (the decoy test above is the same count with the reader naming none)."""
    drawn = _blot_labels(gradient(3), {k: FOUR_POINTS[k] for k in "ABC"}, ELIMINATION_STYLE, {"B"})
    x, y = FOUR_POINTS["D"]
    cv2.circle(drawn, (int(x * 16), int(y * 16)), int(ELIMINATION_STYLE.radius * 16), ELIMINATION_STYLE.colour,
               ELIMINATION_STYLE.ring_width, cv2.LINE_AA, 4)
    table = {**{FOUR_POINTS[k]: {k: 0.9, NONE: 0.1} for k in "ACD"},
             FOUR_POINTS["B"]: {**at_b, NONE: round(1 - sum(at_b.values()), 2)}}
    parsed = parse_image(drawn, list(FOUR_POINTS), patch_reader=OracleReader(table), centre_finder=False)
    assert parsed.markers["D"].source == "patch"
    if placed:
        assert parsed.markers["B"].source == "elimination" and not parsed.missing
        assert np.hypot(*np.subtract(parsed.markers["B"].xy, FOUR_POINTS["B"])) <= 2.0
    else:
        assert "B" not in parsed.markers and "1 free circles" in parsed.missing["B"]


def _bare_rings(points, style, bare):
    """`points` drawn with their labels, except those in `bare`: rings alone, no word beside them
    (the words can place nothing there, not even by elimination)."""
    drawn = draw_points(gradient(3), {k: v for k, v in points.items() if k not in bare}, style)
    for label in bare:
        x, y = points[label]
        cv2.circle(drawn, (int(x * 16), int(y * 16)), int(style.radius * 16), style.colour, style.ring_width,
                   cv2.LINE_AA, 4)
    return drawn


@pytest.mark.parametrize("at_b, at_d, third, placed", [
    # seed 9 image 177's readings: D's ring reads B 0.49, D 0.45 (neither placed alone); B's B 0.93
    ({"B": 0.93, "D": 0.04}, {"B": 0.49, "D": 0.45}, None, True),
    # seed 0 image 15's: D's ring surely misread as B, the right matching no likelier than the swap
    ({"B": 0.61, "D": 0.11}, {"B": 0.74, "D": 0.05}, None, False),
    # a third free ring in the markers' style that reads D 0.25: three circles for two labels
    ({"B": 0.93, "D": 0.04}, {"B": 0.49, "D": 0.45}, {"D": 0.25}, False),
])
def test_labels_left_missing_go_to_as_many_free_circles_by_the_patch_readers_likeliest_matching(
        at_b, at_d, third, placed):
    """B's and D's rings have no word beside them, and the patch reader is unsure at each alone.
    Placed together when exactly two free rings read as them and one matching is PATCH_MATCH_RATIO
    times likelier than the swap, each label read with p >= PATCH_MATCH_MIN; else both stay missing."""
    extra = (260.0, 120.0)
    drawn = _bare_rings({**FOUR_POINTS, "X": extra}, ELIMINATION_STYLE, {"B", "D"} | ({"X"} if third else set()))
    table = {**{FOUR_POINTS[k]: {k: 0.9, NONE: 0.1} for k in "AC"},
             FOUR_POINTS["B"]: {**at_b, NONE: 1 - sum(at_b.values())},
             FOUR_POINTS["D"]: {**at_d, NONE: 1 - sum(at_d.values())},
             **({extra: {**third, NONE: 1 - sum(third.values())}} if third else {})}
    parsed = parse_image(drawn, list(FOUR_POINTS), patch_reader=OracleReader(table), centre_finder=False)
    for label, m in parsed.markers.items():
        assert np.hypot(*np.subtract(m.xy, FOUR_POINTS[label])) <= 2.0, label
    if placed:
        assert not parsed.missing and {parsed.markers[k].source for k in "BD"} == {"patch"}
    else:
        assert {"B", "D"} <= set(parsed.missing)
        if not third:
            assert "no matching stands out" in parsed.missing["D"]


@pytest.mark.parametrize("d_radius, proposal, outcome", [
    (9, None, "kept"),  # D drawn like the others: its ring stands
    (7, None, "missing"),  # D's ring 2 px smaller than the others': no finder proposal, taken back
    (7, (1.5, 0.0), "moved"),  # ... moved to the finder's proposal reading D (1.5 px off the ring's centre)
])
def test_a_ring_fitted_at_another_radius_than_the_others_is_recentred_or_taken_back(d_radius, proposal, outcome):
    """All rings of a question are drawn alike: a ring fitted at a radius more than ODD_RADIUS px
    from the others' median was fitted off, and its centre with it (seed 1, image 259)."""
    from tests.marker_oracles import OracleFinder, OracleReader
    drawn = draw_points(gradient(3), {k: v for k, v in FOUR_POINTS.items() if k != "D"}, ELIMINATION_STYLE)
    drawn = draw_points(drawn, {"D": FOUR_POINTS["D"]}, with_style(ELIMINATION_STYLE, radius=d_radius))
    reader = OracleReader({xy: {k: 0.9, NONE: 0.1} for k, xy in FOUR_POINTS.items()})
    dx, dy = proposal or (0.0, 0.0)
    moved_to = (FOUR_POINTS["D"][0] + dx, FOUR_POINTS["D"][1] + dy)
    finder = OracleFinder([(x, y, {k: 0.9}) for k, (x, y) in FOUR_POINTS.items() if k != "D"]
                          + ([(*moved_to, {"D": 0.9})] if proposal else []))
    parsed = parse_image(drawn, list(FOUR_POINTS), patch_reader=reader, centre_finder=finder)
    for label in "ABC":
        assert np.hypot(*np.subtract(parsed.markers[label].xy, FOUR_POINTS[label])) <= 1.0, label
    if outcome == "missing":
        assert "D" not in parsed.markers and "fitted at radius" in parsed.missing["D"]
    else:
        d = parsed.markers["D"]
        assert d.source == "parsed"
        assert d.xy == moved_to if outcome == "moved" else np.hypot(*np.subtract(d.xy, FOUR_POINTS["D"])) <= 1.0


@pytest.mark.parametrize("b_radius, proposed, outcome", [
    (8.5, "AB", "kept"),  # B 0.5 px smaller than A: within ODD_PAIR, both rings stand
    (6.5, "A", "B missing"),  # 2.5 px smaller: both in doubt; A stays at the finder's A, B is taken back
    (6.5, "AB", "both moved"),  # ... and with the finder reading B at its centre, both are placed there
])
def test_two_rings_fitted_at_radii_apart_are_both_judged(b_radius, proposed, outcome):
    """Two rings of one question drawn alike but fitted more than ODD_PAIR px apart: either may be
    the one fitted off (640x480 seed 21, images 219 and 252, were answered with a point
    2.2 and 3.8 px off), so each stays only where the centre finder reads its label within
    FINDER_NEAR px, moved to that proposal."""
    from tests.marker_oracles import OracleFinder, OracleReader
    points = {k: ELIMINATION_POINTS[k] for k in "AB"}
    drawn = draw_points(gradient(3), {"A": points["A"]}, ELIMINATION_STYLE)
    drawn = draw_points(drawn, {"B": points["B"]}, with_style(ELIMINATION_STYLE, radius=b_radius))
    reader = OracleReader({xy: {k: 0.9, NONE: 0.1} for k, xy in points.items()})
    finder_at = {k: (points[k][0] + 0.5, points[k][1]) for k in proposed}  # the finder's centres, 0.5 px off
    finder = OracleFinder([(x, y, {k: 0.9}) for k, (x, y) in finder_at.items()])
    parsed = parse_image(drawn, list(points), patch_reader=reader, centre_finder=finder)
    if outcome == "kept":
        assert not parsed.missing
        assert all(np.hypot(*np.subtract(parsed.markers[k].xy, points[k])) <= 1.0 for k in "AB")
        assert parsed.markers["A"].xy != finder_at["A"]  # the ring's own fit, not moved
    else:
        assert parsed.markers["A"].xy == finder_at["A"]
        if outcome == "B missing":
            assert "B" not in parsed.markers and "fitted at radius" in parsed.missing["B"]
        else:
            assert not parsed.missing and parsed.markers["B"].xy == finder_at["B"]


@pytest.mark.parametrize("p_ref, placed", [(0.93, True), (0.85, False)])
def test_a_lone_ref_with_no_word_is_placed_where_the_patch_reader_is_sure_of_it(p_ref, placed):
    """REF alone (Visual_Correspondence's first image), its ring bare: no style to be like, so the
    patch reader must read it with p >= PATCH_LONE_PROBABILITY (0.9)."""
    ref = {"REF": (150.0, 110.0)}
    drawn = _bare_rings(ref, ELIMINATION_STYLE, {"REF"})
    reader = OracleReader({ref["REF"]: {"REF": p_ref, NONE: 1 - p_ref}})
    parsed = parse_image(drawn, ["REF"], patch_reader=reader, centre_finder=False)
    if placed:
        assert parsed.markers["REF"].source == "patch"
        assert np.hypot(*np.subtract(parsed.markers["REF"].xy, ref["REF"])) <= 1.0
    else:
        assert not parsed.markers and "surely enough" in parsed.missing["REF"]


def test_a_lone_ref_ring_partly_hidden_by_the_scene_is_placed_where_the_patch_reader_is_sure():
    """A lone REF's ring drawn three quarters round (texture over a thin ring hides the rest; the
    detector measures 0.81 of it): any ring the detector
    verifies (LONE_MIN_COVERAGE, its own 0.75) will do where the reader is sure of REF."""
    x, y = 150.0, 110.0
    drawn = gradient(3)
    style = ELIMINATION_STYLE
    cv2.ellipse(drawn, (int(x * 16), int(y * 16)), (int(style.radius * 16),) * 2, 0, 0, 270, style.colour,
                style.ring_width, cv2.LINE_AA, 4)
    parsed = parse_image(drawn, ["REF"], patch_reader=OracleReader({(x, y): {"REF": 0.95, NONE: 0.05}}),
                         centre_finder=False)
    assert parsed.markers["REF"].source == "patch" and np.hypot(*np.subtract(parsed.markers["REF"].xy, (x, y))) <= 1.0
    assert parsed.circles and max(c.coverage for c in parsed.circles) < 0.85  # the old bar would refuse it


@pytest.mark.parametrize("font", ["hershey-simplex", "hershey-triplex", "dejavusans-bold"])
def test_several_unread_labels_are_told_apart_by_reading_against_them_only(font):
    """Labels drawn as the digits a small B and D are misread as ("8", "0"): no word reads as B
    or D, but read against B and D only, the "8" is the B and the "0" the D, wherever they are."""
    style = with_style(ELIMINATION_STYLE, font=font)
    a, p, q = ELIMINATION_POINTS.values()
    for eight, zero in ((p, q), (q, p)):
        drawn = draw_points(gradient(3), {"A": a, "8": eight, "0": zero}, style)
        parsed = parse_image(drawn, ["A", "B", "D"])
        assert not parsed.missing
        assert np.hypot(*np.subtract(parsed.markers["B"].xy, eight)) <= 2.0
        assert np.hypot(*np.subtract(parsed.markers["D"].xy, zero)) <= 2.0
        assert parsed.markers["B"].source == parsed.markers["D"].source == "elimination"


def test_a_label_read_only_beside_an_unlike_ring_does_not_sink_the_others():
    """A's marker is not drawn; an "A" sits only beside a small green ring of another style.
    B and C are still placed, and A is missing with the reason (before: all three refused)."""
    drawn = draw_points(gradient(3), {k: ELIMINATION_POINTS[k] for k in ("B", "C")}, ELIMINATION_STYLE)
    drawn = draw_points(drawn, {"A": (250.0, 190.0)}, with_style(ELIMINATION_STYLE, radius=5, colour=(0, 200, 0)))
    parsed = assert_right_or_raises(drawn, ELIMINATION_POINTS)
    assert set(parsed.markers) == {"B", "C"} and all(m.source == "parsed" for m in parsed.markers.values())
    assert "unlike the other markers'" in parsed.missing["A"]


def test_a_clear_reading_a_pixel_off_is_kept_among_nearer_vague_ones():
    """Five scene rings with a vague "REF" right at their placement, and the real ring with a
    clear "REF" 0.9 px off: the real pair stays among the options (cheapest first), so it can
    win or make the choice ambiguous (kept by placement alone, it was dropped and a scene ring won)."""
    from adapters.markers.general.nets.glyphs import Reading
    from adapters.markers.general.points.state import LabelRead
    from adapters.markers.general.points.words import Word
    from adapters.markers.general.points.words_to_rings import word_options
    from adapters.markers.general.thresholds import MAX_OPTIONS

    def read(similarity, errors):
        word = Word((0, 0, 20, 10), np.ones((10, 20), np.float32), "colour")
        return LabelRead(word, Reading("REF", similarity, 0.1, "REF"), dict(errors))

    vague = [read(0.86, {j: 0.1 * j}) for j in range(1, 6)]
    clear = read(0.98, {0: 0.9})
    options = word_options("REF", [*vague, clear])
    assert len(options) == MAX_OPTIONS and any(r is clear and j == 0 for r, j in options)
    # the dearest vague pair (0.5 px off, doubt 0.14) is the one left out
    assert not any(r is vague[-1] for r, _ in options)


def test_elimination_never_hands_a_label_to_a_scene_ring():
    """C's thin ring sits in a patch of busy coloured scene, where it is often not found; the
    scene there has rings and wide blobs of its own. C may go missing, never to a scene ring
    (before ELIMINATION_RADIUS / ELIMINATION_MAX_ASPECT, seed 5 put C 20 px off)."""
    style = MarkerStyle(radius=9, ring_width=1, font="hershey-simplex", label_height=12, side="right",
                        colour=(230, 20, 20))
    for seed in range(8):
        rng = np.random.default_rng(seed)
        image = gradient(3).copy()
        field = cv2.GaussianBlur(rng.normal(0, 1, (60, 90, 3)).astype(np.float32), (0, 0), 1.5)
        image[140:200, 80:170] = np.clip(128 + 60 * field / field.std(), 0, 255).astype(np.uint8)
        assert_right_or_raises(jpeg(draw_points(image, ELIMINATION_POINTS, style), 80), ELIMINATION_POINTS)


def test_words_cut_by_the_search_window_are_not_read():
    """A neighbour's ring cut by A's search window looks like a "C"; it must not be a word of A's."""
    from adapters.markers.colour import to_lab
    from adapters.markers.general.points.rings import find_circles
    from adapters.markers.general.points.words import colour_text_words
    style = MarkerStyle(radius=12, ring_width=3, font="hershey-simplex", label_height=12, side="right")
    points = {"A": (80.0, 120.0), "B": (150.0, 120.0)}  # B's ring straddles A's window edge
    drawn = draw_points(gradient(4), points, style)
    lab = to_lab(drawn)
    a = min(find_circles(drawn, lab), key=lambda c: np.hypot(c.x - 80, c.y - 120))
    reach = int(a.r + a.width / 2 + 48)
    window_right = int(a.x + reach) + 1
    words = colour_text_words(lab, a, [a], reach)
    assert words and all(w.rect[2] < window_right for w in words)


def test_a_thin_ring_off_the_pixel_grid_is_found():
    """1 px anti-aliased rings centred between pixels are found at their sub-pixel centre."""
    from adapters.markers.general.points.rings import find_circles
    for dx, dy in ((0.5, 0.5), (0.3, -0.4), (-0.5, 0.2)):
        image = gradient(5).copy()
        centre = (int(round((150 + dx) * 16)), int(round((110 + dy) * 16)))
        cv2.circle(image, centre, int(7.7 * 16), (255, 40, 0), 1, cv2.LINE_AA, 4)
        found = find_circles(image)
        assert any(np.hypot(c.x - 150 - dx, c.y - 110 - dy) < 1.0 for c in found), (dx, dy)


def test_every_label_is_either_placed_or_missing_with_a_reason():
    """Rendered benchmark images (seed 5) where the words leave one label ambiguous: the labels
    every near-best assignment agrees on used to be dropped with it, neither placed nor missing.
    Images 31 and 198 are two such; both labels are now placed, each where it was drawn."""
    photos, fonts = benchmark_inputs()
    rng = np.random.default_rng(5)
    cases = [one_case(rng, photos, 240, 320, fonts) for _ in range(199)]
    for image, truth, _, _ in (cases[31], cases[198]):
        parsed = parse_image(image, list(truth))
        assert set(parsed.markers) | set(parsed.missing) == set(truth)
        assert not set(parsed.markers) & set(parsed.missing)
        assert all(np.hypot(*np.subtract(parsed.markers[label].xy, xy)) <= 2.0 for label, xy in truth.items())


def test_a_words_matching_of_eliminated_labels_the_patch_reader_reads_otherwise_is_taken_back():
    """markers_accuracy's 320x240 image 134 at seed 35: B's and D's
    8.6 px labels (dejavusansmono) are read as no label, and the words' elimination, reading them
    against B and D only, matched them swapped; the question was answered wrong. The patch reader
    reads B 0.75 at B's ring and 0.02 at D's: the swap is 4.5 times likelier
    (WORDS_MATCHING_OVERRULED 2), so both go back to missing. With the shipped networks B is then
    placed by the reader and D by elimination, both right; with a reader that agrees with the
    words' matching it stands."""
    image, points = _benchmark_image(35, 134, 240, 320)
    words = parse_image(image, list(points), patch_reader=False, centre_finder=False)
    assert {words.markers[k].source for k in "BD"} == {"elimination"}
    assert np.hypot(*np.subtract(words.markers["B"].xy, points["D"])) <= 2.0  # (what the check must undo)
    parsed = parse_image(image, list(points))  # the shipped networks
    assert not parsed.missing and (parsed.markers["B"].source, parsed.markers["D"].source) == ("patch", "elimination")
    for label in points:
        assert np.hypot(*np.subtract(parsed.markers[label].xy, points[label])) <= 2.0, label
    sure = {points[k]: {k: 0.97, NONE: 0.03} for k in "AC"}

    def read_with(b_ring, d_ring):
        return parse_image(image, list(points), centre_finder=False,
                           patch_reader=OracleReader({**sure, points["B"]: b_ring, points["D"]: d_ring}))

    # the swap 24 times likelier: taken back, and matched again by the reader (decisively)
    matched = read_with({"B": 0.4, "D": 0.1, NONE: 0.5}, {"B": 0.05, "D": 0.3, NONE: 0.65})
    assert not matched.missing and all(np.hypot(*np.subtract(matched.markers[k].xy, points[k])) <= 2.0 for k in points)
    # about 3.5 times: taken back, B placed on its ring, nothing placed wrong
    unsure = read_with({"B": 0.75, "D": 0.19, NONE: 0.06}, {"E": 0.6, "C": 0.25, "B": 0.08, "D": 0.07})
    assert "B" in unsure.markers and all(np.hypot(*np.subtract(unsure.markers[k].xy, points[k])) <= 2.0 for k in unsure.markers)
    check = parse_image(image, list(points), patch_reader=False, centre_finder=False)
    check_words_matching_by_patches(image, check, OracleReader(
        {**sure, points["B"]: {"B": 0.75, "D": 0.19, NONE: 0.06}, points["D"]: {"E": 0.6, "C": 0.25, "B": 0.08, "D": 0.07}}))
    assert set(check.markers) == {"A", "C"}
    assert all("the patch reader reads another matching of them" in check.missing[k] for k in "BD")
    # a reader that agrees with the words' matching leaves it standing
    stands = read_with({"D": 0.8, NONE: 0.2}, {"B": 0.8, NONE: 0.2})
    assert np.hypot(*np.subtract(stands.markers["B"].xy, points["D"])) <= 2.0
    assert stands.markers["B"].source == stands.markers["D"].source == "elimination"


def test_how_much_likelier_the_patch_reader_reads_another_matching():
    from adapters.markers.general.points.patch_opinion import _other_matching_ratio
    assert _other_matching_ratio(np.array([[0.8, 0.1], [0.2, 0.5]])) == pytest.approx(0.02 / 0.4)
    assert _other_matching_ratio(np.array([[0.1, 0.6], [0.3, 0.05]])) == pytest.approx(0.18 / 0.005)
    assert _other_matching_ratio(np.array([[0.9, 0.0], [0.0, 0.9]])) == 0.0  # no other matching it can see
    assert _other_matching_ratio(np.array([[0.0, 0.9], [0.9, 0.0]])) == float("inf")  # only another
    assert _other_matching_ratio(np.array([[0.0, 0.0], [0.0, 0.0]])) == 0.0  # none at all
    assert _other_matching_ratio(np.array([[0.9]])) == 0.0  # one label: nothing to weigh
    three = np.array([[0.9, 0.05, 0.05], [0.05, 0.1, 0.85], [0.05, 0.85, 0.1]])  # B and C swapped
    assert _other_matching_ratio(three) == pytest.approx(0.9 * 0.85 * 0.85 / (0.9 * 0.1 * 0.1))
