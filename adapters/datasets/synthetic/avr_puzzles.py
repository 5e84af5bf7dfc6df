"""Rendered abstract-reasoning puzzles whose answers follow a rule: MARVEL's configurations in
its release layout, and BLINK's IQ_Test in BLINK's, with answers known by construction.

    make_puzzle(configuration, rng) -> RenderedPuzzle   (image, answer, rule, fine-grained question)
    write_avr_release(root, n=30, seed=0) -> [records]  marvel_label.json + Marvel/<id>.png
    iq_test_rows(n=8, seed=0) -> [BlinkRow]             BLINK IQ_Test rows (one image each)

Each puzzle draws one or two attributes by a rule along its lines (a count, size, position or
rotation that progresses, a colour or kind that alternates or is distributed over the rows, a
count that is the sum of the two before it in a row) and keeps the others constant; the answer
completes the rule and each distractor is the answer with one attribute changed (so it breaks a
rule or a constant). Configurations as MARVEL names them: Sequence (one line of 4-6 panels),
Two-row (2 x 3), Matrix (3 x 3), Group (two groups of three in one row) and 3D (one isometric
cube beside the blank: nothing to check a rule on). Not MARVEL's pictures: its layout and kinds
of rule only; the pattern each puzzle is filed under is ours.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from adapters.datasets.synthetic.other_releases import png_bytes  # the release's PNG encoding, shared with its fixture

PANEL = 100
GAP = 16
GROUP_GAP = 70
CONFIGURATIONS = ("Sequence", "Two-row", "Matrix", "Group", "3D")
PALETTE = {"red": (220, 30, 30), "green": (40, 170, 60), "blue": (30, 80, 220), "orange": (245, 140, 20),
           "purple": (140, 50, 180), "black": (20, 20, 20)}
POLYGONS = {"triangle": 3, "square": 4, "pentagon": 5, "hexagon": 6}
KINDS = ("circle", "triangle", "square", "pentagon", "hexagon")
SLOTS = {1: [(0.5, 0.5)], 2: [(0.3, 0.5), (0.7, 0.5)], 3: [(0.25, 0.5), (0.5, 0.5), (0.75, 0.5)],
         4: [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)], 5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
         6: [(0.25, 0.3), (0.5, 0.3), (0.75, 0.3), (0.25, 0.7), (0.5, 0.7), (0.75, 0.7)]}
SLOTS.update({n: [((i % 3 + 1) / 4, (i // 3 + 1) / (math.ceil(n / 3) + 1)) for i in range(n)] for n in range(7, 10)})
AVR_QUESTION = ("The puzzle's context part shows panels that follow a pattern, one of them the blank (?). "
                "Choose the choice (marked by 1, 2, 3, or 4) that completes the puzzle.")
IQ_QUESTION = "Which one picture follows the same pattern or rule established by the previous pictures?"


@dataclass(frozen=True)
class PanelSpec:
    """What one panel shows: `count` copies of one shape (a pointer is an isosceles triangle
    whose apex points along `heading`, degrees, 0 = right, 90 = up)."""

    kind: str = "circle"
    count: int = 1
    size: float = 0.2  # radius as a share of the panel's side
    x: float = 0.5
    y: float = 0.5
    colour: str = "blue"
    filled: bool = True
    heading: float = 90.0

    def signature(self) -> tuple:
        return (self.kind, self.count, round(self.size, 2), round(self.x, 2), round(self.y, 2), self.colour,
                self.filled, round(self.heading) % 360 if self.kind == "pointer" else 0)


@dataclass
class RenderedPuzzle:
    configuration: str
    image: np.ndarray
    answer: int  # 1-4
    rule: str  # what varies and how, e.g. "count:progression"
    pattern: str
    context: list[list[PanelSpec | None]] = field(repr=False, default_factory=list)
    choices: list[PanelSpec] = field(repr=False, default_factory=list)


# --- drawing --------------------------------------------------------------------------------------


def _draw_shape(canvas: np.ndarray, kind: str, cx: float, cy: float, radius: float, colour: tuple, filled: bool,
                heading: float) -> None:
    thickness = -1 if filled else 3 if radius >= 15 else 2
    if kind == "circle":
        cv2.circle(canvas, (round(cx), round(cy)), round(radius), colour, thickness, cv2.LINE_AA)
        return
    if kind == "pointer":
        angles = [heading, heading + 145, heading - 145]
        scales = [1.0, 0.75, 0.75]
    else:
        n = POLYGONS[kind]
        angles = [heading + 360 * k / n for k in range(n)]
        scales = [1.0] * n
    points = np.asarray([(cx + s * radius * math.cos(math.radians(a)), cy - s * radius * math.sin(math.radians(a)))
                         for a, s in zip(angles, scales)], np.int32)
    if filled:
        cv2.fillPoly(canvas, [points], colour, cv2.LINE_AA)
    else:
        cv2.polylines(canvas, [points], True, colour, thickness, cv2.LINE_AA)


def draw_panel(canvas: np.ndarray, x: int, y: int, spec: PanelSpec | None) -> None:
    """The panel's contents (its border is drawn by the frame); None draws the blank's "?"."""
    if spec is None:
        cv2.putText(canvas, "?", (x + PANEL // 2 - 14, y + PANEL // 2 + 16), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 0, 0), 4)
        return
    slots = SLOTS[spec.count] if spec.count > 1 else [(spec.x, spec.y)]
    for sx, sy in slots:
        _draw_shape(canvas, spec.kind, x + sx * PANEL, y + sy * PANEL, spec.size * PANEL,
                    PALETTE[spec.colour], spec.filled, spec.heading)


def _cube(canvas: np.ndarray, x: int, y: int, colour: tuple) -> None:
    """An isometric cube (3D configuration's object)."""
    c, r = np.array([x + PANEL / 2, y + PANEL / 2]), PANEL * 0.28
    top = [c + r * np.array(v) for v in ((0, -1), (0.87, -0.5), (0, 0), (-0.87, -0.5))]
    left = [c + r * np.array(v) for v in ((-0.87, -0.5), (0, 0), (0, 1), (-0.87, 0.5))]
    right = [c + r * np.array(v) for v in ((0.87, -0.5), (0, 0), (0, 1), (0.87, 0.5))]
    for face, shade in ((top, 1.0), (left, 0.7), (right, 0.45)):
        cv2.fillPoly(canvas, [np.asarray(face, np.int32)], tuple(int(v * shade) for v in colour), cv2.LINE_AA)


def render(units: list[list[PanelSpec | None]], choices: list[PanelSpec], frame: str, labels: str = "1234",
           cube: bool = False) -> np.ndarray:
    """(H, W, 3) uint8: the context above a strip of choices (cells sharing borders), each
    choice's label under it. frame: "apart" (the context's panels in one row, each its own
    border, gaps between: a sequence), "grid" (the lines stacked as the rows of one frame whose
    cells share borders: two-row, matrix) or "groups" (the lines side by side in one row, each a
    frame, a wide gap between). cube: context and choice panels show an isometric cube in the
    spec's colour (3D)."""
    cells: list[tuple[int, int, PanelSpec | None]] = []
    if frame == "grid":
        cells = [(GAP + c * PANEL, GAP + r * PANEL, spec) for r, unit in enumerate(units) for c, spec in enumerate(unit)]
    else:
        x = GAP
        for unit in units:
            for spec in unit:
                cells.append((x, GAP, spec))
                x += PANEL + (GAP if frame == "apart" else 0)
            x += GROUP_GAP - (GAP if frame == "apart" else 0)
    right = max(x for x, _, _ in cells) + PANEL
    bottom = max(y for _, y, _ in cells) + PANEL
    top = bottom + 3 * GAP
    canvas = np.full((top + PANEL + 40, max(right, 4 * PANEL + GAP) + GAP, 3), 255, np.uint8)
    for x, y, spec in cells + [(GAP + k * PANEL, top, spec) for k, spec in enumerate(choices)]:
        cv2.rectangle(canvas, (x, y), (x + PANEL, y + PANEL), (0, 0, 0), 2)
        if cube and spec is not None:
            _cube(canvas, x, y, PALETTE[spec.colour])
        else:
            draw_panel(canvas, x, y, spec)
    for k, label in enumerate(labels[:len(choices)]):
        x = GAP + k * PANEL
        cv2.putText(canvas, label, (x + PANEL // 2 - 8, top + PANEL + 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    return canvas


# --- puzzles --------------------------------------------------------------------------------------

# configuration -> the rules its puzzles are drawn with ("attribute:rule")
RULES = {
    "Sequence": ("count:progression", "size:progression", "x:progression", "heading:progression", "colour:period_2",
                 "kind:period_2"),
    "Two-row": ("count:progression", "size:progression", "heading:progression", "count:sum", "kind:constant"),
    "Group": ("count:progression", "size:progression", "heading:progression", "count:sum", "kind:constant"),
    "Matrix": ("kind:distribute", "colour:distribute", "count:progression", "size:progression", "count:sum"),
}
PATTERNS = {"count:progression": "Quantities", "count:sum": "Mathematical", "size:progression": "Quantities",
            "x:progression": "Spatial Relationship", "heading:progression": "Temporal Movement",
            "colour:period_2": "2D-Geometry", "kind:period_2": "2D-Geometry", "kind:constant": "2D-Geometry",
            "kind:distribute": "2D-Geometry", "colour:distribute": "2D-Geometry", "cube:same": "3D-Geometry"}
SHAPE = {"Sequence": (1, None), "Two-row": (2, 3), "Group": (2, 3), "Matrix": (3, 3), "3D": (1, 2)}


def _pick(rng: np.random.Generator, options, k: int = 1, exclude=()) -> list:
    pool = [o for o in options if o not in exclude]
    return [pool[i] for i in rng.choice(len(pool), size=k, replace=False)]


def _grid(rule: str, lines: int, length: int, rng: np.random.Generator) -> list[list[PanelSpec]]:
    """Every cell's spec under `rule` (the attribute it names varies by it, the rest constant
    over the puzzle, or per line where the rule leaves a line's own value free)."""
    attribute = rule.split(":")[0]
    kind = "pointer" if attribute == "heading" else _pick(rng, KINDS)[0]
    base = PanelSpec(kind=kind, size=float(rng.uniform(0.18, 0.26)), colour=_pick(rng, PALETTE)[0],
                     filled=bool(rng.uniform() < 0.7), heading=float(rng.choice([0.0, 90.0, 180.0, 270.0])))
    latin = [[(r + c) % 3 for c in range(3)] for r in range(3)]
    rng.shuffle(latin)
    if attribute == "count" or rule == "kind:constant":  # several shapes share a panel: small ones, apart
        base = replace(base, size=float(rng.uniform(0.08, 0.10)))
    grid = []
    for line in range(lines):
        start_count = int(rng.integers(1, 3))
        start_heading = float(rng.choice([0.0, 45.0, 90.0]))
        step_heading = float(rng.choice([45.0, 90.0, -45.0]))
        pair = _pick(rng, PALETTE if attribute == "colour" else KINDS, 2)
        sums = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
        row = []
        for p in range(length):
            spec = base
            if rule == "count:progression":
                spec = replace(base, count=start_count + p)
            elif rule == "count:sum":
                spec = replace(base, count=(sums + [sum(sums)])[p])
            elif rule == "size:progression":
                spec = replace(base, size=0.1 + 0.04 * p)
            elif rule == "x:progression":
                spec = replace(base, size=0.11, x=0.2 + 0.6 * p / (length - 1))
            elif rule == "heading:progression":
                spec = replace(base, heading=(start_heading + step_heading * p) % 360, size=0.3)
            elif rule == "colour:period_2":
                spec = replace(base, colour=pair[p % 2])
            elif rule == "kind:period_2":
                spec = replace(base, kind=pair[p % 2])
            elif rule == "kind:constant":  # a line's own kind, a count that progresses along it
                spec = replace(base, kind=pair[0], count=1 + p)
            elif rule == "kind:distribute":
                spec = replace(base, kind=("circle", "triangle", "square")[latin[line][p]])
            elif rule == "colour:distribute":
                spec = replace(base, colour=("red", "green", "blue")[latin[line][p]])
            row.append(spec)
        grid.append(row)
    return grid


VISIBLE = 0.01  # two choices differ in at least this share of a panel's pixels


def _alone(spec: PanelSpec) -> np.ndarray:
    canvas = np.full((PANEL, PANEL, 3), 255, np.uint8)
    draw_panel(canvas, 0, 0, spec)
    return (canvas < 200).any(axis=2)


def _distractors(answer: PanelSpec, rule: str, rng: np.random.Generator) -> list[PanelSpec]:
    """Three specs, each the answer with one attribute changed: the rule's attribute first."""
    attribute = rule.split(":")[0]
    changes = {
        "count": lambda s: replace(s, count=s.count + 1 if s.count < 3 or rng.uniform() < 0.5 else s.count - 1,
                                   size=min(s.size, 0.1)),  # several shapes: small enough to stand apart
        "size": lambda s: replace(s, size=s.size + (0.07 if s.size < 0.2 else -0.07) if s.count == 1 else s.size * 0.6),
        "x": lambda s: replace(s, x=float(np.clip(0.5 if abs(s.x - 0.5) > 0.2 else s.x + (0.3 if s.x < 0.5 else -0.3),
                                                  s.size + 0.06, 0.94 - s.size))),
        "heading": lambda s: replace(s, heading=(s.heading + float(rng.choice([90.0, 180.0]))) % 360),
        "colour": lambda s: replace(s, colour=_pick(rng, PALETTE, exclude=(s.colour,))[0]),
        "kind": lambda s: replace(s, kind=_pick(rng, KINDS, exclude=(s.kind,))[0]) if s.kind != "pointer" else s,
        "filled": lambda s: replace(s, filled=not s.filled),
    }
    out, drawn = [], [_alone(answer)]
    order = [attribute] + _pick(rng, [a for a in changes if a != attribute], len(changes) - 1)
    for name in order * 3:
        candidate = changes[name](answer)
        picture = _alone(candidate)
        if all(np.mean(picture != other) > VISIBLE for other in drawn):  # a change the eye can see
            out.append(candidate)
            drawn.append(picture)
        if len(out) == 3:
            return out
    raise AssertionError(f"no three distinct distractors for {answer}")


def make_puzzle(configuration: str, rng: np.random.Generator, labels: str = "1234", question_mark: bool = True,
                rule: str | None = None) -> RenderedPuzzle:
    """One puzzle of `configuration` (CONFIGURATIONS) with its answer (1-4). question_mark:
    the blank is drawn as a "?" panel; False leaves the last panel out (the next is asked for)."""
    if configuration == "3D":
        colour = _pick(rng, PALETTE, exclude=("black",))[0]
        answer_spec = PanelSpec(colour=colour)
        others = [PanelSpec(colour=c) for c in _pick(rng, PALETTE, 3, exclude=(colour, "black"))]
        units: list[list[PanelSpec | None]] = [[answer_spec, None]]
        rule, frame = "cube:same", "apart"
    else:
        lines, length = SHAPE[configuration]
        length = length or int(rng.integers(4, 7))
        rule = rule or _pick(rng, RULES[configuration])[0]
        if rule == "x:progression":
            length = min(length, 5)
        grid = _grid(rule, lines, length, rng)
        blank = (lines - 1, length - 1)
        if configuration == "Sequence" and rule not in ("x:progression",) and rng.uniform() < 0.3:
            blank = (0, int(rng.integers(2, length - 1)))
        answer_spec = grid[blank[0]][blank[1]]
        others = _distractors(answer_spec, rule, rng)
        units = [list(row) for row in grid]
        units[blank[0]][blank[1]] = None
        if not question_mark and blank == (lines - 1, length - 1):
            units[-1] = units[-1][:-1]
        frame = {"Sequence": "apart", "Group": "groups"}.get(configuration, "grid")
    position = int(rng.integers(4))
    choices = others[:position] + [answer_spec] + others[position:]
    image = render(units, choices, frame, labels, cube=configuration == "3D")
    return RenderedPuzzle(configuration, image, position + 1, rule, PATTERNS[rule], units, choices)


# --- fine-grained questions -----------------------------------------------------------------------

EDGES = {"triangle": 3, "square": 4, "pentagon": 5, "hexagon": 6, "pointer": 3}
PREAMBLE = "The choices part contains 4 choices (marked by 1, 2, 3, or 4). "


def fine_question(puzzle: RenderedPuzzle, rng: np.random.Generator) -> tuple[str, str, str]:
    """(question, answer, distractor) about one choice panel: its colour, count, edges, the
    side its shape is on, or its shape, as MARVEL's fine-grained questions ask."""
    k = int(rng.integers(4))
    spec = puzzle.choices[k]
    n = k + 1
    kinds = ["colour", "count", "shape"]
    if puzzle.configuration != "3D":
        kinds += ["contains"] + (["edges"] if spec.kind in EDGES and spec.count == 1 else [])
        kinds += ["side"] if spec.count == 1 and abs(spec.x - 0.5) >= 0.2 else []
    else:
        kinds = ["colour"]
    kind = _pick(rng, kinds)[0]
    if kind == "colour":
        other = _pick(rng, PALETTE, exclude=(spec.colour,))[0]
        return f"{PREAMBLE}What is the color of the shape in choice {n}, {spec.colour} or {other}?", spec.colour, other
    if kind == "count":
        other = spec.count + int(rng.choice([-1, 1, 2])) if spec.count > 1 else spec.count + int(rng.integers(1, 3))
        return f"{PREAMBLE}Does choice {n} have {spec.count} or {other} shapes?", str(spec.count), str(other)
    if kind == "edges":
        other = EDGES[spec.kind] + int(rng.choice([-1, 1, 2]))
        name = "triangle" if spec.kind == "pointer" else spec.kind
        return (f"How many edges does the {name} in choice {n} have, {EDGES[spec.kind]} or {other}?",
                str(EDGES[spec.kind]), str(other))
    if kind == "side":
        side, other = ("left", "right") if spec.x < 0.5 else ("right", "left")
        return f"Is the shape in choice {n} on the left or the right side?", side, other
    name = "triangle" if spec.kind == "pointer" else spec.kind
    if kind == "contains":
        asked = name if rng.uniform() < 0.5 else _pick(rng, KINDS, exclude=(name,))[0]
        answer = "yes" if asked == name else "no"
        return f"Does choice {n} contain a {asked} or not?", answer, "no" if answer == "yes" else "yes"
    other = _pick(rng, KINDS, exclude=(name,))[0]
    return f"Is the shape in choice {n} a {name} or a {other}?", name, other


# --- writers --------------------------------------------------------------------------------------


def write_avr_release(root: str | Path, n: int = 30, seed: int = 0, configurations=CONFIGURATIONS) -> list[dict[str, Any]]:
    """n rendered puzzles under `root` in MARVEL's GitHub layout (marvel_label.json,
    Marvel/<id>.png), every configuration once in each block of five; their records (fields as the release's, plus
    `rule`: what the answer follows)."""
    root = Path(root)
    (root / "Marvel").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    records = []
    order: list[str] = []
    for i in range(1, n + 1):
        if not order:  # each configuration once per block, in a random order (ids say nothing of it)
            order = [configurations[k] for k in rng.permutation(len(configurations))]
        puzzle = make_puzzle(order.pop(), rng)
        question, answer, distractor = fine_question(puzzle, rng)
        records.append({
            "id": i, "pattern": puzzle.pattern, "task_configuration": puzzle.configuration,
            "avr_question": AVR_QUESTION, "answer": puzzle.answer, "explanation": f"rendered: {puzzle.rule}",
            "rule": puzzle.rule, "f_perception_question": question, "f_perception_answer": answer,
            "f_perception_distractor": distractor,
            "c_perception_question_tuple": ["How many panels are in the context part, including the blank grid?",
                                            "How many panels are in the choices part?",
                                            "How many panels are in the whole puzzle?"],
            "c_perception_answer_tuple": [sum(len(u) for u in puzzle.context), 4, sum(len(u) for u in puzzle.context) + 4],
        })
        (root / "Marvel" / f"{i}.png").write_bytes(png_bytes(puzzle.image))
    (root / "marvel_label.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    return records


def iq_test_rows(n: int = 8, seed: int = 0):
    """n BLINK IQ_Test rows: one image each (a sequence or two groups above four choices
    lettered A-D), BLINK's question and options; the blank a "?" or left out."""
    from PIL import Image

    from adapters.datasets.blink.writer import BlinkRow

    rng = np.random.default_rng(seed)
    rows = []
    for number in range(1, n + 1):
        configuration = ("Sequence", "Group")[number % 2]
        puzzle = make_puzzle(configuration, rng, labels="ABCD", question_mark=bool(number % 3))
        rows.append(BlinkRow("IQ_Test", number, IQ_QUESTION, ("picture A", "picture B", "picture C", "picture D"),
                             "ABCD"[puzzle.answer - 1], [Image.fromarray(puzzle.image)]))
    return rows
