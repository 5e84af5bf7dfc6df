"""Forensic detection: which of the images is the real photograph (or the generated one)?

BLINK asks in both directions, so the rule first reads the question's polarity, then takes the
argmin (asked for the real one) or argmax (asked for the generated one) of the detector's score.
Two named rules: `forensic.dire_classifier` (the DIRE classifier's fake probability) and
`forensic.dire_reconstruction_error` (the raw reconstruction error, no classifier: the released
classifiers are known to key on JPEG vs PNG).
"""

from __future__ import annotations

import re

from specialists.dire import DireDetector

from ..questions import Decision, MCQuestion, QuestionError
from .model_solver import ModelSolver

_REAL = re.compile(r"\b(real|authentic|genuine)\b", re.IGNORECASE)
_FAKE = re.compile(r"\b(generated|fake|synthetic|synthesi[sz]ed|artificial)\b", re.IGNORECASE)
_NOT_FAKE = re.compile(r"\bnot\s+(?:ai[- ]?)?(?:generated|fake|synthetic)\b", re.IGNORECASE)
_ASKING = re.compile(r"[^.?!\n]*\?")
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "1": 0, "2": 1, "3": 2, "4": 3, "5": 4}
_CHOICE = re.compile(r"\b(first|second|third|fourth|fifth)\b|\bimage\s*#?\s*([1-5])\b", re.IGNORECASE)


def polarity(question: MCQuestion) -> str:
    """"real" when the question asks for the real photograph, "fake" for the generated one.

    Only the asking sentence counts (the last one ending in "?"), since a lead sentence may name
    both kinds ("one is real, the others are generated"); "not generated" asks for the real one.
    """
    text = question.question or question.prompt.split("Select from the following choices")[0]
    asking = _ASKING.findall(text)
    sentence = asking[-1] if asking else text
    negated = bool(_NOT_FAKE.search(sentence))
    rest = _NOT_FAKE.sub(" ", sentence)
    asks_real, asks_fake = negated or bool(_REAL.search(rest)), bool(_FAKE.search(rest))
    if asks_real == asks_fake:
        raise QuestionError(f"{question.idx}: cannot tell whether the question asks for the real or the generated "
                            f"image: {sentence.strip()[:160]!r}")
    return "real" if asks_real else "fake"


def image_index(choice: str) -> int:
    """"the third image" / "Image 3" -> 2."""
    match = _CHOICE.search(choice)
    if match is None:
        raise QuestionError(f"option {choice!r} names no image")
    return _ORDINALS[(match.group(1) or match.group(2)).lower()]


def forensic_decision(question: MCQuestion, fake_scores: list[float], rule: str, details: dict | None = None) -> Decision:
    """fake_scores[i]: how generated image i looks (higher = more likely generated)."""
    wanted = polarity(question)
    scores = {}
    for letter, text in zip(question.letters, question.choices):
        index = image_index(text)
        if index >= len(fake_scores):
            raise QuestionError(f"{question.idx}: option {text!r} names image {index + 1} of {len(fake_scores)}")
        scores[letter] = -fake_scores[index] if wanted == "real" else fake_scores[index]
    return Decision.from_scores(scores, rule, {"asks_for": wanted, "fake_scores": list(fake_scores), **(details or {})})


class DireForensics(ModelSolver):
    """`forensic.dire_classifier`: DIRE fake probability per image, argmin/argmax by polarity."""

    specialist = "dire"
    rule = "forensic.dire_classifier"
    default_checkpoint = "adm-256-uncond"
    classifier_checkpoint: str | None = "dire-lsun-adm"

    def build_tiny(self):
        o = self.options
        return DireDetector.tiny(o.seed, o.device, o.precision)

    def build_real(self, path):
        from checkpoints import resolve

        o = self.options
        classifier = resolve(self.classifier_checkpoint).path if self.classifier_checkpoint else None
        return DireDetector.from_checkpoints(path, classifier, device=o.device, precision=o.precision,
                                             batch_size=o.batch_size)

    def model_input(self, question: MCQuestion):
        if len(question.images) < 2:
            raise QuestionError(f"{question.idx}: forensic detection compares several images, got {len(question.images)}")
        polarity(question)  # fail fast, before the expensive part
        return question.images

    def run_model(self, inputs):
        """Every image of the batch through DIRE together; scores regrouped per question."""
        scores = iter(self.model([image for images in inputs for image in images]))
        return [[next(scores) for _ in images] for images in inputs]

    def decision(self, question: MCQuestion, output) -> Decision:
        if self.classifier_checkpoint:
            values = [s.fake_probability for s in output]
        else:  # a generated image is reconstructed better: low error = likely generated
            values = [-s.reconstruction_error for s in output]
        return forensic_decision(question, values, self.rule,
                                 {"reconstruction_error": [s.reconstruction_error for s in output]})


class DireReconstructionError(DireForensics):
    """`forensic.dire_reconstruction_error`: the same inversion, scored by the raw error alone."""

    specialist = "dire_error"
    rule = "forensic.dire_reconstruction_error"
    classifier_checkpoint = None
