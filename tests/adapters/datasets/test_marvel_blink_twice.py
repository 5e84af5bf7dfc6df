"""MARVEL and BLINK-Twice: readers on fixtures in the releases' formats, each metric against values
worked out by hand, the panel counter on rendered puzzles, `run` and `compare` end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from adapters.core.questions import BrokenQuestion, MCQuestion
from adapters.core.tasks import MARVEL_TASKS
from adapters.datasets.blink_twice.metrics import blink_twice_metrics
from adapters.datasets.blink_twice.reader import BlinkTwiceFormatError, BlinkTwiceReader, yes_no
from adapters.datasets.marvel.metrics import marvel_metrics
from adapters.datasets.marvel.reader import MarvelFormatError, MarvelReader, fine_options, parse_count
from adapters.datasets.synthetic.other_releases import write_blink_twice_release, write_marvel_release
from adapters.report.compare_other import compare_other, parse_answer
from adapters.run.runner import RunConfig, run
from specialists.panels import find_panels


def _all(reader):
    return {q.idx: q for task in reader.tasks for q in reader.questions(task)}


# --- MARVEL: reading ----------------------------------------------------------------------------


def test_marvel_git_and_hub_layouts_give_the_same_questions(tmp_path):
    records = write_marvel_release(tmp_path / "git", 6, seed=3, layout="git")
    write_marvel_release(tmp_path / "hub", 6, seed=3, layout="hub")
    git, hub = _all(MarvelReader(tmp_path / "git")), _all(MarvelReader(tmp_path / "hub"))
    assert len(git) == 6 * len(MARVEL_TASKS) and set(git) == set(hub)
    for idx, question in git.items():
        other = hub[idx]
        assert (question.choices, question.gold, question.meta) == (other.choices, other.gold, other.meta)
        assert question.images[0].size == other.images[0].size
    first = records[0]
    avr = git["marvel_1_avr"]
    assert avr.choices == ("1", "2", "3", "4") and avr.choice_text(avr.gold) == str(first["answer"])
    total = git["marvel_1_count_total"]
    assert total.choice_text(total.gold) == str(first["c_perception_answer_tuple"][2])
    assert avr.meta == {"puzzle": "1", "pattern": first["pattern"], "configuration": first["task_configuration"]}


def test_marvel_per_puzzle_json_layout(tmp_path):
    records = write_marvel_release(tmp_path, 3, layout="git")
    (tmp_path / "marvel_label.json").unlink()
    for record in records:
        folder = tmp_path / "Json_data" / str(record["id"])
        folder.mkdir(parents=True)
        (folder / f"{record['id']}_label.json").write_text(json.dumps(record))
        (tmp_path / "Marvel" / f"{record['id']}.png").rename(folder / f"{record['id']}.png")
    questions = _all(MarvelReader(tmp_path, ["avr"]))
    assert sorted(questions) == ["marvel_1_avr", "marvel_2_avr", "marvel_3_avr"]
    assert all(isinstance(q, MCQuestion) and q.images for q in questions.values())


def test_a_broken_marvel_record_costs_only_its_own_questions(tmp_path):
    records = write_marvel_release(tmp_path, 3, layout="git")
    records[1]["answer"] = 7
    del records[2]["f_perception_distractor"]
    (tmp_path / "marvel_label.json").write_text(json.dumps(records))
    questions = _all(MarvelReader(tmp_path))
    assert isinstance(questions["marvel_1_avr"], MCQuestion)
    assert isinstance(questions["marvel_2_avr"], BrokenQuestion) and "answer 7 is not a choice 1-4" in questions["marvel_2_avr"].error
    assert isinstance(questions["marvel_2_count_total"], MCQuestion)
    broken = questions["marvel_3_fine"]
    assert isinstance(broken, BrokenQuestion) and "puzzle 3: no f_perception_distractor" in broken.error


def test_marvel_folder_errors_name_what_to_give(tmp_path):
    with pytest.raises(MarvelFormatError, match="no MARVEL puzzles here: expected marvel_label.json"):
        MarvelReader(tmp_path)
    write_marvel_release(tmp_path, 2)
    records = json.loads((tmp_path / "marvel_label.json").read_text())
    (tmp_path / "marvel_label.json").write_text(json.dumps(records + records[:1]))
    with pytest.raises(MarvelFormatError, match="puzzle id 1 appears more than once"):
        MarvelReader(tmp_path)


def test_fine_options_follow_the_question_and_counts_parse_words_and_digits():
    assert fine_options("Is it on the upper or the lower side?", "lower", "upper") == ("upper", "lower")
    assert fine_options("Does choice 1 contain a star?", "no", "yes") == ("yes", "no")
    assert fine_options("Which one?", "two", "three") == ("three", "two")
    # the release's preamble names 1-4 before the question does: the question's order counts
    preamble = "The choices part contains 4 choices (marked by 1, 2, 3, or 4). Does choice 3 have 4 or 1 dots?"
    assert fine_options(preamble, "1", "4") == ("4", "1")
    assert [parse_count(t) for t in ("9 panels", "There are seventeen.", 4, "none", None, "one row of eight",
                                     "twenty-one")] == [9, 17, 4, None, None, 1, 21]


# --- MARVEL: metrics ----------------------------------------------------------------------------


def _marvel_sample(puzzle, task, correct, n, pattern="Quantities", configuration="Matrix"):
    return {"task": task, "gold": "A", "correct": correct, "n_choices": n,
            "meta": {"puzzle": puzzle, "pattern": pattern, "configuration": configuration}}


def test_marvel_metrics_by_hand():
    counts = ("MARVEL_Count_Context", "MARVEL_Count_Choices", "MARVEL_Count_Total")
    samples = []
    # puzzle 1: every count right, fine right, AVR wrong
    samples += [_marvel_sample("1", t, True, 20) for t in counts]
    samples += [_marvel_sample("1", "MARVEL_Fine_Perception", True, 2), _marvel_sample("1", "MARVEL_AVR", False, 4)]
    # puzzle 2: one count wrong, the rest right
    samples += [_marvel_sample("2", t, t != "MARVEL_Count_Total", 20, pattern="Mathematical") for t in counts]
    samples += [_marvel_sample("2", "MARVEL_Fine_Perception", True, 2, pattern="Mathematical"),
                _marvel_sample("2", "MARVEL_AVR", True, 4, pattern="Mathematical")]
    # puzzle 3: everything right
    samples += [_marvel_sample("3", t, True, 20) for t in counts]
    samples += [_marvel_sample("3", "MARVEL_Fine_Perception", True, 2), _marvel_sample("3", "MARVEL_AVR", True, 4)]
    # puzzle 4: only its AVR question was asked (a --tasks run): no group figure
    samples += [_marvel_sample("4", "MARVEL_AVR", False, 4)]
    m = marvel_metrics(samples)
    o = m["overall"]
    assert (o["avr"]["n"], o["avr"]["correct"]) == (4, 2) and o["avr"]["random_expected"] == 0.25
    assert o["fine"]["accuracy"] == 1.0 and o["count_total"]["accuracy"] == pytest.approx(2 / 3)
    assert (o["perc_c"]["n"], o["perc_c"]["correct"]) == (3, 2)
    assert (o["perc_c_f"]["correct"], o["perc_c_f_avr"]["correct"]) == (2, 1)
    assert o["perc_c_f_avr"]["random_expected"] == pytest.approx(1 / 20 ** 3 / 2 / 4)
    assert m["by_pattern"]["Mathematical"]["perc_c"]["accuracy"] == 0.0
    assert m["by_pattern"]["Quantities"]["perc_c_f_avr"]["accuracy"] == 0.5
    assert m["by_configuration"]["Matrix"]["avr"]["n"] == 4


# --- MARVEL: panels -----------------------------------------------------------------------------


def test_panels_are_counted_on_rendered_puzzles_of_every_configuration(tmp_path):
    records = write_marvel_release(tmp_path, 10, seed=1)
    for record in records:
        rgb = np.asarray(Image.open(tmp_path / "Marvel" / f"{record['id']}.png").convert("RGB"))
        panels = find_panels(rgb)
        assert (panels.context, panels.choices, panels.total) == tuple(record["c_perception_answer_tuple"]), record["id"]


def test_a_hub_copy_without_the_panel_counts_still_asks_the_other_questions(tmp_path):
    """The hub's parquet leaves c_perception_* out: its count questions fail with the reason,
    AVR and fine-grained ones are asked."""
    import pyarrow.parquet as pq

    write_marvel_release(tmp_path / "hub", 2, layout="hub")
    table = pq.read_table(tmp_path / "hub" / "data" / "train-00000-of-00001.parquet")
    table = table.drop(["c_perception_question_tuple", "c_perception_answer_tuple"])
    pq.write_table(table, tmp_path / "hub" / "data" / "train-00000-of-00001.parquet")
    questions = _all(MarvelReader(tmp_path / "hub"))
    assert isinstance(questions["marvel_1_avr"], MCQuestion) and isinstance(questions["marvel_2_fine"], MCQuestion)
    broken = questions["marvel_1_count_total"]
    assert isinstance(broken, BrokenQuestion) and "the GitHub release's marvel_label.json has them" in broken.error


def test_a_question_whose_image_fails_is_scored_wrong(tmp_path):
    write_marvel_release(tmp_path / "m", 2)
    (tmp_path / "m" / "Marvel" / "2.png").unlink()
    results = run(RunConfig(str(tmp_path / "run"), benchmark="marvel", root=str(tmp_path / "m"), tasks=["avr"],
                            progress=False))
    avr = results["benchmark_metrics"]["overall"]["avr"]
    assert avr["n"] == 2 and avr["random_expected"] == 0.25 and results["tasks"]["MARVEL_AVR"]["errors"] == 1


def test_a_frames_cells_are_found_where_shapes_touch_their_borders():
    """A 2x3 context frame and a strip of 4 choices, cells sharing borders: a shape touching a
    cell's border, and a bar drawn from a choice's top border to its bottom, split nothing."""
    import cv2

    canvas = np.full((420, 520, 3), 255, np.uint8)
    for r in range(3):  # context frame: 2 rows x 3 columns of 90 px cells
        for c in range(4):
            if r < 2 and c < 3:
                cv2.rectangle(canvas, (20 + 90 * c, 20 + 90 * r), (110 + 90 * c, 110 + 90 * r), (0, 0, 0), 2)
    for c in range(4):  # choices strip below
        cv2.rectangle(canvas, (20 + 90 * c, 260), (110 + 90 * c, 350), (0, 0, 0), 2)
    cv2.rectangle(canvas, (40, 20), (70, 60), (0, 0, 0), -1)  # a block touching the first cell's top border
    cv2.circle(canvas, (245, 65), 45, (0, 0, 0), 3)  # a circle touching all four borders of a cell
    cv2.line(canvas, (155, 260), (155, 350), (0, 0, 0), 4)  # a bar across the second choice, border to border
    panels = find_panels(canvas)
    assert (panels.context, panels.choices, panels.total) == (6, 4, 10)


def test_a_blank_page_has_no_panels():
    panels = find_panels(np.full((200, 300, 3), 255, np.uint8))
    assert (panels.context, panels.choices, panels.total) == (0, 0, 0)


# --- BLINK-Twice: reading and metrics -----------------------------------------------------------


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_blink_twice_reader_reads_both_formats(tmp_path, fmt):
    rows = write_blink_twice_release(tmp_path, 2, fmt=fmt)
    reader = BlinkTwiceReader(tmp_path)
    questions = _all(reader)
    assert len(questions) == len(rows) == 8 and reader.columns["group"] == "group_id"
    q = questions["blink_twice_0_adversarial_1"]
    assert q.choices == ("yes", "no") and q.gold == "A" and q.meta == {"image": "0_adversarial", "group": "0",
                                                                        "category": "Visual Misleading"}
    assert q.images[0].size == (64, 48)


def test_blink_twice_other_column_names_and_derived_ids(tmp_path):
    (tmp_path / "img").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "img" / "a.png")
    rows = [{"img_path": "img/a.png", "prompt": "Is it round?", "label": "Yes."},
            {"img_path": "img/a.png", "prompt": "Is it red?", "label": "maybe"}]
    (tmp_path / "q.json").write_text(json.dumps({"data": rows}))
    questions = _all(BlinkTwiceReader(tmp_path))
    assert isinstance(questions["blink_twice_img-a_q1"], MCQuestion) and questions["blink_twice_img-a_q1"].gold == "A"
    broken = questions["blink_twice_img-a_q2"]
    assert isinstance(broken, BrokenQuestion) and "answer 'maybe' is neither yes nor no" in broken.error
    (tmp_path / "q.json").write_text(json.dumps([{"picture": "x", "text": "?"}]))
    with pytest.raises(BlinkTwiceFormatError, match=r"the files there have: picture, text"):
        BlinkTwiceReader(tmp_path)


def test_blink_twice_rows_per_image_and_images_in_folders(tmp_path):
    """Per-image rows: their `id` names the image, not each question; images named alike in two
    folders are two images, grouped by the group column."""
    for folder in ("original", "adversarial"):
        (tmp_path / folder).mkdir()
        Image.new("RGB", (8, 8)).save(tmp_path / folder / "001.png")
    rows = [{"id": f"{folder}-1", "image": f"{folder}/001.png", "group_id": "g",
             "questions": [{"question": "a?", "answer": answer}, {"question": "b?", "answer": answer}]}
            for folder, answer in (("original", "no"), ("adversarial", "yes"))]
    (tmp_path / "data.json").write_text(json.dumps(rows))
    questions = _all(BlinkTwiceReader(tmp_path))
    assert sorted(questions) == ["blink_twice_adversarial-1_q1", "blink_twice_adversarial-1_q2",
                                 "blink_twice_original-1_q1", "blink_twice_original-1_q2"]
    samples = [{"gold": q.gold, "correct": True, "n_choices": 2, "meta": q.meta} for q in questions.values()]
    m = blink_twice_metrics(samples)
    assert (m["i_acc"]["n"], m["g_acc"]["n"]) == (2, 1)


def test_yes_no():
    assert [yes_no(v) for v in ("Yes.", "no", True, "(A) yes", "yes or no", "unsure")] == ["yes", "no", "yes", "yes", None, None]


def _twice(image, group, gold, correct, category="Art"):
    return {"gold": gold, "correct": correct, "n_choices": 2, "meta": {"image": image, "group": group, "category": category}}


def test_blink_twice_metrics_by_hand():
    samples = [
        _twice("g1_main", "g1", "B", True), _twice("g1_main", "g1", "B", True),
        _twice("g1_adv", "g1", "A", True), _twice("g1_adv", "g1", "A", False),
        _twice("g2_main", "g2", "B", True), _twice("g2_main", "g2", "B", True),
        _twice("g2_adv", "g2", "A", True), _twice("g2_adv", "g2", "A", True, category="Motion"),
        _twice("solo", "g3", "B", False), _twice("solo", "g3", "A", True),  # an image without its twin
    ]
    m = blink_twice_metrics(samples)
    assert (m["q_acc"]["n"], m["q_acc"]["correct"]) == (10, 8)
    assert (m["yes_acc"]["n"], m["yes_acc"]["correct"]) == (5, 4)
    assert (m["no_acc"]["n"], m["no_acc"]["correct"]) == (5, 4)
    assert (m["i_acc"]["n"], m["i_acc"]["correct"]) == (5, 3) and m["i_acc"]["random_expected"] == 0.25
    assert (m["g_acc"]["n"], m["g_acc"]["correct"]) == (2, 1) and m["g_acc"]["random_expected"] == 1 / 16
    assert m["by_category"]["Motion"]["accuracy"] == 1.0


def test_blink_twice_without_groups_says_so():
    m = blink_twice_metrics([_twice("a", None, "A", True), _twice("a", None, "B", True)])
    assert m["g_acc"] is None and "no group" in m["g_acc_note"] and m["i_acc"]["accuracy"] == 1.0


# --- run and compare ----------------------------------------------------------------------------


def test_run_marvel_counts_panels_and_reports_its_metrics(tmp_path):
    write_marvel_release(tmp_path / "marvel", 5, seed=2)
    results = run(RunConfig(str(tmp_path / "run"), benchmark="marvel", root=str(tmp_path / "marvel"), progress=False))
    assert results["status"] == "complete" and set(results["tasks"]) == set(MARVEL_TASKS)
    assert results["tasks"]["MARVEL_Count_Total"]["specialist"] == "panel_count"
    assert results["tasks"]["MARVEL_AVR"]["specialist"] == "avr_rules"
    assert results["tasks"]["MARVEL_Fine_Perception"]["specialist"] == "fine_perception"
    overall = results["benchmark_metrics"]["overall"]
    assert overall["perc_c"]["accuracy"] == 1.0 and overall["perc_c"]["n"] == 5
    samples = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert all(s["meta"]["puzzle"] for s in samples)


def test_run_refuses_a_missing_root():
    with pytest.raises(ValueError, match="--benchmark marvel reads its release from --root DIR"):
        RunConfig("x", benchmark="marvel").validate()


def test_compare_scores_predictions_with_each_benchmarks_metrics(tmp_path):
    write_blink_twice_release(tmp_path / "bt", 2)
    run(RunConfig(str(tmp_path / "run"), benchmark="blink-twice", root=str(tmp_path / "bt"), progress=False))
    # every main-image question (gold no) answered "No", every twin's "yes" except one; one missing
    predictions = {"0_main_0": "No", "0_main_1": "no.", "0_adversarial_0": "Yes", "0_adversarial_1": "I think no",
                   "1_main_0": "No", "1_main_1": "No", "1_adversarial_0": "yes"}
    (tmp_path / "m.json").write_text(json.dumps(predictions))
    comparison = compare_other("blink-twice", [tmp_path / "run"], [f"model={tmp_path / 'm.json'}"])
    model = comparison["models"]["model"]
    assert model["parsing"] == {"parsed": 7, "unparsed": 0, "missing": 1, "ids_not_in_release": 0, "first_unknown": []}
    m = model["metrics"]
    assert (m["q_acc"]["correct"], m["no_acc"]["correct"], m["yes_acc"]["correct"]) == (6, 4, 2)
    assert (m["i_acc"]["correct"], m["g_acc"]["correct"]) == (2, 0)
    # JSON Lines: the model's words are read, not an `answer` column (the gold) beside them
    (tmp_path / "m.jsonl").write_text(json.dumps({"question_id": "0_main_0", "answer": "No", "output": "Yes"}) + "\n")
    lines = compare_other("blink-twice", [tmp_path / "run"], [str(tmp_path / "m.jsonl")])["models"]["m"]
    assert lines["tasks"]["BLINK_Twice"]["correct"] == 0 and lines["parsing"]["parsed"] == 1


def test_marvel_answers_are_parsed_per_kind_of_question(tmp_path):
    write_marvel_release(tmp_path, 2)
    questions = _all(MarvelReader(tmp_path))
    avr, fine, count = questions["marvel_1_avr"], questions["marvel_1_fine"], questions["marvel_1_count_total"]
    assert avr.choice_text(parse_answer(avr, "Choice 3 completes it")) == "3"
    assert parse_answer(avr, "(B)") == "B" and parse_answer(avr, "2 or 3") is None
    assert fine.choice_text(parse_answer(fine, "It is on the UPPER side")) == "upper"
    numbers = MCQuestion("x", "MARVEL_Fine_Perception", "p", ("two", "three"), "A", avr.source)
    assert parse_answer(numbers, "There are 3") == "B" and parse_answer(numbers, "two") == "A"
    assert parse_answer(avr, "Option (B)") == "B"
    assert parse_answer(fine, "upper or lower") is None
    assert count.choice_text(parse_answer(count, "nine panels")) == "9"


def test_the_readme_commands_run_as_written(tmp_path, monkeypatch, capsys):
    import re
    from pathlib import Path

    from adapters.cli.main import main

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", readme.split("## MARVEL and BLINK-Twice", 1)[1], flags=re.S).group(1)
    write_marvel_release(tmp_path / "MARVEL_AVR", 4)
    write_blink_twice_release(tmp_path / "BLINK-Twice", 2)
    (tmp_path / "gpt4o_marvel.json").write_text(json.dumps({"marvel_1_avr": "1", "2": {"count_total": "ten"}}))
    monkeypatch.chdir(tmp_path)
    for line in block.strip().splitlines():
        words = line.split()
        assert words[0] == "specialists"
        assert main(words[1:] + (["--no-progress"] if words[1] == "run" else [])) == 0, line
    assert "MARVEL's metrics" in (tmp_path / "cmp-marvel" / "comparison.md").read_text()
    assert json.loads((tmp_path / "runs" / "twice" / "results.json").read_text())["benchmark_metrics"]["g_acc"]["n"] == 2
