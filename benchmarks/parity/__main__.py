"""python -m benchmarks.parity --official FAMILY=PATH ... [--images DIR] [--n N] [--record]

Runs each named family's official code (from PATH, a checkout the user provides) and ours on the
same seeded random weights and images, prints one JSON line per family, and with --record keeps
it in benchmarks/results/parity.jsonl (a family's new line replaces its old one)."""

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

from benchmarks.parity.common import checkout_commit
from benchmarks.record import RESULTS

FAMILIES = ("depth_anything_v1", "depth_anything_v2", "loftr", "dift", "dire", "ordinal_shading")
PARITY_FILE = RESULTS / "parity.jsonl"
SHARED_IMAGES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "images"


def _pair(text: str) -> tuple[str, Path]:
    family, sep, path = text.partition("=")
    if not sep or family not in FAMILIES:
        raise argparse.ArgumentTypeError(f"{text!r}: give FAMILY=PATH with FAMILY one of {', '.join(FAMILIES)}")
    return family, Path(path).expanduser()


def _record(lines: list[dict]) -> None:
    """Keep one line per family: a new measurement replaces the family's old one."""
    kept = {}
    if PARITY_FILE.is_file():
        for text in PARITY_FILE.read_text(encoding="utf-8").splitlines():
            if text.strip():
                line = json.loads(text)
                kept[line["family"]] = line
    for line in lines:
        kept[line["family"]] = line
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
    args = parser.parse_args(argv)
    images = sorted(p for p in args.images.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")) \
        if args.images.is_dir() else []
    if not images:
        parser.error(f"--images {args.images}: no .jpg or .png images there")
    lines = []
    for family, checkout in args.official:
        module = importlib.import_module(f"benchmarks.parity.{family}")
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f"parity-{family}-") as workdir:
            line = module.compare(checkout, images[: args.n], args.n, Path(workdir))
        line = {"family": family, **line, "official_commit": checkout_commit(checkout),
                "torch": torch.__version__, "python": platform.python_version(),
                "seconds": round(time.perf_counter() - started, 1),
                "recorded": time.strftime("%Y-%m-%d")}
        print(json.dumps(line), flush=True)
        lines.append(line)
    if args.record:
        _record(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
