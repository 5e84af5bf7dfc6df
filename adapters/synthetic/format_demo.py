"""BLINK-format questions with procedural images and random labels (flow testing only)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from PIL import Image

from ..blink_writer import BlinkRow, write_blink_folder


@dataclass(frozen=True)
class TaskShape:
    n_images: int
    lead: str
    question: str
    choices: tuple[str, ...]


FORMAT_DEMO_TASKS: dict[str, TaskShape] = {
    "Relative_Depth": TaskShape(
        1, "Two points are circled on the image, labeled by A and B beside each circle.",
        "Which point is closer to the camera?", ("A is closer", "B is closer"),
    ),
    "Visual_Correspondence": TaskShape(
        2, "A point is circled on the first image, labeled with REF. We change the camera position "
        "or lighting and shoot the second image. You are given multiple red-circled points on the "
        "second image, choices of \"A, B, C, D\" are drawn beside each circle.",
        "Which point on the second image corresponds to the point in the first image?",
        ("Point A", "Point B", "Point C", "Point D"),
    ),
    "Multi-view_Reasoning": TaskShape(
        2, "The images are frames from a video. The video is shooting a static scene. The camera is "
        "either moving clockwise (left) or counter-clockwise (right) around the object.",
        "The first image is from the beginning of the video and the second image is from the end. "
        "Is the camera moving left or right when shooting the video?", ("left", "right"),
    ),
    "Relative_Reflectance": TaskShape(
        1, "Two points are circled on the image, labeled by A and B beside each circle.",
        "Which point has darker surface color, or the colors is about the same?",
        ("A is darker", "B is darker", "About the same"),
    ),
}


def _procedural_image(rng: np.random.Generator, size: tuple[int, int] = (96, 128)) -> Image.Image:
    """Smooth colour gradients plus blobs: cheap, compressible, different per draw."""
    h, w = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    image = np.zeros((h, w, 3), np.float32)
    for channel in range(3):
        a, b, c = rng.uniform(-1, 1, 3)
        image[..., channel] = 0.5 + 0.3 * np.sin(a * xx / 9 + b * yy / 11 + c * 6)
    for _ in range(4):
        cy, cx, r = rng.uniform(0, h), rng.uniform(0, w), rng.uniform(6, 20)
        mask = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
        image[mask] = rng.uniform(0, 1, 3)
    return Image.fromarray((np.clip(image, 0, 1) * 255).astype(np.uint8))


def format_demo_rows(tasks: Sequence[str], n: int, seed: int) -> list[BlinkRow]:
    """`n` questions per task; the answer letter is drawn uniformly (seeded)."""
    rng = np.random.default_rng(seed)
    rows = []
    for task in tasks:
        shape = FORMAT_DEMO_TASKS[task]
        for number in range(1, n + 1):
            answer = "ABCDEFGH"[int(rng.integers(len(shape.choices)))]
            images = [_procedural_image(rng) for _ in range(shape.n_images)]
            rows.append(BlinkRow(task, number, shape.question, shape.choices, answer, images, lead=shape.lead))
    return rows


def write_format_demo(out: str | Path, tasks: Sequence[str] | None = None, n: int = 20, seed: int = 0) -> Path:
    """Write the format demo in BLINK's layout under `out`; returns `out`."""
    unknown = [t for t in tasks or [] if t not in FORMAT_DEMO_TASKS]
    if unknown:
        raise ValueError(
            f"the synthetic benchmark has no generator for {', '.join(unknown)}; "
            f"it generates {', '.join(FORMAT_DEMO_TASKS)}"
        )
    write_blink_folder(out, format_demo_rows(list(tasks or FORMAT_DEMO_TASKS), n, seed))
    return Path(out)
