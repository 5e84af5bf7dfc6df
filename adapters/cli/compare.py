"""`specialists compare [RUN_DIR ...] --mllm PATH ... [--answers FILE] [--output-dir DIR]`.

Puts specialist runs and MLLM predictions side by side on the same BLINK questions (see
adapters/report/compare.py for the scoring and adapters/report/mllm.py for the formats read). With no
RUN_DIR it compares the MLLMs alone. On MARVEL, BLINK-Twice or CV-Bench (`--benchmark`, or the runs'),
adapters/report/compare_other.py scores them with those benchmarks' own metrics.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from adapters.cli.report import add_page_options
from adapters.core.benchmarks import RELEASE_BENCHMARKS


def add_parser(commands: argparse._SubParsersAction) -> None:
    compare = commands.add_parser("compare", help="specialist runs versus MLLM predictions on the same questions")
    compare.add_argument("run_dirs", nargs="*", metavar="RUN_DIR", help="folders made by `specialists run`")
    compare.add_argument("--mllm", nargs="+", action="extend", required=True, metavar="[NAME=]PATH",
                         help="MLLM predictions: BLINK JSON (flat or {model}/{Task}.json), VLMEvalKit "
                              ".xlsx/.tsv/.csv, lmms-eval samples_*.jsonl, CSV idx,prediction; a file or a folder")
    compare.add_argument("--answers", help='gold answers {idx: "(X)"}, e.g. val_answers.json (recorded)')
    compare.add_argument("--blink-root", help="BLINK files, to know each question's options (optional)")
    compare.add_argument("--match", default="auto", choices=["auto", "exact", "lenient"],
                         help="auto: exact for BLINK's extracted predictions (as BLINK scored them), "
                              "lenient for raw model output")
    compare.add_argument("--benchmark", choices=["blink", *RELEASE_BENCHMARKS],
                         help="the benchmark the runs and predictions answer (default: the runs', else blink); "
                              "marvel, blink-twice and cv-bench are scored with their own metrics")
    compare.add_argument("--root", metavar="DIR", help="--benchmark marvel | blink-twice | cv-bench: the release folder "
                                                       "(default: the one the runs read)")
    compare.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    compare.add_argument("--allow-other-benchmarks", action="store_true",
                         help="score runs on other benchmarks (synthetic) against BLINK's answers and predictions "
                         "anyway; they are labelled in every table")
    compare.add_argument("--output", dest="output", help=argparse.SUPPRESS)  # the older name
    compare.add_argument("--output-dir", dest="output", metavar="DIR", help="folder for comparison.json/.md/.csv, misses.csv, plots "
                                          "(default: the run folder when there is exactly one)")
    add_page_options(compare)


def _benchmark_of(args: argparse.Namespace) -> str:
    if args.benchmark:
        return args.benchmark
    from adapters.report.run_report import load_run

    found = {load_run(d).results.get("benchmark") for d in args.run_dirs}
    return next((b for b in RELEASE_BENCHMARKS if b in found), "blink")


def handle(args: argparse.Namespace) -> int:
    from adapters.report.compare import CompareError, accuracy_table, comparison_of, score_inputs, write_comparison

    output = args.output
    if output is None:
        if len(args.run_dirs) != 1:
            raise CompareError("pass --output-dir DIR (the default, the run folder, needs exactly one RUN_DIR)")
        output = args.run_dirs[0]
    benchmark = _benchmark_of(args)
    if benchmark != "blink":
        from adapters.report.compare_other import compare_other, comparison_markdown, write_other_comparison

        if args.html or args.figure:
            raise CompareError(f"--html and --figure show BLINK-format comparisons; {benchmark} is scored by its own "
                               "metrics: use `specialists report RUN_DIR --html` for its runs")
        comparison = compare_other(benchmark, args.run_dirs, args.mllm, root=args.root)
        print(comparison_markdown(comparison))
        paths = write_other_comparison(comparison, output)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
        return 0
    scored = score_inputs(args.run_dirs, args.mllm, answers=args.answers, blink_root=args.blink_root,
                          match=args.match, seed=args.seed, allow_other_benchmarks=args.allow_other_benchmarks)
    comparison = comparison_of(scored)
    answers = comparison["answers"]
    print(f"answers: {answers.get('name')} ({answers.get('source')}); match: {comparison['match']}; "
          f"{len(comparison['models'])} models\n")
    print(accuracy_table(comparison))
    paths = write_comparison(comparison, output)
    print("\nwrote " + ", ".join(str(p) for p in paths.values()))
    print(f"details (parsing, CIs, McNemar, agreement, oracle union): {Path(paths['markdown'])}")
    if args.html or args.figure:
        from adapters.report.html_report import comparison_pages

        for line in comparison_pages(scored, comparison, Path(output), args.html, args.figure, args.data_root,
                                     args.blink_root):
            print(line)
    return 0
