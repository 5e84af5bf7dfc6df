"""How often the marker parser finds every drawn label at the right place (prints one JSON line).

Renders BLINK-style questions (2-4 labelled circles, or REF alone) in random styles on random
backgrounds (procedural textures, noise, gradients, crops of ../shared/data/images when present),
JPEG-compresses them, parses them back and counts markers found with the right label within 2 px.
Markers in the held-out fonts (nets.glyphs.HELD_OUT_FONTS, never used to train or tune the label
reader) are reported apart, and `strata` split every marker by label height (8-10 / 10-18 px),
background kind, label polarity (coloured text, or light text on a dark box) and font to show
where the misses are. A wrong silent answer is a marker returned at the wrong place.

    .venv/bin/python benchmarks/markers_accuracy.py [--n 300] [--seed 0] [--size 320x240]
        [--no-patch-reader] [--no-centre-finder]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.markers.draw.fonts import available_fonts  # noqa: E402
from adapters.markers.draw.scenes import benchmark_case, load_photos, photos_warning
from adapters.markers.general.nets.centre_finder import default_centre_finder  # noqa: E402
from adapters.markers.general.nets.glyphs import HELD_OUT_FONTS  # noqa: E402
from adapters.markers.general.nets.patch_reader import default_patch_reader  # noqa: E402
from adapters.markers.general.points.parse import parse_image  # noqa: E402


def one_case(rng: np.random.Generator, photos, height: int, width: int, fonts: list[str]):
    """(image, true points, style, background kind) of one rendered question image."""
    labels = [["A", "B"], ["A", "B", "C", "D"], ["REF"], ["A", "B", "C"]][int(rng.integers(4))]
    return benchmark_case(rng, labels, photos, height, width, fonts)


TARGET_RATE = 0.99  # markers found right: the parser's target on these renders


def evaluate(n: int = 300, seed: int = 0, height: int = 240, width: int = 320, photos=None,
             patch_reader: bool = True, centre_finder: bool = True, fonts: list[str] | None = None) -> dict:
    """Parse `n` rendered images; figures overall and for the held-out fonts, and whether the
    overall rate meets TARGET_RATE.

    photos (default: those of ../shared/data/images) and fonts (default: every font on this
    machine) decide the sample: [] and draw.fonts.BUILT_IN_FONTS give one that is the same everywhere.

    patch_reader: let the parser place labels the words missed with the shipped patch reader;
    centre_finder: and with the shipped centre finder's proposals (needs the patch reader)."""
    photos = load_photos() if photos is None else photos
    fonts = list(fonts) if fonts is not None else [f.name for f in available_fonts()]
    rng = np.random.default_rng(seed)
    # found right, wrong (silent), total; per group of markers (the strata: label height, background
    # kind, label polarity, say where the misses are)
    tally = collections.defaultdict(lambda: [0, 0, 0], {"all": [0, 0, 0], "held_out": [0, 0, 0]})
    # images where every label was placed (find_markers answers) but some marker is wrong: the
    # wrong silent answers a caller of find_markers would see
    questions_wrong = 0
    sources: collections.Counter = collections.Counter()  # how each returned marker was placed
    failures = []
    started = time.perf_counter()
    for case in range(n):
        image, points, style, kind = one_case(rng, photos, height, width, fonts)
        parsed = parse_image(image, list(points), patch_reader=patch_reader, centre_finder=centre_finder)
        sources.update(m.source for m in parsed.markers.values())
        groups = ["all"] + (["held_out"] if style.font in HELD_OUT_FONTS else [])
        groups += [f"label_height_{'8-10' if style.label_height < 10 else '10-18'}", f"background_{kind}",
                   f"polarity_{style.polarity}", f"font_{style.font}"]
        answered = not parsed.missing and all(label in parsed.markers for label in points)
        questions_wrong += int(answered and any(
            float(np.hypot(parsed.markers[l].xy[0] - x, parsed.markers[l].xy[1] - y)) > 2.0
            for l, (x, y) in points.items()))
        for label, (x, y) in points.items():
            marker = parsed.markers.get(label)
            right = marker is not None and float(np.hypot(marker.xy[0] - x, marker.xy[1] - y)) <= 2.0
            wrong = marker is not None and not right
            for g in groups:
                tally[g][0] += int(right)
                tally[g][1] += int(wrong)
                tally[g][2] += 1
            if not right:
                failures.append({"case": case, "label": label, "font": style.font, "background": kind,
                                 "why": parsed.missing.get(label, "wrong place" if wrong else "")})
    seconds = time.perf_counter() - started
    out = {"images": n, "seed": seed, "size": [width, height], "photos": len(photos), "fonts": fonts,
           "seconds_per_image": round(seconds / n, 4)}
    def figures(right: int, wrong: int, total: int) -> dict:
        return {"markers": total, "found_right": right, "wrong_silent": wrong,
                "rate": round(right / total, 4) if total else None}

    for g in ("all", "held_out"):
        out[g] = figures(*tally[g])
    out["target"] = {"rate": TARGET_RATE, "met": tally["all"][0] >= TARGET_RATE * tally["all"][2]}
    out["strata"] = {g: figures(*tally[g]) for g in sorted(tally) if g not in ("all", "held_out")}
    out["questions_answered_wrong"] = questions_wrong
    out["markers_by_source"] = dict(sources)
    reader = default_patch_reader() if patch_reader else None
    out["patch_reader"] = {"sha256": reader.record["sha256"], "seed": reader.record.get("seed")} if reader else None
    finder = default_centre_finder() if patch_reader and centre_finder else None
    out["centre_finder"] = {"sha256": finder.record["sha256"], "seed": finder.record.get("seed")} if finder else None
    out["held_out_fonts"] = list(HELD_OUT_FONTS)
    out["failures"] = failures[:40]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", default="320x240", help="WIDTHxHEIGHT of the rendered images")
    parser.add_argument("--no-patch-reader", action="store_true", help="words only (no patch reader pass)")
    parser.add_argument("--no-centre-finder", action="store_true", help="no centre finder pass")
    args = parser.parse_args()
    photos = load_photos()  # read once: the warning and the run use the same ones
    if (warning := photos_warning(photos)) is not None:
        print(f"warning: {warning}", file=sys.stderr)
    width, height = (int(v) for v in args.size.lower().split("x"))
    print(json.dumps(evaluate(args.n, args.seed, height, width, photos=photos, patch_reader=not args.no_patch_reader,
                                centre_finder=not args.no_centre_finder)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
