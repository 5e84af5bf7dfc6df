"""`specialists report RUN_DIR ...`: tables (Markdown, CSV) and a plot from run folders."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser("report", help="tables (Markdown, CSV) and a plot from run folders")
    report.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    report.add_argument("--output-dir", dest="output", metavar="DIR",
                        help="folder for report.md/.csv/.png (default: the run folder)")
    report.add_argument("--output", dest="output", help=argparse.SUPPRESS)  # the older name


def handle(args: argparse.Namespace) -> int:
    from adapters.report.run_report import write_report

    paths = write_report(args.run_dirs, args.output)
    print(paths["markdown"].read_text(encoding="utf-8"))
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0
