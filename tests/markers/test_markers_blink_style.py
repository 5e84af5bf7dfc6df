"""BLINK's own marker drawing: the derived glyphs, the renderer (pixel for pixel as BLINK drew),
and the first pass that reads it (exact style, JPEG, labels cut by the edge, white rings,
scaled markers), with the general parser behind it."""

import argparse
import json

import cv2
import numpy as np
import pytest
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
from adapters.markers import find_markers
from adapters.markers.blink.draw import RED, WHITE, BlinkStyle, blink_jpeg, draw_blink_points, label_origin
from adapters.markers.blink.hershey import FONT_SCALES, LABELS, THICKNESSES, glyph
from adapters.markers.blink.points import read_blink_points
from adapters.markers.blink.ring_evidence import ring_evidence, ring_pixels
from adapters.markers.draw.render import MarkerStyle, draw_points, draw_points_layout
from adapters.markers.draw.textures import procedural_texture
from adapters.markers.find import blink_first


def photo_like(seed: int, height: int = 375, width: int = 500) -> np.ndarray:
    return procedural_texture(np.random.default_rng(seed), height, width)


def near(marker, xy, tolerance=1.0) -> bool:
    return marker is not None and float(np.hypot(marker.xy[0] - xy[0], marker.xy[1] - xy[1])) <= tolerance


# --- the glyphs BLINK's OpenCV 4.x drew -------------------------------------------------------

def test_the_derived_glyphs_are_opencv4s_duplex_at_relative_depths_size():
    a = glyph("A", 0.5, 1)
    assert (a.width, a.height, a.baseline) == (11, 12, 5)  # cv2.getTextSize under OpenCV 4.x
    assert a.ink.shape[0] == 11 and a.top + a.ink.shape[0] - 1 == 0  # 11 px tall, standing on the baseline
    assert glyph("REF", 0.5, 1).width > 2 * a.width
    for label in LABELS:  # every label at every derived size
        for scale in FONT_SCALES[::11]:
            for thickness in THICKNESSES:
                g = glyph(label, scale, thickness)
                assert g.ink.any() and g.height > 0
    with pytest.raises(KeyError, match="outside the derived grid"):
        glyph("A", 9.0, 1)


# --- the drawing ------------------------------------------------------------------------------

def test_drawing_matches_the_geometry_measured_on_blink():
    """Ring: 13x13, hollow, red band at radii ~3.5-6.5 around a hole ~5 px wide. Label: a 14x15
    black box from cy - 31 to cy - 17, centred above the ring, its glyphs pure white."""
    base = np.full((375, 500, 3), 128, np.uint8)
    drawn, boxes = draw_blink_points(base, {"A": (200, 200)})
    red = np.all(drawn == RED, axis=2)
    ys, xs = np.nonzero(red)
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (194, 206, 194, 206)
    assert not red[198:203, 198:203].any()  # the hole
    x0, y0, x1, y1 = boxes["A"]
    assert (x1 - x0 + 1, y1 - y0 + 1) == (14, 15) and (y0, y1) == (169, 183)
    assert abs((x0 + x1) / 2 - 200) <= 1
    inside = drawn[y0:y1 + 1, x0:x1 + 1]
    assert set(np.unique(inside)) == {0, 255}


def test_labels_go_under_the_ring_at_the_top_and_shift_inside_at_the_sides():
    style = BlinkStyle()
    width = 500
    assert label_origin(style, "A", (100, 10), width)[1] > 10  # cy < 18: under the ring
    assert label_origin(style, "A", (100, 20), width)[1] == 2  # cy 20: above, mostly cut by the edge
    assert label_origin(style, "A", (2, 100), width)[0] == 0  # shifted inside at the left
    assert label_origin(style, "A", (498, 100), width)[0] == width - glyph("A", 0.5).width


def test_scaled_style_grows_ring_and_text_together():
    style = BlinkStyle.scaled(2.0)
    assert (style.radius, style.ring_thickness, style.font_scale, style.offset) == (10, 4, 1.0, 36)
    assert BlinkStyle.for_image(500, 375) == BlinkStyle()
    assert BlinkStyle.for_image(1000, 750).radius == 10


# --- reading it back --------------------------------------------------------------------------

