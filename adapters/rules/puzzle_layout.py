"""An abstract-reasoning puzzle image read into what the rule search needs: the context grid
with its blank, the choices, the lines the configuration implies, and each panel's attributes.

    read_puzzle(rgb) -> Puzzle

Panels come from `specialists.panels.find_panels` (the bottom row is the choices) and are
measured by `specialists.panel_attributes`. The context's rows are split where a gap between
panels is much wider than the others (a row holding two groups is two lines). The blank is the
context panel holding a question mark, else the one empty panel; a context without one is
continued (the blank comes after its last panel), as a sequence whose next panel is asked for.

Lines: with one line, that line (a sequence); with several lines of equal length, the rows
(two-row, matrix, groups), the columns, and the reading order; otherwise the rows alone.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from adapters.core.questions import QuestionError
from adapters.rules.regularity import Attribute, Cell
from specialists.panel_attributes import PanelMeasure, lab, measure_panel
from specialists.panels import find_panels

HEADING_TOLERANCE = 12.0  # degrees
POSE_STEP = 15
GROUP_GAP = 2.5  # a gap this many times the row's typical gap (and over a third of a panel) splits groups

# The attributes compared, with the difference that still counts as "the same" (shares of a
# panel's side, counts, degrees, CIE Lab units). Whole numbers: a quarter, so that a rule
# missing by one never holds.
ATTRIBUTES = (
    Attribute("count", "number", 0.25),
    Attribute("kinds", "category", 0.5),
    Attribute("edges", "number", 0.25),
    Attribute("size", "number", 0.035),
    Attribute("x", "number", 0.05),
    Attribute("y", "number", 0.05),
    Attribute("heading", "angle", HEADING_TOLERANCE),
    # a polygon's heading depends on its kind (a square's corner is not a triangle's): kind and
    # heading together, to the nearest POSE_STEP degrees, are what distribute or stay constant
    Attribute("pose", "category", 0.5),
    Attribute("colour", "vector", 15.0),
    Attribute("filled", "number", 0.25),
    Attribute("holes", "number", 0.25),
    # symmetry (IoU with the mirror image) moves with any rearrangement of several shapes: measured, not compared
    Attribute("ink_map", "mask", 0.3),
)


def panel_values(panel: PanelMeasure) -> dict[str, Any]:
    """Each attribute's value for one panel (None where the panel does not show it)."""
    shapes = panel.shapes
    if not shapes:
        return {"count": 0, "kinds": "", "edges": 0, "size": 0.0, "x": None, "y": None, "heading": None, "pose": "",
                "colour": None, "filled": None, "holes": 0, "symmetry": np.asarray(panel.symmetry), "ink_map": panel.mask}
    weights = np.asarray([s.size for s in shapes])
    colour = np.average(np.stack([lab(s.colour) for s in shapes]), axis=0, weights=weights / weights.sum())
    return {
        "count": len(shapes),
        "kinds": ",".join(sorted({s.kind for s in shapes})),  # which kinds; how many is the count
        "edges": sum(s.edges for s in shapes),
        "size": float(np.sqrt(weights.mean())),
        "x": panel.centre[0] if panel.centre else None,
        "y": panel.centre[1] if panel.centre else None,
        "heading": _common_heading(shapes),
        "pose": _pose(shapes),
        "colour": colour,
        "filled": float(np.mean([s.filled for s in shapes])),
        "holes": sum(s.holes for s in shapes),
        "symmetry": np.asarray(panel.symmetry),
        "ink_map": panel.mask,
    }


def _common_heading(shapes) -> float | None:
    """The shapes' heading where each points one way (no regular polygon: its heading is a turn
    within its symmetry, compared by `pose`) and all the same way (within the tolerance)."""
    headings = [s.heading for s in shapes]
    if any(h is None for h in headings) or any(s.fold != 1 for s in shapes):
        return None
    first = headings[0]
    if any(abs((h - first + 180) % 360 - 180) > HEADING_TOLERANCE for h in headings):
        return None
    return float(first + np.mean([(h - first + 180) % 360 - 180 for h in headings])) % 360


def _pose(shapes) -> str:
    """Kind and turn, e.g. "triangle@90": the turn to about POSE_STEP degrees, within the
    shape's symmetry (a step dividing it, so a turn just under a full one rounds to 0)."""
    kinds = sorted({s.kind for s in shapes})
    folds = {s.fold for s in shapes}
    if len(kinds) != 1 or len(folds) != 1 or 0 in folds:
        return ",".join(kinds)
    period = 360.0 / folds.pop()
    step = period / max(1, round(period / POSE_STEP))
    turns = {round(s.heading / step) % round(period / step) for s in shapes}
    return f"{kinds[0]}@{round(turns.pop() * step)}" if len(turns) == 1 else ",".join(kinds)


