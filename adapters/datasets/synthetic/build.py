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
from tqdm import tqdm

from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
from adapters.datasets.synthetic.generators import GENERATORS
from adapters.markers.blink.draw import BlinkStyle, blink_jpeg, draw_blink_points
from adapters.markers.draw.render import MarkerStyle, draw_points
from adapters.markers.draw.textures import TextureSource
from adapters.markers.labels import ring_colour
from checkpoints.locations import specialists_home

SYNTH_VERSION = 3  # 2: BLINK's own marker style by default; 3: Jigsaw
MARKER_STYLES = ("blink", "varied")


def synth_settings(tasks: Sequence[str], n: int, seed: int, images_dir: str | Path | None,
                   marker_style: str = "blink") -> dict:
    return {"version": SYNTH_VERSION, "tasks": list(tasks), "n": n, "seed": seed,
            "images": str(Path(images_dir).resolve()) if images_dir else None, "marker_style": marker_style}


def _varied_style(rng: np.random.Generator) -> MarkerStyle:
    """Red circles with a label beside each, in random fonts, sizes and sides (the general
    parser's test: drawings BLINK never made)."""
    red = [(255, 0, 0), (230, 20, 20), (255, 40, 0), (220, 0, 80)][int(rng.integers(4))]
    return MarkerStyle.random(rng, colour=red, radius=float(rng.uniform(6, 12)))


def _draw_markers(image: Image.Image, points: dict, task: str, varied: MarkerStyle | None):
    """`image` with `points` drawn, in the `varied` style or else BLINK's: (image, {label: [x, y] as drawn})."""
    if varied is not None:
        return draw_points(image, points, varied), {label: [float(v) for v in xy] for label, xy in points.items()}
    # BLINK's drawing at the scale its scheme gives this image, stored as BLINK stores images
    style = BlinkStyle.for_image(image.width, image.height, ring_colour(task))
    drawn, _ = draw_blink_points(image, points, style)
    centres = {label: [float(round(float(xy[0]))), float(round(float(xy[1])))] for label, xy in points.items()}
    return blink_jpeg(drawn), centres


def write_synthetic(
    out: str | Path, tasks: Sequence[str] | None = None, n: int = 50, seed: int = 0, images_dir: str | Path | None = None,
    marker_style: str = "blink",
) -> Path:
    """Write `n` questions per task under `out` (reused as is when `out` already holds the same set).

    marker_style: "blink" (BLINK's own drawing, JPEG as BLINK stores it) or "varied" (random
    fonts, sizes and sides)."""
    if marker_style not in MARKER_STYLES:
        raise ValueError(f"marker style {marker_style!r}: use one of {', '.join(MARKER_STYLES)}")
    tasks = list(tasks or GENERATORS)
    unknown = [t for t in tasks if t not in GENERATORS]
    if unknown:
        raise ValueError(f"no synthetic generator for {', '.join(unknown)}; generated tasks: {', '.join(GENERATORS)}")
    out = Path(out)
    settings = synth_settings(tasks, n, seed, images_dir, marker_style)
    stamp = out / "synth.json"
    if stamp.exists() and json.loads(stamp.read_text()) == settings:
        return out
    rows, markers, truth = [], [], []
    # a progress bar on a terminal only (disable=None): generating takes minutes at the default size
    bar = tqdm(total=len(tasks) * n, desc="synthetic questions", unit="q", disable=None, leave=False)
    for task_number, task in enumerate(tasks):
        for number in range(1, n + 1):
            bar.update()
            # one generator per question: adding tasks or questions never changes the others
            rng = np.random.default_rng([seed, task_number, number])
            textures = TextureSource(rng, images_dir)
            draft = GENERATORS[task](rng, textures)
            varied = _varied_style(rng) if marker_style == "varied" else None  # one style per question
            images, drawn_points = [], {}
            for i, image in enumerate(draft.images):
                pil = Image.fromarray(image)
                if draft.points.get(i):
                    pil, drawn_points[i] = _draw_markers(pil, draft.points[i], task, varied)
                images.append(pil)
            row = BlinkRow(task, number, draft.question, draft.choices, draft.answer, images, lead=draft.lead)
            rows.append(row)
            idx = row.idx("val")
            markers.append({"idx": idx, "task": task, "status": "ok", "error": None, "markers": {
                f"image_{i + 1}": {label: {"xy": xy, "confidence": 1.0} for label, xy in pts.items()}
                for i, pts in drawn_points.items()}})
            truth.append({"idx": idx, "task": task, "answer": draft.answer, "textures": textures.kind, **draft.truth})
    bar.close()
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
