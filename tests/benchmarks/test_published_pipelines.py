"""Our wrappers against the pipelines DINOv2, OWLv2, Grounding DINO, DreamSim and VGG-19 are
published with (transformers processors and post-processing, the dreamsim package, torchvision),
on tiny random instances of the real architectures; the full-size checks are
benchmarks/parity's dinov2, owlv2, grounding_dino, dreamsim and vgg_gram families."""

import numpy as np
import pytest
import torch
from PIL import Image
from torchvision.transforms import v2 as T

from specialists.dinov2 import Dinov2Embedder
from specialists.engine import Preprocess


def _image(seed, shape):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 255, (*shape, 3), dtype=np.uint8))


@pytest.mark.parametrize("shape", [(731, 1024), (1024, 731), (375, 500), (70, 97), (97, 70)])
def test_short_side_resize_truncates_the_long_side_as_torchvision_resize(shape):
    pixels = torch.zeros(1, 3, *shape, dtype=torch.uint8)
    for size in (64, 256):
        expected = tuple(T.Resize(size)(pixels).shape[-2:])
        assert Preprocess(size, "short_side").resized_size(*shape) == expected


def test_dinov2_input_is_the_image_processors_where_the_long_side_has_a_fraction_over_half():
    model = Dinov2Embedder.tiny()
    image = _image(4, (70, 97))  # 64 * 97 / 70 = 88.7: the processor resizes to 64 x 88
    expected = model.processor(images=image, return_tensors="pt")["pixel_values"]
    ours = model.preprocess(torch.from_numpy(np.array(image)).permute(2, 0, 1)[None])
    torch.testing.assert_close(ours, expected, atol=1e-5, rtol=0)


def _photo(seed=5, shape=(48, 80)):
    return _image(seed, shape)


def test_owlv2_gives_what_the_published_post_processing_gives_even_where_sigmoids_saturate():
    from specialists.owlv2 import QUERY_TEMPLATE, Owlv2Detector

    model = Owlv2Detector.tiny()
    # logits far from zero: sigmoid saturates at 1.0 for both queries, only the logit tells them apart
    model.model.register_forward_hook(lambda module, args, out: out.__setitem__("logits", out["logits"] * 1e3 + 40.0))
    image, phrases = _photo(), ("cat", "dog")
    (ours,) = model([image], [phrases])
    texts = [[QUERY_TEMPLATE.format(p) for p in phrases]]
    inputs = model.processor(text=texts, images=image, return_tensors="pt", padding="max_length", truncation=True)
    with torch.no_grad():
        outputs = model.model(**inputs)
    (reference,) = model.processor.post_process_grounded_object_detection(
        outputs=outputs, threshold=-1.0, target_sizes=torch.tensor([(image.height, image.width)]), text_labels=texts)
    assert torch.equal(ours.labels, reference["labels"])
    torch.testing.assert_close(ours.scores, reference["scores"], atol=0, rtol=0)
    torch.testing.assert_close(ours.boxes, reference["boxes"], atol=1e-4, rtol=0)  # unclipped, as published


def test_grounding_dino_box_scores_are_the_published_all_token_scores_by_default():
    from specialists.grounding_dino import GroundingDinoDetector, caption

    model = GroundingDinoDetector.tiny()
    image, phrases = _photo(6, (60, 90)), ("cat",)
    (ours,) = model([image], [phrases])
    inputs = model.processor(images=image, text=caption(phrases)[0], return_tensors="pt")
    with torch.no_grad():
        outputs = model.model(**inputs)
    (reference,) = model.processor.post_process_grounded_object_detection(
        outputs, inputs["input_ids"], threshold=-1.0, target_sizes=[(image.height, image.width)])
    torch.testing.assert_close(ours.scores, reference["scores"], atol=0, rtol=0)
    torch.testing.assert_close(ours.boxes, reference["boxes"], atol=1e-4, rtol=0)
    model.box_score = "phrase_tokens"  # the phrase's own tokens only: never above the all-token score
    (own,) = model([image], [phrases])
    assert bool((own.scores <= ours.scores).all()) and not torch.equal(own.scores, ours.scores)


