"""`specialists report RUN_DIR ...`: tables (Markdown, CSV) and a plot from run folders."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser("report", help="tables (Markdown, CSV) and a plot from run folders")
    report.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    report.add_argument("--output-dir", dest="output", metavar="DIR",
                        help="folder for report.md/.csv/.png (default: the run folder)")
    report.add_argument("--output", dest="output", help=argparse.SUPPRESS)  # the older name
    add_page_options(report)


def add_page_options(parser: argparse.ArgumentParser) -> None:
    """--html, --figure and --data-root, shared by `report` and `compare`."""
    parser.add_argument("--html", action="store_true",
                        help="also write a browsable page of every question (images with the markers used, each "
                             "answer, status, evidence, filters) into a folder beside the report; opens from disk")
    parser.add_argument("--figure", nargs="+", action="extend", metavar="IDX",
                        help="also write figure.png and figure.pdf: these questions with their markers, gold and "
                             "answers, one paper column (3.25 in) wide")
    parser.add_argument("--data-root", metavar="DIR",
                        help="--html/--figure: the questions' folder, when it moved since the run (default: the "
                             "one results.json records)")


def handle(args: argparse.Namespace) -> int:
    from adapters.report.run_report import write_report

    paths = write_report(args.run_dirs, args.output)
    print(paths["markdown"].read_text(encoding="utf-8"))
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    if args.html or args.figure:
        from adapters.report.html_report import run_pages

        for line in run_pages(args.run_dirs, paths["markdown"].parent, args.html, args.figure, args.data_root):
            print(line)
    return 0
