"""BLINK's own marker drawing read back: questions fully placed, markers wrong, seconds per image
(prints one JSON line).

Renders BLINK-style questions (adapters.markers.blink.draw: OpenCV 4.x's rings, label boxes and
Hershey glyphs, JPEG as BLINK stores its images) over crops of the photographs in
../shared/data/images, per family: depth (500 px, red rings, the geometry measured on BLINK),
reflectance (500 px, white rings), correspondence (600-1400 px, "REF" or A-D, markers scaled with
the image over a range, since that geometry is inferred). A quarter of the markers lie near an
edge (labels cut by the top edge or written under the ring, shifted at the sides); those are
counted apart. Each image is read by the BLINK-style pass alone and by the whole marker step
(that pass, then the general parser for what it leaves: find.blink_first). The general
parser alone is timed on the first --general-sample images of each family, the step as it
stood before the BLINK-style pass (`general_parser_seconds_per_image`, and the ratio).
A marker is right within 2 px; a wrong one is placed elsewhere (never acceptable).

    .venv/bin/python benchmarks/blink_style_markers.py [--n 300] [--seed 0]
        [--families depth reflectance correspondence] [--general-sample 20] [--record]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.markers.blink.points import read_blink_points  # noqa: E402
from adapters.markers.draw.scenes import BLINK_FAMILIES, blink_style_case, load_photos, photos_warning  # noqa: E402
from adapters.markers.find import blink_first  # noqa: E402
from adapters.markers.general.points.parse import parse_image  # noqa: E402
from benchmarks.record import Recorder  # noqa: E402

TOLERANCE = 2.0  # px


def _score(placed: dict, truth: dict, near_edge: set[str], tally: collections.Counter, prefix: str) -> bool:
    """Count right / wrong / missing markers into `tally`; True when every marker is right."""
    full = True
    for label, (x, y) in truth.items():
        marker = placed.get(label)
        right = marker is not None and float(np.hypot(marker.xy[0] - x, marker.xy[1] - y)) <= TOLERANCE
        tally[f"{prefix}markers"] += 1
        tally[f"{prefix}right"] += right
        tally[f"{prefix}wrong"] += marker is not None and not right
        if label in near_edge:
            tally[f"{prefix}edge_markers"] += 1
            tally[f"{prefix}edge_right"] += right
        full &= right
    return full


def evaluate(n: int = 300, seed: int = 0, families=tuple(BLINK_FAMILIES), photos=None, general_sample: int = 20) -> dict:
    """Read `n` rendered images per family back; figures per family (see the module's doc)."""
    photos = load_photos() if photos is None else photos
    out = {"n_per_family": n, "seed": seed, "photos": len(photos), "tolerance_px": TOLERANCE, "families": {}}
    for family in families:
        rng = np.random.default_rng([seed, list(BLINK_FAMILIES).index(family)])
        colour = BLINK_FAMILIES[family][0]
        tally: collections.Counter = collections.Counter()
        seconds = collections.Counter()
        sources: collections.Counter = collections.Counter()
        for i in range(n):
            image, points, style = blink_style_case(rng, photos, family)
            H, W = image.shape[:2]
            near_edge = {l for l, (x, y) in points.items()
                         if y < 2.2 * style.offset or x < 12 or x > W - 13}
            started = time.perf_counter()
            first = read_blink_points(image, list(points), colour)
            seconds["blink_style"] += time.perf_counter() - started
            tally["questions_blink_style"] += _score(first.markers, points, near_edge, tally, "blink_style_")
            started = time.perf_counter()
            whole = blink_first(image, "point", list(points), colour)
            seconds["whole_step"] += time.perf_counter() - started
            sources.update(m.source for m in whole.markers.values())
            tally["questions_whole_step"] += _score(whole.markers, points, near_edge, tally, "whole_step_")
            if i < general_sample:
                started = time.perf_counter()
                parse_image(image, list(points))
                seconds["general_parser"] += time.perf_counter() - started
        figures = {"images": n}
        for step in ("blink_style", "whole_step"):
            markers = tally[f"{step}_markers"]
            figures[step] = {
                "questions_fully_placed": tally[f"questions_{step}"],
                "questions_rate": round(tally[f"questions_{step}"] / n, 4),
                "markers": markers, "right": tally[f"{step}_right"], "wrong": tally[f"{step}_wrong"],
                "near_edge": {"markers": tally[f"{step}_edge_markers"], "right": tally[f"{step}_edge_right"]},
                "seconds_per_image": round(seconds[step] / n, 4)}
        figures["whole_step"]["markers_by_source"] = dict(sources)
        timed = min(n, general_sample)
        if timed:
            general = seconds["general_parser"] / timed
            figures["general_parser_seconds_per_image"] = round(general, 4)
            figures["speedup_blink_style_vs_general_parser"] = round(general / max(seconds["blink_style"] / n, 1e-9), 1)
        out["families"][family] = figures
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="images per family")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", nargs="+", default=list(BLINK_FAMILIES), choices=list(BLINK_FAMILIES))
    parser.add_argument("--general-sample", type=int, default=20, help="images per family the general parser is timed on")
    parser.add_argument("--record", action="store_true",
                        help="also write the line to benchmarks/results/blink_style_markers.jsonl")
    args = parser.parse_args()
    photos = load_photos()
    if (warning := photos_warning(photos)) is not None:
        print(f"warning: {warning}", file=sys.stderr)
    recorder = Recorder("blink_style_markers", args.record)
    recorder.emit(evaluate(args.n, args.seed, args.families, photos, args.general_sample))
    recorder.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
