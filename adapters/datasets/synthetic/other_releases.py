"""Small MARVEL and BLINK-Twice folders in their releases' formats, with answers known by
construction: the fixtures the readers, metrics and `compare` are tested on (no download).

    write_marvel_release(root, n=12, seed=0, layout="git" | "hub") -> [puzzle records]
    write_blink_twice_release(root, n_groups=4, seed=0, fmt="parquet" | "jsonl") -> [question rows]

MARVEL puzzles are drawn as the release lays them out: a grid of bordered context panels (one of
them the blank, holding a "?") above a row of four bordered choice panels, shapes inside; the
counts in `c_perception_answer_tuple` are the panels drawn. Not MARVEL's pictures: only its
format and layout.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

# task configuration -> context grid (rows, columns); the release's values
GRIDS = {"Sequence": (1, 5), "Two-row": (2, 3), "Matrix": (3, 3), "Group": (1, 3), "3D": (1, 1)}
PATTERNS = ("Temporal Movement", "Spatial Relationship", "Quantities", "Mathematical", "2D-Geometry", "3D-Geometry")
PANEL = 90  # px per panel side
GAP = 14


def png_bytes(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


def _panel(canvas: np.ndarray, x: int, y: int, rng: np.random.Generator, blank: bool) -> None:
    cv2.rectangle(canvas, (x, y), (x + PANEL, y + PANEL), (0, 0, 0), 2)
    if blank:
        cv2.putText(canvas, "?", (x + PANEL // 2 - 12, y + PANEL // 2 + 14), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (0, 0, 0), 3)
        return
    for _ in range(int(rng.integers(1, 4))):
        cx, cy = (int(v) for v in rng.integers(20, PANEL - 20, 2))
        size = int(rng.integers(6, 16))
        colour = tuple(int(c) for c in rng.integers(0, 200, 3))
        if rng.uniform() < 0.5:
            cv2.circle(canvas, (x + cx, y + cy), size, colour, -1)
        else:
            cv2.rectangle(canvas, (x + cx - size, y + cy - size), (x + cx + size, y + cy + size), colour, -1)


def draw_puzzle(configuration: str, rng: np.random.Generator) -> tuple[np.ndarray, tuple[int, int, int]]:
    """(H, W, 3) uint8 puzzle image and its panel counts (context with the blank, choices, total).
    Sequences are drawn as panels apart; the other configurations, as the release mostly draws
    them, as one frame whose cells share their borders (the choices too)."""
    rows, columns = GRIDS[configuration]
    if configuration == "Sequence":
        columns = int(rng.integers(4, 7))
    gap = GAP if configuration == "Sequence" else 0  # 0: neighbouring panels share a border
    pitch = PANEL + gap
    width = max(columns, 4) * (PANEL + GAP) + 2 * GAP
    height = (rows + 1) * (PANEL + GAP) + 4 * GAP
    canvas = np.full((height, width, 3), 255, np.uint8)
    blank = int(rng.integers(rows * columns))
    for k in range(rows * columns):
        r, c = divmod(k, columns)
        _panel(canvas, GAP + c * pitch, GAP + r * pitch, rng, blank=k == blank)
    top = GAP + rows * pitch + 3 * GAP
    for c in range(4):
        _panel(canvas, GAP + c * pitch, top, rng, blank=False)
    return canvas, (rows * columns, 4, rows * columns + 4)


def write_marvel_release(root: str | Path, n: int = 12, seed: int = 0, layout: str = "git") -> list[dict[str, Any]]:
    """n puzzles under `root` as the GitHub release (marvel_label.json, Marvel/<id>.png) or the
    hub's parquet (data/train-00000-of-00001.parquet with an `image` column); their records."""
    root = Path(root)
    rng = np.random.default_rng(seed)
    records, images = [], []
    configurations = list(GRIDS)
    for i in range(1, n + 1):
        configuration = configurations[(i - 1) % len(configurations)]
        image, counts = draw_puzzle(configuration, rng)
        answer = int(rng.integers(1, 5))
        fine_yes = rng.uniform() < 0.3
        records.append({
            "id": i, "pattern": PATTERNS[(i - 1) % len(PATTERNS)], "task_configuration": configuration,
            "avr_question": "Choose the choice (marked by 1, 2, 3, or 4) that completes the puzzle.",
            "answer": answer, "explanation": "rendered fixture",
            "f_perception_question": ("Does choice 2 contain a circle or not?" if fine_yes
                                      else "Is the shape in choice 1 on the upper or the lower side?"),
            "f_perception_answer": "yes" if fine_yes else ("upper" if i % 2 else "lower"),
            "f_perception_distractor": "no" if fine_yes else ("lower" if i % 2 else "upper"),
            "c_perception_question_tuple": ["How many panels are in the context part, including the blank grid?",
                                            "How many panels are in the choices part?",
                                            "How many panels are in the whole puzzle?"],
            "c_perception_answer_tuple": list(counts),
        })
        images.append(image)
    if layout == "git":
        (root / "Marvel").mkdir(parents=True, exist_ok=True)
        (root / "marvel_label.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
        for record, image in zip(records, images):
            (root / "Marvel" / f"{record['id']}.png").write_bytes(png_bytes(image))
    elif layout == "hub":
        (root / "data").mkdir(parents=True, exist_ok=True)
        rows = [{**r, "file": f"images/{r['id']}.png", "image": {"bytes": png_bytes(im), "path": f"{r['id']}.png"}}
                for r, im in zip(records, images)]
        pq.write_table(pa.Table.from_pylist(rows), root / "data" / "train-00000-of-00001.parquet")
    else:
        raise ValueError(f"layout is 'git' or 'hub', not {layout!r}")
    return records


def write_blink_twice_release(root: str | Path, n_groups: int = 4, seed: int = 0, fmt: str = "parquet") -> list[dict[str, Any]]:
    """n_groups groups (a main image and its adversarial twin, two yes/no questions each) under
    `root` as one parquet or JSON Lines file with images in root/images; their question rows."""
    root = Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    rows = []
    categories = ("Visual Misleading", "Art Illusion", "Forced Perspective", "Motion Illusion")
    for g in range(n_groups):
        for twin, kind in enumerate(("main", "adversarial")):
            name = f"{g}_{kind}.png"
            image = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
            (root / "images" / name).write_bytes(png_bytes(image))
            for q in range(2):
                # the main image's questions answer no, the edited twin's yes (as the release builds them)
                answer = "No" if kind == "main" else "Yes"
                rows.append({"question_id": f"{g}_{kind}_{q}", "image_id": f"{g}_{kind}", "group_id": str(g),
                             "image": name, "question": f"Is the line on the {'left' if q else 'right'} longer?",
                             "answer": answer, "category": categories[g % len(categories)]})
    if fmt == "parquet":
        pq.write_table(pa.Table.from_pylist(rows), root / "blink_twice.parquet")
    elif fmt == "jsonl":
        (root / "blink_twice.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        raise ValueError(f"fmt is 'parquet' or 'jsonl', not {fmt!r}")
    return rows
