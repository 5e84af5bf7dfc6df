"""The `specialists` command line: run, ls, synth, markers, compare, report, checkpoints, train, combo.

It sits at the top of the import graph: it may import adapters, nothing imports it. Heavy
modules are imported inside each command so `specialists ls` answers at once.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Sequence

from . import __version__, cli_checkpoints, cli_combo, cli_compare, cli_markers, cli_train

# Errors whose message is the whole story: printed as "error: ..." without a traceback
# (every input error of the suite is a ValueError subclass). SPECIALISTS_DEBUG=1 re-raises them.
USER_ERRORS = (ValueError, FileNotFoundError)


def _limit(text: str) -> int | float:
    """--limit: a whole number of questions, or a fraction in (0, 1) of each task's."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a number of questions nor a fraction") from None
    if value >= 1 and value.is_integer():
        return int(value)
    if 0 < value < 1:
        return value
    raise argparse.ArgumentTypeError(f"{text}: give a whole number >= 1 or a fraction between 0 and 1")


class _Once(argparse.Action):
    """An option that takes one value: given twice with two values, it is refused rather than
    silently keeping the last (a run loads one checkpoint)."""

    def __call__(self, parser, namespace, values, option_string=None):
        previous = getattr(namespace, self.dest, None)
        if previous is not None and previous != values:
            parser.error(f"{option_string} given twice ({previous} and {values}); a run takes one: give it once")
        setattr(namespace, self.dest, values)


def _unique(values: list[str] | None) -> list[str] | None:
    """The values in the order given, each once."""
    return list(dict.fromkeys(values)) if values else values


def _default_output(benchmark: str, specialists: list[str] | None) -> str:
    who = "-".join(s.replace("=", "_") for s in specialists) if specialists else "default"
    return str(Path("runs") / f"{benchmark}-{who}-{time.strftime('%Y%m%d-%H%M%S')}")


def _add_run_parser(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("run", help="answer a benchmark's questions with specialists")
    run.add_argument("--benchmark", default="blink", choices=["blink", "synthetic", "combo", "marvel", "blink-twice"],
                     help="blink (real data, --blink-root), synthetic (generated BLINK-format questions), combo "
                     "(Category Building per difficulty level and Pattern Perception; ComBo-lite without --combo-root), "
                     "marvel or blink-twice (their releases, --root)")
    run.add_argument("--root", metavar="DIR", help="--benchmark marvel | blink-twice: the release folder")
    run.add_argument("--blink-root", help="BLINK folder ({Task}/{split}-*.parquet) or HF cache; default $BLINK_ROOT")
    run.add_argument("--split", default="val", choices=["val", "test"])
    # list options given twice add up (a second --tasks used to drop the first), repeats removed
    run.add_argument("--tasks", nargs="+", action="extend", metavar="T",
                     help="tasks to run (default: every task found)")
    run.add_argument("--specialist", nargs="+", action="extend", metavar="NAME|TASK=NAME",
                     help="specialist for all tasks, or per task")
    run.add_argument("--checkpoint", action=_Once, help="checkpoint NAME, PATH, or tiny-random")
    run.add_argument("--set", dest="settings", nargs="+", action="extend", metavar="NAME.KEY=VALUE",
                     help="a specialist's pipeline choice, e.g. depth_anything.resize=transformers (defaults: the "
                          "official pipeline's; `specialists ls` lists them); recorded in results.json")
    run.add_argument("--limit", type=_limit, help="at most N questions per task, or a fraction (0.1 = the first "
                     "10%% of each task's questions, at least one)")
    run.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    run.add_argument("--batch-size", type=int, default=8)
    run.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "fp16"])
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--cache", default="off", choices=["off", "read", "refresh"],
                     help="feature cache: off; read (reuse cached features, store new ones); refresh (recompute all)")
    run.add_argument("--cache-dir", metavar="DIR", help="feature cache folder (default $SPECIALISTS_HOME/features)")
    run.add_argument("--answers", help='gold answers override, {idx: "(X)"} (recorded as the answer version)')
    run.add_argument("--markers", metavar="drawn|file|FILE",
                     help="where marker positions come from: 'drawn' parses the drawing (the default on BLINK); "
                     "'file' reads the root's own markers.jsonl (as `specialists synth` writes it; the default of "
                     "--benchmark synthetic); FILE reads that file (markers.jsonl or {idx: {image_1: {A: [x, y]}}}). "
                     "'parse' is the same as 'drawn'")
    run.add_argument("--synthetic-n", type=int, default=50, metavar="N",
                     help="--benchmark synthetic: questions generated per task (default 50)")
    run.add_argument("--images", metavar="DIR", help="--benchmark synthetic: photos to texture the scenes with")
    run.add_argument("--combo-root", metavar="DIR|CSV",
                     help="--benchmark combo: a real ComBo folder holding manifest.csv (default: ComBo-lite renders)")
    run.add_argument("--combo-n", type=int, default=50, metavar="N",
                     help="--benchmark combo: questions per Category Building level and for Pattern Perception")
    run.add_argument("--combo-k-support", type=int, default=5, metavar="K",
                     help="--benchmark combo: support images per Category Building category (default 5)")
    run.add_argument("--combo-factors", metavar="TOML", help="--benchmark combo: factor table (default: 9,504 objects)")
    run.add_argument("--output-dir", help="run folder (default runs/<benchmark>-<specialist>-<time>)")
    run.add_argument("--resume", action="store_true", help="continue the run in --output-dir where it stopped")
    run.add_argument("--retry-errors", action="store_true", help="with --resume: answer failed questions again")
    run.add_argument("--no-progress", action="store_true", help="no progress bars")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="specialists",
        description="Specialist-model baselines for BLINK-style multiple-choice perception questions. "
        "With no command: run the embedded default and print its table.",
    )
    parser.add_argument("--version", action="version", version=f"blink-specialists {__version__}")
    commands = parser.add_subparsers(dest="command")
    _add_run_parser(commands)
    ls = commands.add_parser("ls", help="tasks, specialists, and which serves which task")
    ls.add_argument("--json", action="store_true")
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
    cli_markers.add_parser(commands)
    cli_compare.add_parser(commands)
    cli_checkpoints.add_parser(commands)
    cli_train.add_parser(commands)
    cli_combo.add_parser(commands)
    report = commands.add_parser("report", help="tables (Markdown, CSV) and a plot from run folders")
    report.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    report.add_argument("--output-dir", dest="output", metavar="DIR",
                        help="folder for report.md/.csv/.png (default: the run folder)")
    report.add_argument("--output", dest="output", help=argparse.SUPPRESS)  # the older name
    return parser


