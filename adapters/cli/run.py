"""`specialists run`: answer a benchmark's questions with specialists (and the embedded default)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from adapters.cli.arguments import Once, question_limit, unique
from adapters.core.benchmarks import BENCHMARKS


def default_output(benchmark: str, specialists: list[str] | None) -> str:
    who = "-".join(s.replace("=", "_") for s in specialists) if specialists else "default"
    return str(Path("runs") / f"{benchmark}-{who}-{time.strftime('%Y%m%d-%H%M%S')}")


def add_parser(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("run", help="answer a benchmark's questions with specialists")
    run.add_argument("--benchmark", default="blink", choices=list(BENCHMARKS),
                     help="blink (real data, --blink-root), synthetic (generated BLINK-format questions), combo "
                     "(Category Building per difficulty level and Pattern Perception; ComBo-lite without --combo-root), "
                     "marvel, blink-twice or cv-bench (their releases, --root; cv-bench answers with weight-free "
                     "specialists unless --specialist names others)")
    run.add_argument("--root", metavar="DIR", help="--benchmark marvel | blink-twice | cv-bench: the release folder")
    run.add_argument("--blink-root", help="BLINK folder ({Task}/{split}-*.parquet) or HF cache; default $BLINK_ROOT")
    run.add_argument("--split", default="val", choices=["val", "test"])
    # list options given twice add up (a second --tasks used to drop the first), repeats removed
    run.add_argument("--tasks", nargs="+", action="extend", metavar="T",
                     help="tasks to run (default: every task found)")
    run.add_argument("--specialist", nargs="+", action="extend", metavar="NAME|TASK=NAME",
                     help="specialist for all tasks, or per task")
    run.add_argument("--checkpoint", action=Once, help="checkpoint NAME, PATH, or tiny-random")
    run.add_argument("--set", dest="settings", nargs="+", action="extend", metavar="NAME.KEY=VALUE",
                     help="a specialist's pipeline choice, e.g. depth_anything.resize=transformers (defaults: the "
                          "official pipeline's; `specialists ls` lists them); recorded in results.json")
    run.add_argument("--limit", type=question_limit, help="at most N questions per task, or a fraction (0.1 = the first "
                     "10%% of each task's questions, at least one)")
    run.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    run.add_argument("--devices", type=int, default=1, metavar="N",
                     help="processes per node, one per GPU with --device cuda (Lightning launches them; under torchrun "
                          "or SLURM give the counts they started); the questions are shared out, one samples.jsonl "
                          "and results.json come out")
    run.add_argument("--num-nodes", type=int, default=1, metavar="M", help="nodes of a several-node run (default 1)")
    run.add_argument("--strategy", default="ddp", choices=["ddp", "ddp_spawn"],
                     help="how Lightning starts the processes: ddp re-runs this command per device (default), "
                          "ddp_spawn spawns them from this interpreter")
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
    run.add_argument("--keep-evidence", action="store_true",
                     help="keep small pictures of each decision's dense output (depth map, albedo, matches) as "
                          "thumbnails in the run folder's evidence/, for `report --html`")
    run.add_argument("--html", action="store_true",
                     help="at the end, write the browsable page of every question (report_html/; implies "
                          "--keep-evidence)")
    run.add_argument("--no-progress", action="store_true", help="no progress bars")


def handle(args: argparse.Namespace) -> int:
    from adapters.report.run_report import load_run, markdown
    from adapters.run.runner import RunConfig, run

    args.tasks, args.specialist = unique(args.tasks), unique(args.specialist)
    output = args.output_dir or default_output(args.benchmark, args.specialist)
    config = RunConfig(
        output_dir=output, benchmark=args.benchmark, split=args.split, tasks=args.tasks,
        specialist=args.specialist, checkpoint=args.checkpoint, limit=args.limit, device=args.device,
        batch_size=args.batch_size, precision=args.precision, seed=args.seed, answers=args.answers,
        blink_root=args.blink_root, root=args.root, synthetic_n=args.synthetic_n, synthetic_images=args.images, markers=args.markers,
        combo_root=args.combo_root, combo_n=args.combo_n, combo_factors=args.combo_factors,
        combo_k_support=args.combo_k_support, cache=args.cache, cache_dir=args.cache_dir, settings=args.settings,
        resume=args.resume, retry_errors=args.retry_errors, keep_evidence=args.keep_evidence or args.html,
        progress=not args.no_progress, devices=args.devices, num_nodes=args.num_nodes, strategy=args.strategy,
    )
    results = run(config)
    if results is None:  # a rank other than 0 of a several-process run: rank 0 reports
        return 0
    print(markdown([load_run(output)]).split("\n## ")[0].rstrip())
    if args.benchmark == "combo":
        _print_combo_table(results)
    if results.get("benchmark_metrics"):
        from adapters.report.benchmark_report import metrics_lines

        print("\n" + "\n".join(metrics_lines(args.benchmark, [results["benchmark_metrics"]], [load_run(output).label])))
    errors = sum(t["errors"] for t in results["tasks"].values())
    if errors:
        print(f"\n{errors} question(s) failed; their errors are in {Path(output) / 'samples.jsonl'} (status \"error\").")
    print(f"\nwrote {Path(output) / 'samples.jsonl'} and {Path(output) / 'results.json'}")
    if args.html:
        from adapters.report.html_report import run_pages

        for line in run_pages([output], Path(output), html=True, figure=None):
            print(line)
    return 0


def _print_combo_table(results: dict) -> None:
    """Category Building per difficulty level, next to ComBo's published rows (its Table 4)."""
    from adapters.datasets.combo.evaluation import levels_of_run, markdown_table, run_label

    levels = levels_of_run(results)
    if levels is not None:
        print("\nCategory Building by difficulty (accuracy in %; ComBo's Table 4 rows below, for reference)\n")
        print(markdown_table({run_label(results): levels}))


def handle_default() -> int:
    """The embedded default: the synthetic BLINK-format benchmark with the default specialists."""
    print("blink-specialists: embedded default run: synthetic BLINK-format questions with answers known by")
    print("construction, answered by the best weight-free specialist per task (no weights, no downloads)\n")
    parser = argparse.ArgumentParser(prog="specialists")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["run", "--benchmark", "synthetic"])  # bars show on a terminal
    args.output_dir = default_output("synthetic", None)
    return handle(args)
