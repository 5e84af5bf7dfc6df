"""Relative reflectance: which point has the darker surface colour, or about the same?

The IIW rule (Bell et al. 2014, also BLINK's labels) on the LINEAR albedo reflectance l_A, l_B of
the two points with a threshold delta: l_B / l_A > 1 + delta -> A is darker; l_A / l_B > 1 + delta
-> B is darker; otherwise about the same. The reflectance of a point is the mean of its linear R,
G, B (as WHDR's reference code compares it) or, as a named option, its Rec. 709 luminance. Any
intrinsic specialist plugs in through `IntrinsicLayers`.
"""

from __future__ import annotations

import math

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver, SolverOptions
from adapters.core.spec import SpecialistSpec
from adapters.rules.choices import letter_for_word, point_label
from adapters.rules.evidence import albedo_view
from adapters.rules.points import marker_points, scene_image
from specialists.outputs import IntrinsicLayers
from specialists.retinex import Retinex

IIW_DELTA = 0.10
SAMPLE_RADIUS = 3.0


def reflectance_decision(question: MCQuestion, layers: IntrinsicLayers, rule: str, delta: float = IIW_DELTA,
                         measure: str = "mean_rgb") -> Decision:
    """Scores: log-ratio margins past the threshold; "about the same" scores 0, so it wins exactly
    when neither point is darker by more than delta. Without such an option it is never chosen."""
    same = letter_for_word(question, "same")
    darker = {}
    for letter, text in zip(question.letters, question.choices):
        if letter != same:
            darker[point_label(text)] = letter
    if set(darker) != {"A", "B"}:
        raise QuestionError(f"{question.idx}: options {question.choices} are not 'A darker / B darker (/ same)'")
    points = marker_points(question, 0, ["A", "B"])
    lum = {label: layers.reflectance_at(*points[label], radius=SAMPLE_RADIUS, measure=measure) for label in ("A", "B")}
    if min(lum.values()) <= 0:
        raise QuestionError(f"{question.idx}: non-positive albedo at a marker ({lum})")
    log_ratio = math.log(lum["B"] / lum["A"])  # > 0: A is darker
    margin = math.log1p(delta)
    scores = {darker["A"]: log_ratio - margin, darker["B"]: -log_ratio - margin}
    if same is not None:
        scores[same] = 0.0
    # The rule itself, not an argmax: exactly at the threshold the answer is "about the same"
    # (IIW's inequalities are strict), and without that option the darker point is chosen.
    if log_ratio > margin:
        pred = darker["A"]
    elif -log_ratio > margin:
        pred = darker["B"]
    else:
        pred = same if same is not None else darker["A" if log_ratio >= 0 else "B"]
    details = {"albedo_reflectance": lum, "measure": measure, "delta": delta, "radius_px": SAMPLE_RADIUS}
    return Decision(scores, pred, rule, details=details)


class RetinexReflectance(Solver):
    """`reflectance.retinex_iid`: colour Retinex albedo at A and B, IIW rule."""


    def __init__(self, options: SolverOptions, spec: SpecialistSpec) -> None:
        super().__init__(options, spec)
        self.retinex = Retinex()

    def decide(self, question: MCQuestion) -> Decision:
        layers = self.retinex(scene_image(question, 0))
        decision = reflectance_decision(question, layers, "reflectance.retinex_iid", measure=self.settings["measure"])
        return with_albedo(decision, question, layers, self.options.keep_evidence)


def with_albedo(decision: Decision, question: MCQuestion, layers: IntrinsicLayers, keep: bool) -> Decision:
    """The decision with a thumbnail of the albedo it read (when the run keeps evidence)."""
    if not keep:
        return decision
    return decision.with_evidence(albedo=albedo_view(layers, marker_points(question, 0, ["A", "B"])))
