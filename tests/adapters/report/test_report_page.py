"""The report page's data, escaping, images, evidence and markers, and the figure panel (no
browser here: test_report_page_browser.py opens the page in Chromium)."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest
from report_page_fixture import HOSTILE, make_page_fixture
from PIL import Image

from adapters.cli.main import main
from adapters.report.compare import comparison_of, score_inputs
from adapters.report.html_report import (collect_comparison, collect_runs, comparison_pages, run_pages,
                                         write_figure_of)
from adapters.report.page_data import mllm_answer, specialist_answer
from adapters.report.page_html import render_page, script_json
from adapters.report.page_images import FULL_SIDE, THUMB_SIDE, write_question_images
from adapters.report.run_report import ReportError
from adapters.run.runner import RunConfig, run


def page_blob(index: Path) -> dict:
    """The data blob embedded in index.html, parsed as the page's script parses it."""
    text = index.read_text(encoding="utf-8")
    blob = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', text, re.S).group(1)
    return json.loads(blob)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("page")
    made = make_page_fixture(root)
    run(RunConfig(str(root / "weightfree"), specialist=["sift", "retinex", "lower_is_closer"],
                  blink_root=str(made["blink"]), markers=str(made["markers"]), keep_evidence=True, progress=False))
    return {**made, "root": root, "run": root / "weightfree"}


def samples_of(run_dir: Path) -> dict[str, dict]:
    return {s["idx"]: s for s in map(json.loads, (run_dir / "samples.jsonl").read_text().splitlines())}


def test_script_json_leaves_no_markup_and_parses_back_the_same():
    data = {"text": f"{HOSTILE} & <b>bold</b> \u2028 line", "nested": [{"k": "</SCRIPT >"}]}
    text = script_json(data)
    assert not set(text) & {"<", ">", "&", "\u2028"}
    assert json.loads(text) == data


def test_the_page_holds_its_two_scripts_and_no_third_from_the_data():
    question = {"idx": "val_Relative_Depth_1", "task": "Relative_Depth", "text": HOSTILE, "choices": [HOSTILE],
                "gold": "A", "images": [], "markers": None, "markers_from": None, "note": None,
                "answers": [mllm_answer("A", True, "exact", f"</script>{HOSTILE}")]}
    data = {"title": f"run {HOSTILE}", "kind": "compare", "systems": [{"name": HOSTILE, "kind": "mllm"}],
            "tasks": ["Relative_Depth"], "table": {"tasks": [], "rows": []}, "plots": [], "notes": [HOSTILE],
            "page_size": 50, "questions": [question]}
    page = render_page(data)
    assert page.lower().count("<script") == 2 and page.lower().count("</script") == 2
    assert "<title>run &lt;script&gt;" in page
    assert page_blob_from_text(page) == data


def page_blob_from_text(page: str) -> dict:
    return json.loads(re.search(r'id="page-data">(.*?)</script>', page, re.S).group(1))


def test_answers_as_the_page_shows_them():
    sample = {"idx": "q", "task": "Relative_Depth", "specialist": "depth_anything", "status": "ok", "correct": True,
              "seconds": 0.5, "error": None, "decision": {"pred": "B", "rule": "depth.x", "tie": False,
                                                          "scores": {"A": float("nan"), "B": 1.0},
                                                          "details": {"disparity": {"A": math.inf}}}}
    shown = specialist_answer(sample)
    assert (shown["pred"], shown["ok"], shown["status"], shown["rule"], shown["who"]) == ("B", True, "ok", "depth.x",
                                                                                         "depth_anything")
    assert shown["scores"] == {"A": None, "B": 1.0} and shown["details"] == {"disparity": {"A": None}}
    failed = specialist_answer({**sample, "status": "error", "error": "MarkerError: A not found", "correct": False})
    assert failed["pred"] is None and failed["ok"] is False and failed["error"].startswith("MarkerError")
    assert specialist_answer(sample, correct=False, rescored=True)["ok"] is False
    assert mllm_answer(None, False, "several_options", "(A) or (B)")["status"] == "unparsed"
    assert mllm_answer(None, False, "missing", None) == {"pred": None, "ok": False, "status": "missing",
                                                         "form": "missing", "raw": None}


