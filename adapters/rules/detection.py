"""Counting, Spatial_Relation and Object_Localization (BLINK), Count and Relation (CV-Bench) from an
open-vocabulary detector (`owlv2`, the default; `grounding_dino`, an option).

The object phrases come from the question (`phrases`); the detector looks for them; a rule per
task turns the boxes into a choice:

Rule names carry the detector's name (`counting.owlv2_count`, `counting.grounding_dino_count`, ...).

- counting: boxes of the counted object scoring at least `threshold`, overlapping
  duplicates removed (NMS, IoU 0.5); the option nearest to that count;
- spatial: the best box of each object, whatever its score; the relation decided from their geometry
  (left/right/above/below by centres, on, inside, contains, touching, near/far); in front of / behind need
  depth, which two boxes do not give: the rule abstains and says so;
- localization: the best box of the object, whatever its score; the drawn box (from the marker step)
  that overlaps it most (IoU) wins;
- CV-Bench Count: as counting; CV-Bench Relation: the boxes the question marks (the row's bbox, else
  the drawn outlines: adapters/rules/cv_bench.py), the detector's best box for an object they leave
  without one.

A detector that gives no box at all for a named object has answered: the rule abstains and its
`abstain_reason` names the object (scored wrong, counted as abstained). Errors are kept for what
broke: options the rule cannot read, a drawn box the marker step did not find.
"""

from __future__ import annotations

import torch
from torchvision.ops import box_iou, nms

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.rules.box_relations import relation_holds
from adapters.rules.choices import letter_for_word, letters_by_label
from adapters.rules.cv_bench import relation_decision
from adapters.rules.marked_objects import marked_objects, relation_pair
from adapters.rules.model_solver import ModelSolver
from adapters.rules.phrases import counted_object, localized_object, option_number, relation_triple
from specialists.outputs import Detections

NMS_IOU = 0.5  # boxes of one query overlapping more than this are one object


def clipped(detections: Detections, width: int, height: int) -> Detections:
    """The boxes cut to the image (setting boxes=clipped): the published post-processing leaves
    them as predicted, and OWLv2's may run into the padding below or right of the image."""
    boxes = detections.boxes.clone()
    boxes[:, 0::2] = boxes[:, 0::2].clamp(0, width)
    boxes[:, 1::2] = boxes[:, 1::2].clamp(0, height)
    return Detections(boxes, detections.scores, detections.labels, detections.queries)


def count_objects(detections: Detections, query: int, threshold: float) -> int:
    """Distinct boxes of `query` scoring at least `threshold`."""
    boxes, scores = detections.of_query(query)
    keep = scores >= threshold
    if not keep.any():
        return 0
    return int(nms(boxes[keep], scores[keep], NMS_IOU).numel())


def counting_decision(question: MCQuestion, detections: Detections, threshold: float, rule: str) -> Decision:
    count = count_objects(detections, 0, threshold)
    numbers = {letter: option_number(text) for letter, text in zip(question.letters, question.choices)}
    scores = {letter: -abs(count - n) for letter, n in numbers.items()}
    return Decision.from_scores(scores, rule, {"object": detections.queries[0], "count": count, "threshold": threshold})


def _best_box(detections: Detections, query: int) -> tuple[list[float], float] | None:
    """The highest-scoring box answering `query` and its score; None when no box answers it."""
    boxes, scores = detections.of_query(query)
    if boxes.shape[0] == 0:
        return None
    return boxes[0].tolist(), float(scores[0])


def _no_box(question: MCQuestion, detections: Detections, missing: list[int], rule: str, details: dict) -> Decision:
    """The detector's answer when it finds no box for an object the question names: abstain, saying which."""
    objects = " or ".join(repr(detections.queries[query]) for query in missing)
    details = {**details, "abstain_reason": f"the detector found no box for {objects}"}
    return Decision({letter: float("nan") for letter in question.letters}, None, rule, abstained=True, details=details)


def spatial_decision(question: MCQuestion, detections: Detections, relation: str, rule: str) -> Decision:
    yes, no = letter_for_word(question, "yes"), letter_for_word(question, "no")
    if yes is None or no is None:
        raise QuestionError(f"{question.idx}: options {question.choices} are not yes / no")
    best = [_best_box(detections, 0), _best_box(detections, 1)]
    details = {"subject": detections.queries[0], "object": detections.queries[1], "relation": relation}
    if None in best:
        return _no_box(question, detections, [query for query, box in enumerate(best) if box is None], rule, details)
    (subject, s_score), (obj, o_score) = best
    details.update(subject_box=[round(v, 1) for v in subject], object_box=[round(v, 1) for v in obj],
                   scores=[s_score, o_score])
    score = relation_holds(relation, subject, obj)
    if score is None:
        details["abstain_reason"] = f"'{relation}' is a depth order; two boxes do not show it"
        return Decision.from_scores({yes: float("nan"), no: float("nan")}, rule, details)  # all NaN: abstains
    return Decision.from_scores({yes: score, no: -score}, rule, {**details, "relation_score": score})