@pytest.mark.parametrize("jpeg", [False, True])
def test_the_exact_style_is_read_back_at_the_drawn_centres(jpeg):
    points = {"A": (120, 200), "B": (380, 90)}
    drawn, _ = draw_blink_points(photo_like(1), points)
    if jpeg:
        drawn = blink_jpeg(drawn, 75)
    read = read_blink_points(drawn, ["A", "B"])
    assert not read.missing and read.scale == 1.0
    for label, xy in points.items():
        assert read.markers[label].xy == (float(xy[0]), float(xy[1]))
        assert read.markers[label].source == "blink_style"


def test_labels_cut_by_the_top_edge_or_under_the_ring_are_read():
    """cy 20: only the box's lowest rows remain (the glyphs' feet tell A from B); cy 6: the
    label hangs under the ring."""
    points = {"A": (150, 20), "B": (330, 6)}
    drawn = blink_jpeg(draw_blink_points(photo_like(2), points)[0], 75)
    read = read_blink_points(drawn, ["A", "B"])
    assert not read.missing
    assert all(near(read.markers[label], xy) for label, xy in points.items())


def test_a_label_cut_away_entirely_is_placed_by_elimination_when_it_is_the_one_left():
    """At cy 18 only the box's bottom row is left: the label cannot be read, but B is read and
    the one BLINK marker left must be A."""
    points = {"A": (200, 18), "B": (300, 200)}
    drawn = blink_jpeg(draw_blink_points(photo_like(3), points)[0], 75)
    read = read_blink_points(drawn, ["A", "B"])
    assert near(read.markers["B"], points["B"]) and read.markers["B"].confidence > 0.5
    assert near(read.markers["A"], points["A"]) and read.markers["A"].confidence == 0.5  # by elimination
    # both cut away: nothing tells which is which, and neither is placed
    both = blink_jpeg(draw_blink_points(photo_like(3), {"A": (120, 18), "B": (360, 18)})[0], 75)
    read = read_blink_points(both, ["A", "B"])
    assert not read.markers and set(read.missing) == {"A", "B"}


def test_labels_at_the_left_and_right_edges_are_read():
    points = {"A": (3, 150), "B": (496, 250)}
    drawn = blink_jpeg(draw_blink_points(photo_like(4), points)[0], 75)
    read = read_blink_points(drawn, ["A", "B"])
    assert all(near(read.markers[label], xy) for label, xy in points.items())