def test_the_run_records_markers_and_evidence_only_when_asked(inputs, tmp_path):
    samples = samples_of(inputs["run"])
    for idx, images in inputs["coordinates"].items():
        recorded = samples[idx]["markers"]
        assert samples[idx]["markers_from"] == "given"
        assert {k: {label: tuple(v["xy"]) for label, v in m.items()} for k, m in recorded.items()} == images
    kept = {idx: s["evidence"] for idx, s in samples.items() if s.get("evidence")}
    # the three rules with dense outputs kept a picture for every answered question; lower_is_closer has none
    assert {idx.rsplit("_", 1)[0] for idx in kept} == {"val_Visual_Correspondence", "val_Relative_Reflectance"}
    assert all(samples[i]["status"] == "ok" for i in kept)
    for views in kept.values():
        for name, relative in views.items():
            assert name in ("matches", "albedo")
            with Image.open(inputs["run"] / relative) as picture:
                assert max(picture.size) <= 512 and picture.format == "PNG"
    plain = tmp_path / "plain"
    run(RunConfig(str(plain), specialist=["retinex"], blink_root=str(inputs["blink"]), markers=str(inputs["markers"]),
                  progress=False))
    assert not (plain / "evidence").exists()
    assert all("evidence" not in s and s["markers"] for s in samples_of(plain).values())


def test_the_run_page_lists_every_question_with_images_markers_and_evidence(inputs, tmp_path):
    lines = run_pages([inputs["run"]], tmp_path, html=True, figure=None)
    assert lines[0].startswith(f"wrote {tmp_path / 'report_html' / 'index.html'} (8 questions, 10 images")
    folder = tmp_path / "report_html"
    data = page_blob(folder / "index.html")
    samples = samples_of(inputs["run"])
    assert [q["idx"] for q in data["questions"]][3:6] == ["val_Relative_Depth_4", "val_Relative_Reflectance_1",
                                                          "val_Relative_Reflectance_2"]  # BLINK's task order
    assert {q["idx"] for q in data["questions"]} == set(samples)
    for q in data["questions"]:
        sample = samples[q["idx"]]
        [answer] = q["answers"]
        assert (answer["pred"], answer["ok"], answer["status"]) == (
            (sample["decision"] or {}).get("pred"), sample["correct"], sample["status"])
        assert q["gold"] == inputs["gold"][q["idx"]]
        if q["idx"] in inputs["coordinates"]:
            assert q["markers"] == sample["markers"] and q["markers_from"] == "from the --markers file"
        for image in q["images"]:
            with Image.open(folder / image["thumb"]) as thumb, Image.open(folder / image["full"]) as full:
                assert thumb.size == full.size == (image["w"], image["h"]) == (160, 120)  # small: its own thumbnail
        assert [e["name"] for e in answer["evidence"]] == list(sample.get("evidence", {}))
        assert all((folder / e["src"]).is_file() for e in answer["evidence"])
    depth = next(q for q in data["questions"] if q["idx"] == "val_Relative_Depth_1")
    assert depth["text"].endswith(HOSTILE) and depth["choices"] == ["A is closer", "B is closer"]
    assert (folder / "report.png").is_file() and data["plots"][0]["src"] == "report.png"
    assert data["table"]["rows"][0]["cells"]["Relative_Depth"]["n"] == 4
    failed = next(q for q in data["questions"] if q["idx"] == "val_Relative_Depth_4")
    [answer] = failed["answers"]
    assert (answer["status"], answer["ok"], answer["pred"]) == ("error", False, None)
    assert "markers not found" in answer["error"] and failed["images"]


def test_large_images_get_a_thumbnail_and_a_bounded_view(tmp_path):
    from adapters.core.questions import MCQuestion, QuestionSource

    big = Image.new("RGB", (3000, 1000), (10, 120, 200))
    question = MCQuestion("val_Counting_1", "Counting", "How many?", ("1", "2"), "A", QuestionSource("blink", "val"),
                          _images=[big])
    entry = {"idx": question.idx}
    write_question_images({question.idx: entry}, {question.idx: question}, tmp_path)
    [image] = entry["images"]
    with Image.open(tmp_path / image["thumb"]) as thumb, Image.open(tmp_path / image["full"]) as full:
        assert thumb.size == (THUMB_SIDE, 80) and full.size == (FULL_SIDE, 427)
    assert (image["w"], image["h"]) == (3000, 1000)  # markers are drawn in the image's own pixels


