"""`specialists markers --blink-root DIR [--tasks T ...] [--output-dir DIR] [--failures DIR]`: check the marker step.

Prints per task the questions whose every expected marker was found, the markers placed by each
pass (`blink_style`: BLINK's own drawing, read first; the general parser's sources otherwise)
and the seconds per image. With --output-dir, writes markers.jsonl (one line per question, the
format `--markers FILE` reads). With --failures (default: OUTPUT/failures), an overlay PNG per
image of every failed question: circles and box outlines found (yellow), words read (cyan, with
the label), markers and boxes assigned (green); the reason is in markers.jsonl. An overlay is
named `{idx}_{image}.png` (an id too long for a file name, or not a plain one, is cut short and
given a hash of the whole id); one that cannot be written is a warning, counted as not written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from adapters.cli.arguments import question_limit

# a question id kept as it is in an overlay's file name: a short run of characters every file system takes
_PLAIN_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")


def add_parser(commands: argparse._SubParsersAction) -> None:

    markers = commands.add_parser("markers", help="find the drawn points and boxes in BLINK images; parse rate per task")
    markers.add_argument("--blink-root", help="BLINK folder ({Task}/{split}-*.parquet) or HF cache; default $BLINK_ROOT")
    markers.add_argument("--split", default="val", choices=["val", "test"])
    markers.add_argument("--tasks", nargs="+", metavar="T", help="tasks (default: every marker task found)")
    markers.add_argument("--limit", type=question_limit, help="at most N questions per task, or a fraction (0.1 = the first "
                         "10%% of each task's questions, at least one)")
    markers.add_argument("--output-dir", dest="output", metavar="DIR",
                         help="folder for markers.jsonl (and failure overlays, unless --failures)")
    markers.add_argument("--output", dest="output", help=argparse.SUPPRESS)  # the older name
    markers.add_argument("--failures", metavar="DIR", help="folder for overlays of the questions that failed")


def overlay_name(idx: str, key: str) -> str:
    """The overlay file of question `idx`'s image `key`: the id itself when it is a plain, short
    name; otherwise its plain characters cut short and a hash of the whole id, so an id too long
    for a file name, or holding a path separator, still gets its own overlay in the folder."""
    if not _PLAIN_ID.fullmatch(idx):
        digest = hashlib.sha256(idx.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        idx = f"{re.sub(r'[^A-Za-z0-9._-]', '_', idx)[:60].lstrip('.')}-{digest}"
    return f"{idx}_{key}.png"


def _overlay(image, details, path: Path) -> None:
    """Draw what the parser found on `image` and write it to `path` (OSError when it cannot be written)."""
    import cv2
    import numpy as np

    canvas = np.array(image.convert("RGB"))
    for c in details.circles:
        cv2.circle(canvas, (int(round(c.x)), int(round(c.y))), int(round(c.r)), (255, 255, 0), 1)
    for read in details.reads:
        x0, y0, x1, y1 = read.rect
        cv2.rectangle(canvas, (x0, y0), (x1, y1), (0, 255, 255), 1)
        cv2.putText(canvas, read.label, (x0, max(8, y0 - 2)), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 255, 255), 1)
    for o in details.outlines:
        cv2.rectangle(canvas, (int(round(o.x0)), int(round(o.y0))), (int(round(o.x1)), int(round(o.y1))), (255, 255, 0), 1)
    for m in details.markers.values():
        if m.box is not None:
            x0, y0, x1, y1 = (int(round(v)) for v in m.box)
            cv2.rectangle(canvas, (x0, y0), (x1, y1), (0, 255, 0), 1)
            cv2.putText(canvas, m.label, (x0 + 2, y0 + 10), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 255, 0), 1)
        cv2.drawMarker(canvas, (int(round(m.xy[0])), int(round(m.xy[1]))), (0, 255, 0), cv2.MARKER_CROSS, 8, 1)
    scale = max(1, 640 // max(canvas.shape[:2]))
    if scale > 1:
        canvas = cv2.resize(canvas, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
    encoded, png = cv2.imencode(".png", cv2.cvtColor(canvas, cv2.COLOR_RGB2BGR))
    if not encoded:
        raise OSError(f"cannot encode the overlay of size {canvas.shape}")
    path.write_bytes(png.tobytes())  # raises, where cv2.imwrite would only return False


def _write_overlays(question, details: dict, folder: Path) -> Counter:
    """Overlays of a failed question's parsed images, counted "written" and "not written"; each
    that cannot be written is a warning naming the question and why, and the command goes on."""
    counts: Counter = Counter()
    for key, parsed in details.items():
        path = folder / overlay_name(question.idx, key)
        try:
            _overlay(question.images[int(key.split("_")[1]) - 1], parsed, path)
            counts["written"] += 1
        except OSError as exc:
            counts["not written"] += 1
            print(f"warning: {question.idx} {key}: overlay not written to {path} ({type(exc).__name__}: "
                  f"{exc.strerror or exc})", file=sys.stderr)
    return counts


def handle(args: argparse.Namespace) -> int:
    from adapters.core.questions import BrokenQuestion, QuestionError
    from adapters.datasets.blink.reader import BlinkReader
    from adapters.markers import MARKER_TASKS, MarkerError, expected_markers, find_markers
    from adapters.markers.find import parse_details
    from adapters.run.runner import questions_limit

    reader = BlinkReader(args.blink_root, split=args.split, tasks=args.tasks)
    tasks = [t for t in reader.tasks if t in MARKER_TASKS]
    if not tasks:
        raise ValueError(f"--blink-root {args.blink_root}: none of the tasks found ({', '.join(reader.tasks)}) "
                         f"draws markers; marker tasks: {', '.join(MARKER_TASKS)}")
    out = Path(args.output) if args.output else None
    failures = Path(args.failures) if args.failures else (out / "failures" if out else None)
    lines = []
    if failures:
        failures.mkdir(parents=True, exist_ok=True)
    rows = []
    overlays: Counter = Counter()
    for task in tasks:
        ok = total = images = 0
        seconds = 0.0
        sources: Counter = Counter()
        limit = questions_limit(args.limit, reader.count(task))
        n = min(reader.count(task), limit) if limit else reader.count(task)
        for question in tqdm(reader.questions(task, limit=limit), total=n, desc=task, unit="q",
                             disable=None, leave=False):  # on a terminal only
            total += 1
            line = {"idx": question.idx, "task": task, "status": "ok", "error": None, "markers": {}}
            if isinstance(question, BrokenQuestion):
                line.update(status="error", error=question.error)
            else:
                started = time.perf_counter()
                try:
                    found = find_markers(question)
                    line["markers"] = found.to_json()
                    sources.update(m.source for image in found.images.values() for m in image.values())
                    ok += 1
                except QuestionError as exc:  # MarkerError, or an image that does not decode
                    line.update(status="error", error=str(exc))
                    details = parse_details(question) if isinstance(exc, MarkerError) else {}
                    for key, parsed in details.items():
                        sources.update(m.source for m in parsed.markers.values())
                        line["markers"][key] = {label: m.to_json() for label, m in parsed.markers.items()}
                    if failures:
                        overlays += _write_overlays(question, details, failures)
                seconds += time.perf_counter() - started
                images += len(expected_markers(question).labels)
            lines.append(line)
        rows.append((task, ok, total, sources, seconds / max(images, 1)))
    width = max(len(t) for t in tasks)
    print(f"{'task':<{width}}  placed  total   rate  blink_style  general  s/image")
    for task, ok, total, sources, per_image in rows:
        rate = f"{100 * ok / total:5.1f}%" if total else "   - "
        # the BLINK-style pass's sources: "blink_style" and its own elimination, "blink_style.elimination"
        blink = sum(n for source, n in sources.items() if source.startswith("blink_style"))
        general = sum(sources.values()) - blink
        print(f"{task:<{width}}  {ok:>6}  {total:>5}  {rate}  {blink:>11}  {general:>7}  {per_image:7.3f}")
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / "markers.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines), encoding="utf-8")
        print(f"wrote {out / 'markers.jsonl'}")
    if failures:
        missing = f", {overlays['not written']} not written (see the warnings above)" if overlays["not written"] else ""
        print(f"{sum(l['status'] != 'ok' for l in lines)} question(s) failed; {overlays['written']} overlay(s) "
              f"written under {failures}{missing}")
    return 0