@dataclass
class Puzzle:
    """units: the context's lines of panels as read (the blank's slot holds None);
    blank: its cell (unit, position); choices: the bottom row's panels, left to right."""

    units: list[list[PanelMeasure | None]]
    blank: Cell
    blank_found: str  # "question mark", "empty panel" or "after the last panel"
    choices: list[PanelMeasure]

    @property
    def cells(self) -> dict[Cell, PanelMeasure]:
        return {(u, p): panel for u, unit in enumerate(self.units) for p, panel in enumerate(unit) if panel is not None}

    @property
    def configuration(self) -> str:
        """What the grid looks like: single (one context panel), sequence, rows (lines of equal
        length), irregular."""
        lengths = [len(unit) for unit in self.units]
        if sum(lengths) <= 2 and len(self.cells) <= 1:
            return "single"
        if len(lengths) == 1:
            return "sequence"
        return f"{len(lengths)}x{lengths[0]}" if len(set(lengths)) == 1 else "irregular"

    def lines(self) -> dict[str, list[list[Cell]]]:
        rows = [[(u, p) for p in range(len(unit))] for u, unit in enumerate(self.units)]
        if len(rows) == 1 or len({len(row) for row in rows}) != 1:
            return {"rows": rows}
        columns = [[row[p] for row in rows] for p in range(len(rows[0]))]
        return {"rows": rows, "columns": columns, "reading order": [[cell for row in rows for cell in row]]}

    def describe(self) -> dict[str, Any]:
        return {"configuration": self.configuration, "lines": [len(unit) for unit in self.units],
                "blank": list(self.blank), "blank_found": self.blank_found, "choices": len(self.choices)}


def _split_groups(row: list[tuple[int, int, int, int]]) -> list[list[tuple[int, int, int, int]]]:
    if len(row) < 4:
        return [row]
    gaps = np.asarray([b[0] - a[2] for a, b in itertools.pairwise(row)], np.float64)
    width = float(np.median([b[2] - b[0] for b in row]))
    typical = max(float(np.median(gaps)), 1.0)
    cuts = [i + 1 for i, gap in enumerate(gaps) if gap > GROUP_GAP * typical and gap > width / 3]
    edges = [0, *cuts, len(row)]
    return [row[a:b] for a, b in itertools.pairwise(edges)]


def read_puzzle(rgb: np.ndarray, need_blank: bool = True) -> Puzzle:
    """The puzzle in an (H, W, 3) uint8 image; QuestionError when its layout cannot be read (or,
    with need_blank, it has no blank; without, such a puzzle's blank is (-1, -1))."""
    panels = find_panels(rgb)
    if len(panels.rows) < 2:
        raise QuestionError(f"found {len(panels.rows)} row(s) of bordered panels; a puzzle needs context rows above "
                            "a row of choices")
    units = [[measure_panel(rgb, box) for box in group] for row in panels.rows[:-1] for group in _split_groups(row)]
    choices = [measure_panel(rgb, box) for box in panels.rows[-1]]
    context = [(u, p) for u, unit in enumerate(units) for p in range(len(unit))]
    marked = [cell for cell in context if units[cell[0]][cell[1]].question_mark]
    empty = [cell for cell in context if units[cell[0]][cell[1]].empty]
    if marked:
        blank, found = marked[-1], "question mark"
    elif len(empty) == 1:
        blank, found = empty[0], "empty panel"
    else:
        last = len(units) - 1
        if len(units) > 1 and len(units[last]) >= len(units[0]):
            if not need_blank:
                return Puzzle(units, (-1, -1), "none", choices)  # type: ignore[arg-type]
            raise QuestionError(f"no blank panel (a question mark or an empty panel) among the {len(context)} context "
                                "panels, and no shorter last line to continue")
        blank, found = (last, len(units[last])), "after the last panel"
        units[last].append(None)  # type: ignore[arg-type]
    if found != "after the last panel":
        units[blank[0]][blank[1]] = None  # type: ignore[call-overload]
    return Puzzle(units, blank, found, choices)  # type: ignore[arg-type]


def context_values(puzzle: Puzzle) -> tuple[dict[str, dict[Cell, Any]], dict[str, list[Any]]]:
    """attribute name -> {cell: value} over the context, and -> [value per choice]."""
    per_cell = {cell: panel_values(panel) for cell, panel in puzzle.cells.items()}
    per_choice = [panel_values(panel) for panel in puzzle.choices]
    names = [a.name for a in ATTRIBUTES]
    return ({name: {cell: values[name] for cell, values in per_cell.items()} for name in names},
            {name: [values[name] for values in per_choice] for name in names})
