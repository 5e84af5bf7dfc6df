"""Which option image is most like the reference image? (Visual_Similarity, Art_Style)

The options name images ("the second image", "the third image"); the reference is the image no
option names (BLINK's first). Two specialists answer:

- `dinov2` (`similarity.dinov2_cosine`): cosine similarity of DINOv2 embeddings, the highest
  wins; BLINK's Visual_Similarity default, and an embedding rule for Art_Style;
- `dreamsim` (`similarity.dreamsim_distance`): DreamSim's perceptual distance (DINO ViT-B/16 +
  its human-similarity LoRA), the lowest wins; an option for Visual_Similarity, whose images came
  from DreamSim's NIGHTS data;
- `vgg_gram` (`art_style.gram_distance`): distance between Gram matrices of early VGG-19 layers
  (style statistics, indifferent to what is depicted), the lowest wins; the Art_Style default.
"""

from __future__ import annotations

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.rules.choices import image_options
from adapters.rules.model_solver import ModelSolver
from specialists.outputs import Embedding
from specialists.style_gram import StyleGrams, style_distance


def reference_and_options(question: MCQuestion) -> tuple[int, dict[str, int]]:
    """(the reference image's index, option letter -> image index)."""
    options = image_options(question, first_option_image=0)
    unnamed = [i for i in range(len(question.images)) if i not in options.values()]
    if not unnamed:
        raise QuestionError(f"{question.idx}: every image is an option; there is no reference to compare with")
    return unnamed[0], options


class _CompareToReference(ModelSolver):
    """Every image of the question through the model once; the rule compares each option's
    output with the reference's."""

    def model_input(self, question: MCQuestion):
        reference_and_options(question)  # fail fast, before the model runs
        return question.images

    def run_model(self, inputs):
        outputs = iter(self.model([image for images in inputs for image in images]))
        return [[next(outputs) for _ in images] for images in inputs]


class DinoSimilarity(_CompareToReference):
    rule = "similarity.dinov2_cosine"

    def build_tiny(self):
        from specialists.dinov2 import Dinov2Embedder

        return Dinov2Embedder.tiny(self.options.seed, self.options.device, self.options.precision)

    def build_real(self, path):
        from specialists.dinov2 import Dinov2Embedder

        o = self.options
        return Dinov2Embedder.from_pretrained(path, o.device, o.precision, o.batch_size)

    def decision(self, question: MCQuestion, output: list[Embedding]) -> Decision:
        reference, options = reference_and_options(question)
        cosine = {letter: output[reference].cosine(output[index]) for letter, index in options.items()}
        return Decision.from_scores(cosine, self.rule, {"cosine": cosine, "reference_image": reference + 1})


class VggStyleSimilarity(_CompareToReference):
    rule = "art_style.gram_distance"

    def build_tiny(self):
        from specialists.style_gram import VggStyle

        return VggStyle.tiny(self.options.seed, self.options.device, self.options.precision)

    def build_real(self, path):
        from specialists.style_gram import VggStyle

        return VggStyle.from_checkpoint(path, device=self.options.device, precision=self.options.precision)

    def decision(self, question: MCQuestion, output: list[StyleGrams]) -> Decision:
        reference, options = reference_and_options(question)
        distance = {letter: style_distance(output[reference], output[index]) for letter, index in options.items()}
        return Decision.from_scores({k: -v for k, v in distance.items()}, self.rule,
                                    {"gram_distance": distance, "reference_image": reference + 1})


class DreamSimSimilarity(_CompareToReference):
    rule = "similarity.dreamsim_distance"
    backbone_checkpoint = "vit_base_patch16_224.dino"

    @property
    def auxiliary_checkpoints(self):
        backbone = getattr(self, "_backbone_ref", None)
        return {"backbone": backbone} if backbone is not None else {}

    def build_tiny(self):
        from specialists.dreamsim import DreamSimEmbedder

        return DreamSimEmbedder.tiny(self.options.seed, self.options.device, self.options.precision)

    def build_real(self, path):
        from checkpoints import resolve
        from specialists.dreamsim import DreamSimEmbedder

        o = self.options
        backbone = resolve(self.backbone_checkpoint)
        self._backbone_ref = backbone.ref
        return DreamSimEmbedder.from_checkpoints(backbone.path, path, device=o.device, precision=o.precision,
                                                 batch_size=o.batch_size)

    def decision(self, question: MCQuestion, output: list[Embedding]) -> Decision:
        reference, options = reference_and_options(question)
        distance = {letter: 1.0 - output[reference].cosine(output[index]) for letter, index in options.items()}
        return Decision.from_scores({k: -v for k, v in distance.items()}, self.rule,
                                    {"dreamsim_distance": distance, "reference_image": reference + 1})
