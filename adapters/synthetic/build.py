"""`specialists synth`: generate questions with known answers and write them in BLINK's format.

Besides the parquet folder, the output holds `markers.jsonl` (where every marker was drawn, in the
format `specialists run --markers` reads) and `truth.jsonl` (the facts behind each answer), and
`synth.json` (the settings, so a cached set is reused only when they match).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Sequence

import numpy as np
from PIL import Image

from checkpoints.locations import specialists_home

from ..blink_writer import BlinkRow, write_blink_folder
from ..markers.render import MarkerStyle, draw_points
from .generators import GENERATORS
from .textures import TextureSource

SYNTH_VERSION = 1


def synth_settings(tasks: Sequence[str], n: int, seed: int, images_dir: str | Path | None) -> dict:
    return {"version": SYNTH_VERSION, "tasks": list(tasks), "n": n, "seed": seed,
            "images": str(Path(images_dir).resolve()) if images_dir else None}


def _blink_like_style(rng: np.random.Generator) -> MarkerStyle:
    """BLINK draws red circles with a label beside each; fonts, sizes and sides vary here."""
    red = [(255, 0, 0), (230, 20, 20), (255, 40, 0), (220, 0, 80)][int(rng.integers(4))]
    return MarkerStyle.random(rng, colour=red, radius=float(rng.uniform(6, 12)))


def write_synthetic(
    out: str | Path, tasks: Sequence[str] | None = None, n: int = 50, seed: int = 0, images_dir: str | Path | None = None
) -> Path:
    """Write `n` questions per task under `out` (reused as is when `out` already holds the same set)."""
    tasks = list(tasks or GENERATORS)
    unknown = [t for t in tasks if t not in GENERATORS]
    if unknown:
        raise ValueError(f"no synthetic generator for {', '.join(unknown)}; generated tasks: {', '.join(GENERATORS)}")
    out = Path(out)
    settings = synth_settings(tasks, n, seed, images_dir)
    stamp = out / "synth.json"
    if stamp.exists() and json.loads(stamp.read_text()) == settings:
        return out
    rows, markers, truth = [], [], []
    for task_number, task in enumerate(tasks):
        for number in range(1, n + 1):
            # one generator per question: adding tasks or questions never changes the others
            rng = np.random.default_rng([seed, task_number, number])
            textures = TextureSource(rng, images_dir)
            draft = GENERATORS[task](rng, textures)
            style = _blink_like_style(rng)
            images = []
            for i, image in enumerate(draft.images):
                pil = Image.fromarray(image)
                images.append(draw_points(pil, draft.points[i], style) if draft.points.get(i) else pil)
            row = BlinkRow(task, number, draft.question, draft.choices, draft.answer, images, lead=draft.lead)
            rows.append(row)
            idx = row.idx("val")
            markers.append({"idx": idx, "task": task, "status": "ok", "error": None, "markers": {
                f"image_{i + 1}": {label: {"xy": list(xy), "confidence": 1.0} for label, xy in pts.items()}
                for i, pts in draft.points.items()}})
            truth.append({"idx": idx, "task": task, "answer": draft.answer, "textures": textures.kind, **draft.truth})
    out.mkdir(parents=True, exist_ok=True)
    write_blink_folder(out, rows, split="val")
    for name, lines in (("markers.jsonl", markers), ("truth.jsonl", truth)):
        (out / name).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    stamp.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return out


def cached_synthetic(n: int, seed: int, images_dir: str | Path | None = None) -> Path:
    """The synthetic set for these settings under SPECIALISTS_HOME/synthetic, generated on first use.

    Generated into a private folder and renamed into place, so two runs starting together never
    read a half-written set.
    """
    textures = "procedural" if images_dir is None else hashlib.sha256(str(Path(images_dir).resolve()).encode()).hexdigest()[:12]
    target = specialists_home() / "synthetic" / f"v{SYNTH_VERSION}-seed{seed}-n{n}-{textures}"
    if (target / "synth.json").exists():
        return target
    staging = target.parent / f".{target.name}.{os.getpid()}"
    write_synthetic(staging, None, n, seed, images_dir)
    try:
        staging.rename(target)
    except OSError:  # another process finished first: keep its copy
        shutil.rmtree(staging, ignore_errors=True)
    return target
