"""How quickly the report page opens with thousands of questions, and how long its images take.

    python -m benchmarks.report_page [--questions 5000] [--images 200] [--record]

Page: N questions (4 specialists and MLLMs each, details, raw answers; one small image each) opened
in headless Chromium; the page's own script records the milliseconds from its start to the first
rows (data-render-ms). Paged (50 rows, what the page does) against every row built at once (the
naive page). Images: `write_question_images` on BLINK-sized photographs (1000x700, JPEG and PNG:
a JPEG that fits is copied, a PNG decoded and encoded), 1 thread and 4. Prints
JSON lines; needs `chromium` on PATH for the page figures.
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource, decode_image
from adapters.report.page_data import mllm_answer, page_data, question_entry
from adapters.report.page_html import render_page
from adapters.report.page_images import write_question_images
from benchmarks.record import Recorder

TASKS = ("Relative_Depth", "Visual_Correspondence", "Relative_Reflectance", "Counting")


def synthetic_page(n: int, page_size: int, folder: Path) -> Path:
    rng = np.random.default_rng(0)
    (folder / "img").mkdir(parents=True, exist_ok=True)
    Image.fromarray(rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)).save(folder / "img" / "one.jpg")
    systems = [{"name": "depth_anything", "kind": "specialist"}, {"name": "dift", "kind": "specialist"},
               {"name": "GPT-4o", "kind": "mllm"}, {"name": "Claude 3 Opus", "kind": "mllm"}]
    questions = []
    for i in range(n):
        task = TASKS[i % len(TASKS)]
        gold = "AB"[i % 2]
        answers = [{"pred": "A", "ok": gold == "A", "status": "ok", "error": None, "sec": 0.12, "rule": "depth.x",
                    "tie": False, "scores": {"A": 0.61, "B": 0.42}, "details": {"disparity": {"A": 0.61, "B": 0.42}},
                    "who": "depth_anything", "evidence": []}, None,
                   mllm_answer("B", gold == "B", "with_text", "(B) The second point is closer because " * 3),
                   mllm_answer(None, False, "unparsed", "I cannot tell.")]
        entry = question_entry(f"val_{task}_{i + 1}", task, gold, answers, "Which point is closer to the camera?",
                               ["A is closer", "B is closer"])
        entry["images"] = [{"key": "image_1", "thumb": "img/one.jpg", "full": "img/one.jpg", "w": 120, "h": 90}]
        entry["markers"] = {"image_1": {"A": {"xy": [30.0, 40.0]}, "B": {"xy": [90.0, 50.0]}}}
        questions.append(entry)
    data = page_data("benchmark page", "compare", systems, questions, {"tasks": list(TASKS), "rows": []})
    data["page_size"] = page_size
    index = folder / "index.html"
    index.write_text(render_page(data), encoding="utf-8")
    return index


def open_in_chromium(chromium: str, index: Path, profile: Path) -> dict:
    tic = time.perf_counter()
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                           "--dump-dom", index.as_uri()], capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - tic
    found = re.search(r'data-render-ms="([\d.]+)"', done.stdout)
    return {"render_ms": float(found.group(1)) if found else None, "chromium_wall_s": round(wall, 2)}


def image_writing(n: int, folder: Path, fmt: str) -> dict:
    """Seconds per image of `write_question_images` (decoding included, as the page pays it)."""
    rng = np.random.default_rng(1)
    photo = io.BytesIO()
    # a photograph's statistics, roughly: smooth regions and edges, a little sensor noise
    blocks = cv2.resize(rng.integers(0, 256, (70, 100, 3)).astype(np.uint8), (1000, 700), interpolation=cv2.INTER_CUBIC)
    noisy = np.clip(blocks.astype(int) + rng.integers(-8, 8, blocks.shape), 0, 255).astype(np.uint8)
    Image.fromarray(noisy).save(photo, fmt)
    data = photo.getvalue()
    questions, entries = {}, {}
    for i in range(n):
        idx = f"val_Counting_{i + 1}"
        # decode_image as the reader does: a JPEG keeps its bytes (the page then copies them)
        questions[idx] = MCQuestion(idx, "Counting", "How many?", ("1", "2"), "A", QuestionSource("blink", "val"),
                                    _image_loader=lambda: [decode_image(data, idx="q", column="image_1")])
        entries[idx] = {"idx": idx}
    quarter = dict(list(questions.items())[: n // 4])
    one = write_question_images(entries, quarter, folder / f"{fmt}-one", workers=1) / len(quarter)
    pooled = write_question_images(entries, questions, folder / f"{fmt}-pool", workers=4) / n
    return {"benchmark": "report_page_images", "source": f"1000x700 {fmt}", "images": n,
            "seconds_per_image_1_thread": round(one, 4), "seconds_per_image_4_threads": round(pooled, 4),
            "ratio": round(one / pooled, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5000)
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--record", action="store_true", help="keep the lines in benchmarks/results/report_page.jsonl")
    args = parser.parse_args()
    recorder = Recorder("report_page", args.record)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium:
            paged = synthetic_page(args.questions, 50, tmp / "paged")
            naive = synthetic_page(args.questions, args.questions, tmp / "naive")
            a = open_in_chromium(chromium, paged, tmp / "profile")
            b = open_in_chromium(chromium, naive, tmp / "profile")
            recorder.emit({"benchmark": "report_page_open", "questions": args.questions,
                           "index_html_mb": round(paged.stat().st_size / 1e6, 2), "paged_50": a, "all_rows": b,
                           "ratio": round(b["render_ms"] / a["render_ms"], 1) if a["render_ms"] and b["render_ms"]
                           else None})
        else:
            print('{"benchmark": "report_page_open", "skipped": "no chromium on PATH"}')
        for fmt in ("JPEG", "PNG"):
            recorder.emit(image_writing(args.images, tmp, fmt))
    recorder.close()


if __name__ == "__main__":
    main()
