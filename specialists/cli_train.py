"""`specialists train combo [LightningCLI options]`: the glue only. LightningCLI parses its own
options, so everything after `combo` is forwarded to it untouched (see train/cli.py)."""

from __future__ import annotations

import argparse

TARGETS = ("combo",)


def add_parser(commands: argparse._SubParsersAction) -> None:
    train = commands.add_parser(
        "train", add_help=False,
        help="fine-tune a model (combo: ComBo 9,504-way classification; options are LightningCLI's, "
             "try `specialists train combo --help`)")
    train.add_argument("target", nargs="?", metavar="TARGET", help=f"what to train: {', '.join(TARGETS)}")
    train.add_argument("lightning_args", nargs=argparse.REMAINDER, help="forwarded to LightningCLI")


def handle(args: argparse.Namespace) -> int:
    if args.target not in TARGETS:
        raise ValueError(f"`specialists train` needs a target ({', '.join(TARGETS)}), got {args.target!r}; "
                         "e.g. specialists train combo --config train/configs/combo_lite_cpu.yaml")
    from train.cli import main

    return main(args.lightning_args)
