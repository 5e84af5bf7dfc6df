"""MARVEL's fine-grained question read from the panels, and BLINK's IQ_Test through the AVR
solver: rendered questions with known answers, read through the releases' own readers."""

from __future__ import annotations

import json

import cv2
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.core.registry import assign, default_for, get
from adapters.core.solver import SolverOptions
from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
from adapters.datasets.marvel.reader import MarvelReader, fine_options
from adapters.datasets.synthetic.avr_puzzles import (
    PanelSpec,
    iq_test_rows,
    render,
    write_avr_release,
)
from adapters.run.runner import RunConfig, run
from specialists.panels import find_panels

SOURCE = QuestionSource("test", "val")


def test_fine_grained_questions_of_rendered_puzzles_are_answered(tmp_path):
    write_avr_release(tmp_path, 30, seed=4)
    solver = get("fine_perception").build(SolverOptions())
    decisions = [(q, solver.decide(q)) for q in MarvelReader(tmp_path, ["fine"]).questions("MARVEL_Fine_Perception")]
    right = sum(d.pred == q.gold for q, d in decisions)
    assert right >= 27, [(q.question, q.choices, q.gold, d.details) for q, d in decisions if d.pred != q.gold]
    kinds = {d.details.get("kind") for _, d in decisions}
    assert {"colour", "count", "shape"} <= kinds


def _puzzle_with(drawings):
    """A sequence of three panels above four choices; drawings: choice (1-4) -> function(canvas,
    box) drawing into that choice panel."""
    context = [[PanelSpec(kind="circle", size=0.15), PanelSpec(kind="circle", size=0.2), None]]
    choices = [PanelSpec(kind="square", size=0.2, colour="red", x=0.3) for _ in range(4)]
    image = render(context, choices, "apart")
    boxes = find_panels(image).rows[-1]
    for choice, draw in drawings.items():
        x0, y0, x1, y1 = boxes[choice - 1]
        image[y0 + 4:y1 - 4, x0 + 4:x1 - 4] = 255
        draw(image, (x0, y0, x1, y1))
    return Image.fromarray(image)


def _ask(image, question, answer, distractor):
    options = fine_options(question, answer, distractor)
    return MCQuestion("q", "MARVEL_Fine_Perception", question, options, "AB"[options.index(answer)], SOURCE,
                      question=question, _images=[image])


def test_the_kinds_of_fine_question_are_read_from_their_words():
    def circle_over_square(canvas, box):
        x0, y0, x1, y1 = box
        cv2.circle(canvas, ((x0 + x1) // 2, y0 + 28), 12, (30, 80, 220), -1)
        cv2.rectangle(canvas, ((x0 + x1) // 2 - 12, y1 - 40), ((x0 + x1) // 2 + 12, y1 - 16), (220, 30, 30), -1)

    def three_dots(canvas, box):
        x0, y0, _, y1 = box
        for k in range(3):
            cv2.circle(canvas, (x0 + 25 + 25 * k, (y0 + y1) // 2), 6, (0, 0, 0), -1)

    image = _puzzle_with({2: circle_over_square, 3: three_dots})
    solver = get("fine_perception").build(SolverOptions())
    cases = [
        ("Is the circle above or below the square in choice 2?", "above", "below", "location"),
        ("Does choice 3 have 3 or 1 dots?", "3", "1", "count"),
        ("What is the color of the square in choice 2, red or blue?", "red", "blue", "colour"),
        ("What is the color of the circle in choice 2, red or blue?", "blue", "red", "colour"),
        ("Is the shape in choice 1 on the left or the right side?", "left", "right", "location"),
        ("How many edges does the shape in choice 4 have, 4 or 5?", "4", "5", "edges"),
        ("Does choice 1 contain a triangle or not?", "no", "yes", "shape"),
        ("Is the shape in the second panel a circle or a square?", "circle", "square", "shape"),
    ]
    for text, answer, distractor, kind in cases:
        question = _ask(image, text, answer, distractor)
        decision = solver.decide(question)
        assert (decision.pred, decision.details.get("kind")) == (question.gold, kind), (text, decision.details)


def test_questions_it_cannot_read_abstain_with_the_reason():
    image = _puzzle_with({})
    solver = get("fine_perception").build(SolverOptions())
    unread = _ask(image, "Is the arrow in choice 1 pointing clockwise or counterclockwise?", "clockwise",
                  "counterclockwise")
    decision = solver.decide(unread)
    assert decision.abstained and "do not read" in decision.details["reason"]
    nowhere = _ask(image, "Are the shapes red or blue?", "red", "blue")
    assert "names no panel" in solver.decide(nowhere).details["reason"]
    blank = _ask(image, "What is the color of the shape in panel 3, red or blue?", "red", "blue")
    assert "the blank" in solver.decide(blank).details["reason"]


# --- BLINK IQ_Test ------------------------------------------------------------------------------


def test_iq_test_in_blink_format_is_answered_by_the_avr_solver(tmp_path):
    rows = iq_test_rows(8, seed=1)
    rows.append(BlinkRow("IQ_Test", 9, "Which picture shows a cat?", ("picture A", "picture B", "picture C", "picture D"),
                         "A", rows[0].images))
    write_blink_folder(tmp_path / "blink", rows)
    results = run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), progress=False))
    task = results["tasks"]["IQ_Test"]
    assert task["specialist"] == "avr_rules" and task["errors"] == 0 and task["abstained"] == 1
    assert task["correct"] >= 7, task
    samples = {json.loads(line)["idx"]: json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()}
    assert "does not ask for the picture that completes" in samples["val_IQ_Test_9"]["decision"]["details"]["reason"]
    assert {s["decision"]["details"]["layout"]["blank_found"] for k, s in samples.items() if k != "val_IQ_Test_9"} == \
        {"question mark", "after the last panel"}


def test_the_new_specialists_are_defaults_and_random_stays_selectable():
    assert [default_for(t).name for t in ("MARVEL_AVR", "MARVEL_Fine_Perception", "IQ_Test")] == \
        ["avr_rules", "fine_perception", "avr_rules"]
    assert default_for("IQ_Test", weight_free=True).name == "avr_rules"
    chosen = assign(["MARVEL_AVR", "IQ_Test"], ["MARVEL_AVR=random", "IQ_Test=avr_dinov2"])
    assert (chosen["MARVEL_AVR"].name, chosen["IQ_Test"].name) == ("random", "avr_dinov2")


def test_the_benchmark_reports_the_development_sample_apart(tmp_path, capsys):
    from benchmarks.marvel_avr import main

    records = write_avr_release(tmp_path, 10, seed=6)
    assert main(["--root", str(tmp_path), "--rendered", "0"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert "Table 2" in lines[0]["note"]
    avr = next(line for line in lines if line.get("specialist") == "avr_rules")
    assert (avr["development"]["overall"]["n"], avr["held_out"]["overall"]["n"]) == (2, 8)
    configurations = {r["task_configuration"] for r in records if r["id"] % 5}
    assert set(avr["held_out"]["by_configuration"]) == configurations and avr["data_files"][0]["sha256"]
