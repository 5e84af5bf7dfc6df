"""`specialists synth`: write a synthetic BLINK-format benchmark with known answers."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    synth = commands.add_parser("synth", help="write a synthetic BLINK-format benchmark with known answers")
    synth.add_argument("--output-dir", dest="out", metavar="DIR", help="folder to write (required)")
    synth.add_argument("--out", dest="out", help=argparse.SUPPRESS)  # the older name
    synth.add_argument("--tasks", nargs="+", metavar="T")
    synth.add_argument("--n", type=int, default=50, help="questions per task (default 50)")
    synth.add_argument("--images", metavar="DIR", help="photos to texture the scenes with (default: procedural)")
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--marker-style", default="blink", choices=["blink", "varied"],
                       help="blink: BLINK's own drawing, stored as JPEG as BLINK stores it (default); "
                       "varied: random fonts, sizes and sides (the general marker parser's test)")


def handle(args: argparse.Namespace) -> int:
    from adapters.core.tasks import canonical_task
    from adapters.datasets.synthetic import write_synthetic

    if not args.out:
        raise ValueError("specialists synth: name the folder to write with --output-dir DIR")

    tasks = [canonical_task(t) for t in args.tasks] if args.tasks else None
    out = write_synthetic(args.out, tasks, args.n, args.seed, args.images, args.marker_style)
    print(f"wrote {out}: BLINK layout ({{Task}}/val-*.parquet), markers.jsonl, truth.jsonl, synth.json")
    from adapters.core.registry import default_for
    from adapters.datasets.synthetic import GENERATORS

    # the weight-free default of each task written, so the hint runs on a machine without weights
    pairs = " ".join(f"{task}={default_for(task, True).name}" for task in (tasks or list(GENERATORS)))
    print(f"run it (weight-free specialists): specialists run --benchmark blink --blink-root {out} --specialist {pairs}")
    print("(without --specialist: the paper's specialists, which need their weights: `specialists checkpoints ls`)")
    return 0