def cmd_run(args: argparse.Namespace) -> int:
    from adapters.evaluate import RunConfig, run
    from adapters.report import load_run, markdown

    args.tasks, args.specialist = _unique(args.tasks), _unique(args.specialist)
    output = args.output_dir or _default_output(args.benchmark, args.specialist)
    config = RunConfig(
        output_dir=output, benchmark=args.benchmark, split=args.split, tasks=args.tasks,
        specialist=args.specialist, checkpoint=args.checkpoint, limit=args.limit, device=args.device,
        batch_size=args.batch_size, precision=args.precision, seed=args.seed, answers=args.answers,
        blink_root=args.blink_root, root=args.root, synthetic_n=args.synthetic_n, synthetic_images=args.images, markers=args.markers,
        combo_root=args.combo_root, combo_n=args.combo_n, combo_factors=args.combo_factors,
        combo_k_support=args.combo_k_support, cache=args.cache, cache_dir=args.cache_dir, settings=args.settings,
        resume=args.resume, retry_errors=args.retry_errors,
        progress=not args.no_progress,
    )
    results = run(config)
    print(markdown([load_run(output)]).split("\n## ")[0].rstrip())
    if args.benchmark == "combo":
        _print_combo_table(results)
    if results.get("benchmark_metrics"):
        from adapters.benchmark_report import metrics_lines

        print("\n" + "\n".join(metrics_lines(args.benchmark, [results["benchmark_metrics"]], [load_run(output).label])))
    errors = sum(t["errors"] for t in results["tasks"].values())
    if errors:
        print(f"\n{errors} question(s) failed; their errors are in {Path(output) / 'samples.jsonl'} (status \"error\").")
    print(f"\nwrote {Path(output) / 'samples.jsonl'} and {Path(output) / 'results.json'}")
    return 0


def _print_combo_table(results: dict) -> None:
    """Category Building per difficulty level, next to ComBo's published rows (its Table 4)."""
    from adapters.combo.evaluation import levels_of_run, markdown_table, run_label

    levels = levels_of_run(results)
    if levels is not None:
        print("\nCategory Building by difficulty (accuracy in %; ComBo's Table 4 rows below, for reference)\n")
        print(markdown_table({run_label(results): levels}))


def cmd_default() -> int:
    """The embedded default: the synthetic BLINK-format benchmark with the default specialists."""
    print("blink-specialists: embedded default run: synthetic BLINK-format questions with answers known by")
    print("construction, answered by the best weight-free specialist per task (no weights, no downloads)\n")
    args = build_parser().parse_args(["run", "--benchmark", "synthetic"])  # bars show on a terminal
    args.output_dir = _default_output("synthetic", None)
    return cmd_run(args)


