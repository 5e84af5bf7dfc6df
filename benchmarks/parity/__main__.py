"""python -m benchmarks.parity --official FAMILY=PATH ... [--images DIR] [--n N] [--record]

Runs each named family's official code (from PATH, a checkout the user provides) and ours on the
same seeded random weights and images, prints one JSON line per family, and with --record keeps
it in benchmarks/results/parity.jsonl (a family's new line replaces its old one; with --merge a
partial run, such as one more size, is folded into it, keeping the earlier per-image figures)."""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import torch

from benchmarks.parity.common import checkout_commit, merge_lines
from benchmarks.record import RESULTS

FAMILIES = ("depth_anything_v1", "depth_anything_v2", "loftr", "dift", "dire", "ordinal_shading",
            # beside the reference pipeline each is published with (a package: PATH may be the word `package`)
            "dinov2", "owlv2", "grounding_dino", "dreamsim", "vgg_gram")
PARITY_FILE = RESULTS / "parity.jsonl"
SHARED_IMAGES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "images"


def _pair(text: str) -> tuple[str, Path]:
    family, sep, path = text.partition("=")
    if not sep or family not in FAMILIES:
        raise argparse.ArgumentTypeError(f"{text!r}: give FAMILY=PATH with FAMILY one of {', '.join(FAMILIES)}")
    return family, Path(path).expanduser()


def _record(lines: list[dict], merge: bool = False) -> None:
    """Keep one line per family: a new measurement replaces the family's old one, or with
    `merge` is folded into it (the family module's `dense_of` summarises the joined entries)."""
    kept = {}
    if PARITY_FILE.is_file():
        for text in PARITY_FILE.read_text(encoding="utf-8").splitlines():
            if text.strip():
                line = json.loads(text)
                kept[line["family"]] = line
    for line in lines:
        family = line["family"]
        if merge and family in kept:
            dense_of = importlib.import_module(f"benchmarks.parity.{family}").dense_of
            kept[family] = merge_lines(kept[family], line, dense_of)
        else:
            kept[family] = line
    PARITY_FILE.parent.mkdir(exist_ok=True)
    PARITY_FILE.write_text("".join(json.dumps(kept[f]) + "\n" for f in sorted(kept)), encoding="utf-8")
    print(f"recorded {len(lines)} line(s) in {PARITY_FILE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.parity", description=__doc__.split("\n\n")[1])
    parser.add_argument("--official", type=_pair, action="append", required=True, metavar="FAMILY=PATH")
    parser.add_argument("--images", type=Path, default=SHARED_IMAGES,
                        help="photographs to run both sides on (default: ../shared/data/images)")
    parser.add_argument("--n", type=int, default=2, help="images per family (the first runs at full size)")
    parser.add_argument("--record", action="store_true", help="keep the lines in benchmarks/results/parity.jsonl")
    parser.add_argument("--merge", action="store_true",
                        help="with --record: fold each line into the family's recorded one instead of replacing it")
    args = parser.parse_args(argv)
    images = sorted(p for p in args.images.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")) \
        if args.images.is_dir() else []
    if args.merge and not args.record:
        parser.error("--merge folds lines into the recorded ones: give --record too")
    if args.merge:
        for family, _ in args.official:
            if not hasattr(importlib.import_module(f"benchmarks.parity.{family}"), "dense_of"):
                parser.error(f"--merge: {family}'s line has no per-image entries to fold; record it without --merge")
    if not images:
        parser.error(f"--images {args.images}: no .jpg or .png images there")
    lines = []
    for family, checkout in args.official:
        module = importlib.import_module(f"benchmarks.parity.{family}")
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f"parity-{family}-") as workdir:
            line = module.compare(checkout, images[: args.n], args.n, Path(workdir))
        if hasattr(module, "reference_version"):  # a package's pipeline: its version names the reference
            line.setdefault("reference", module.reference_version())
        line = {"family": family, **line, "official_commit": checkout_commit(checkout),
                "torch": torch.__version__, "python": platform.python_version(),
                "seconds": round(time.perf_counter() - started, 1),
                "recorded": time.strftime("%Y-%m-%d")}
        print(json.dumps(line), flush=True)
        lines.append(line)
    if args.record:
        _record(lines, merge=args.merge)
    return 0


if __name__ == "__main__":
    sys.exit(main())
