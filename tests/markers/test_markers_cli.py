"""`specialists markers` on BLINK-format folders, and the --markers sidecar formats."""

import argparse
import json

import numpy as np
import pytest
from PIL import Image

from adapters.cli import markers as cli_markers
from adapters.cli.markers import overlay_name
from adapters.core.questions import MCQuestion, QuestionSource
from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
from adapters.markers import MarkerError, MarkersFileError, apply_markers, find_markers, load_markers
from adapters.markers.draw.render import MarkerStyle, draw_boxes, draw_points
from tests.blink_fixture import make_blink_fixture

STYLE = MarkerStyle(colour=(255, 0, 0), radius=8, font="hershey-simplex", label_height=12)


def plain(seed):
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(120, 4, (160, 220, 3)), 0, 255).astype(np.uint8)


def run_cli(tmp_path, root, capsys):
    parser = argparse.ArgumentParser()
    cli_markers.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["markers", "--blink-root", str(root), "--output", str(tmp_path / "out")])
    assert cli_markers.handle(args) == 0
    lines = [json.loads(l) for l in (tmp_path / "out" / "markers.jsonl").read_text().splitlines()]
    return {l["idx"]: l for l in lines}, capsys.readouterr().out


def test_markers_command_on_drawn_questions(tmp_path, capsys):
    good = draw_points(plain(0), {"A": (60.0, 60.0), "B": (160.0, 110.0)}, STYLE)
    half = draw_points(plain(1), {"A": (60.0, 60.0)}, STYLE)  # B never drawn: must fail, with an overlay
    rows = [BlinkRow("Relative_Depth", 1, "Which point is closer?", ("A is closer", "B is closer"), "A",
                     [Image.fromarray(good)]),
            BlinkRow("Relative_Depth", 2, "Which point is closer?", ("A is closer", "B is closer"), "B",
                     [Image.fromarray(half)])]
    write_blink_folder(tmp_path / "blink", rows)
    lines, printed = run_cli(tmp_path, tmp_path / "blink", capsys)
    ok = lines["val_Relative_Depth_1"]
    assert ok["status"] == "ok" and np.allclose(ok["markers"]["image_1"]["B"]["xy"], [160, 110], atol=2)
    bad = lines["val_Relative_Depth_2"]
    assert bad["status"] == "error" and "B on image_1" in bad["error"]
    assert (tmp_path / "out" / "failures" / "val_Relative_Depth_2_image_1.png").is_file()
    assert "Relative_Depth" in printed and "50.0%" in printed
    # what the command wrote is a valid --markers file
    assert load_markers(tmp_path / "out" / "markers.jsonl")["val_Relative_Depth_1"]["image_1"]["A"][:2]


def test_markers_command_reads_drawn_boxes(tmp_path, capsys):
    """Object_Localization end to end with the shipped corner finder: boxes come back in
    markers.jsonl as a --markers file gives them; a question missing a box fails with an overlay."""
    boxes = {"A": (40.4, 30.2, 150.6, 120.8), "B": (70.2, 50.7, 190.3, 140.1)}
    style = MarkerStyle(colour=(255, 0, 0), ring_width=2, font="hershey-simplex", label_height=12)
    both, one = draw_boxes(plain(2), boxes, style), draw_boxes(plain(3), {"A": boxes["A"]}, style)
    rows = [BlinkRow("Object_Localization", i, "Which box fits the car best?", ("Box A", "Box B"), "A",
                     [Image.fromarray(image)]) for i, image in ((1, both), (2, one))]
    write_blink_folder(tmp_path / "blink", rows)
    lines, printed = run_cli(tmp_path, tmp_path / "blink", capsys)
    ok = lines["val_Object_Localization_1"]
    assert ok["status"] == "ok", ok["error"]
    for label, truth in boxes.items():
        assert np.allclose(ok["markers"]["image_1"][label]["box"], truth, atol=2)
    bad = lines["val_Object_Localization_2"]
    assert bad["status"] == "error" and "B on image_1" in bad["error"]
    assert (tmp_path / "out" / "failures" / "val_Object_Localization_2_image_1.png").is_file()
    assert "Object_Localization" in printed and "50.0%" in printed
    sidecar = load_markers(tmp_path / "out" / "markers.jsonl")["val_Object_Localization_1"]["image_1"]
    assert np.allclose(sidecar["B"], boxes["B"], atol=2)


def test_markers_command_runs_on_the_harness_fixture(tmp_path, capsys):
    make_blink_fixture(tmp_path / "blink")  # tiny random images: nothing drawn, every question fails
    lines, printed = run_cli(tmp_path, tmp_path / "blink", capsys)
    assert lines and all(l["status"] == "error" for l in lines.values())
    assert "Visual_Correspondence" in printed