def localization_decision(question: MCQuestion, detections: Detections, drawn: dict[str, tuple], rule: str) -> Decision:
    """drawn: option label ("A", "B") -> the drawn box (x0, y0, x1, y1)."""
    labels = letters_by_label(question)
    for label in labels:
        if label not in drawn:
            raise QuestionError(f"{question.idx}: box {label} was not found on the image")
    found = _best_box(detections, 0)
    if found is None:
        return _no_box(question, detections, [0], rule, {"object": detections.queries[0]})
    best, score = found
    ious = {letter: float(box_iou(torch.tensor([best]), torch.tensor([list(drawn[label])], dtype=torch.float32))[0, 0])
            for label, letter in labels.items()}
    return Decision.from_scores(ious, rule, {"object": detections.queries[0], "detection": [round(v, 1) for v in best],
                                             "detection_score": score, "iou": ious})


class DetectorTasks(ModelSolver):
    """An open-vocabulary detector's boxes of the question's objects, then the task's rule.
    Subclasses name the detector (`detector`: the wrapper class in specialists/) and its weights."""

    detector: tuple[str, str] = ("", "")  # (module in specialists, class)

    @property
    def rules(self) -> dict[str, str]:
        return {"Counting": f"counting.{self.specialist}_count", "Spatial_Relation": f"spatial.{self.specialist}_boxes",
                "Object_Localization": f"localization.{self.specialist}_iou",
                "CV_Bench_Count": f"counting.{self.specialist}_count",
                "CV_Bench_Relation": f"relation.marked_boxes_else_{self.specialist}"}

    def _wrapper(self):
        import importlib

        module, name = self.detector
        return getattr(importlib.import_module(f"specialists.{module}"), name)

    def build_tiny(self):
        return self._wrapper().tiny(self.options.seed, self.options.device, self.options.precision)

    def build_real(self, path):
        return self._wrapper().from_pretrained(path, self.options.device, self.options.precision)

    def model_input(self, question: MCQuestion):
        if not question.images:
            raise QuestionError(f"{question.idx}: no image")
        if question.task in ("Counting", "CV_Bench_Count"):
            queries: tuple = (counted_object(question),)
        elif question.task == "CV_Bench_Relation":
            # the marked boxes answer first; the detector looks for the two objects by name in case they give none
            queries = tuple(o.name for o in relation_pair(question, marked_objects(question, use_drawn=False)[0]))
        elif question.task == "Spatial_Relation":
            subject, _, obj = relation_triple(question)
            queries = (subject, obj)
        elif question.task == "Object_Localization":
            queries = (localized_object(question),)
        else:
            raise QuestionError(f"{question.idx}: {self.specialist} answers {', '.join(self.rules)}, not {question.task}")
        return question.images[0], queries

    def run_model(self, inputs):
        return self.model([image for image, _ in inputs], [queries for _, queries in inputs])

    def decision(self, question: MCQuestion, output: Detections) -> Decision:
        rule = self.rules[question.task]
        if self.settings.get("boxes") == "clipped":
            output = clipped(output, *question.images[0].size)
        if question.task == "CV_Bench_Relation":
            best = [_best_box(output, 0), _best_box(output, 1)]
            return relation_decision(question, rule, tuple(b[0] if b else None for b in best))
        if question.task in ("Counting", "CV_Bench_Count"):
            return counting_decision(question, output, float(self.settings["threshold"]), rule)
        if question.task == "Spatial_Relation":
            return spatial_decision(question, output, relation_triple(question)[1], rule)
        from adapters.markers import find_markers

        drawn = {label: m.box for label, m in find_markers(question).images.get("image_1", {}).items() if m.box}
        return localization_decision(question, output, drawn, rule)


class Owlv2Tasks(DetectorTasks):
    """`owlv2`: OWLv2 (the default detector)."""

    detector = ("owlv2", "Owlv2Detector")


class GroundingDinoTasks(DetectorTasks):
    """`grounding_dino`: Grounding DINO, the same rules on its boxes."""

    detector = ("grounding_dino", "GroundingDinoDetector")

    def build_tiny(self):
        model = super().build_tiny()
        model.box_score = self.settings["box_score"]
        return model

    def build_real(self, path):
        model = super().build_real(path)
        model.box_score = self.settings["box_score"]
        return model
