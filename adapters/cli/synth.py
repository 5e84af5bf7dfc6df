"""`specialists synth`: write a synthetic benchmark with known answers: BLINK-format (the default),
or CV-Bench in its release's layout (`--benchmark cv-bench`)."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    synth = commands.add_parser("synth", help="write a synthetic benchmark with known answers (BLINK-format, or "
                                "CV-Bench's layout with --benchmark cv-bench)")
    synth.add_argument("--benchmark", default="blink", choices=["blink", "cv-bench"],
                       help="blink: BLINK's layout (default); cv-bench: CV-Bench's release layout (--layout), read "
                       "by `run --benchmark cv-bench --root DIR`")
    synth.add_argument("--layout", default="parquet", choices=["parquet", "jsonl"],
                       help="--benchmark cv-bench: the hub's parquet (test_2d/test_3d.parquet, images inside) or "
                       "JSON Lines with img/")
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
    if args.benchmark == "cv-bench":
        return _cv_bench(args)
    if args.layout != "parquet":
        raise ValueError("--layout belongs to --benchmark cv-bench; BLINK's layout is parquet")

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


def _cv_bench(args: argparse.Namespace) -> int:
    from pathlib import Path

    from adapters.datasets.synthetic.cv_bench_release import TRUTH_FILE, write_cv_bench_release

    if args.tasks or args.images:
        raise ValueError("specialists synth --benchmark cv-bench writes all four tasks on drawn scenes: drop --tasks "
                         "and --images")
    if args.n < 1:
        raise ValueError("--n must be at least 1")
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"--output-dir {out} is not empty; choose a new folder")
    write_cv_bench_release(out, args.n, args.seed, args.layout)
    files = "test_2d.parquet, test_3d.parquet" if args.layout == "parquet" else "test_2d.jsonl, test_3d.jsonl, img/"
    print(f"wrote {out}: CV-Bench layout ({files}), {args.n} questions per task; {TRUTH_FILE} holds the facts "
          "behind each answer")
    print(f"run it (weight-free specialists by default): specialists run --benchmark cv-bench --root {out}")
    return 0