def test_boxes_clipped_is_a_setting_of_the_rules():
    from adapters.core.questions import MCQuestion, QuestionSource
    from adapters.core.registry import get
    from adapters.core.solver import SolverOptions
    from adapters.rules.detection import Owlv2Tasks
    from specialists.outputs import Detections

    image = _photo()
    question = MCQuestion("val_Spatial_Relation_1", "Spatial_Relation", "Is the cat above the dog?", ("yes", "no"),
                          None, QuestionSource("t", "val"), question="Is the cat above the dog?", _images=[image])
    # the cat's box lies mostly in the padding below the 48-px-high image: as published its centre is
    # below the dog's; clipped to the image it is above it
    detections = Detections(torch.tensor([[10.0, 20.0, 20.0, 78.0], [30.0, 30.0, 40.0, 46.0]]),
                            torch.tensor([0.9, 0.8]), torch.tensor([0, 1]), ("cat", "dog"))
    solver = Owlv2Tasks.__new__(Owlv2Tasks)  # the rules alone, without building the detector
    solver.specialist = "owlv2"
    solver.settings = {"threshold": "0.1", "boxes": "as_published"}
    assert solver.decision(question, detections).pred == "B"
    solver.settings = {"threshold": "0.1", "boxes": "clipped"}
    assert solver.decision(question, detections).pred == "A"
    assert get("owlv2").build(SolverOptions(checkpoint="tiny-random")).settings["boxes"] == "as_published"


def test_vgg_style_input_is_torchvisions_long_side_resize():
    from torchvision.transforms import v2

    from specialists.style_gram import IMAGENET_MEAN, IMAGENET_STD, VggStyle

    model = VggStyle.tiny()  # long side 64
    for shape in ((73, 100), (100, 73), (64, 64)):  # 64 * 73 / 100 = 46.7: torchvision gives 46
        image = _image(7, shape)
        expected = v2.Compose([v2.Resize(size=None, max_size=64, interpolation=v2.InterpolationMode.BICUBIC),
                               v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True),
                               v2.Normalize(IMAGENET_MEAN, IMAGENET_STD)])(image)[None]
        torch.testing.assert_close(model._tensor(image), expected, atol=1e-6, rtol=0)


def test_dreamsim_input_is_the_packages_pil_resize():
    from torchvision import transforms

    from specialists.dreamsim import DreamSimEmbedder

    model = DreamSimEmbedder.tiny()  # 32 px
    image = _image(8, (45, 70))
    # dreamsim's preprocess: Resize((size, size), BICUBIC) on the PIL image, ToTensor; embed normalises
    x = transforms.Compose([transforms.Resize((32, 32), interpolation=transforms.InterpolationMode.BICUBIC),
                            transforms.ToTensor()])(image)[None]
    expected = transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))(x)
    ours = model.preprocess(torch.from_numpy(np.array(image)).permute(2, 0, 1)[None])
    torch.testing.assert_close(ours, expected, atol=1e-6, rtol=0)


@pytest.mark.parametrize("family, checkpoint", [("owlv2", "owlv2-base"), ("grounding_dino", "grounding-dino-tiny")])
def test_release_layout_folders_import_and_load(tmp_path, family, checkpoint):
    """The parity check's stand-ins for the hub folders (preprocessor_config.json and the slow
    tokenizer files beside the weights) pass `specialists checkpoints import` and our loader."""
    import importlib

    from benchmarks.parity.published_pipelines import import_checkpoint

    module = importlib.import_module(f"benchmarks.parity.{family}")
    folder = module.write_release_folder(tmp_path / checkpoint)
    path = import_checkpoint(checkpoint, folder, tmp_path / "home")
    detector = module.Reference(path)  # the reference pipeline reads the same files
    from specialists.grounding_dino import GroundingDinoDetector
    from specialists.owlv2 import Owlv2Detector

    ours = {"owlv2": Owlv2Detector, "grounding_dino": GroundingDinoDetector}[family].from_pretrained(path)
    assert type(ours.model) is type(detector.model)
    theirs, mine = detector.model.state_dict(), ours.model.state_dict()
    assert theirs.keys() == mine.keys() and all(torch.equal(theirs[k], mine[k]) for k in theirs)


def test_query_words_are_single_tokens_of_the_stand_in_clip_vocabulary():
    from benchmarks.parity.published_pipelines import word_clip_tokenizer

    tokenizer, merges = word_clip_tokenizer(("a", "photo", "of", "cat"), 16)
    tokens = tokenizer.convert_ids_to_tokens(tokenizer("a photo of a cat")["input_ids"])
    assert tokens == ["<|startoftext|>", "a</w>", "photo</w>", "of</w>", "a</w>", "cat</w>", "<|endoftext|>"]
    assert len(tokenizer("a photo of a dog")["input_ids"]) == 2 + 4 + 3  # an unknown word falls back to bytes


def test_reference_text_labels_name_one_phrase_or_none():
    from benchmarks.parity.grounding_dino import _phrase_of

    assert _phrase_of("anything", ("cat",)) == 0
    assert _phrase_of("cat.", ("cat", "chair")) == 0 and _phrase_of("chair [SEP]", ("cat", "chair")) == 1
    assert _phrase_of("cat. chair", ("cat", "chair")) == -1 and _phrase_of("", ("cat", "chair")) == -1
