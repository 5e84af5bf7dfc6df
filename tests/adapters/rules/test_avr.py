"""The AVR solver (MARVEL_AVR, BLINK IQ_Test): the rule search on values worked out by hand, the
panel measurements on drawn panels, and whole rendered puzzles of every configuration."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.core.registry import get
from adapters.core.solver import SolverOptions
from adapters.datasets.synthetic.avr_puzzles import (
    CONFIGURATIONS,
    PanelSpec,
    draw_panel,
    make_puzzle,
)
from adapters.rules.avr import option_panels
from adapters.rules.regularity import Attribute, fit_attribute, score_choices
from specialists.panel_attributes import measure_panel

NUMBER = Attribute("n", "number", 0.25)
SOURCE = QuestionSource("test", "val")


def _row(values, blank):
    """One line: cell (0, p) -> value, the blank left out."""
    return {(0, p): v for p, v in enumerate(values) if p != blank}, (0, blank), {"rows": [[(0, p) for p in range(len(values))]]}


# --- the rule search ------------------------------------------------------------------------------


def test_the_simplest_rule_that_explains_a_line_predicts_its_blank():
    cases = [([3, 3, 3, None], "constant", 3), ([1, 2, 3, 4, None], "progression", 5), ([2, None, 6, 8], "progression", 4),
             ([1, 5, 1, 5, None], "period_2", 1), ([1, 1, 2, 3, 5, None], "fibonacci", 8)]
    for values, rule, expected in cases:
        blank = values.index(None)
        known, cell, lines = _row(values, blank)
        fit = fit_attribute(NUMBER, known, cell, lines, [expected, expected + 1])
        assert (fit.rule, fit.explains) == (rule, True), values
        assert fit.prediction == pytest.approx(expected) and fit.distances == pytest.approx((0, 1))


def test_a_rule_fitted_to_as_many_values_as_it_has_parameters_explains_nothing():
    known, cell, lines = _row([1, 4, None], 2)  # two values: a step is guessed, never checked
    fit = fit_attribute(NUMBER, known, cell, lines, [7, 4])
    assert fit is None or not fit.explains
    known, cell, lines = _row([1, 4, 2, 8, None], 4)  # no rule holds: the best fit is weighted down
    fit = fit_attribute(NUMBER, known, cell, lines, [3, 9])
    assert not fit.explains and fit.weight < 0.5


def grid(rows):
    """Cells (row, column) -> value of a grid of lines of three (None: the blank), its rows and columns."""
    values = {(r, c): v for r, row in enumerate(rows) for c, v in enumerate(row) if v is not None}
    return values, {"rows": [[(r, c) for c in range(3)] for r in range(len(rows))],
                    "columns": [[(r, c) for r in range(len(rows))] for c in range(3)]}


def test_rows_of_a_grid_distribute_sum_and_add():
    kinds = Attribute("kind", "category", 0.5)
    values, lines = grid([["circle", "square", "star"], ["star", "circle", "square"], ["square", "star", None]])
    fit = fit_attribute(kinds, values, (2, 2), lines, ["star", "circle"])
    assert (fit.rule, fit.prediction, fit.distances) == ("distribute", "circle", (1.0, 0.0))
    values, lines = grid([[1, 2, 3], [2, 3, 5], [1, 3, None]])
    fit = fit_attribute(NUMBER, values, (2, 2), lines, [3, 4, 5])
    assert (fit.rule, fit.prediction) == ("sum", 4)
    # every row the first plus an offset, columns alike: row + column effects
    values, lines = grid([[1, 4, 2], [3, 6, 4], [6, 9, None]])
    fit = fit_attribute(NUMBER, values, (2, 2), lines, [7, 5])
    assert (fit.rule, round(fit.prediction, 6)) == ("additive", 7.0)


def test_angles_wrap_and_ink_maps_combine():
    heading = Attribute("heading", "angle", 12.0)
    known, cell, lines = _row([300.0, 330.0, 0.0, 30.0, None], 4)
    fit = fit_attribute(heading, known, cell, lines, [60.0, 240.0])
    assert fit.rule == "progression" and fit.prediction == pytest.approx(60.0) and fit.distances[1] == pytest.approx(180.0)
    mask = Attribute("ink", "mask", 0.3)
    a, b = np.zeros((4, 4)), np.zeros((4, 4))
    a[0], b[:, 0] = 1, 1
    rows = [[a, b, np.maximum(a, b)], [b, a, np.maximum(a, b)], [a, a, None]]
    values = {(r, c): v for r, row in enumerate(rows) for c, v in enumerate(row) if v is not None}
    lines = {"rows": [[(r, c) for c in range(3)] for r in range(3)]}
    fit = fit_attribute(mask, values, (2, 2), lines, [np.maximum(a, b), a])
    assert fit.rule == "or" and fit.explains and fit.distances[1] == 0  # a OR a is a


def test_choices_are_scored_by_explained_attributes_first():
    known, cell, lines = _row([1, 2, 3, None], 3)
    explained = fit_attribute(NUMBER, known, cell, lines, [4, 5, 4])
    known, cell, lines = _row([0.1, 0.5, 0.3, None], 3)
    loose = fit_attribute(Attribute("noisy", "number", 0.1), known, cell, lines, [0.9, 0.3, 0.45])
    assert explained.explains and not loose.explains
    scores = score_choices([explained, loose], 3)
    assert scores[1] < scores[0] and scores[1] < scores[2]  # the broken count costs the most
    assert scores[2] > scores[0]  # between equals on the count, the loose fit breaks the tie


# --- panels -----------------------------------------------------------------------------------


def _panel(spec):
    canvas = np.full((120, 120, 3), 255, np.uint8)
    cv2.rectangle(canvas, (10, 10), (110, 110), (0, 0, 0), 2)
    if spec is not None:
        draw_panel(canvas, 10, 10, spec)
    else:
        draw_panel(canvas, 10, 10, None)
    return measure_panel(canvas, (10, 10, 111, 111))


@pytest.mark.parametrize("kind,edges", [("circle", 0), ("triangle", 3), ("square", 4), ("pentagon", 5), ("hexagon", 6)])
def test_a_drawn_shape_is_measured(kind, edges):
    panel = _panel(PanelSpec(kind=kind, size=0.3, colour="red", heading=90.0))
    (shape,) = panel.shapes
    assert (shape.kind, shape.edges, shape.colour_name, shape.filled) == (kind, edges, "red", True)
    assert abs(shape.centre[0] - 0.5) < 0.04 and not panel.question_mark


def test_counts_outlines_headings_and_the_question_mark():
    many = _panel(PanelSpec(kind="square", count=4, size=0.09, colour="green", filled=False))
    assert many.count == 4 and all(not s.filled and s.holes == 1 for s in many.shapes)
    pointer = _panel(PanelSpec(kind="pointer", size=0.3, heading=135.0))
    assert abs(pointer.main.heading - 135.0) < 6
    assert _panel(None).question_mark and _panel(None).count == 2  # the hook and its dot
    assert _panel(PanelSpec(kind="triangle", count=2, size=0.1, colour="black")).question_mark is False


def test_options_name_their_choice_panels():
    def question(choices):
        return MCQuestion("q", "IQ_Test", "?", choices, None, SOURCE)

    assert option_panels(question(("1", "2", "3", "4")), 4) == {"A": 0, "B": 1, "C": 2, "D": 3}
    assert option_panels(question(("picture C", "picture A")), 4) == {"A": 2, "B": 0}
    assert option_panels(question(("red", "blue", "green", "black")), 4) == {"A": 0, "B": 1, "C": 2, "D": 3}


# --- rendered puzzles ---------------------------------------------------------------------------


def _ask(puzzle, task="MARVEL_AVR"):
    return MCQuestion("q", task, "Choose the choice that completes the puzzle.", ("1", "2", "3", "4"),
                      "ABCD"[puzzle.answer - 1], SOURCE, question="Choose the choice that completes the puzzle.",
                      meta={"configuration": puzzle.configuration}, _images=[Image.fromarray(puzzle.image)])


@pytest.mark.parametrize("configuration", [c for c in CONFIGURATIONS if c != "3D"])
def test_rendered_puzzles_are_solved_by_the_rule_that_made_them(configuration):
    rng = np.random.default_rng(11)
    solver = get("avr_rules").build(SolverOptions())
    right = 0
    for _ in range(10):
        puzzle = make_puzzle(configuration, rng)
        decision = solver.decide(_ask(puzzle))
        right += decision.pred == "ABCD"[puzzle.answer - 1]
        assert decision.details["layout"]["blank_found"] == "question mark"
        assert decision.details["explained_by"] and decision.details["decisive"]["attribute"]
    assert right >= 8, f"{configuration}: {right}/10"


def test_the_decision_records_the_rule_that_explained_the_puzzle():
    puzzle = make_puzzle("Sequence", np.random.default_rng(3), rule="size:progression")
    decision = get("avr_rules").build(SolverOptions()).decide(_ask(puzzle))
    assert decision.pred == "ABCD"[puzzle.answer - 1]
    size = next(f for f in decision.details["explained_by"] if f["attribute"] == "size")
    assert size["rule"] == "progression" and size["explains"] and size["df"] >= 1
    assert min(size["choice_distance"]) == size["choice_distance"][puzzle.answer - 1]
    assert len(decision.details["choices"]) == 4 and decision.details["configuration"] == "Sequence"
    json.dumps(decision.to_json())  # a sample line holds it


def test_one_context_panel_checks_no_rule_and_abstains():
    puzzle = make_puzzle("3D", np.random.default_rng(0))
    decision = get("avr_rules").build(SolverOptions()).decide(_ask(puzzle))
    assert decision.abstained and "no rule can be checked" in decision.details["reason"]


def test_an_image_without_panels_abstains_with_the_reason():
    question = MCQuestion("q", "MARVEL_AVR", "?", ("1", "2", "3", "4"), "A", SOURCE,
                          _images=[Image.new("RGB", (200, 100), "white")])
    decision = get("avr_rules").build(SolverOptions()).decide(question)
    assert decision.abstained and "row(s) of bordered panels" in decision.details["reason"]


def test_the_embedding_option_runs_the_same_rules_on_tiny_random_weights():
    rng = np.random.default_rng(5)
    solver = get("avr_dinov2").build(SolverOptions(checkpoint="tiny-random"))
    puzzles = [make_puzzle(c, rng) for c in ("Sequence", "Matrix", "3D")]
    decisions = solver.decide_batch([_ask(p) for p in puzzles])
    assert not any(isinstance(d, Exception) for d in decisions), decisions
    for decision in decisions[:2]:
        fit = (decision.details["explained_by"] + decision.details["best_fits_unexplained"])[0]
        assert fit["attribute"] == "embedding" and decision.rule == "avr.embedding_regularity"
    assert decisions[2].abstained
