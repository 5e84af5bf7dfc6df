"""Test helper: a tiny BLINK-format folder (3 tasks, a few rows each, generated images).

`make_blink_fixture(root)` returns the rows it wrote so tests know every answer. Options make
the damaged variants the reader tests need.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from adapters.datasets.blink.writer import BlinkRow, write_blink_folder

FIXTURE_TASKS = {
    # task: (n_images, question, choices)
    "Relative_Depth": (1, "Which point is closer to the camera?", ("A is closer", "B is closer")),
    "Visual_Correspondence": (
        2,
        "Which point on the second image corresponds to the point in the first image?",
        ("Point A", "Point B", "Point C", "Point D"),
    ),
    "Relative_Reflectance": (
        1,
        "Which point has darker surface color, or the colors is about the same?",
        ("A is darker", "B is darker", "About the same"),
    ),
}


def random_image(rng: np.random.Generator, size: tuple[int, int] = (24, 32)) -> Image.Image:
    return Image.fromarray(rng.integers(0, 256, (*size, 3), dtype=np.uint8))


def fixture_rows(n_per_task: int = 4, seed: int = 0, hidden: bool = False) -> list[BlinkRow]:
    rng = np.random.default_rng(seed)
    rows = []
    for task, (n_images, question, choices) in FIXTURE_TASKS.items():
        for number in range(1, n_per_task + 1):
            answer = None if hidden else "ABCD"[int(rng.integers(len(choices)))]
            images = [random_image(rng) for _ in range(n_images)]
            rows.append(BlinkRow(task, number, question, choices, answer, images))
    return rows


def make_blink_fixture(
    root: str | Path, n_per_task: int = 4, seed: int = 0, split: str = "val", hidden: bool = False
) -> list[BlinkRow]:
    """Write the fixture under `root`; returns the rows (answers included)."""
    rows = fixture_rows(n_per_task, seed, hidden)
    write_blink_folder(root, rows, split=split)
    return rows
