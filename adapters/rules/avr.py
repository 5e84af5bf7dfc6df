"""Abstract visual reasoning (MARVEL's AVR question, BLINK's IQ_Test): the choice that makes the
completed puzzle most regular.

The puzzle image is read into its context grid, blank and choices (`puzzle_layout`); each
choice in turn fills the blank, and the rules of `regularity` are fitted to the context one
attribute at a time. Two specialists:

- `avr_rules` (`avr.attribute_regularity`, weight-free): the panels' measured attributes (count,
  kinds, edges, size, position, heading, colour, fill, holes, symmetry, ink map). For each the
  simplest rule that explains the context (else the best fitting, weighted down by its misfit)
  predicts the blank; a choice's score is minus its weighted distance from the predictions.
- `avr_dinov2` (`avr.embedding_regularity`): each panel's DINOv2 embedding is one attribute,
  with the same rules in feature space (its tolerance a share of the context's spread).

A decision records the layout, every rule that explained an attribute (its lines, residual,
prediction and each choice's distance), the attribute that separated the winner from the
runner-up, and each panel's measured values. Where the layout cannot be read (no choice row,
no blank, another number of choice panels than options) or no rule can be checked on the
context (one context panel), it abstains with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver
from adapters.rules import iq_test
from adapters.rules.model_solver import ModelSolver
from adapters.rules.puzzle_layout import ATTRIBUTES, Puzzle, context_values, panel_values, read_puzzle
from adapters.rules.regularity import CAP, LOOSE, Attribute, Fit, fit_attribute, score_choices

EMBEDDING_TOLERANCE = 0.35  # an embedding rule holds within this share of the median distance between context panels


def option_panels(question: MCQuestion, n_panels: int) -> dict[str, int]:
    """Option letter -> choice panel (0-based, left to right): the number or the letter an option
    names ("1", "picture B", "(C)"), else the options in order when they are as many as the panels."""
    named: dict[str, int] = {}
    for letter, text in zip(question.letters, question.choices):
        number = re.fullmatch(r"\s*(?:choice|option|picture|image)?\s*\(?(\d{1,2})\)?\s*", text, re.IGNORECASE)
        label = re.fullmatch(r"\s*(?:choice|option|picture|image)?\s*\(?([A-Ha-h])\)?\s*", text)
        if number:
            named[letter] = int(number.group(1)) - 1
        elif label:
            named[letter] = "ABCDEFGH".index(label.group(1).upper())
    if len(named) == len(question.letters) and len(set(named.values())) == len(named):
        if max(named.values()) >= n_panels or min(named.values()) < 0:
            raise QuestionError(f"the options name choice {max(named.values()) + 1}, but {n_panels} choice panels were "
                                "found under the puzzle")
        return named
    if n_panels == len(question.letters):
        return {letter: k for k, letter in enumerate(question.letters)}
    raise QuestionError(f"{n_panels} choice panels were found under the puzzle for {len(question.letters)} options "
                        f"({', '.join(question.choices)}) that name none of them")


def abstain(question: MCQuestion, rule: str, reason: str, details: dict | None = None) -> Decision:
    return Decision({letter: float("nan") for letter in question.letters}, None, rule, abstained=True,
                    details={**(details or {}), "reason": reason})


def _summary(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return None if value.size > 3 else [round(float(v), 2) for v in value]
    return round(value, 3) if isinstance(value, float) else value


def panel_summary(values: dict[str, Any]) -> dict[str, Any]:
    """The measured values of one panel, small enough for a sample line (no ink map)."""
    return {name: _summary(value) for name, value in values.items() if name != "ink_map"}


def decide_from_fits(question: MCQuestion, rule: str, fits: Sequence[Fit], mapping: dict[str, int],
                     details: dict[str, Any]) -> Decision:
    """Scores per option from the fitted rules; abstains when nothing separates the choices."""
    if not fits:
        return abstain(question, rule, "no rule can be checked on the context (too few context panels)", details)
    per_panel = score_choices(fits, 1 + max(mapping.values()))
    scores = {letter: per_panel[index] for letter, index in mapping.items()}
    explaining = [f for f in fits if f.explains]
    details = {**details, "explained_by": [f.to_json() for f in explaining],
               "best_fits_unexplained": [f.to_json() for f in fits if not f.explains]}
    if len({round(v, 9) for v in scores.values()}) == 1:
        return abstain(question, rule, "no attribute separates the choices", details)
    ranked = sorted(scores, key=lambda k: -scores[k])
    winner, runner = mapping[ranked[0]], mapping[ranked[1]]

    def separation(fit: Fit) -> float:
        tolerance = max(fit.attribute.tolerance, 1e-12)
        cost = [CAP if d is None else min((d / tolerance) ** 2, CAP) for d in fit.distances]
        return (1.0 if fit.explains else fit.weight * LOOSE) * (cost[runner] - cost[winner])

    decisive = max(fits, key=separation)
    details["decisive"] = {"attribute": decisive.attribute.name, "rule": decisive.rule, "lines": decisive.family,
                           "explains": decisive.explains}
    return Decision.from_scores(scores, rule, details)


class PanelRules(Solver):
    """`avr_rules`: measured attributes, rules fitted per attribute (see the module's doc)."""

    rule = "avr.attribute_regularity"

    def puzzle(self, question: MCQuestion) -> Puzzle:
        return read_puzzle(np.asarray(question.images[0].convert("RGB")))

    def decide(self, question: MCQuestion) -> Decision:
        reason = iq_test.unreadable_reason(question) if question.task == iq_test.TASK else None
        if reason:
            return abstain(question, self.rule, reason)
        try:
            puzzle = self.puzzle(question)
            mapping = option_panels(question, len(puzzle.choices))
        except QuestionError as exc:
            return abstain(question, self.rule, str(exc))
        values, choice_values = context_values(puzzle)
        fits = [fit for attribute in ATTRIBUTES
                if (fit := fit_attribute(attribute, values[attribute.name], puzzle.blank, puzzle.lines(),
                                         choice_values[attribute.name])) is not None]
        details = {"layout": puzzle.describe(),
                   "context": {f"{u},{p}": panel_summary(panel_values(panel)) for (u, p), panel in puzzle.cells.items()},
                   "choices": [panel_summary(panel_values(panel)) for panel in puzzle.choices]}
        if question.meta and question.meta.get("configuration"):
            details["configuration"] = question.meta["configuration"]
        return decide_from_fits(question, self.rule, fits, mapping, details)


def embedding_fit(context: dict, choices: list[np.ndarray], puzzle: Puzzle) -> Fit | None:
    """The embedding rules: context cell -> (D,) unit vector, one per choice; the tolerance a
    share of the median distance between context panels (embeddings have no natural unit)."""
    vectors = list(context.values())
    pairs = [float(np.linalg.norm(a - b)) for i, a in enumerate(vectors) for b in vectors[i + 1:]]
    spread = float(np.median(pairs)) if pairs else 0.0
    attribute = Attribute("embedding", "vector", max(EMBEDDING_TOLERANCE * spread, 1e-6))
    return fit_attribute(attribute, context, puzzle.blank, puzzle.lines(), choices)


class EmbeddingRules(ModelSolver):
    """`avr_dinov2`: DINOv2 embeddings of the panels, the same rules in feature space."""

    rule = "avr.embedding_regularity"

    def build_tiny(self):
        from specialists.dinov2 import Dinov2Embedder

        return Dinov2Embedder.tiny(self.options.seed, self.options.device, self.options.precision)

    def build_real(self, path):
        from specialists.dinov2 import Dinov2Embedder

        o = self.options
        return Dinov2Embedder.from_pretrained(path, o.device, o.precision, o.batch_size)

    def model_input(self, question: MCQuestion):
        """(puzzle, option mapping, panel crops: context cells then choices), or the reason to abstain."""
        from PIL import Image

        reason = iq_test.unreadable_reason(question) if question.task == iq_test.TASK else None
        if reason:
            return reason
        try:
            puzzle = read_puzzle(np.asarray(question.images[0].convert("RGB")))
            mapping = option_panels(question, len(puzzle.choices))
        except QuestionError as exc:
            return str(exc)
        cells = list(puzzle.cells)
        crops = [Image.fromarray(puzzle.cells[cell].crop) for cell in cells] + \
                [Image.fromarray(panel.crop) for panel in puzzle.choices]
        return puzzle, mapping, cells, crops

    def run_model(self, inputs):
        crops = [crop for item in inputs if not isinstance(item, str) for crop in item[3]]
        outputs = iter(self.model(crops) if crops else [])
        out = []
        for item in inputs:
            if isinstance(item, str):
                out.append(item)
                continue
            vectors = [next(outputs).vector.float().numpy() for _ in item[3]]
            out.append((item, [v / max(float(np.linalg.norm(v)), 1e-12) for v in vectors]))
        return out

    def decision(self, question: MCQuestion, output) -> Decision:
        if isinstance(output, str):
            return abstain(question, self.rule, output)
        (puzzle, mapping, cells, _), vectors = output
        context = dict(zip(cells, vectors[:len(cells)]))
        fit = embedding_fit(context, vectors[len(cells):], puzzle)
        details = {"layout": puzzle.describe()}
        if question.meta and question.meta.get("configuration"):
            details["configuration"] = question.meta["configuration"]
        return decide_from_fits(question, self.rule, [fit] if fit is not None else [], mapping, details)
