"""Correspondence with DIFT features: REF on image 1 against each candidate on image 2.

Rule `correspondence.dift_cosine`: features sampled bilinearly at the points (same as upsampling
the maps to image size), L2-normalised, cosine similarity; the most similar candidate wins.
Visual_Correspondence uses the geometric preset; Semantic_ and Functional_Correspondence the
semantic one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import SolverOptions
from adapters.core.spec import SpecialistSpec
from adapters.rules.choices import letters_by_label
from adapters.rules.evidence import similarity_view
from adapters.rules.model_solver import ModelSolver
from adapters.rules.points import marker_points, scene_image
from specialists.dift import PRESETS, DiftFeaturizer
from specialists.outputs import FeatureMap

PRESET_FOR_TASK = {
    "Visual_Correspondence": "geometric",
    "Semantic_Correspondence": "semantic",
    "Functional_Correspondence": "semantic",
}


class DiftCorrespondence(ModelSolver):
    rule = "correspondence.dift_cosine"

    def __init__(self, options: SolverOptions, spec: SpecialistSpec) -> None:
        super().__init__(options, spec)
        self.presets = dict(PRESETS)
        if self.checkpoint.tiny_random:  # tiny UNet: small inputs, same block indices and timesteps
            self.presets = {k: replace(v, image_size=64, ensemble=2) for k, v in PRESETS.items()}

    def build_tiny(self):
        o = self.options
        return DiftFeaturizer.tiny(o.seed, o.device, o.precision)

    def build_real(self, path):
        o = self.options
        return DiftFeaturizer.from_pretrained(path, o.device, o.precision, o.batch_size)

    def model_input(self, question: MCQuestion) -> _Pair:
        preset = PRESET_FOR_TASK.get(question.task)
        if preset is None:
            raise QuestionError(f"{question.idx}: DIFT answers {', '.join(PRESET_FOR_TASK)}, not {question.task}")
        if len(question.images) < 2:
            raise QuestionError(f"{question.idx}: correspondence needs two images, got {len(question.images)}")
        ref = marker_points(question, 0, ["REF"])["REF"]
        candidates = marker_points(question, 1, list(letters_by_label(question)))
        return _Pair(preset, ref, candidates, scene_image(question, 0), scene_image(question, 1))

    def run_model(self, inputs: list[_Pair]) -> list[tuple[_Pair, FeatureMap, FeatureMap]]:
        """All pairs of one preset through DIFT together; outputs back in input order."""
        outputs: list = [None] * len(inputs)
        for preset in {pair.preset for pair in inputs}:
            members = [i for i, pair in enumerate(inputs) if pair.preset == preset]
            images = [image for i in members for image in (inputs[i].source, inputs[i].target)]
            features = self.model(images, self.presets[preset], seed=self.options.seed)
            for k, i in enumerate(members):
                outputs[i] = (inputs[i], features[2 * k], features[2 * k + 1])
        return outputs

    def decision(self, question: MCQuestion, output: tuple[_Pair, FeatureMap, FeatureMap]) -> Decision:
        pair, source, target = output
        decision = cosine_decision(source, target, pair.ref, pair.candidates, letters_by_label(question), self.rule,
                                   {"preset": pair.preset})
        if self.options.keep_evidence:
            decision = decision.with_evidence(similarity=similarity_view(
                pair.source, pair.target, source, target, pair.ref, pair.candidates))
        return decision


@dataclass(frozen=True)
class _Pair:
    preset: str
    ref: tuple[float, float]
    candidates: dict[str, tuple[float, float]]
    source: object
    target: object


def cosine_decision(
    source: FeatureMap, target: FeatureMap, ref: tuple[float, float], candidates: dict[str, tuple[float, float]],
    letter_of: dict[str, str], rule: str, details: dict | None = None,
) -> Decision:
    """The candidate whose feature on `target` is most cosine-similar to REF's feature on `source`."""
    labels = list(candidates)
    f_ref = source.at(torch.tensor([ref], dtype=torch.float32))
    f_cand = target.at(torch.tensor([candidates[label] for label in labels], dtype=torch.float32))
    similarity = (f_cand @ f_ref[0]).tolist()
    scores = {letter_of[label]: value for label, value in zip(labels, similarity)}
    return Decision.from_scores(scores, rule, {"cosine": dict(zip(labels, similarity)), **(details or {})})
