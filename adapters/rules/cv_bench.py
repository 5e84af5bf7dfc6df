"""CV-Bench's Relation, Depth and Distance from the marked objects' boxes (adapters/rules/marked_objects.py),
and the weight-free specialists built on them.

- relation (`marked_box_relation`): the subject's box centre against the reference's: left/right
  by x, above/below by y (adapters/rules/box_relations.py), scaled by the boxes' size; an object
  with no box: the rule abstains and names it (a detector fills it in: `owlv2`, `grounding_dino`);
- depth (`box_bottom`): the object whose box reaches lower in the image is closer: on a floor
  seen from above the horizon, a nearer footprint lies lower. A prior, not a measurement: an
  object on a shelf or hanging from the ceiling breaks it;
- distance (`image_distance`): the option whose box centre is nearer the anchor's in the image.
  It measures image-plane distance and ignores depth: a baseline, no 3D estimate.
Depth Anything's versions of depth and distance are in adapters/rules/cv_bench_depth.py.
"""

from __future__ import annotations

import math

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver
from adapters.rules.box_relations import centre, relation_holds
from adapters.rules.marked_objects import (
    Box,
    MarkedObject,
    marked_objects,
    option_objects,
    relation_pair,
    relation_words,
)


def box_details(objects: dict[str, MarkedObject]) -> dict:
    return {key: {"name": o.name, "colour": o.colour, "box": [round(v, 1) for v in o.box] if o.box else None,
                  "box_from": o.box_from} for key, o in objects.items()}


def abstain_without_box(question: MCQuestion, rule: str, missing: list[MarkedObject], details: dict) -> Decision:
    names = " or ".join(repr(o.name) for o in missing)
    details = {**details, "abstain_reason": f"no box for {names}: the row gives no bbox and no outline of its "
                                            "colour was found in the image"}
    return Decision({letter: float("nan") for letter in question.letters}, None, rule, abstained=True, details=details)


def _filled(marked: MarkedObject, detected: Box | None) -> MarkedObject:
    """The marked box where there is one, else the detector's."""
    if marked.box is not None or detected is None:
        return marked
    return MarkedObject(marked.name, marked.colour, tuple(detected), "detector")


def relation_decision(question: MCQuestion, rule: str,
                      detected: tuple[Box | None, Box | None] | None = None) -> Decision:
    """Left/right/above/below between the subject's and the reference's boxes; `detected`: a
    detector's best box for each, used where the question's marks give none."""
    objects, note = marked_objects(question)
    subject, reference = relation_pair(question, objects)
    if detected is not None:
        subject, reference = _filled(subject, detected[0]), _filled(reference, detected[1])
    details = {**note, **box_details({"subject": subject, "reference": reference})}
    missing = [o for o in (subject, reference) if o.box is None]
    if missing:
        return abstain_without_box(question, rule, missing, details)
    scores = {letter: relation_holds(word, list(subject.box), list(reference.box))
              for letter, word in relation_words(question).items()}
    return Decision.from_scores(scores, rule, {**details, "relation_scores": scores})


def depth_objects(question: MCQuestion) -> tuple[dict[str, MarkedObject], dict]:
    """Depth: option letter -> its marked object (every mention is an option)."""
    objects, note = marked_objects(question)
    return option_objects(question, objects), note


def distance_objects(question: MCQuestion) -> tuple[MarkedObject, dict[str, MarkedObject], dict]:
    """Distance: the anchor (the first object marked: "closer to the A (red box), ...") and
    option letter -> its marked object among the others."""
    objects, note = marked_objects(question)
    if len(objects) < 1 + len(question.choices):
        raise QuestionError(f"{question.idx}: a distance question marks the anchor and each option; found "
                            f"{len(objects)} marked object(s) for {len(question.choices)} options")
    return objects[0], option_objects(question, objects, skip=1), note


class MarkedBoxRelation(Solver):
    """`marked_box_relation`: the boxes the question marks (the row's bbox, else the drawn outlines)."""

    def decide(self, question: MCQuestion) -> Decision:
        return relation_decision(question, "relation.marked_boxes")


class BoxBottomDepth(Solver):
    """`box_bottom`: lower box bottom = closer (the ground-plane prior on the marked boxes)."""

    rule = "depth.lower_box_bottom"

    def decide(self, question: MCQuestion) -> Decision:
        options, note = depth_objects(question)
        details = {**note, **box_details(options)}
        missing = [o for o in options.values() if o.box is None]
        if missing:
            return abstain_without_box(question, self.rule, missing, details)
        bottoms = {letter: o.box[3] for letter, o in options.items()}
        return Decision.from_scores(bottoms, self.rule, {**details, "box_bottom": bottoms})


class ImageDistance(Solver):
    """`image_distance`: the option whose box centre is nearest the anchor's, in pixels."""

    rule = "distance.image_plane"

    def decide(self, question: MCQuestion) -> Decision:
        anchor, options, note = distance_objects(question)
        details = {**note, **box_details({"anchor": anchor, **options})}
        missing = [o for o in (anchor, *options.values()) if o.box is None]
        if missing:
            return abstain_without_box(question, self.rule, missing, details)
        ax, ay = centre(list(anchor.box))
        pixels = {letter: math.hypot(centre(list(o.box))[0] - ax, centre(list(o.box))[1] - ay)
                  for letter, o in options.items()}
        return Decision.from_scores({k: -v for k, v in pixels.items()}, self.rule, {**details, "pixels": pixels})