def _question(markers=None):
    image = Image.fromarray(plain(2))
    return MCQuestion("val_Relative_Depth_3", "Relative_Depth", "p", ("A is closer", "B is closer"), None,
                      QuestionSource("blink", "val"), markers=markers, _image_loader=lambda: [image])


def test_sidecar_plain_json_overrides_parsing(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"val_Relative_Depth_3": {"image_1": {"A": [10, 20], "B": [30, 40, 50, 60]}}}))
    (q,) = apply_markers([_question()], load_markers(path))
    found = find_markers(q)  # the image has no drawing: these come from the file
    assert found.point("image_1", "A") == (10.0, 20.0) and found.point("image_1", "B") == (40.0, 50.0)
    assert found.marker("image_1", "B").box == (30.0, 40.0, 50.0, 60.0)


def test_sidecar_jsonl_and_missing_label(tmp_path):
    path = tmp_path / "markers.jsonl"
    lines = [{"idx": "val_Relative_Depth_3", "task": "Relative_Depth", "status": "ok", "error": None,
              "markers": {"image_1": {"A": {"xy": [1, 2], "confidence": 0.9}}}},
             {"idx": "val_Relative_Depth_4", "task": "Relative_Depth", "status": "error", "error": "x", "markers": {}}]
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    known = load_markers(path)
    assert set(known) == {"val_Relative_Depth_3"}
    (q,) = apply_markers([_question()], known)
    with pytest.raises(MarkerError, match="B on image_1"):
        find_markers(q)


def test_bad_sidecar_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"val_Relative_Depth_3": {"image_1": {"A": [1, 2, 3]}}}))
    with pytest.raises(MarkersFileError, match="expected \\[x, y\\]"):
        load_markers(path)
    with pytest.raises(MarkersFileError, match="no such file"):
        load_markers(tmp_path / "none.json")


def _half_drawn_folder(root, numbers=(1,)):
    """Relative_Depth questions whose B was never drawn: each fails, with an overlay to write."""
    rows = [BlinkRow("Relative_Depth", k, "Which point is closer?", ("A is closer", "B is closer"), "B",
                     [Image.fromarray(draw_points(plain(k), {"A": (60.0, 60.0)}, STYLE))]) for k in numbers]
    write_blink_folder(root, rows)


@pytest.mark.parametrize("limit", ["-1", "0", "1.5", "many"])
def test_markers_limit_is_checked_as_run_checks_it(tmp_path, capsys, limit):
    from adapters.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(["markers", "--blink-root", str(tmp_path), "--limit", limit])
    assert stopped.value.code == 2 and "argument --limit" in capsys.readouterr().err


def test_markers_limit_takes_a_fraction_of_each_task(tmp_path, capsys):
    from adapters.cli.main import main

    _half_drawn_folder(tmp_path / "blink", numbers=(1, 2, 3, 4))
    assert main(["markers", "--blink-root", str(tmp_path / "blink"), "--limit", "0.5",
                 "--output-dir", str(tmp_path / "out")]) == 0
    assert len((tmp_path / "out" / "markers.jsonl").read_text().splitlines()) == 2


def test_an_overlay_that_cannot_be_written_is_a_warning_not_counted_written(tmp_path, capsys):
    from adapters.cli.main import main

    _half_drawn_folder(tmp_path / "blink")
    failures = tmp_path / "out" / "failures"
    # a folder where the overlay file should go: writing it fails, as on a full or read-only disk
    (failures / "val_Relative_Depth_1_image_1.png").mkdir(parents=True)
    assert main(["markers", "--blink-root", str(tmp_path / "blink"), "--output-dir", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr()
    assert (f"warning: val_Relative_Depth_1 image_1: overlay not written to "
            f"{failures / 'val_Relative_Depth_1_image_1.png'} (IsADirectoryError: Is a directory)") in printed.err
    assert f"1 question(s) failed; 0 overlay(s) written under {failures}, 1 not written" in printed.out
    line = json.loads((tmp_path / "out" / "markers.jsonl").read_text())  # the question's result is kept
    assert line["status"] == "error" and "B on image_1" in line["error"]


def test_overlay_file_names_are_safe_for_any_id():
    assert overlay_name("val_Relative_Depth_2", "image_1") == "val_Relative_Depth_2_image_1.png"
    long_a, long_b = "val_Relative_Depth_" + "1" * 300, "val_Relative_Depth_" + "2" * 300
    names = {overlay_name(idx, "image_1") for idx in (long_a, long_b, "../../etc/passwd", "a b/c")}
    assert len(names) == 4  # distinct ids keep distinct files
    for name in names:
        assert len(name.encode()) < 255 and "/" not in name and not name.startswith(".")
    assert overlay_name(long_a, "image_1").startswith("val_Relative_Depth_111")
