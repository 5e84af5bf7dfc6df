"""MARVEL's fine-grained perception question (two options) answered from the panel measurements.

The question is read for the panel it asks about ("choice 2", "the third choice", "panel 4",
"the second panel": context panels count in reading order, the blank included), what it asks
about it, and the shape it names, if any (a kind, "dots", a colour). The kinds read, as the
paper lists them:

    colour    both options colour names: the option nearest (CIE Lab) the shape's colour
    count     both options numbers: how many shapes (of the named kind or colour) the panel holds
    edges     numbers and the question says edges / sides / corners / vertices / angles: the
              shape's polygon corners (a circle has none)
    location  left / right, upper / lower (top, bottom, above, below): where the shape sits in
              its panel, or, with two shapes named, where the first is beside the second
    shape     both options shape names: the shape's kind; yes / no with "contain", "have",
              "is there": whether a shape of the named kind (and colour) is there

Any other question (a direction, a pattern, a comparison between panels...) abstains, naming
what it asks; so do questions naming no panel or a panel with nothing the question names.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver
from adapters.datasets.marvel.reader import parse_count
from adapters.rules.avr import abstain
from adapters.rules.puzzle_layout import Puzzle, read_puzzle
from specialists.panel_attributes import COLOUR_NAMES, PanelMeasure, colour_distance

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
            "ninth": 9, "last": -1}
SHAPE_WORDS = {"circle": "circle", "circles": "circle", "dot": "circle", "dots": "circle", "ball": "circle",
               "balls": "circle", "oval": "circle", "triangle": "triangle", "triangles": "triangle",
               "square": "square", "squares": "square", "rectangle": "rectangle", "rectangles": "rectangle",
               "pentagon": "pentagon", "pentagons": "pentagon", "hexagon": "hexagon", "hexagons": "hexagon",
               "star": "star", "stars": "star", "line": "line", "lines": "line"}
QUADRILATERALS = ("square", "rectangle")
SIDES = {"left": ("x", -1), "right": ("x", 1), "upper": ("y", -1), "top": ("y", -1), "above": ("y", -1),
         "up": ("y", -1), "lower": ("y", 1), "bottom": ("y", 1), "below": ("y", 1), "down": ("y", 1)}
EDGE_WORDS = re.compile(r"\b(edges?|sides?|corners?|vertex|vertices|angles?)\b")
PRESENCE = re.compile(r"\b(contains?|containing|have|has|is there|are there|include|includes|exist|exists)\b")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def target_panel(text: str, puzzle: Puzzle) -> tuple[PanelMeasure, str]:
    """The panel a question names, and how it was read; QuestionError when it names none."""
    text = text.lower()
    where = re.search(r"\b(choice|option|answer|panel|grid|image|picture)\s*(?:#|no\.?|number)?\s*(\d+)\b", text)
    if where:
        noun, number = where.group(1), int(where.group(2))
    else:
        where = re.search(rf"\b({'|'.join(ORDINALS)})\s+(choice|option|answer|panel|grid|image|picture)\b", text)
        if not where:
            raise QuestionError("the question names no panel (choice N, panel N)")
        noun, number = where.group(2), ORDINALS[where.group(1)]
    if noun in ("choice", "option", "answer"):
        panels, part = puzzle.choices, "choice"
    else:  # the context's panels in reading order, the blank's slot included
        panels = [panel for unit in puzzle.units for panel in unit]  # type: ignore[misc]
        part = "context panel"
    index = number - 1 if number > 0 else len(panels) - 1
    if not 0 <= index < len(panels):
        raise QuestionError(f"the question names {part} {number}, but {len(panels)} were found")
    panel = panels[index]
    if panel is None:
        raise QuestionError(f"the question asks about {part} {number}, the blank")
    return panel, f"{part} {index + 1}"


def named_shapes(text: str, panel: PanelMeasure, options: tuple[str, ...]) -> tuple[list, str | None, str | None]:
    """The panel's shapes the question names (by kind and colour, options left out), the kind and
    colour named."""
    words = [w for w in _words(text) if w not in {o.lower() for o in options}]
    kind = next((SHAPE_WORDS[w] for w in words if w in SHAPE_WORDS), None)
    colour = next((w for w in words if w in COLOUR_NAMES), None)
    shapes = [s for s in panel.shapes if _is_kind(s, kind) and (colour is None or s.colour_name == colour)]
    return shapes, kind, colour


def _is_kind(shape, kind: str | None) -> bool:
    if kind is None:
        return True
    if kind in QUADRILATERALS:
        return shape.kind in QUADRILATERALS
    return shape.kind == kind


def _colour_answer(options, shapes) -> tuple[int, dict]:
    colour = tuple(np.mean([s.colour for s in shapes], axis=0))
    distance = [colour_distance(colour, COLOUR_NAMES[o.lower()]) for o in options]
    return int(np.argmin(distance)), {"measured_colour": [round(c) for c in colour], "lab_distance":
                                      [round(d, 1) for d in distance]}


def _number_answer(options, value: float) -> tuple[int, dict]:
    numbers = [parse_count(o) for o in options]
    distance = [abs(n - value) for n in numbers]  # type: ignore[operator]
    return int(np.argmin(distance)), {"measured": value}


def _location_answer(text: str, options, panel: PanelMeasure, shapes, kind) -> tuple[int, dict]:
    axes = {SIDES[o.lower()] for o in options}
    if len({axis for axis, _ in axes}) != 1 or len(axes) != 2:
        raise QuestionError(f"options {options} are not two opposite sides")
    axis = next(iter(axes))[0]
    # two shapes named ("the circle above or below the square"): the first against the second
    named = [SHAPE_WORDS[w] for w in _words(text) if w in SHAPE_WORDS]
    if len(named) >= 2 and named[0] != named[1]:
        first = [s for s in panel.shapes if _is_kind(s, named[0])]
        second = [s for s in panel.shapes if _is_kind(s, named[1])]
        if not first or not second:
            raise QuestionError(f"the panel shows no {named[0] if not first else named[1]}")
        here = np.mean([s.centre for s in first], axis=0)
        there = np.mean([s.centre for s in second], axis=0)
        reading = f"{named[0]} against {named[1]}"
    else:
        here = np.mean([s.centre for s in shapes], axis=0)
        there = np.array([0.5, 0.5])
        reading = "within its panel"
    offset = float((here - there)[0 if axis == "x" else 1])
    signs = [SIDES[o.lower()][1] for o in options]
    return int(np.argmax([sign * offset for sign in signs])), {"offset": round(offset, 3), "axis": axis,
                                                               "relative_to": reading}


def read_answer(question: MCQuestion, puzzle: Puzzle) -> tuple[int, dict[str, Any]]:
    """(index of the option chosen, what was read); QuestionError when the question cannot be read."""
    text = question.question or question.prompt
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text.strip()) if s]
    asked = next((s for s in reversed(sentences) if re.search(r"\b(choice|option|panel|grid)\b", s, re.IGNORECASE)), text)
    options = tuple(question.choices)
    lowered = [o.lower().strip() for o in options]
    panel, where = target_panel(asked, puzzle)
    shapes, kind, colour = named_shapes(asked, panel, options)
    details: dict[str, Any] = {"panel": where, "named_kind": kind, "named_colour": colour,
                               "shapes": [s.to_json() for s in panel.shapes]}
    if all(o in COLOUR_NAMES for o in lowered):
        if not shapes:
            raise QuestionError(f"{where} shows no {kind or 'shape'}")
        index, values = _colour_answer(options, shapes)
        return index, {**details, "kind": "colour", **values}
    if all(parse_count(o) is not None for o in lowered):
        if EDGE_WORDS.search(asked.lower()):
            if not shapes:
                raise QuestionError(f"{where} shows no {kind or 'shape'}")
            main = max(shapes, key=lambda s: s.size)
            return _number_answer(options, main.edges)[0], {**details, "kind": "edges", "measured": main.edges}
        index, values = _number_answer(options, len(shapes))
        return index, {**details, "kind": "count", **values}
    if all(o in SIDES for o in lowered):
        if not shapes:
            raise QuestionError(f"{where} shows no {kind or 'shape'}")
        index, values = _location_answer(asked, options, panel, shapes, kind)
        return index, {**details, "kind": "location", **values}
    if all(o in SHAPE_WORDS for o in lowered):
        if not panel.shapes:
            raise QuestionError(f"{where} shows no shape")
        main = max(panel.shapes, key=lambda s: s.size)
        kinds = [SHAPE_WORDS[o] for o in lowered]
        matches = [_is_kind(main, k) for k in kinds]
        if sum(matches) != 1:
            raise QuestionError(f"{where}'s shape reads as {main.kind}, neither option ({', '.join(options)})")
        return matches.index(True), {**details, "kind": "shape", "measured": main.kind}
    if set(lowered) == {"yes", "no"} and PRESENCE.search(asked.lower()) and (kind or colour):
        present = bool(shapes)
        return lowered.index("yes" if present else "no"), {**details, "kind": "shape", "present": present}
    raise QuestionError(f"the question asks something the panel measurements do not read (options: "
                        f"{', '.join(options)})")


class FinePerception(Solver):
    """`fine_perception`: MARVEL_Fine_Perception from the measured panels (see the module's doc)."""

    rule = "marvel.fine_perception_measured"

    def decide(self, question: MCQuestion) -> Decision:
        try:
            puzzle = read_puzzle(np.asarray(question.images[0].convert("RGB")), need_blank=False)
            index, details = read_answer(question, puzzle)
        except QuestionError as exc:
            return abstain(question, self.rule, str(exc))
        answer = question.letters[index]
        return Decision.from_scores({letter: float(letter == answer) for letter in question.letters}, self.rule, details)
