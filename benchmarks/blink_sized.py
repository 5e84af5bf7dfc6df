"""A BLINK-sized synthetic question set, made fast enough for a timed check.

BLINK's val split has 1,901 questions. Generating that many synthetic questions takes tens of
minutes (the multi-view and depth scenes are ray-cast on the CPU), so this writes `base`
generated questions per task (`specialists synth`'s generator) and copies them up to `total`
questions spread evenly over the generated tasks. Every copy's images are scaled by `scale`
(BLINK's photographs are larger than the generator's 320x240) and carry a small seeded
per-pixel jitter, re-encoded as JPEG at BLINK's quality, so no two questions share an image: a
cold feature cache really is cold. The markers file moves with the copies (markers scaled too),
so `specialists run --benchmark blink --blink-root DIR --markers file` reads it.

The answers of copies are those of their originals; this set measures time, not accuracy.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from adapters.datasets.synthetic.build import write_synthetic

IMAGE_COLUMNS = ("image_1", "image_2", "image_3", "image_4")
BLINK_VAL_QUESTIONS = 1901


def _copy_image(data: bytes, scale: int, rng: np.random.Generator) -> bytes:
    image = Image.open(io.BytesIO(data)).convert("RGB")
    if scale != 1:
        image = image.resize((image.width * scale, image.height * scale), Image.BILINEAR)
    pixels = np.asarray(image).astype(np.int16) + rng.integers(-2, 3, (image.height, image.width, 3))
    out = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(out, format="JPEG", quality=75)
    return out.getvalue()


def _scaled_markers(markers: dict, scale: int) -> dict:
    shift = (scale - 1) / 2  # pixel centres: x -> scale * x + (scale - 1) / 2
    return {image: {label: {**m, "xy": [v * scale + shift for v in m["xy"]]} for label, m in labels.items()}
            for image, labels in markers.items()}


def write_blink_sized(out: str | Path, total: int = BLINK_VAL_QUESTIONS, base: int = 6, scale: int = 2,
                      seed: int = 0) -> dict:
    """Write the set under `out` (the generated base beside it, OUT-base); returns what was written:
    {"questions", "per_task", "base_per_task", "scale", "image_sides"}."""
    out = Path(out)
    base_dir = write_synthetic(out.parent / f"{out.name}-base", None, base, seed)  # beside it: not a task folder
    tasks = sorted(p.name for p in base_dir.iterdir() if p.is_dir())
    markers = {}
    for line in (base_dir / "markers.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        markers[record["idx"]] = record
    per_task = {task: total // len(tasks) + (i < total % len(tasks)) for i, task in enumerate(tasks)}
    rng = np.random.default_rng(seed)
    lines, sides = [], set()
    for task in tasks:
        (source,) = sorted((base_dir / task).glob("val-*.parquet"))
        table = pq.read_table(source)
        rows = table.to_pylist()
        copies = []
        for number in range(1, per_task[task] + 1):
            row = dict(rows[(number - 1) % len(rows)])
            original = row["idx"]
            row["idx"] = f"val_{task}_{number}"
            for column in IMAGE_COLUMNS:
                if row.get(column) and row[column].get("bytes"):
                    row[column] = {"bytes": _copy_image(row[column]["bytes"], scale, rng), "path": None}
            if number == 1:
                sides.add(Image.open(io.BytesIO(row["image_1"]["bytes"])).size)
            copies.append(row)
            if original in markers:
                record = markers[original]
                lines.append({**record, "idx": row["idx"], "markers": _scaled_markers(record["markers"], scale)})
        folder = out / task
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(copies, schema=table.schema), folder / "val-00000-of-00001.parquet")
    (out / "markers.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return {"questions": sum(per_task.values()), "per_task": per_task, "base_per_task": base, "scale": scale,
            "image_sides": sorted(sides)}
