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

    return main(shipped_configs(args.lightning_args))


def shipped_configs(argv: list[str]) -> list[str]:
    """`--config train/configs/NAME.yaml` (or `--config=...`, or a bare NAME.yaml) names a config
    the package ships: where no such file is under the current folder, the installed one is used,
    so the README's commands work from any folder."""
    from pathlib import Path

    import train

    shipped = Path(train.__file__).parent / "configs"
    out = list(argv)
    for i, word in enumerate(out):
        prefix = "--config=" if word.startswith("--config=") else None
        if prefix is None and not (i > 0 and out[i - 1] == "--config"):
            continue
        value = word[len(prefix):] if prefix else word
        if not Path(value).exists() and (shipped / Path(value).name).is_file():
            out[i] = (prefix or "") + str(shipped / Path(value).name)
    return out
