"""How regular a puzzle is under a rule: the rule search every AVR specialist shares.

The context is a grid of cells (rows of panels, one cell the blank); `lines` group its cells by
the puzzle's configuration: a sequence is one line, a two-row or matrix puzzle has its rows and
its columns, groups are lines of their own. One attribute at a time (a number, an angle, a
category, an ink map or an embedding, measured per panel), the rules below are tried in order of
simplicity; a rule explains the attribute when it holds on every context line within the
attribute's tolerance, with at least one value to spare (df >= 1: a rule fitted to exactly as
many values as it has parameters proves nothing). It then predicts the blank, and each choice is
as far from that prediction as its own value is.

Rules (on each line of a family, or on the whole family):
    constant        every value of a line the same
    progression     values change by a constant step along a line (a linear fit)
    period_2/3      values repeat every 2 (3) positions
    distribute      every line holds the same set of values, in any order (distribute-three)
    sum/difference  third = first + second, or first - second, on lines of three
    additive        value = row effect + column effect over the grid (rows alike up to an offset)
    or/and/xor      the same on ink maps (overlay, common part, exclusive part)
    fibonacci       each value the sum of the two before it (a single long line)

Written here since no library fits rules to a puzzle's panels.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Cell = tuple[int, int]
KINDS = ("number", "angle", "category", "vector", "mask")


@dataclass(frozen=True)
class Attribute:
    """name; kind (KINDS); tolerance: how far two values may be and still count as equal."""

    name: str
    kind: str
    tolerance: float

    def distance(self, a: Any, b: Any) -> float:
        if self.kind == "number":
            return abs(float(a) - float(b))
        if self.kind == "angle":
            return abs((float(a) - float(b) + 180.0) % 360.0 - 180.0)
        if self.kind == "category":
            return 0.0 if a == b else 1.0
        a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
        if self.kind == "mask":  # the ink that differs, as a share of the larger ink
            return float(np.abs(a - b).sum() / max(a.sum(), b.sum(), 1e-6))
        return float(np.linalg.norm(a - b))


@dataclass(frozen=True)
class Fit:
    """A rule explaining (or best fitting) one attribute over the context."""

    attribute: Attribute
    rule: str
    family: str
    residual: float  # the worst misfit over the context, in the attribute's units
    df: int  # values checked beyond what the rule's parameters absorb
    prediction: Any
    distances: tuple[float | None, ...]  # each choice's distance from the prediction

    @property
    def explains(self) -> bool:
        return self.df >= 1 and self.residual <= self.attribute.tolerance

    @property
    def weight(self) -> float:
        """1 for a rule that holds; less the more the context strays from it."""
        return 1.0 / (1.0 + (self.residual / max(self.attribute.tolerance, 1e-12)) ** 2)

    def to_json(self) -> dict:
        def plain(value: Any) -> Any:
            if isinstance(value, np.ndarray):
                return None if value.size > 8 else [round(float(v), 4) for v in value]
            return round(value, 4) if isinstance(value, float) else value

        return {"attribute": self.attribute.name, "rule": self.rule, "lines": self.family,
                "residual": round(self.residual, 4), "tolerance": self.attribute.tolerance, "df": self.df,
                "explains": self.explains, "prediction": plain(self.prediction),
                "choice_distance": [None if d is None else round(d, 4) for d in self.distances]}


# --- values -------------------------------------------------------------------------------------


def _vectors(values: Sequence[Any], kind: str) -> np.ndarray:
    """Values as an (n, d) float array; angles unwrapped along the sequence given."""
    if kind == "angle":
        return np.unwrap(np.asarray(values, np.float64), period=360.0).reshape(-1, 1)
    return np.stack([np.atleast_1d(np.asarray(v, np.float64)).ravel() for v in values])


def _back(vector: np.ndarray, kind: str) -> Any:
    if kind == "number":
        return float(vector[0])
    if kind == "angle":
        return float(vector[0]) % 360.0
    if kind == "mask":
        return np.clip(vector, 0.0, 1.0)
    return vector


def _centre(values: Sequence[Any], attribute: Attribute) -> Any:
    """The value a constant rule predicts: the commonest category, the median number or angle
    (one stray value does not drag it), the mean vector."""
    if attribute.kind == "category":
        return max(set(values), key=list(values).count)
    vectors = _vectors(values, attribute.kind)
    if attribute.kind in ("number", "angle"):
        return _back(np.median(vectors, axis=0), attribute.kind)
    return _back(vectors.mean(axis=0), attribute.kind)


def _spread(values: Sequence[Any], attribute: Attribute) -> float:
    """How far apart the values that should be equal are: the largest distance between two."""
    return max((attribute.distance(a, b) for a, b in itertools.combinations(values, 2)), default=0.0)


# --- line rules: (positions, values) of one line's known cells -> residual, df, predictor ---------

LineFit = tuple[float, int, Callable[[int], Any] | None]


def _constant(positions: list[int], values: list[Any], attribute: Attribute) -> LineFit | None:
    if not values:  # (cells where the attribute is not measured, a circle's heading, are left out)
        return None
    centre = _centre(values, attribute)
    return _spread(values, attribute), len(values) - 1, lambda _: centre


def _progression(positions: list[int], values: list[Any], attribute: Attribute) -> LineFit | None:
    if attribute.kind == "category" or len(values) < 2:
        return None
    p = np.asarray(positions, np.float64)
    v = _vectors(values, attribute.kind)
    design = np.stack([np.ones_like(p), p], axis=1)
    coef, *_ = np.linalg.lstsq(design, v, rcond=None)
    fitted = design @ coef
    residual = max(attribute.distance(_back(f, attribute.kind), value) for f, value in zip(fitted, values))
    return residual, len(values) - 2, lambda at: _back(coef[0] + coef[1] * at, attribute.kind)


def _periodic(period: int) -> Callable[[list[int], list[Any], Attribute], LineFit | None]:
    def fit(positions: list[int], values: list[Any], attribute: Attribute) -> LineFit | None:
        phases: dict[int, list[Any]] = {}
        for position, value in zip(positions, values):
            phases.setdefault(position % period, []).append(value)
        if len(phases) < period:
            return None  # a phase never seen: the period cannot be told from a shorter one
        centres = {phase: _centre(vals, attribute) for phase, vals in phases.items()}
        residual = max(_spread(vals, attribute) for vals in phases.values())
        return residual, len(values) - len(phases), lambda at: centres.get(at % period)

    return fit


def _fibonacci(positions: list[int], values: list[Any], attribute: Attribute) -> LineFit | None:
    if attribute.kind != "number":
        return None
    known = dict(zip(positions, (float(v) for v in values)))
    triples = [(p - 2, p - 1, p) for p in positions if p - 1 in known and p - 2 in known]
    if not triples:
        return None
    residual = max(abs(known[a] + known[b] - known[c]) for a, b, c in triples)

    def predict(at: int) -> Any:
        if at - 1 in known and at - 2 in known:
            return known[at - 1] + known[at - 2]
        if at + 1 in known and at - 1 in known:
            return known[at + 1] - known[at - 1]
        if at + 1 in known and at + 2 in known:
            return known[at + 2] - known[at + 1]
        return None

    return residual, len(triples) - 0, predict


def _triple(combine: Callable[[np.ndarray, np.ndarray], np.ndarray], solve: Callable[[int, dict], np.ndarray | None],
            kinds: tuple[str, ...]) -> Callable[[list[int], list[Any], Attribute], LineFit | None]:
    """A rule on lines of three: third = combine(first, second); `solve` gives the missing one."""

    def fit(positions: list[int], values: list[Any], attribute: Attribute) -> LineFit | None:
        if attribute.kind not in kinds:
            return None
        known = {p: _vectors([v], attribute.kind)[0] for p, v in zip(positions, values)}
        if len(known) == 3:
            residual = attribute.distance(_back(combine(known[0], known[1]), attribute.kind), values[positions.index(2)])
            return residual, 1, None
        if len(known) == 2:
            return 0.0, 0, lambda at: (None if (s := solve(at, known)) is None else _back(s, attribute.kind))
        return None

    return fit


def _solve_sum(at: int, k: dict) -> np.ndarray:
    return k[0] + k[1] if at == 2 else k[2] - k[1 - at]


def _solve_difference(at: int, k: dict) -> np.ndarray:
    return {0: lambda: k[1] + k[2], 1: lambda: k[0] - k[2], 2: lambda: k[0] - k[1]}[at]()


def _solve_only_third(op: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[int, dict], np.ndarray | None]:
    # a logical rule loses what the overlay covers: only the third cell can be told from the other two
    return lambda at, k: op(k[0], k[1]) if at == 2 else None


LINE_RULES: dict[str, Callable[[list[int], list[Any], Attribute], LineFit | None]] = {
    "constant": _constant,
    "progression": _progression,
    "period_2": _periodic(2),
    "period_3": _periodic(3),
    "sum": _triple(lambda a, b: a + b, _solve_sum, ("number", "vector")),
    "difference": _triple(lambda a, b: a - b, _solve_difference, ("number", "vector")),
    "or": _triple(np.maximum, _solve_only_third(np.maximum), ("mask",)),
    "and": _triple(np.minimum, _solve_only_third(np.minimum), ("mask",)),
    "xor": _triple(lambda a, b: np.abs(a - b), _solve_only_third(lambda a, b: np.abs(a - b)), ("mask",)),
    "fibonacci": _fibonacci,
}
TRIPLE_RULES = ("sum", "difference", "or", "and", "xor")
ORDER = ("constant", "progression", "period_2", "period_3", "distribute", "sum", "difference", "additive", "or",
         "and", "xor", "fibonacci")


# --- applying rules to a family of lines ------------------------------------------------------------


def _line_rule(name: str, lines: list[list[Cell]], values: Mapping[Cell, Any], blank: Cell,
               attribute: Attribute) -> tuple[float, int, Any] | None:
    """The rule on every line: (worst residual, total df, prediction at the blank) or None."""
    rule = LINE_RULES[name]
    residual, df, prediction, predicted = 0.0, 0, None, False
    for line in lines:
        if len(line) < 3 and name != "constant" or name in TRIPLE_RULES and len(line) != 3:
            return None  # a line of two shows no step, period or sum; the logical rules need three
        known = [(p, values[c]) for p, c in enumerate(line) if c != blank and values.get(c) is not None]
        if name in TRIPLE_RULES and len(known) < len([c for c in line if c != blank]):
            if blank in line:
                return None  # a value the rule needs beside the blank is not measured
            continue
        fit = rule([p for p, _ in known], [v for _, v in known], attribute)
        if fit is None:
            if blank in line:
                return None
            continue
        line_residual, line_df, predictor = fit
        residual, df = max(residual, line_residual), df + line_df
        if blank in line:
            if predictor is None:
                return None
            prediction, predicted = predictor(line.index(blank)), True
    if not predicted or prediction is None:
        return None
    return residual, df, prediction


def _match(first: list[Any], second: list[Any], attribute: Attribute) -> tuple[float, list[int]]:
    """The pairing of `second` into `first` (len(second) <= len(first)) with the smallest worst
    distance: (that distance, the indices of `first` used). Lines hold at most six panels, so
    every pairing is tried."""
    best: tuple[float, list[int]] = (math.inf, [])
    for used in itertools.permutations(range(len(first)), len(second)):
        worst = max((attribute.distance(first[i], v) for i, v in zip(used, second)), default=0.0)
        if worst < best[0]:
            best = (worst, list(used))
    return best


def _distribute(lines: list[list[Cell]], values: Mapping[Cell, Any], blank: Cell,
                attribute: Attribute) -> tuple[float, int, Any] | None:
    if len(lines) < 2 or len({len(line) for line in lines}) != 1 or len(lines[0]) > 6:
        return None
    complete = [[values.get(c) for c in line] for line in lines if blank not in line]
    partial = next(([values.get(c) for c in line if c != blank] for line in lines if blank in line), None)
    if not complete or partial is None or any(v is None for line in complete + [partial] for v in line):
        return None
    reference = complete[0]
    if max(attribute.distance(a, b) for a, b in itertools.combinations(reference, 2)) <= attribute.tolerance:
        return None  # a line of equal values is the constant rule, not a distribution
    residual, df = 0.0, 0
    for line in complete[1:]:
        worst, _ = _match(reference, line, attribute)
        residual, df = max(residual, worst), df + len(line) - 1
    worst, used = _match(reference, partial, attribute)
    residual, df = max(residual, worst), df + len(partial)
    missing = [v for i, v in enumerate(reference) if i not in used]
    return residual, df, missing[0]


def _additive(cells: list[Cell], values: Mapping[Cell, Any], blank: Cell,
              attribute: Attribute) -> tuple[float, int, Any] | None:
    if attribute.kind not in ("number", "vector"):
        return None
    rows = sorted({r for r, _ in cells})
    columns = sorted({c for _, c in cells})
    if len(rows) < 2 or len(columns) < 2 or len(cells) != len(rows) * len(columns):
        return None
    known = [(cell, values.get(cell)) for cell in cells if cell != blank]
    if any(v is None for _, v in known):
        return None
    design = np.zeros((len(known), len(rows) + len(columns)))
    for i, ((r, c), _) in enumerate(known):
        design[i, rows.index(r)] = 1
        design[i, len(rows) + columns.index(c)] = 1
    target = _vectors([v for _, v in known], attribute.kind)
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    fitted = design @ coef
    residual = max(attribute.distance(_back(f, attribute.kind), v) for f, (_, v) in zip(fitted, known))
    at = np.zeros(len(rows) + len(columns))
    at[rows.index(blank[0])], at[len(rows) + columns.index(blank[1])] = 1, 1
    return residual, len(known) - (len(rows) + len(columns) - 1), _back(at @ coef, attribute.kind)


def fit_attribute(attribute: Attribute, values: Mapping[Cell, Any], blank: Cell, lines: Mapping[str, list[list[Cell]]],
                  choices: Sequence[Any]) -> Fit | None:
    """The simplest rule that explains `attribute` over the context, else the one that fits it
    best (its weight says how well); None when no rule can be checked at all.

    values: cell -> the attribute's value (None where it is not measured; the blank absent);
    lines: family name -> lines, each a list of cells in order (the blank in one of them);
    choices: each choice's value (None where not measured)."""
    cells = sorted({cell for family in lines.values() for line in family for cell in line})
    candidates: list[tuple[str, str, tuple[float, int, Any]]] = []
    for name in ORDER:
        for family, family_lines in lines.items():
            if name == "additive":
                outcome = _additive(cells, values, blank, attribute) if family == next(iter(lines)) else None
                family = "grid"
            elif name == "distribute":
                outcome = _distribute(family_lines, values, blank, attribute)
            else:
                outcome = _line_rule(name, family_lines, values, blank, attribute)
            if outcome is None or outcome[1] < 1 or outcome[2] is None:
                continue
            if outcome[0] <= attribute.tolerance:
                return _make_fit(attribute, name, family, outcome, choices)
            candidates.append((name, family, outcome))
    if not candidates:
        return None
    name, family, outcome = min(candidates, key=lambda c: c[2][0])
    return _make_fit(attribute, name, family, outcome, choices)


