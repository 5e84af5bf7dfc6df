"""What the checks against a published reference pipeline share (DINOv2, OWLv2, Grounding DINO,
DreamSim, VGG-19): the reference there is a package (transformers, dreamsim, torchvision), not a
checkout, so `--official FAMILY=PATH` takes the word `package` (or any path, ignored where the
family needs no checkout) and the line names the package version instead of a commit.

The release file is written from seeded random weights in the layout the real download has,
imported with `specialists checkpoints import`, and our solver loads it from there; the
reference side loads the same file with the package's own loader."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

from PIL import Image

REPO = Path(__file__).resolve().parents[2]
SIMILARITY_CHOICES = ("the second image", "the third image")
SIMILARITY_QUESTION = ("Given three similar but different images, take the first image as reference. Can you tell "
                       "which one of the latter two images is most similar to the first one?")


def import_checkpoint(name: str, path: Path, home: Path) -> Path:
    """`specialists checkpoints import NAME PATH --link` into `home`; the path the store resolves."""
    env = {**os.environ, "SPECIALISTS_HOME": str(home), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "specialists", "checkpoints", "import", name, str(path), "--link"],
                          env=env, capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise RuntimeError(f"specialists checkpoints import {name} {path} failed: {done.stdout}{done.stderr}")
    from checkpoints import resolve

    return Path(resolve(name, home=home).path)


@contextlib.contextmanager
def our_solver(name: str, checkpoint: str, home: Path, **settings: str) -> Iterator:
    """Our solver `name` built on `checkpoint` from the store at `home`, as `specialists run` builds it."""
    from adapters.core.registry import get
    from adapters.core.solver import SolverOptions
    from benchmarks.parity.common import specialists_home

    with specialists_home(home):
        yield get(name).build(SolverOptions(checkpoint=checkpoint, settings=settings))


def load_images(images: list[Path]) -> dict[str, Image.Image]:
    return {path.name: Image.open(path).convert("RGB") for path in images}


def similarity_questions(names: list[str], pictures: dict[str, Image.Image], task: str = "Visual_Similarity") -> list:
    """BLINK-layout similarity questions: image i the reference, images i+1 and i+2 the options."""
    from adapters.core.questions import MCQuestion, QuestionSource

    questions = []
    for i in range(len(names)):
        group = [names[(i + k) % len(names)] for k in range(3)]
        questions.append(MCQuestion(f"parity_{task}_{i}", task, SIMILARITY_QUESTION, SIMILARITY_CHOICES, None,
                                    QuestionSource("parity", "val"), question=SIMILARITY_QUESTION,
                                    _images=[pictures[name] for name in group]))
    return questions


def agreement(pairs: list[tuple[str | None, str | None]]) -> dict:
    """{"n", "agree", "agreement"} over (ours, reference) answers."""
    agree = sum(a == b for a, b in pairs)
    return {"n": len(pairs), "agree": agree, "agreement": agree / len(pairs) if pairs else None}


def package_version(name: str) -> str:
    from importlib.metadata import version

    return f"{name} {version(name)}"


# Detection questions on any photograph: what to count, and two things to relate (random weights
# find "boxes" for any phrase; the check is that both sides find the same ones).
OBJECTS = ("cat", "chair", "building", "person")
RELATIONS = ("left of", "above")


def detection_questions(pictures: dict[str, Image.Image]) -> list:
    """Per image one Counting question and one Spatial_Relation question, BLINK's wording."""
    from adapters.core.questions import MCQuestion, QuestionSource

    questions = []
    for i, (name, image) in enumerate(pictures.items()):
        counted = OBJECTS[i % len(OBJECTS)]
        subject, obj = OBJECTS[i % len(OBJECTS)], OBJECTS[(i + 1) % len(OBJECTS)]
        relation = RELATIONS[i % len(RELATIONS)]
        texts = {"Counting": (f"How many {counted}s are in the image?", ("0", "1", "2", "3")),
                 "Spatial_Relation": (f"Is the {subject} {'to the ' if relation == 'left of' else ''}{relation} the "
                                      f"{obj}?", ("yes", "no"))}
        for task, (text, choices) in texts.items():
            questions.append(MCQuestion(f"parity_{task}_{i}", task, text, choices, None, QuestionSource("parity", "val"),
                                        question=text, _images=[image], meta={"image": name}))
    return questions


