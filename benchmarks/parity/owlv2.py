"""OWLv2 (Counting, Spatial_Relation) beside transformers' published pipeline.

Reference: the model card's lines: `Owlv2Processor(text=[["a photo of a cat", ...]], images=image)`,
`Owlv2ForObjectDetection`, then `processor.post_process_grounded_object_detection(outputs,
threshold, target_sizes=[(H, W)], text_labels)` (which scales boxes by the padded square's side,
max(H, W)), below every score (-1) so every box is compared. Ours: the folder imported as `owlv2-base`
and the `owlv2` solver built on it.

The folder: OWLv2's architecture at small widths (CLIP towers, box and class heads, the real
16-token text tower) with seeded random weights, and the released processor as it is
(Owlv2ImageProcessor's defaults: pad to a square, 960 x 960, CLIP mean/std), laid out as the hub
folder is (preprocessor_config.json, vocab.json, merges.txt, special_tokens_map.json beside the
weights). The tokenizer is CLIP's BPE class over a vocabulary made here in which each query word
is one token (the released vocabulary is not on this machine); both sides read the same files. Decisions: a Counting and a Spatial_Relation
question per photograph, our rules on each side's boxes.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from benchmarks.parity.common import worst
from benchmarks.parity.published_pipelines import (
    OBJECTS,
    detection_parity,
    load_images,
    package_version,
    word_clip_tokenizer,
)

CHECKPOINT = "owlv2-base"
SEED = 0
IMAGE_SIZE = 960  # Owlv2ImageProcessor's default and the released vision tower's
TEXT_TOKENS = 16  # OWL's text tower reads 16 tokens
TEXT = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
            max_position_embeddings=TEXT_TOKENS)
VISION = dict(hidden_size=48, intermediate_size=96, num_hidden_layers=2, num_attention_heads=2, image_size=IMAGE_SIZE,
              patch_size=16)


def reference_version() -> str:
    return package_version("transformers")


def write_release_folder(folder: Path, seed: int = SEED) -> Path:
    from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2ImageProcessor

    tokenizer, merges = word_clip_tokenizer(("a", "photo", "of", *OBJECTS), TEXT_TOKENS)
    vocab = tokenizer.get_vocab()
    ids = dict(vocab_size=len(vocab), bos_token_id=vocab["<|startoftext|>"], eos_token_id=vocab["<|endoftext|>"],
               pad_token_id=vocab["<|endoftext|>"])
    torch.manual_seed(seed)
    model = Owlv2ForObjectDetection(Owlv2Config(text_config={**TEXT, **ids}, vision_config=VISION, projection_dim=32))
    model.save_pretrained(folder)
    Owlv2ImageProcessor().save_pretrained(folder)  # preprocessor_config.json: the released defaults
    tokenizer.save_pretrained(folder)
    # the slow-tokenizer files the hub folder carries beside tokenizer.json
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(json.dumps(
        {"bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
         "unk_token": "<|endoftext|>"}), encoding="utf-8")
    return folder


class Reference:
    """The published pipeline on the folder."""

    def __init__(self, folder: Path) -> None:
        from transformers import Owlv2ForObjectDetection, Owlv2Processor

        self.processor = Owlv2Processor.from_pretrained(folder)
        self.model = Owlv2ForObjectDetection.from_pretrained(folder).eval()

    @torch.no_grad()
    def __call__(self, image, phrases):
        from specialists.outputs import Detections
        from specialists.owlv2 import QUERY_TEMPLATE

        texts = [[QUERY_TEMPLATE.format(p) for p in phrases]]
        inputs = self.processor(text=texts, images=image, return_tensors="pt")
        outputs = self.model(**inputs)
        (result,) = self.processor.post_process_grounded_object_detection(
            outputs=outputs, threshold=-1.0, target_sizes=torch.tensor([(image.height, image.width)]), text_labels=texts)
        return Detections(result["boxes"].float(), result["scores"].float(), result["labels"], tuple(phrases))


def dense_of(per_image: list[dict]) -> dict:
    return {"boxes": worst([e["boxes"] for e in per_image]), "scores": worst([e["scores"] for e in per_image]),
            "labels_equal_min": min(e["labels_equal"] for e in per_image),
            "reference_boxes_outside_image": sum(e["reference_boxes_outside_image"] for e in per_image)}


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    folder = write_release_folder(workdir / CHECKPOINT)
    pictures = load_images(images)
    reference = Reference(folder)
    run = detection_parity("owlv2", CHECKPOINT, folder, pictures, reference, workdir)
    return {
        "reference": reference_version(),
        "scope": f"OWLv2's architecture at small widths with the released processor (960 px), {len(pictures)} images",
        "patches": [],
        "images": list(pictures),
        "per_image": run["per_image"],
        "dense": dense_of(run["per_image"]),
        "decisions": run["decisions"],
        "settings": {"text": TEXT, "vision": VISION, "ours": run["ours"], "seed": SEED, "reference_threshold": -1.0},
        "notes": "Reference: Owlv2Processor + Owlv2ForObjectDetection + post_process_grounded_object_detection "
                 "(threshold -1: every box, as ours keeps them; target size (H, W)). Boxes as both give them, "
                 "unclipped (reference_boxes_outside_image: how many run into the square padding, which the "
                 "setting boxes=clipped would cut); decisions: our rules on each side's boxes.",
    }