def cmd_ls(args: argparse.Namespace) -> int:
    from adapters import registry
    from adapters.tasks import BLINK_TASKS, BLINK_TWICE_TASKS, COMBO_TASKS, MARVEL_TASKS, TASK_NAMES

    specs = registry.all_specs()
    weights = {row["name"]: row["status"] for row in cli_checkpoints.status_rows()}
    tasks = [
        {"task": t.name, "n_val": t.n_val, "n_test": t.n_test,
         "default": registry.default_for(t.name).name, "default_weight_free": registry.default_for(t.name, True).name,
         "specialists": [s.name for s in registry.serving(t.name)]}
        for t in BLINK_TASKS
    ]
    combo = [{"task": t, "benchmark": "combo", "default": registry.default_for(t).name,
              "specialists": [s.name for s in registry.serving(t)]} for t in COMBO_TASKS]
    other_tasks = [{"task": t, "benchmark": benchmark, "default": registry.default_for(t).name,
               "specialists": [s.name for s in registry.serving(t)]}
              for benchmark, names in (("marvel", MARVEL_TASKS), ("blink-twice", BLINK_TWICE_TASKS)) for t in names]
    specialists = [
        {"name": s.name, "kind": s.kind, "summary": s.summary, "tasks": list(s.tasks),
         "checkpoint": s.default_checkpoint, "checkpoint_status": "no weights needed" if s.default_checkpoint is None
         else f"{s.default_checkpoint} {weights.get(s.default_checkpoint, 'not in the manifest')}",
         "settings": [{"name": x.name, "default": x.default, "choices": list(x.choices), "why": x.why}
                      for x in s.settings]}
        for s in specs
    ]
    if args.json:
        print(json.dumps({"tasks": tasks, "combo_tasks": combo, "other_tasks": other_tasks, "specialists": specialists},
                         indent=2))
        return 0
    print("Specialists:")
    for s in specialists:
        served = ("every task" if set(TASK_NAMES) <= set(s["tasks"]) and set(COMBO_TASKS) <= set(s["tasks"])
                  else ", ".join(s["tasks"]))
        print(f"  {s['name']:<18} {s['kind']:<9} {s['summary']}; weights: {s['checkpoint_status']}; answers: {served}")
        for x in s["settings"]:
            others = ", ".join(c for c in x["choices"] if c != x["default"])
            print(f"  {'':<28} --set {s['name']}.{x['name']}={x['default']} ({x['why']}; or: {others})")
    print("\nTasks (val/test questions; default on BLINK (the paper's); default without weights (synthetic); all):")
    for t in tasks:
        print(f"  {t['task']:<26} {t['n_val']:>4}/{t['n_test']:<4} {t['default']:<16} {t['default_weight_free']:<16} {', '.join(t['specialists'])}")
    print("\nComBo tasks (`run --benchmark combo`; default; all):")
    for t in combo:
        print(f"  {t['task']:<26} {t['default']:<16} {', '.join(t['specialists'])}")
    print("\nMARVEL and BLINK-Twice tasks (`run --benchmark marvel|blink-twice --root DIR`; default; all):")
    for t in other_tasks:
        print(f"  {t['task']:<26} {t['default']:<16} {', '.join(t['specialists'])}")
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from adapters.synthetic import write_synthetic
    from adapters.tasks import canonical_task

    if not args.out:
        raise ValueError("specialists synth: name the folder to write with --output-dir DIR")

    tasks = [canonical_task(t) for t in args.tasks] if args.tasks else None
    out = write_synthetic(args.out, tasks, args.n, args.seed, args.images, args.marker_style)
    print(f"wrote {out}: BLINK layout ({{Task}}/val-*.parquet), markers.jsonl, truth.jsonl, synth.json")
    from adapters.registry import default_for
    from adapters.synthetic import GENERATORS

    # the weight-free default of each task written, so the hint runs on a machine without weights
    pairs = " ".join(f"{task}={default_for(task, True).name}" for task in (tasks or list(GENERATORS)))
    print(f"run it (weight-free specialists): specialists run --benchmark blink --blink-root {out} --specialist {pairs}")
    print("(without --specialist: the paper's specialists, which need their weights: `specialists checkpoints ls`)")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from adapters.report import write_report

    paths = write_report(args.run_dirs, args.output)
    print(paths["markdown"].read_text(encoding="utf-8"))
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {"run": cmd_run, "ls": cmd_ls, "synth": cmd_synth, "report": cmd_report, "markers": cli_markers.handle,
                "compare": cli_compare.handle, "checkpoints": cli_checkpoints.handle,
                "train": cli_train.handle, "combo": cli_combo.handle}
    try:
        if args.command is None:
            return cmd_default()
        return handlers[args.command](args)
    except USER_ERRORS as exc:
        if os.environ.get("SPECIALISTS_DEBUG"):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except PermissionError as exc:  # SPECIALISTS_HOME, an output folder or a lock the user cannot write
        if os.environ.get("SPECIALISTS_DEBUG"):
            raise
        print(f"error: {exc.filename}: permission denied; use a folder you can write (for weights: "
              "SPECIALISTS_HOME; for results: --output-dir / --output)", file=sys.stderr)
        return 2
    except NotADirectoryError as exc:
        if os.environ.get("SPECIALISTS_DEBUG"):
            raise
        print(f"error: {exc.filename}: a file stands where a folder is needed on that path; "
              "point the option or SPECIALISTS_HOME at a folder", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished questions are saved; continue with --resume", file=sys.stderr)
        return 130