def test_the_comparison_page_shows_each_mllm_parsed_and_raw(inputs, tmp_path):
    scored = score_inputs([inputs["run"]], [str(inputs["exact"]), f"chatty={inputs['chatty']}"])
    comparison = comparison_of(scored)
    collected = collect_comparison(scored, comparison)
    names = [s["name"] for s in collected.systems]
    assert names[1:] == ["exact", "chatty"] and collected.systems[0]["short"] == "weightfree"
    entry = collected.entries["val_Relative_Depth_1"]
    spec, exact, chatty = entry["answers"]
    assert exact == {"pred": "B", "ok": False, "status": "ok", "form": "exact", "raw": "(B)"}
    assert chatty["raw"] == f"{HOSTILE} The answer is (A)"
    wrong = collected.entries["val_Relative_Depth_2"]["answers"][2]
    assert wrong["pred"] is None and wrong["status"] == "unparsed" and wrong["ok"] is False
    for idx, entry in collected.entries.items():
        for model, answer in zip([*scored.specialists, *scored.mllms], entry["answers"]):
            assert answer["ok"] == model.correct[idx]
    comparison_pages(scored, comparison, tmp_path, html=True, figure=None)
    data = page_blob(tmp_path / "comparison_html" / "index.html")
    assert len(data["questions"]) == 8 and {p["src"] for p in data["plots"]} == {"comparison_bars.png",
                                                                                  "comparison_scatter.png"}
    assert all(q["images"] for q in data["questions"])


def test_the_figure_panel_is_one_paper_column_wide(inputs, tmp_path):
    collected = collect_runs([inputs["run"]])
    paths = write_figure_of(collected, ["val_Visual_Correspondence_1", "val_Relative_Depth_2"], tmp_path / "figure")
    with Image.open(paths["png"]) as png:
        assert png.size[0] == round(3.25 * 300)
        assert png.size[1] > 300  # two rows of images and their captions
    assert paths["pdf"].read_bytes().startswith(b"%PDF")
    with pytest.raises(ReportError, match="val_Relative_Dept_1: not a question of these inputs"):
        write_figure_of(collected, ["val_Relative_Dept_1"], tmp_path / "figure")


def test_a_moved_data_folder_leaves_a_page_without_images_and_says_so(inputs, tmp_path):
    moved = tmp_path / "run"
    shutil.copytree(inputs["run"], moved)
    results = json.loads((moved / "results.json").read_text())
    results["data"]["root"] = str(tmp_path / "gone")
    (moved / "results.json").write_text(json.dumps(results))
    lines = run_pages([moved], tmp_path, html=True, figure=None)
    assert any("pass --data-root DIR" in line for line in lines)
    data = page_blob(tmp_path / "report_html" / "index.html")
    assert all(not q["images"] for q in data["questions"]) and any("--data-root" in n for n in data["notes"])
    run_pages([moved], tmp_path / "again", html=True, figure=None, data_root=str(inputs["blink"]))
    assert all(q["images"] for q in page_blob(tmp_path / "again" / "report_html" / "index.html")["questions"])


def test_the_commands_write_the_page_and_the_figure(inputs, tmp_path, capsys):
    assert main(["report", str(inputs["run"]), "--output-dir", str(tmp_path / "r"), "--html",
                 "--figure", "val_Relative_Depth_1"]) == 0
    out = capsys.readouterr().out
    assert "report_html/index.html (8 questions" in out and "figure.pdf" in out
    assert main(["compare", str(inputs["run"]), "--mllm", str(inputs["exact"]), "--output-dir", str(tmp_path / "c"),
                 "--html"]) == 0
    assert (tmp_path / "c" / "comparison_html" / "index.html").is_file()
    assert main(["run", "--blink-root", str(inputs["blink"]), "--specialist", "retinex", "--markers",
                 str(inputs["markers"]), "--output-dir", str(tmp_path / "run"), "--html", "--no-progress"]) == 0
    data = page_blob(tmp_path / "run" / "report_html" / "index.html")
    assert [len(q["answers"][0]["evidence"]) for q in data["questions"]] == [1, 1]  # --html keeps the evidence


def test_mllms_alone_take_their_questions_from_the_blink_folder(inputs, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({idx: f"({letter})" for idx, letter in inputs["gold"].items()}))
    scored = score_inputs([], [str(inputs["exact"])], answers=str(answers), blink_root=str(inputs["blink"]))
    lines = comparison_pages(scored, comparison_of(scored), tmp_path, html=True, figure=None,
                             blink_root=str(inputs["blink"]))
    assert not [line for line in lines if line.startswith("note")]
    data = page_blob(tmp_path / "comparison_html" / "index.html")
    assert len(data["questions"]) == 8 and all(q["images"] and q["choices"] for q in data["questions"])
    assert all(q["markers"] is None for q in data["questions"])  # no run: no markers were read
    without = comparison_pages(scored, comparison_of(scored), tmp_path / "bare", html=True, figure=None)
    assert any("8 question(s) without images or text" in line for line in without)
