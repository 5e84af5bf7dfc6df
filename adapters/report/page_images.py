"""The image files of the report page: each question image as a thumbnail and a larger view,
and the evidence pictures a run kept, copied into the page's folder so it opens from disk.

    write_question_images(entries, questions, folder) -> seconds spent (entries gain "images")
    copy_evidence(answer, run_dir, folder, run_index)   (answer["evidence"] gains {"name", "src"})
"""

from __future__ import annotations

import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Mapping

from PIL import Image

from adapters.core.questions import MCQuestion
from adapters.run.folder import file_stem

THUMB_SIDE = 240  # px, long side: a row of the page
FULL_SIDE = 1280  # px, long side: the view on click (BLINK's images are smaller: kept as they are)
IMAGE_DIR = "img"
EVIDENCE_DIR = "evidence"


def _save(image: Image.Image, side: int, path: Path, quality: int) -> None:
    """`image` shrunk to `side` on its long side when larger, as JPEG. A JPEG that fits is
    written as its own bytes (decoding and encoding again cost time and quality); a browser
    turns it by its EXIF orientation as the reader did."""
    encoded = getattr(image, "encoded", None)
    if encoded is not None and max(image.size) <= side:
        path.write_bytes(encoded)
        return
    image = image.convert("RGB")
    if max(image.size) > side:
        image = image.copy()
        # reducing_gap: a fast integer reduction first, then Lanczos (half the time, same look at this size)
        image.thumbnail((side, side), Image.Resampling.LANCZOS, reducing_gap=2.0)
    image.save(path, "JPEG", quality=quality)


def _one(entry: dict, question: MCQuestion, folder: Path) -> None:
    try:
        images = question.images
    except Exception as exc:  # a damaged image: the page says so and goes on (the run recorded it too)
        entry["note"] = f"images not shown: {exc}"
        return
    stem = file_stem(entry["idx"])
    shown = []
    for number, image in enumerate(images, start=1):
        thumb, full = f"{IMAGE_DIR}/{stem}.{number}.t.jpg", f"{IMAGE_DIR}/{stem}.{number}.jpg"
        _save(image, FULL_SIDE, folder / full, 90)
        if max(image.size) > THUMB_SIDE:
            _save(image, THUMB_SIDE, folder / thumb, 80)
        else:  # small enough to be its own thumbnail
            thumb = full
        shown.append({"key": f"image_{number}", "thumb": thumb, "full": full, "w": image.size[0], "h": image.size[1]})
    entry["images"] = shown


def write_question_images(entries: Mapping[str, dict], questions: Mapping[str, Any], folder: Path,
                          workers: int = 4) -> float:
    """Write every question's images (decoded, shrunk, JPEG) under folder/img; returns seconds.

    Threads: decoding and encoding run in PIL's C code, which releases the GIL."""
    tic = time.perf_counter()
    (folder / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
    jobs = [(entries[idx], q) for idx, q in questions.items() if idx in entries and isinstance(q, MCQuestion)]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for _ in pool.map(lambda job: _one(job[0], job[1], folder), jobs):
            pass
    return time.perf_counter() - tic


def copy_evidence(answer: dict, recorded: Mapping[str, str] | None, run_dir: Path, folder: Path,
                  run_index: int) -> None:
    """The evidence pictures a sample names (name -> path in its run folder), copied under
    folder/evidence/<run>/; a file that is gone is left out (the details table still shows)."""
    for name, relative in (recorded or {}).items():
        source = run_dir / relative
        if not source.is_file():
            continue
        target = Path(EVIDENCE_DIR) / str(run_index) / Path(relative).name
        (folder / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / target)
        answer["evidence"].append({"name": str(name), "src": target.as_posix()})
