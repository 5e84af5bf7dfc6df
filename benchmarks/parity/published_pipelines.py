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
    from adapters.registry import get
    from adapters.solver import SolverOptions

    from .common import specialists_home

    with specialists_home(home):
        yield get(name).build(SolverOptions(checkpoint=checkpoint, settings=settings))


def load_images(images: list[Path]) -> dict[str, Image.Image]:
    return {path.name: Image.open(path).convert("RGB") for path in images}


def similarity_questions(names: list[str], pictures: dict[str, Image.Image], task: str = "Visual_Similarity") -> list:
    """BLINK-layout similarity questions: image i the reference, images i+1 and i+2 the options."""
    from adapters.questions import MCQuestion, QuestionSource

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
