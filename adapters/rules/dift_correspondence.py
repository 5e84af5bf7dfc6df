"""Correspondence with DIFT features: REF on image 1 against each candidate on image 2.

Rule `correspondence.dift_cosine`: features sampled bilinearly at the points (same as upsampling
the maps to image size), L2-normalised, cosine similarity; the most similar candidate wins.
Visual_Correspondence uses the geometric preset; Semantic_ and Functional_Correspondence the
semantic one.
"""

from __future__ import annotations

import torch

from specialists.dift import PRESETS, DiftFeaturizer
from specialists.outputs import FeatureMap

from ..questions import Decision, MCQuestion, QuestionError
from ..solver import Solver, SolverOptions
from .choices import letters_by_label
from .loading import load_weights
from .points import marker_points, scene_image

PRESET_FOR_TASK = {
    "Visual_Correspondence": "geometric",
    "Semantic_Correspondence": "semantic",
    "Functional_Correspondence": "semantic",
}
DEFAULT_CHECKPOINT = "sd-2-1"


class DiftCorrespondence(Solver):
    specialist = "dift"

    def __init__(self, options: SolverOptions) -> None:
        super().__init__(options)
        self.model, self._checkpoint = load_weights(
            options, DEFAULT_CHECKPOINT,
            tiny=lambda: DiftFeaturizer.tiny(options.seed, options.device, options.precision),
            real=lambda path: DiftFeaturizer.from_pretrained(path, options.device, options.precision),
        )
        self.presets = dict(PRESETS)
        if self._checkpoint.tiny_random:  # tiny UNet: small inputs, same block indices and timesteps
            self.presets = {k: type(v)(64, v.t, v.up_ft_index, 2) for k, v in PRESETS.items()}

    @property
    def checkpoint(self):
        return self._checkpoint

    def decide(self, question: MCQuestion) -> Decision:
        return self.decide_batch([question])[0]  # type: ignore[return-value]

    def decide_batch(self, questions):
        """All questions of one preset go through DIFT together (two images each)."""
        results: list = [None] * len(questions)
        prepared = {}
        for i, q in enumerate(questions):
            try:
                preset = PRESET_FOR_TASK.get(q.task)
                if preset is None:
                    raise QuestionError(f"{q.idx}: DIFT answers {', '.join(PRESET_FOR_TASK)}, not {q.task}")
                if len(q.images) < 2:
                    raise QuestionError(f"{q.idx}: correspondence needs two images, got {len(q.images)}")
                by_label = letters_by_label(q)
                ref = marker_points(q, 0, ["REF"])["REF"]
                candidates = marker_points(q, 1, list(by_label))
                prepared[i] = (preset, by_label, ref, candidates, scene_image(q, 0), scene_image(q, 1))
            except Exception as exc:  # this question only
                results[i] = exc
        for preset in {p[0] for p in prepared.values()}:
            members = [i for i, p in prepared.items() if p[0] == preset]
            images = [img for i in members for img in prepared[i][4:6]]
            try:
                features = self.model(images, self.presets[preset], seed=self.options.seed)
            except Exception as exc:
                for i in members:
                    results[i] = exc
                continue
            for k, i in enumerate(members):
                _, by_label, ref, candidates, _, _ = prepared[i]
                results[i] = cosine_decision(features[2 * k], features[2 * k + 1], ref, candidates, by_label,
                                             "correspondence.dift_cosine", {"preset": preset})
        return results


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
