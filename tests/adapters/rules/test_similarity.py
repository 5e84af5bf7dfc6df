"""Visual_Similarity and Art_Style: DINOv2 cosine and VGG-19 Gram distance to the reference image."""

import numpy as np
import pytest
import torch
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionError, QuestionSource
from adapters.rules.similarity import DinoSimilarity, VggStyleSimilarity, reference_and_options
from adapters.run.runner import RunConfig, run
from specialists.dinov2 import Dinov2Embedder
from specialists.outputs import Embedding
from specialists.style_gram import STYLE_LAYERS, StyleGrams, VggStyle, gram, style_distance

CHOICES = ("the second image", "the third image")
QUESTION = ("Given three similar but different images, take the first image as reference. Can you tell which one of "
            "the latter two images is most similar to the first one?")


def _image(seed, shape=(48, 64)):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 255, (*shape, 3), dtype=np.uint8))


def _question(task="Visual_Similarity", images=3, choices=CHOICES):
    return MCQuestion(f"val_{task}_1", task, QUESTION, choices, None, QuestionSource("t", "val"), question=QUESTION,
                      _images=[_image(i) for i in range(images)])


def test_the_reference_is_the_image_no_option_names():
    assert reference_and_options(_question()) == (0, {"A": 1, "B": 2})
    assert reference_and_options(_question(choices=("Image 1", "Image 3"))) == (1, {"A": 0, "B": 2})
    with pytest.raises(QuestionError, match="no reference"):
        reference_and_options(_question(images=2, choices=("Image 1", "Image 2")))


def test_cosine_rule_picks_the_most_similar_embedding():
    solver = DinoSimilarity.__new__(DinoSimilarity)  # the rule alone
    reference = Embedding(torch.tensor([1.0, 0.0, 0.0]))
    near, far = Embedding(torch.tensor([0.9, 0.1, 0.0])), Embedding(torch.tensor([0.0, 1.0, 0.0]))
    decision = solver.decision(_question(), [reference, far, near])
    assert decision.pred == "B" and decision.details["cosine"]["B"] == pytest.approx(0.9939, abs=1e-4)


