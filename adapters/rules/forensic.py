"""Forensic detection: which of the images is the real photograph (or the generated one)?

BLINK asks in both directions, so the rule first reads the question's polarity, then takes the
argmin (asked for the real one) or argmax (asked for the generated one) of the detector's score.
Two named rules: `forensic.dire_classifier` (the DIRE classifier's logit: images are ranked by
it, not by the probability, which saturates to exactly 1.0 in float32 above a logit of about 17
and would tie) and `forensic.dire_reconstruction_error` (the raw reconstruction error, no
classifier: the released classifiers are known to key on JPEG vs PNG).
"""

from __future__ import annotations

import re

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.rules.choices import image_index
from adapters.rules.model_solver import ModelSolver
from specialists.dire import DireDetector

_REAL = re.compile(r"\b(real|authentic|genuine)\b", re.IGNORECASE)
_FAKE = re.compile(r"\b(generated|fake|synthetic|synthesi[sz]ed|artificial)\b", re.IGNORECASE)
_NOT_FAKE = re.compile(r"\bnot\s+(?:ai[- ]?)?(?:generated|fake|synthetic)\b", re.IGNORECASE)
_ASKING = re.compile(r"[^.?!\n]*\?")


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


def forensic_decision(question: MCQuestion, fake_scores: list[float], rule: str, details: dict | None = None) -> Decision:
    """fake_scores[i]: how generated image i looks (higher = more likely generated; a logit,
    not a probability, so that confident images do not tie)."""
    wanted = polarity(question)
    scores = {}
    for letter, text in zip(question.letters, question.choices):
        index = image_index(text)
        if index >= len(fake_scores):
            raise QuestionError(f"{question.idx}: option {text!r} names image {index + 1} of {len(fake_scores)}")
        scores[letter] = -fake_scores[index] if wanted == "real" else fake_scores[index]
    return Decision.from_scores(scores, rule, {"asks_for": wanted, "fake_scores": list(fake_scores), **(details or {})})


# the classifier trained on DIRE images of each ADM (the official pairs them per dataset)
PAIRED_CLASSIFIER = {"adm-256-uncond": "dire-imagenet-adm", "adm-lsun-bedroom": "dire-lsun-adm"}


def classifier_for(adm_checkpoint: str, choice: str) -> str:
    """The DIRE classifier's manifest name: `choice` itself, or for "paired" the classifier
    trained on DIRE images of that ADM; an ADM with no known pair must name one."""
    if choice != "paired":
        return choice
    if adm_checkpoint not in PAIRED_CLASSIFIER:
        raise ValueError(f"--checkpoint {adm_checkpoint}: no DIRE classifier is known to pair with it; name one with "
                         f"--set dire.classifier={' or '.join(sorted(set(PAIRED_CLASSIFIER.values())))}")
    return PAIRED_CLASSIFIER[adm_checkpoint]


class DireForensics(ModelSolver):
    """`forensic.dire_classifier`: DIRE classifier logit per image, argmin/argmax by polarity."""

    rule = "forensic.dire_classifier"
    uses_classifier = True

    @property
    def unet_precision(self) -> str:
        """`unet_precision`: auto = fp16 on CUDA (as the official script), the run's precision elsewhere."""
        choice = self.settings["unet_precision"]
        if choice == "auto":
            return "fp16" if self.options.device.startswith("cuda") else self.options.precision
        return choice

    def build_tiny(self):
        o = self.options
        return DireDetector.tiny(o.seed, o.device, self.unet_precision, codec=self.settings.get("codec", "png"))

    @property
    def auxiliary_checkpoints(self):
        classifier = getattr(self, "_classifier_ref", None)
        return {"classifier": classifier} if classifier is not None else {}

    def build_real(self, path):
        from checkpoints import resolve

        o = self.options
        classifier = None
        if self.uses_classifier:
            resolved = resolve(classifier_for(self.options.checkpoint or self.default_checkpoint,
                                              self.settings["classifier"]))
            classifier, self._classifier_ref = resolved.path, resolved.ref
        return DireDetector.from_checkpoints(path, classifier, device=o.device, precision=self.unet_precision,
                                             batch_size=o.batch_size, codec=self.settings.get("codec", "png"))

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
        details = {"reconstruction_error": [s.reconstruction_error for s in output]}
        if self.uses_classifier:
            values = [s.fake_logit for s in output]
            details["fake_probability"] = [s.fake_probability for s in output]
        else:  # a generated image is reconstructed better: low error = likely generated
            values = [-s.reconstruction_error for s in output]
        return forensic_decision(question, values, self.rule, details)


class DireReconstructionError(DireForensics):
    """`forensic.dire_reconstruction_error`: the same inversion, scored by the raw error alone."""

    rule = "forensic.dire_reconstruction_error"
    uses_classifier = False
