"""Time per question of the specialists for the tasks the paper ran none on (Jigsaw,
Visual_Similarity, Art_Style, Counting / Spatial_Relation / Object_Localization).

    python -m benchmarks.task_specialists [--questions N] [--device cpu|cuda] [--record]

One JSON line per specialist: seconds per question through its solver path (`decide_batch`),
with the real architecture at its real input size and random weights (nothing is downloaded;
OWLv2's tokenizer is a byte-level stand-in, so its text tower reads other token ids at the same
length). For DINOv2 the line also holds the naive loop (the image processor and one forward per
image, as a reference script does) and the ratio of the engine's batched path to it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.core.registry import get
from benchmarks.record import Recorder

SOURCE = QuestionSource("benchmark", "val")
TWO = ("the second image", "the third image")


def _photo(rng: np.random.Generator, height: int = 375, width: int = 500) -> Image.Image:
    """A BLINK-sized image with some structure (smooth noise), not a flat field."""
    import cv2

    small = rng.integers(0, 255, (height // 8, width // 8, 3), dtype=np.uint8)
    return Image.fromarray(cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC))


def _questions(task: str, text: str, choices: tuple, n: int, n_images: int, rng) -> list[MCQuestion]:
    return [MCQuestion(f"val_{task}_{k}", task, text, choices, None, SOURCE, question=text,
                       _images=[_photo(rng) for _ in range(n_images)]) for k in range(1, n + 1)]


def _time(solver, questions) -> float:
    tic = time.perf_counter()
    outcomes = solver.decide_batch(questions)
    seconds = time.perf_counter() - tic
    failed = [o for o in outcomes if isinstance(o, Exception)]
    if failed:
        raise RuntimeError(f"{type(solver).__name__}: {failed[0]}")
    return seconds / len(questions)


def dinov2_case(n: int, device: str, rng) -> dict:
    from transformers import BitImageProcessor, Dinov2Config, Dinov2Model

    from adapters.rules.similarity import DinoSimilarity
    from specialists.dinov2 import Dinov2Embedder

    model = Dinov2Model(Dinov2Config(hidden_size=384, num_hidden_layers=12, num_attention_heads=6,
                                     intermediate_size=1536, patch_size=14, image_size=518))  # ViT-S/14
    processor = BitImageProcessor(size={"shortest_edge": 256}, resample=Image.BICUBIC, crop_size={"height": 224, "width": 224},
                                  image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225])
    solver = DinoSimilarity.__new__(DinoSimilarity)
    solver.model, solver.settings = Dinov2Embedder(model, processor, device), {}
    questions = _questions("Visual_Similarity", "Which image is most similar to the first?", TWO, n, 3, rng)
    _time(solver, questions[:1])  # warm-up
    engine = _time(solver, questions)
    tic = time.perf_counter()
    with torch.no_grad():
        for q in questions:
            for image in q.images:
                model(**processor(images=image, return_tensors="pt").to(device))
    naive = (time.perf_counter() - tic) / n
    return {"case": "dinov2", "model": "DINOv2 ViT-S/14 (random weights)", "s_per_question": round(engine, 4),
            "naive_s_per_question": round(naive, 4), "speedup": round(naive / engine, 2)}


def vgg_case(n: int, device: str, rng) -> dict:
    from torchvision.models import vgg19

    from adapters.rules.similarity import VggStyleSimilarity
    from specialists.style_gram import VggStyle

    solver = VggStyleSimilarity.__new__(VggStyleSimilarity)
    solver.model, solver.settings = VggStyle(vgg19(weights=None).features, device), {}
    questions = _questions("Art_Style", "Which image shares the style of the first?", TWO, n, 3, rng)
    return {"case": "vgg_gram", "model": "VGG-19 to relu4_1, 256 px (random weights)",
            "s_per_question": round(_time(solver, questions), 4)}


def owlv2_case(n: int, device: str, rng) -> dict:
    from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2ImageProcessor, Owlv2Processor

    from adapters.rules.detection import Owlv2Tasks
    from specialists.dift import byte_level_clip_tokenizer
    from specialists.owlv2 import Owlv2Detector

    config = Owlv2Config(text_config={"vocab_size": 514, "bos_token_id": 512, "eos_token_id": 513, "pad_token_id": 513},
                         vision_config={"image_size": 960, "patch_size": 16})  # OWLv2 B/16 at 960 px
    tokenizer = byte_level_clip_tokenizer()
    tokenizer.model_max_length = 16
    processor = Owlv2Processor(image_processor=Owlv2ImageProcessor(size={"height": 960, "width": 960}), tokenizer=tokenizer)
    solver = Owlv2Tasks.__new__(Owlv2Tasks)
    solver.model, solver.settings = Owlv2Detector(Owlv2ForObjectDetection(config), processor, device), {"threshold": "0.1"}
    questions = _questions("Spatial_Relation", "Is the cat on the left of the dog?", ("yes", "no"), n, 1, rng)
    return {"case": "owlv2", "model": "OWLv2 B/16 at 960 px (random weights)", "s_per_question": round(_time(solver, questions), 4)}


def seam_case(n: int, device: str, rng) -> dict:
    from adapters.core.solver import SolverOptions

    questions = []
    for k in range(n):
        picture = np.asarray(_photo(rng)).copy()
        piece = picture[225:, 300:].copy()
        picture[225:, 300:] = 0
        questions.append(MCQuestion(f"val_Jigsaw_{k}", "Jigsaw", "lower right corner missing", TWO, None, SOURCE,
                                    _images=[Image.fromarray(picture), Image.fromarray(piece), _photo(rng, 150, 200)]))
    return {"case": "seam", "model": "weight-free", "s_per_question": round(_time(get("seam").build(SolverOptions()), questions), 4)}


CASES = {"seam": seam_case, "dinov2": dinov2_case, "vgg_gram": vgg_case, "owlv2": owlv2_case}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--case", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--record", action="store_true", help="also write the lines to benchmarks/results/task_specialists.jsonl")
    args = parser.parse_args()
    recorder = Recorder("task_specialists", args.record)
    torch.manual_seed(0)
    for name in args.case:
        line = CASES[name](args.questions, args.device, np.random.default_rng(0))
        recorder.emit({**line, "device": args.device, "threads": torch.get_num_threads(), "questions": args.questions})
    recorder.close()


if __name__ == "__main__":
    main()