def test_gram_is_the_normalised_channel_product_and_its_distance_is_zero_for_one_style():
    features = torch.tensor([[[1.0, 2.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]])  # (C=2, 2, 2)
    # rows (1, 2, 0, 1) and (0, 1, 1, 0): products 6, 2, 2 over C h w = 8
    torch.testing.assert_close(gram(features), torch.tensor([[6.0, 2.0], [2.0, 2.0]]) / 8)
    a = StyleGrams({"relu1_1": torch.eye(2)})
    b = StyleGrams({"relu1_1": 2 * torch.eye(2)})
    assert style_distance(a, a) == 0.0 and style_distance(a, b) == pytest.approx(1.0)  # |I - 2I|^2 / |I|^2


def test_gram_rule_picks_the_closest_style():
    solver = VggStyleSimilarity.__new__(VggStyleSimilarity)
    reference = StyleGrams({"relu1_1": torch.eye(2)})
    same, other = StyleGrams({"relu1_1": 1.1 * torch.eye(2)}), StyleGrams({"relu1_1": torch.ones(2, 2)})
    assert solver.decision(_question("Art_Style"), [reference, same, other]).pred == "A"


def test_tiny_vgg_keeps_vgg19s_layer_indices():
    from torchvision.models import vgg19

    with torch.device("meta"):
        real = vgg19(weights=None).features
    tiny = VggStyle.tiny()
    for name, index in STYLE_LAYERS.items():
        assert isinstance(real[index], torch.nn.ReLU) and isinstance(tiny.features[index], torch.nn.ReLU), name
        assert isinstance(real[index - 1], torch.nn.Conv2d)
    grams = tiny([_image(0), _image(1, (90, 40))])
    assert set(grams[0].grams) == set(STYLE_LAYERS)


def test_a_file_that_is_not_vgg19_is_refused(tmp_path):
    from checkpoints.convert.vgg import vgg19_state_dict

    path = tmp_path / "vgg19-dcbb9e9d.pth"
    # the tiny instance's first 21 layers (9 convolutions) under torchvision's names, at small widths
    torch.save({f"features.{k}": v for k, v in VggStyle.tiny().features.state_dict().items()}, path)
    with pytest.raises(ValueError, match=r"not torchvision's VGG-19 weights: 20 missing \(first: classifier.0.bias.*"
                                         r"18 misshapen \(first: features.0.bias"):
        vgg19_state_dict(path)


def test_dinov2_engine_preprocessing_is_the_image_processor():
    model = Dinov2Embedder.tiny()
    image = _image(3, (70, 90))
    expected = model.processor(images=image, return_tensors="pt")["pixel_values"]
    ours = model.preprocess(torch.from_numpy(np.array(image)).permute(2, 0, 1)[None])
    torch.testing.assert_close(ours, expected, atol=1e-5, rtol=0)


def test_dinov2_folder_loads_strictly(tmp_path):
    model = Dinov2Embedder.tiny()
    model.model.save_pretrained(tmp_path)
    model.processor.save_pretrained(tmp_path)
    loaded = Dinov2Embedder.from_pretrained(tmp_path)
    image = _image(4)
    torch.testing.assert_close(loaded([image])[0].vector, model([image])[0].vector, atol=1e-5, rtol=0)


def test_tiny_random_through_the_runner(tmp_path, monkeypatch):
    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    rows = [BlinkRow(task, k, QUESTION, CHOICES, "AB"[k % 2], [_image(10 * k + i) for i in range(3)])
            for task in ("Visual_Similarity", "Art_Style") for k in (1, 2)]
    write_blink_folder(tmp_path / "blink", rows)
    results = run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), checkpoint="tiny-random",
                            progress=False))
    assert {t: (v["specialist"], v["n"], v["errors"]) for t, v in results["tasks"].items()} == {
        "Visual_Similarity": ("dinov2", 2, 0), "Art_Style": ("vgg_gram", 2, 0)}


# --- DreamSim (single-branch DINO ViT-B/16 + LoRA) -------------------------------------------------


def _adapter(folder, dim=32, blocks=2, rank=4, alpha=8.0, extra=None, seed=0):
    """A peft adapter folder in DreamSim's released layout (keys as in dino_vitb16_single_lora)."""
    import json

    from safetensors.torch import save_file

    g = torch.Generator().manual_seed(seed)
    prefix = "base_model.model.extractor_list.0.model.blocks"
    state = {}
    for i in range(blocks):
        state[f"{prefix}.{i}.attn.qkv.lora_A.weight"] = torch.randn(rank, dim, generator=g)
        state[f"{prefix}.{i}.attn.qkv.lora_B.weight"] = torch.randn(3 * dim, rank, generator=g)
    state.update(extra or {})
    folder.mkdir(parents=True, exist_ok=True)
    save_file(state, str(folder / "adapter_model.safetensors"))
    (folder / "adapter_config.json").write_text(json.dumps({"r": rank, "lora_alpha": alpha, "target_modules": ["qkv"],
                                                            "peft_type": "LORA"}))
    return state


def test_the_released_adapter_layout_is_read_and_merged(tmp_path):
    from timm.models.vision_transformer import VisionTransformer

    from checkpoints.convert.lora import read_lora_adapter
    from specialists.dreamsim import merge_lora

    state = _adapter(tmp_path / "lora")
    lora, scale = read_lora_adapter(tmp_path / "lora")
    assert scale == 2.0 and sorted(lora) == [0, 1]  # alpha 8 / r 4
    vit = VisionTransformer(img_size=32, patch_size=16, embed_dim=32, depth=2, num_heads=2, num_classes=0)
    before = vit.blocks[1].attn.qkv.weight.detach().clone()
    merge_lora(vit, lora, scale)
    a = state["base_model.model.extractor_list.0.model.blocks.1.attn.qkv.lora_A.weight"]
    b = state["base_model.model.extractor_list.0.model.blocks.1.attn.qkv.lora_B.weight"]
    torch.testing.assert_close(vit.blocks[1].attn.qkv.weight.detach(), before + 2.0 * b @ a)


