"""Object_Localization's boxes in BLINK's drawing, read back by the BLINK-style pass (prints one
JSON line per layout).

Renders box A (red) and box B (green) as draw.blink.draw_blink_boxes does (B first, A over it),
over crops of the photographs in ../shared/data/images (procedural backgrounds without them),
500x375 or 375x500, JPEG at quality 70-90 as BLINK stores its images, then reads them with
blink_style.boxes.read_blink_boxes. Two layouts:
- "same_object" (BLINK's questions): both boxes around one object, one tight (within 3 px) and
  one loose or shifted (IoU with the object 0.3-0.8), so their lines often run close together;
- "independent": each box anywhere (30-300 px sides), a tenth running past the right edge.
A box is right when every side is within 2 px of the drawn line; a wrong one is placed elsewhere.

    .venv/bin/python -m benchmarks.blink_style_boxes [--n 500] [--seed 0] [--record]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from adapters.markers.blink.boxes import read_blink_boxes
from adapters.markers.blink.draw import blink_jpeg, draw_blink_boxes
from adapters.markers.draw.scenes import background, load_photos
from benchmarks.record import Recorder

TOLERANCE = 2.0


def _clip(box, width, height):
    x0, y0, x1, y1 = box
    return (max(0, x0), max(0, y0), min(width + 20, x1), min(height + 20, y1))


def same_object(rng, width, height):
    w, h = int(rng.integers(40, int(0.7 * width))), int(rng.integers(40, int(0.7 * height)))
    x0, y0 = int(rng.integers(0, width - w)), int(rng.integers(0, height - h))
    tight = tuple(v + int(rng.integers(-3, 4)) for v in (x0, y0, x0 + w, y0 + h))
    for _ in range(100):  # a loose or shifted box: IoU with the object between 0.3 and 0.8
        dx0, dy0, dx1, dy1 = (int(v) for v in rng.normal(0, 0.25, 4) * np.array([w, h, w, h]))
        loose = (x0 + dx0, y0 + dy0, x0 + w + dx1, y0 + h + dy1)
        iw = max(0, min(loose[2], x0 + w) - max(loose[0], x0))
        ih = max(0, min(loose[3], y0 + h) - max(loose[1], y0))
        union = w * h + max(0, loose[2] - loose[0]) * max(0, loose[3] - loose[1]) - iw * ih
        if loose[2] - loose[0] > 30 and loose[3] - loose[1] > 30 and 0.3 <= iw * ih / max(union, 1) <= 0.8:
            break
    pair = [tight, loose] if rng.uniform() < 0.5 else [loose, tight]
    return {"A": _clip(pair[0], width, height), "B": _clip(pair[1], width, height)}


def independent(rng, width, height):
    boxes = {}
    for label in "AB":
        w, h = int(rng.integers(30, 300)), int(rng.integers(30, 250))
        x0, y0 = int(rng.integers(0, width - min(w, width - 1))), int(rng.integers(0, height - min(h, height - 1)))
        if rng.uniform() < 0.1:
            w = width - x0 + int(rng.integers(0, 30))
        boxes[label] = (x0, y0, min(x0 + w, width + 20), y0 + h)
    return boxes


def run(layout: str, n: int, seed: int, photos) -> dict:
    rng = np.random.default_rng(seed)
    counts = {"markers": 0, "right": 0, "wrong": 0, "questions_fully_placed": 0, "missing_by_label": {"A": 0, "B": 0}}
    seconds = 0.0
    for _ in range(n):
        width, height = (500, 375) if rng.uniform() < 0.7 else (375, 500)
        image, _ = background(rng, height, width, photos, photo_only=bool(photos))
        boxes = (same_object if layout == "same_object" else independent)(rng, width, height)
        drawn, _ = draw_blink_boxes(np.asarray(image), boxes)
        rgb = np.asarray(blink_jpeg(drawn, int(rng.integers(70, 91))))
        tic = time.perf_counter()
        read = read_blink_boxes(rgb, ["A", "B"])
        seconds += time.perf_counter() - tic
        placed = 0
        for label, box in boxes.items():
            truth = (box[0], box[1], min(box[2], width - 1), min(box[3], height - 1))
            counts["markers"] += 1
            marker = read.markers.get(label)
            if marker is None:
                counts["missing_by_label"][label] += 1
                continue
            if max(abs(a - b) for a, b in zip(marker.box, truth)) <= TOLERANCE:
                counts["right"] += 1
                placed += 1
            else:
                counts["wrong"] += 1
        counts["questions_fully_placed"] += placed == 2
    return {"layout": layout, "images": n, **counts, "questions_rate": round(counts["questions_fully_placed"] / n, 4),
            "seconds_per_image": round(seconds / n, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true", help="also write the lines to benchmarks/results/blink_style_boxes.jsonl")
    args = parser.parse_args()
    recorder = Recorder("blink_style_boxes", args.record)
    photos = load_photos()
    for layout in ("same_object", "independent"):
        recorder.emit({**run(layout, args.n, args.seed, photos), "seed": args.seed, "photos": len(photos),
                       "tolerance_px": TOLERANCE})
    recorder.close()


if __name__ == "__main__":
    main()
