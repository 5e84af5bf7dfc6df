"""The `specialists` command line: one module per subcommand (run, ls, synth, markers, compare,
report, checkpoints, train, combo); this one parses and dispatches.

It sits at the top of the import graph: it may import anything, nothing below imports it. Heavy
modules are imported inside each command so `specialists ls` answers at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from adapters.cli import checkpoints, combo, compare, ls, markers, report, run, synth, train
from specialists import __version__

# Errors whose message is the whole story: printed as "error: ..." without a traceback
# (every input error of the suite is a ValueError subclass). SPECIALISTS_DEBUG=1 re-raises them.
USER_ERRORS = (ValueError, FileNotFoundError)
# `specialists COMMAND`: each module has add_parser(commands) and handle(args), in help order
SUBCOMMANDS = {"run": run, "ls": ls, "synth": synth, "markers": markers, "compare": compare,
               "checkpoints": checkpoints, "train": train, "combo": combo, "report": report}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="specialists",
        description="Specialist-model baselines for BLINK-style multiple-choice perception questions. "
        "With no command: run the embedded default and print its table.",
    )
    parser.add_argument("--version", action="version", version=f"blink-specialists {__version__}")
    commands = parser.add_subparsers(dest="command")
    for command in SUBCOMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from adapters.run.ranks import StoppedElsewhere

    try:
        if args.command is None:
            return run.handle_default()
        return SUBCOMMANDS[args.command].handle(args)
    except StoppedElsewhere:  # another process of a several-process run failed; rank 0 prints why
        return 1
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