def detection_errors(ours, reference, image: Image.Image) -> dict:
    """How far our Detections are from the reference pipeline's (same boxes, same order): boxes as
    both give them (unclipped), scores, labels, and how many boxes run outside the image (into
    OWLv2's square padding), which a clipping rule would move."""
    from benchmarks.parity.common import dense_errors

    outside = ((reference.boxes[:, 0::2] < 0) | (reference.boxes[:, 0::2] > image.width)).any(dim=1) | \
        ((reference.boxes[:, 1::2] < 0) | (reference.boxes[:, 1::2] > image.height)).any(dim=1)
    return {"boxes": dense_errors(ours.boxes, reference.boxes), "scores": dense_errors(ours.scores, reference.scores),
            "labels_equal": float((ours.labels == reference.labels).float().mean()),
            "reference_boxes_outside_image": int(outside.sum()), "boxes_n": int(reference.boxes.shape[0])}


def decide_detection_questions(solver, questions: list, reference_detections) -> tuple[list[dict], dict]:
    """Our solver end to end, and our rule on the reference pipeline's detections for the same
    question (`reference_detections(image, phrases) -> Detections`)."""
    rows, pairs = [], []
    for question in questions:
        mine = solver.decide(question)
        image, phrases = solver.model_input(question)
        theirs = solver.decision(question, reference_detections(image, phrases))
        pairs.append((mine.pred, theirs.pred))
        rows.append({"question": question.idx, "task": question.task, "image": question.meta["image"],
                     "phrases": list(phrases), "ours": mine.pred, "reference": theirs.pred,
                     "details_ours": {k: v for k, v in mine.details.items() if k in ("count", "relation_score")},
                     "details_reference": {k: v for k, v in theirs.details.items() if k in ("count", "relation_score")},
                     "abstain_reasons": [d.details.get("abstain_reason") for d in (mine, theirs)]})
    counts = agreement(pairs)
    counts["both_abstained"] = sum(a is None and b is None for a, b in pairs)
    counts["by_task"] = {task: agreement([(r["ours"], r["reference"]) for r in rows if r["task"] == task])
                         for task in sorted({r["task"] for r in rows})}
    return rows, counts


def detection_parity(solver_name: str, checkpoint: str, folder: Path, pictures: dict[str, Image.Image],
                     reference_detections, workdir: Path, errors=detection_errors) -> dict:
    """A detector's parity run: the release `folder` imported as `checkpoint`, our `solver_name`
    built on it, its Detections on each picture's questions against `reference_detections(image,
    phrases)` (per_image, by `errors`), and both sides' decisions (decide_detection_questions)."""
    home = workdir / "home"
    import_checkpoint(checkpoint, folder, home)
    questions = detection_questions(pictures)
    with our_solver(solver_name, checkpoint, home) as solver:
        per_image = []
        for question in questions:
            image, phrases = solver.model_input(question)
            (ours,) = solver.model([image], [phrases])
            per_image.append({"image": question.meta["image"], "phrases": ", ".join(phrases),
                              **errors(ours, reference_detections(image, phrases), image)})
        rows, decisions = decide_detection_questions(solver, questions, reference_detections)
        settings = dict(solver.settings)
    return {"per_image": per_image, "decisions": {**decisions, "questions": rows}, "ours": settings}


def word_clip_tokenizer(words: tuple[str, ...], max_length: int):
    """A CLIP BPE tokenizer whose merges make each of `words` one token (every other text falls
    back to bytes): the real tokenizer class and file layout, with a vocabulary made here so
    that "a photo of a cat" takes the few tokens the released vocabulary gives it."""
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import CLIPTokenizer

    symbols = sorted(ByteLevel.alphabet())
    vocab = {s: i for i, s in enumerate(symbols)}
    vocab.update({s + "</w>": i + len(symbols) for i, s in enumerate(symbols)})
    merges = []
    for word in words:
        parts = list(word[:-1]) + [word[-1] + "</w>"]
        joined = parts[0]
        for part in parts[1:]:
            if (joined, part) not in merges:
                merges.append((joined, part))
            joined += part
            vocab.setdefault(joined, len(vocab))
    vocab.update({"<|startoftext|>": len(vocab), "<|endoftext|>": len(vocab) + 1})
    return CLIPTokenizer(vocab=vocab, merges=merges, model_max_length=max_length), merges
