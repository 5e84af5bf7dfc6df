"""DINOv2 (Visual_Similarity) beside transformers' published pipeline.

Reference: the model card's lines, `AutoImageProcessor.from_pretrained(folder)` then
`Dinov2Model.from_pretrained(folder)(**processor(images=image, return_tensors="pt")).pooler_output`,
with the installed transformers' default image-processor backend (torchvision) and, as a second
reference, its PIL backend (the processor the model card was written with). Ours: the folder
imported as `dinov2-small` and the `dinov2` solver built on it.

The folder is facebook/dinov2-small's layout and architecture (ViT-S/14, 12 layers, width 384,
layer scale, 518 px position grid; BitImageProcessor: shortest edge 256, bicubic, centre crop
224, ImageNet mean/std) with seeded random weights. Decisions: BLINK-layout Visual_Similarity
questions (image i the reference, i+1 and i+2 the options), our cosine rule on each side's
embeddings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from benchmarks.parity.common import dense_errors, worst
from benchmarks.parity.published_pipelines import (
    agreement,
    import_checkpoint,
    load_images,
    our_solver,
    package_version,
    similarity_questions,
)

CHECKPOINT = "dinov2-small"
SEED = 0
WEIGHT_NOISE = 0.02  # on every tensor, so norms, biases and layer scales are not at their init constants
CONFIG = dict(hidden_size=384, num_hidden_layers=12, num_attention_heads=6, mlp_ratio=4, patch_size=14,
              image_size=518, layerscale_value=1.0, use_swiglu_ffn=False)  # facebook/dinov2-small's config.json
PROCESSOR = dict(do_resize=True, size={"shortest_edge": 256}, resample=3, do_center_crop=True,
                 crop_size={"height": 224, "width": 224}, do_rescale=True, rescale_factor=1 / 255, do_normalize=True,
                 image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225], do_convert_rgb=True)


def reference_version() -> str:
    return package_version("transformers")


def write_release_folder(folder: Path, seed: int = SEED) -> Path:
    """config.json, model.safetensors and preprocessor_config.json as the hub folder has them."""
    from transformers import BitImageProcessor, Dinov2Config, Dinov2Model

    torch.manual_seed(seed)
    model = Dinov2Model(Dinov2Config(**CONFIG))
    with torch.no_grad():
        for param in model.parameters():
            param.add_(torch.randn_like(param) * WEIGHT_NOISE)
    model.save_pretrained(folder)
    BitImageProcessor(**PROCESSOR).save_pretrained(folder)
    return folder


def reference_embeddings(folder: Path, images: dict, backend: str) -> dict[str, dict]:
    """{name: {"pixels": (1, 3, 224, 224), "embedding": (384,)}} through the published pipeline."""
    from transformers import AutoImageProcessor, Dinov2Model

    processor = AutoImageProcessor.from_pretrained(folder, backend=backend)
    model = Dinov2Model.from_pretrained(folder).eval()
    out = {}
    with torch.no_grad():
        for name, image in images.items():
            inputs = processor(images=image, return_tensors="pt")
            out[name] = {"pixels": inputs["pixel_values"],
                         "embedding": model(**inputs).pooler_output[0].float(), "processor": type(processor).__name__}
    return out


def dense_of(per_image: list[dict]) -> dict:
    """Worst image against the default (torchvision) backend; the PIL backend's apart."""
    def summary(backend: str) -> dict:
        entries = [e for e in per_image if e["reference"].endswith(f"({backend})")]
        return {key: worst([e[key] for e in entries]) for key in ("embedding", "pixels")}

    return {**summary("torchvision"), "pil_backend": summary("pil")}


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    folder = write_release_folder(workdir / "dinov2-small")
    pictures = load_images(images)
    references = {backend: reference_embeddings(folder, pictures, backend) for backend in ("torchvision", "pil")}
    home = workdir / "home"
    import_checkpoint(CHECKPOINT, folder, home)
    per_image, answers = [], {backend: [] for backend in references}
    with our_solver("dinov2", CHECKPOINT, home) as solver:
        embedder = solver.model
        ours = dict(zip(pictures, embedder(list(pictures.values()))))
        for name, image in pictures.items():
            pixels = embedder.preprocess(torch.from_numpy(np.asarray(image).copy()).permute(2, 0, 1)[None])
            for backend, reference in references.items():
                per_image.append({"image": name, "reference": f"{reference[name]['processor']} ({backend})",
                                  "embedding": dense_errors(ours[name].vector, reference[name]["embedding"]),
                                  "pixels": dense_errors(pixels, reference[name]["pixels"])
                                  if pixels.shape == reference[name]["pixels"].shape else
                                  {"max_abs": float("inf"), "max_rel": float("inf"), "median_rel": float("inf")}})
        from specialists.outputs import Embedding

        questions = similarity_questions(list(pictures), pictures)
        decided = []
        for question in questions:
            group = [image for image in question.images]
            names = [next(k for k, v in pictures.items() if v is image) for image in group]
            mine = solver.decide(question)
            row = {"question": question.idx, "images": names, "ours": mine.pred, "cosine_ours": mine.details["cosine"]}
            for backend, reference in references.items():
                theirs = solver.decision(question, [Embedding(reference[k]["embedding"]) for k in names])
                answers[backend].append((mine.pred, theirs.pred))
                row[f"reference_{backend}"] = theirs.pred
                row[f"cosine_{backend}"] = theirs.details["cosine"]
            decided.append(row)
    primary = agreement(answers["torchvision"])
    return {
        "reference": reference_version(),
        "scope": f"facebook/dinov2-small's architecture and processor at full size, {len(pictures)} images",
        "patches": [],
        "images": list(pictures),
        "per_image": per_image,
        "dense": dense_of(per_image),
        "decisions": {**primary, "against_pil_backend": agreement(answers["pil"]), "questions": decided},
        "settings": {"config": CONFIG, "processor": PROCESSOR, "seed": SEED, "weight_noise": WEIGHT_NOISE},
        "notes": "Reference: AutoImageProcessor (default torchvision backend; the PIL backend as a second "
                 "reference) + Dinov2Model.pooler_output from the same folder. Dense: the 384-d embedding and "
                 "the 224x224 model input, relative to the reference's largest value.",
    }