def test_adapters_that_are_not_dreamsims_single_branch_are_refused(tmp_path):
    from checkpoints.convert.lora import read_lora_adapter

    _adapter(tmp_path / "ensemble", extra={
        "base_model.model.extractor_list.1.model.blocks.0.attn.qkv.lora_A.weight": torch.zeros(4, 32)})
    with pytest.raises(ValueError, match="the DreamSim ensemble"):
        read_lora_adapter(tmp_path / "ensemble")
    _adapter(tmp_path / "head", extra={"base_model.model.mlp.fc1.weight": torch.zeros(2, 2)})
    with pytest.raises(ValueError, match="unexpected tensor"):
        read_lora_adapter(tmp_path / "head")


def test_the_embedding_is_block_11s_cls_before_the_norm_centred_and_unit():
    from specialists.dreamsim import DreamSimEmbedder

    model = DreamSimEmbedder.tiny()
    image = _image(5, (40, 70))
    (ours,) = model([image])
    x = model.preprocess(torch.from_numpy(np.array(image)).permute(2, 0, 1)[None])
    assert tuple(x.shape) == (1, 3, 32, 32)  # squashed to a square, no crop
    vit = model.backbone
    with torch.no_grad():
        cls = vit.blocks(vit._pos_embed(vit.patch_embed(x)))[:, 0]
    expected = (cls - cls.mean()) / (cls - cls.mean()).norm()
    torch.testing.assert_close(ours.vector, expected[0], atol=1e-5, rtol=0)
    assert abs(float(ours.vector.mean())) < 1e-6 and float(ours.vector.norm()) == pytest.approx(1.0)


def test_dreamsim_weights_from_the_registry_and_through_the_runner(tmp_path, monkeypatch):
    """The adapter imported under its manifest name; the backbone (a tiny ViT standing in for
    timm's DINO ViT-B/16) resolved and recorded beside it."""
    from timm.models.vision_transformer import VisionTransformer

    import checkpoints.convert.timm_weights as timm_weights
    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
    from checkpoints.install import import_checkpoint

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    _adapter(tmp_path / "dino_vitb16_single_lora")
    import_checkpoint("dreamsim-dino-vitb16", tmp_path / "dino_vitb16_single_lora")
    backbone_file = tmp_path / "model.safetensors"
    from safetensors.torch import save_file

    save_file({"stand_in": torch.zeros(1)}, str(backbone_file))  # resolved by path; the model comes from below
    monkeypatch.setattr(timm_weights, "create_timm_model", lambda name, path, **kw: VisionTransformer(
        img_size=224, patch_size=16, embed_dim=32, depth=2, num_heads=2, num_classes=0))
    monkeypatch.setattr("adapters.rules.similarity.DreamSimSimilarity.backbone_checkpoint", str(backbone_file))
    rows = [BlinkRow("Visual_Similarity", k, QUESTION, CHOICES, "AB"[k % 2], [_image(20 * k + i) for i in range(3)])
            for k in (1, 2)]
    write_blink_folder(tmp_path / "blink", rows)
    results = run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), specialist=["dreamsim"],
                            progress=False))
    summary = results["tasks"]["Visual_Similarity"]
    assert (summary["n"], summary["errors"], summary["rules"]) == (2, 0, ["similarity.dreamsim_distance"])
    assert summary["checkpoint"]["name"] == "dreamsim-dino-vitb16" and len(summary["checkpoint"]["sha256"]) == 64
    assert results["auxiliary_checkpoints"]["dreamsim"]["backbone"]["name"] == "model.safetensors"