def _make_fit(attribute: Attribute, rule: str, family: str, outcome: tuple[float, int, Any], choices: Sequence[Any]) -> Fit:
    residual, df, prediction = outcome
    distances = tuple(None if value is None else attribute.distance(prediction, value) for value in choices)
    return Fit(attribute, rule, family, float(residual), int(df), prediction, distances)


CAP = 9.0  # a choice off by three tolerances or more is as wrong as it gets on that attribute


LOOSE = 1e-3  # where some rule explains the context, rules that do not only break ties


def score_choices(fits: Sequence[Fit], n_choices: int) -> list[float]:
    """Each choice's regularity: minus the sum over attributes of its squared distance from the
    prediction in tolerances (capped at CAP; an unmeasured value costs CAP): differences well
    inside the tolerance (rendering noise) hardly count, a broken rule counts fully. Attributes whose
    rule explains the context decide; the others, weighted by how well their best rule fits,
    decide only where none is explained, and otherwise break ties."""
    scores = [0.0] * n_choices
    explained = any(fit.explains for fit in fits)
    for fit in fits:
        weight = 1.0 if fit.explains else fit.weight * (LOOSE if explained else 1.0)
        for k, distance in enumerate(fit.distances):
            misfit = CAP if distance is None else min((distance / max(fit.attribute.tolerance, 1e-12)) ** 2, CAP)
            scores[k] -= weight * misfit
    return scores