def test_white_rings_are_read_for_relative_reflectance():
    points = {"A": (100, 120), "B": (400, 300)}
    drawn = blink_jpeg(draw_blink_points(photo_like(5) // 2, points, BlinkStyle(colour=WHITE))[0], 75)
    # asked for red rings, no ring stands out; the label boxes alone still tell the centres
    assert all(near(m, points[m.label]) for m in read_blink_points(drawn, ["A", "B"], RED).markers.values())
    read = read_blink_points(drawn, ["A", "B"], WHITE)
    assert all(near(read.markers[label], xy) for label, xy in points.items())


def test_scaled_markers_on_a_large_image_ref_and_four_letters():
    style = BlinkStyle.scaled(2.0)
    image = photo_like(6, 750, 1000)
    ref = blink_jpeg(draw_blink_points(image, {"REF": (420, 380)}, style)[0], 80)
    read = read_blink_points(ref, ["REF"])
    assert near(read.markers["REF"], (420, 380)) and read.scale == 2.0
    points = {"A": (150, 200), "B": (600, 150), "C": (300, 600), "D": (850, 500)}
    drawn = blink_jpeg(draw_blink_points(image, points, style)[0], 80)
    read = read_blink_points(drawn, list(points))
    assert all(near(read.markers[label], xy) for label, xy in points.items())


def test_two_rings_read_as_one_label_place_neither():
    drawn = blink_jpeg(draw_blink_points(photo_like(7), {"A": (100, 100), "B": (300, 300)})[0], 75)
    drawn = draw_blink_points(drawn, {"A": (400, 150)})[0]  # a second A
    read = read_blink_points(drawn, ["A", "B"])
    assert "A" not in read.markers and "2 rings read as A" in read.missing["A"]
    assert near(read.markers["B"], (300, 300))


def test_another_drawing_style_is_left_to_the_general_parser():
    """Markers drawn in another style: the BLINK pass places nothing, the general parser places
    them (blink_first)."""
    style = MarkerStyle(colour=(255, 0, 0), radius=8, font="hershey-simplex", label_height=12)
    points = {"A": (80.0, 70.0), "B": (220.0, 160.0)}
    drawn = draw_points(np.full((240, 320, 3), 110, np.uint8), points, style)
    assert not read_blink_points(drawn, ["A", "B"]).markers
    parsed = blink_first(drawn, "point", ["A", "B"], RED)
    assert {m.source for m in parsed.markers.values()} != {"blink_style"}
    assert all(near(parsed.markers[label], xy, 2.0) for label, xy in points.items())


def _label_left_of_its_ring_over_red_blobs(seed):
    """Another drawing: white-on-black label boxes left of their red rings, over a colourful
    texture strewn with red blobs, one of them exactly where BLINK would draw the ring under
    each label box (its centre 18 px under the text's baseline)."""
    rng = np.random.default_rng(seed)
    image = photo_like(seed).copy()
    for _ in range(12):
        centre = (int(rng.integers(20, 480)), int(rng.integers(20, 355)))
        cv2.circle(image, centre, int(rng.integers(4, 10)), (230, 20, 20), -1)
    points = {"A": (226.4, 231.1), "B": (304.0, 306.5)}
    style = MarkerStyle(colour=RED, radius=6.4, ring_width=2, font="dejavusans", label_height=11.3, side="left",
                        polarity="box")
    drawn, layout = draw_points_layout(image, points, style)
    for drawn_label in layout:
        x0, _, x1, y1 = drawn_label.rect  # the box's last row is y1 - 1, the text's baseline 2 px above it
        cv2.circle(drawn, ((x0 + x1 - 1) // 2, y1 - 3 + 18), 6, (230, 20, 20), -1)
    return blink_jpeg(drawn, 85), points


@pytest.mark.parametrize("seed", [0, 11])
def test_a_label_box_with_a_red_blob_at_blinks_offset_is_not_taken_for_blinks_marker(seed):
    """The label box fits BLINK's closely enough, but no ring is drawn where BLINK's would be
    (a filled blob is no ring): the BLINK pass places nothing there, and the general parser
    places both labels at their own rings."""
    drawn, points = _label_left_of_its_ring_over_red_blobs(seed)
    read = read_blink_points(drawn, ["A", "B"])
    assert all(near(marker, points[label], 2.0) for label, marker in read.markers.items())
    parsed = blink_first(drawn, "point", ["A", "B"], RED)
    assert all(near(parsed.markers[label], xy, 2.0) for label, xy in points.items())


def test_only_a_whole_ring_is_evidence_of_blinks_ring():
    """A ring of BLINK's radius and thickness counts, on a lighter red too; a filled blob, a half
    ring and a ring over a red as strong as its own do not."""
    style = BlinkStyle()
    base = np.full((60, 60, 3), 120, np.uint8)

    def whole(image, centre=(30, 30)) -> bool:
        image = blink_jpeg(image, 75)
        return ring_evidence(ring_pixels(image, RED), centre, style).whole

    ring = cv2.circle(base.copy(), (30, 30), 5, RED, 2)
    assert whole(ring)
    assert not whole(cv2.circle(base.copy(), (30, 30), 6, RED, -1))  # a blob: red inside too
    assert not whole(cv2.ellipse(base.copy(), (30, 30), (5, 5), 0, 0, 180, RED, 2))  # half a ring
    light_red = cv2.rectangle(base.copy(), (15, 15), (45, 45), (240, 80, 80), -1)
    assert whole(cv2.circle(light_red, (30, 30), 5, RED, 2))  # a ring shows on a lighter red
    as_red = cv2.rectangle(base.copy(), (15, 15), (45, 45), (255, 20, 20), -1)
    assert not whole(cv2.circle(as_red, (30, 30), 5, RED, 2))  # on a red as strong it does not
    cut = cv2.circle(base.copy(), (30, 3), 5, RED, 2)  # cut by the top edge: judged on what shows
    assert whole(cut, (30, 3))


def _top_cut_case(extra=None, blob=False):
    """BLINK's drawing on a 1000 px image (scale 2): A's ring 36 px from the top, which leaves
    two rows of its label box; B, C, D whole. `extra`: a further ring of BLINK's size (no label);
    `blob`: A's ring filled (no ring under its cut label)."""
    style = BlinkStyle.scaled(2.0)
    points = {"A": (420, 36), "B": (150, 400), "C": (600, 520), "D": (830, 300)}
    drawn = draw_blink_points(photo_like(12, 750, 1000), points, style)[0]
    if extra is not None:
        cv2.circle(drawn, extra, style.radius, RED, style.ring_thickness)
    if blob:
        cv2.circle(drawn, points["A"], style.radius + style.ring_thickness // 2, RED, -1)
    return blink_jpeg(drawn, 80), points


def test_the_one_ring_left_whose_label_the_top_edge_cut_is_the_label_left():
    """Every other label is read; the one whole ring left, its label cut to two rows by the top
    edge, is A by elimination (and says so); not with a second ring left, nor without a ring."""
    drawn, points = _top_cut_case()
    read = read_blink_points(drawn, list(points))
    assert not read.missing and all(near(read.markers[label], xy) for label, xy in points.items())
    assert read.markers["A"].source == "blink_style.elimination" and read.markers["A"].confidence == 0.5
    assert read.markers["A"].to_json()["source"] == "blink_style.elimination"  # results say so too
    assert {read.markers[label].source for label in "BCD"} == {"blink_style"}
    two_left, _ = _top_cut_case(extra=(700, 150))
    read = read_blink_points(two_left, list(points))
    assert "A" not in read.markers and set(read.markers) == {"B", "C", "D"}
    no_ring, _ = _top_cut_case(blob=True)
    read = read_blink_points(no_ring, list(points))
    assert "A" not in read.markers and set(read.markers) == {"B", "C", "D"}


def _question(task, image, choices=("A is closer", "B is closer")):
    pils = [Image.fromarray(image)]
    return MCQuestion(f"val_{task}_1", task, "prompt", choices, None, QuestionSource("blink", "val"),
                      _image_loader=lambda: pils)


def test_find_markers_reads_each_task_in_its_ring_colour():
    points = {"A": (140, 180), "B": (360, 120)}
    red = blink_jpeg(draw_blink_points(photo_like(8), points)[0], 75)
    found = find_markers(_question("Relative_Depth", red))
    assert {m.source for m in found.images["image_1"].values()} == {"blink_style"}
    white = blink_jpeg(draw_blink_points(photo_like(8) // 2, points, BlinkStyle(colour=WHITE))[0], 75)
    found = find_markers(_question("Relative_Reflectance", white, ("A is darker", "B is darker")))
    assert {m.source for m in found.images["image_1"].values()} == {"blink_style"}
    assert all(near(found.images["image_1"][label], xy) for label, xy in points.items())


# --- synthetic data and the commands ----------------------------------------------------------

def test_synth_draws_blinks_style_by_default_and_its_markers_file_agrees(tmp_path):
    from adapters.datasets.blink.reader import BlinkReader
    from adapters.datasets.synthetic import write_synthetic

    root = write_synthetic(tmp_path / "syn", ["Relative_Depth", "Visual_Correspondence"], n=3, seed=1)
    assert json.loads((root / "synth.json").read_text())["marker_style"] == "blink"
    drawn = {json.loads(l)["idx"]: json.loads(l)["markers"] for l in (root / "markers.jsonl").read_text().splitlines()}
    reader = BlinkReader(root, "val", ["Relative_Depth", "Visual_Correspondence"])
    for task in reader.tasks:
        for question in reader.questions(task):
            found = find_markers(question)
            for key, markers in found.images.items():
                for label, marker in markers.items():
                    assert marker.source == "blink_style"
                    assert list(marker.xy) == drawn[question.idx][key][label]["xy"]
    varied = write_synthetic(tmp_path / "varied", ["Relative_Depth"], n=1, seed=1, marker_style="varied")
    assert json.loads((varied / "synth.json").read_text())["marker_style"] == "varied"
    with pytest.raises(ValueError, match="marker style 'fancy'"):
        write_synthetic(tmp_path / "x", ["Relative_Depth"], n=1, marker_style="fancy")


def test_markers_command_reports_each_pass_and_keeps_overlays_of_failures(tmp_path, capsys):
    from adapters.cli import markers as cli_markers

    good = blink_jpeg(draw_blink_points(photo_like(9), {"A": (100, 100), "B": (300, 250)})[0], 75)
    half = blink_jpeg(draw_blink_points(photo_like(10), {"A": (100, 100)})[0], 75)  # B never drawn
    rows = [BlinkRow("Relative_Depth", i, "Which point is closer?", ("A is closer", "B is closer"), "A",
                     [Image.fromarray(image)]) for i, image in ((1, good), (2, half))]
    write_blink_folder(tmp_path / "blink", rows)
    parser = argparse.ArgumentParser()
    cli_markers.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["markers", "--blink-root", str(tmp_path / "blink"), "--failures", str(tmp_path / "f")])
    assert cli_markers.handle(args) == 0
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if line.startswith("Relative_Depth"))
    placed, total, rate, blink, general, seconds = row.split()[1:]
    assert (placed, total, rate) == ("1", "2", "50.0%") and int(blink) >= 3 and float(seconds) > 0
    assert (tmp_path / "f" / "val_Relative_Depth_2_image_1.png").is_file()


def test_a_run_says_whether_it_reads_the_drawing_or_the_file(tmp_path):
    from adapters.run.runner import RunConfig
    from adapters.run.sources import marker_source as _marker_source

    (tmp_path / "markers.jsonl").write_text(json.dumps(
        {"idx": "val_Relative_Depth_1", "markers": {"image_1": {"A": {"xy": [1, 2]}}}}) + "\n")
    coordinates, info = _marker_source(RunConfig(output_dir=str(tmp_path / "run"), markers="drawn"), tmp_path)
    assert coordinates == {} and info["source"] == "parsed" and "--markers file" in info["note"]
    coordinates, info = _marker_source(RunConfig(output_dir=str(tmp_path / "run"), markers="file"), tmp_path)
    assert info["source"] == "file" and "val_Relative_Depth_1" in coordinates
    with pytest.raises(ValueError, match="holds no markers.jsonl"):
        _marker_source(RunConfig(output_dir=str(tmp_path / "run"), markers="file"), tmp_path / "empty")


def test_a_huge_image_is_read_shrunk_and_its_markers_mapped_back(monkeypatch):
    """An 8000x6000 photograph would cost minutes and many GB at full size: the marker step looks
    at most at MAX_PARSE_SIDE px, and gives positions in the image's own pixels. (An oracle stands in for
    the pass: what it sees and what the step makes of its answer are the behaviour tested.)"""
    import adapters.markers.find as find
    from adapters.markers.blink.points import BlinkRead
    from adapters.markers.types import Marker

    seen = []

    def oracle(rgb, labels, colour):
        seen.append(rgb.shape)
        return BlinkRead({"A": Marker("A", (100.0, 200.0), 1.0, radius=5.0, label_box=(94, 169, 107, 183),
                                      source="blink_style"),
                          "B": Marker("B", (1500.0, 900.0), 1.0, radius=5.0, source="blink_style")}, {}, 1.0)

    monkeypatch.setattr(find, "read_blink_points", oracle)
    huge = np.zeros((6000, 8000, 3), np.uint8)
    found = find_markers(_question("Relative_Depth", huge))
    assert seen == [(1500, 2000, 3)]  # read at a quarter of its side
    a, b = found.images["image_1"]["A"], found.images["image_1"]["B"]
    assert a.xy == (400.0, 800.0) and b.xy == (6000.0, 3600.0)
    assert a.radius == 20.0 and a.label_box == (376, 676, 428, 732)


def test_an_image_claiming_too_many_pixels_is_refused_unread():
    import io

    from adapters.core.questions import MAX_IMAGE_PIXELS, ImageDecodeError, decode_image

    buffer = io.BytesIO()
    Image.new("1", (9_000, 8_000)).save(buffer, format="PNG")  # a few kB claiming 72 MP
    with pytest.raises(ImageDecodeError, match=r"image_1 is 9000x8000 \(72 MP\), over the 64 MP"):
        decode_image(buffer.getvalue(), idx="val_Counting_1", column="image_1")
    assert MAX_IMAGE_PIXELS == 64_000_000


# --- Object_Localization's boxes in BLINK's style ----------------------------------------------------


def _boxes_case(seed, boxes, size=(375, 500), quality=80):
    from adapters.markers.blink.draw import blink_jpeg, draw_blink_boxes
    from adapters.markers.draw.scenes import background

    rng = np.random.default_rng(seed)
    image, _ = background(rng, size[0], size[1], [], photo_only=False)
    drawn, _ = draw_blink_boxes(np.asarray(image), boxes)
    return np.asarray(blink_jpeg(drawn, quality))


def test_blink_boxes_are_read_back_to_their_drawn_lines():
    from adapters.markers.blink.boxes import read_blink_boxes

    boxes = {"A": (60, 50, 260, 200), "B": (200, 120, 430, 330)}
    read = read_blink_boxes(_boxes_case(0, boxes), ["A", "B"])
    assert not read.missing
    for label, box in boxes.items():
        marker = read.markers[label]
        assert marker.source == "blink_style" and max(abs(a - b) for a, b in zip(marker.box, box)) <= 1.5


def test_a_box_running_past_the_image_edge_keeps_the_edge_as_its_side():
    from adapters.markers.blink.boxes import read_blink_boxes

    read = read_blink_boxes(_boxes_case(1, {"A": (320, 100, 560, 260), "B": (40, 40, 200, 300)}), ["A", "B"])
    assert read.markers["A"].box[2] == 499 and abs(read.markers["A"].box[0] - 320) <= 1.5


def test_b_under_as_line_on_its_top_is_placed_from_its_tab():
    """A's top edge lies exactly over B's: B's top is hidden, its tab's bottom still places it."""
    from adapters.markers.blink.boxes import read_blink_boxes

    boxes = {"A": (30, 107, 470, 234), "B": (294, 107, 382, 345)}
    read = read_blink_boxes(_boxes_case(2, boxes), ["A", "B"])
    assert max(abs(a - b) for a, b in zip(read.markers["B"].box, boxes["B"])) <= 2


def test_coloured_content_without_a_tab_is_no_box():
    """A filled red block and a red outline without its tab are not box A."""
    import cv2

    from adapters.markers.blink.boxes import read_blink_boxes

    rgb = _boxes_case(3, {"B": (40, 40, 200, 300)})
    rgb = rgb.copy()
    rgb[60:200, 260:420] = (230, 20, 20)  # a red object
    cv2.rectangle(rgb, (270, 230), (480, 360), (255, 0, 0), 2)  # a red outline with no tab
    read = read_blink_boxes(rgb, ["A", "B"])
    assert "A" in read.missing and "tab" in read.missing["A"] and "B" in read.markers


def test_object_localization_questions_read_blink_boxes_first():
    boxes = {"A": (60, 50, 260, 200), "B": (200, 120, 430, 330)}
    question = MCQuestion("val_Object_Localization_1", "Object_Localization", "Which box?", ("Box A", "Box B"), None,
                          QuestionSource("t", "val"), _images=[Image.fromarray(_boxes_case(0, boxes))])
    found = find_markers(question)
    assert max(abs(a - b) for a, b in zip(found.marker("image_1", "A").box, boxes["A"])) <= 1.5


@pytest.mark.parametrize("boxes", [
    {"A": (118, 45, 164, 118), "B": (113, 38, 163, 92)},  # B's right side 1 px inside A's
    {"A": (210, 162, 354, 316), "B": (208, 140, 347, 310)},  # B's left side 2 px outside A's
    {"A": (169, 103, 214, 244), "B": (170, 158, 215, 262)},  # B's left and right sides both under A's
    {"A": (33, 73, 257, 303), "B": (106, 60, 239, 305)},  # B's bottom 2 px below A's: JPEG mixes them
    {"A": (221, 0, 296, 110), "B": (209, 0, 284, 141)},  # both tops on the image's first row
    {"A": (2, 176, 118, 260), "B": (0, 180, 181, 242)},  # B's left on the image's edge, A's 2 px in, A's tab over B's
])
def test_b_under_as_parallel_lines_is_placed_from_what_shows(boxes):
    """Where A's line runs over or beside B's, B is placed from its own sides and the line that
    hides it; never placed more than 2 px off."""
    from adapters.markers.blink.boxes import read_blink_boxes

    read = read_blink_boxes(_boxes_case(4, boxes), ["A", "B"])
    for label, box in boxes.items():
        assert max(abs(a - b) for a, b in zip(read.markers[label].box, box)) <= 2, (label, read.markers[label].box)


def test_a_smaller_box_closed_by_a_hidden_side_loses_to_the_drawn_one():
    """B's lower part runs under A's sides: the box B's top, left and right would make with A's
    top as a hidden bottom explains less of B's green than B itself, whose bottom shows."""
    from adapters.markers.blink.boxes import read_blink_boxes

    boxes = {"A": (96, 133, 135, 314), "B": (96, 114, 137, 280)}
    read = read_blink_boxes(_boxes_case(5, boxes), ["A", "B"])
    assert max(abs(a - b) for a, b in zip(read.markers["B"].box, boxes["B"])) <= 2
