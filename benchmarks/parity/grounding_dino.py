"""Grounding DINO (Counting, Spatial_Relation) beside transformers' published pipeline.

Reference: the model card's lines: `GroundingDinoProcessor(images=image, text=[["cat", "chair"]])`
(which joins the phrases as "cat. chair."), `GroundingDinoForObjectDetection`, then
`processor.post_process_grounded_object_detection(outputs, input_ids, threshold, text_threshold,
target_sizes=[(H, W)])`, below every score so that every box is compared. There a box's score is
its highest sigmoid over every caption token ([CLS], the separating dots and [SEP] included), as
ours by default (setting `box_score`), and its label the text of the tokens passing
text_threshold, read here as the one phrase it names (with one phrase, every box is that
phrase's); ours labels a box with the phrase whose tokens score it highest. Ours: the folder
imported as `grounding-dino-tiny` and the `grounding_dino` solver built on it.

The folder: Grounding DINO's architecture at small widths (Swin backbone, BERT text encoder,
deformable encoder-decoder, 256 text positions) with seeded random weights and the released
processor settings (shortest edge 800, longest 1333), laid out as the hub folder is
(preprocessor_config.json, vocab.txt, tokenizer.json, special_tokens_map.json). The tokenizer is
BERT's word-piece class over a vocabulary made here (each query word one token, other text by
letters). Decisions: a Counting and a Spatial_Relation question per photograph, our rules on
each side's boxes.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from benchmarks.parity.common import worst
from benchmarks.parity.published_pipelines import (
    OBJECTS,
    detection_errors,
    detection_parity,
    load_images,
    package_version,
)

CHECKPOINT = "grounding-dino-tiny"
SEED = 0
TEXT_THRESHOLD = 0.25  # the reference post-processing's default


def reference_version() -> str:
    return package_version("transformers")


def write_release_folder(folder: Path, seed: int = SEED) -> Path:
    from transformers import (
        BertConfig,
        BertTokenizerFast,
        GroundingDinoConfig,
        GroundingDinoForObjectDetection,
        GroundingDinoImageProcessor,
        SwinConfig,
    )

    folder.mkdir(parents=True, exist_ok=True)
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", *OBJECTS, *letters, *("##" + c for c in letters)]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"))
    backbone = SwinConfig(embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2], window_size=7,
                          out_features=["stage2", "stage3", "stage4"], out_indices=[2, 3, 4])
    text = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                      intermediate_size=64)
    config = GroundingDinoConfig(backbone_config=backbone, text_config=text, d_model=32, encoder_layers=1,
                                 decoder_layers=2, encoder_ffn_dim=64, decoder_ffn_dim=64, encoder_attention_heads=2,
                                 decoder_attention_heads=2, num_queries=100, encoder_n_points=2, decoder_n_points=2)
    torch.manual_seed(seed)
    GroundingDinoForObjectDetection(config).save_pretrained(folder)
    GroundingDinoImageProcessor().save_pretrained(folder)  # the released 800 / 1333 resize
    tokenizer.save_pretrained(folder)
    (folder / "special_tokens_map.json").write_text(json.dumps(
        {"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]", "sep_token": "[SEP]",
         "unk_token": "[UNK]"}), encoding="utf-8")
    return folder


class Reference:
    """The published pipeline on the folder; labels mapped to the phrase they name (-1: none or several)."""

    def __init__(self, folder: Path) -> None:
        from transformers import GroundingDinoForObjectDetection, GroundingDinoProcessor

        self.processor = GroundingDinoProcessor.from_pretrained(folder)
        self.model = GroundingDinoForObjectDetection.from_pretrained(folder).eval()

    @torch.no_grad()
    def __call__(self, image, phrases):
        from specialists.outputs import Detections

        inputs = self.processor(images=image, text=[list(phrases)], return_tensors="pt")
        outputs = self.model(**inputs)
        (result,) = self.processor.post_process_grounded_object_detection(
            outputs, inputs["input_ids"], threshold=-1.0, text_threshold=TEXT_THRESHOLD,
            target_sizes=[(image.height, image.width)])
        labels = torch.tensor([_phrase_of(text, phrases) for text in result["text_labels"]])
        return Detections(result["boxes"].float(), result["scores"].float(), labels, tuple(phrases))


def _phrase_of(text_label: str, phrases) -> int:
    """The phrase a reference text label names: the only one of the question's phrases among its
    words (its tokens passing text_threshold, dots and [SEP] included); -1 for none or several.
    With one phrase every box is that phrase's (the reference counts every box over threshold)."""
    if len(phrases) == 1:
        return 0
    words = set(text_label.lower().replace(".", " ").split())
    named = [i for i, phrase in enumerate(phrases) if set(phrase.lower().split()) <= words]
    return named[0] if len(named) == 1 else -1


def _errors(ours, reference, image) -> dict:
    errors = detection_errors(ours, reference, image)
    named = reference.labels >= 0  # boxes whose reference label is exactly one phrase
    errors["labels_equal"] = float((ours.labels[named] == reference.labels[named]).float().mean()) if named.any() else None
    errors["reference_labels_one_phrase"] = float(named.float().mean())
    return errors


def dense_of(per_image: list[dict]) -> dict:
    labelled = [e["labels_equal"] for e in per_image if e["labels_equal"] is not None]
    return {"boxes": worst([e["boxes"] for e in per_image]), "scores": worst([e["scores"] for e in per_image]),
            "labels_equal_min": min(labelled) if labelled else None}


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    folder = write_release_folder(workdir / CHECKPOINT)
    pictures = load_images(images)
    reference = Reference(folder)
    run = detection_parity("grounding_dino", CHECKPOINT, folder, pictures, reference, workdir, errors=_errors)
    return {
        "reference": reference_version(),
        "scope": f"Grounding DINO's architecture at small widths with the released processor (800/1333), "
                 f"{len(pictures)} images",
        "patches": [],
        "images": list(pictures),
        "per_image": run["per_image"],
        "dense": dense_of(run["per_image"]),
        "decisions": run["decisions"],
        "settings": {"ours": run["ours"], "seed": SEED, "reference_threshold": -1.0, "text_threshold": TEXT_THRESHOLD},
        "notes": "Reference: GroundingDinoProcessor + GroundingDinoForObjectDetection + "
                 "post_process_grounded_object_detection (threshold -1: every box; target size (H, W)). Labels "
                 "compared where the reference's text label is exactly one phrase.",
    }
