"""Argument types more than one subcommand uses."""

from __future__ import annotations

import argparse


def question_limit(text: str) -> int | float:
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


class Once(argparse.Action):
    """An option that takes one value: given twice with two values, it is refused rather than
    silently keeping the last (a run loads one checkpoint)."""

    def __call__(self, parser, namespace, values, option_string=None):
        previous = getattr(namespace, self.dest, None)
        if previous is not None and previous != values:
            parser.error(f"{option_string} given twice ({previous} and {values}); a run takes one: give it once")
        setattr(namespace, self.dest, values)


def unique(values: list[str] | None) -> list[str] | None:
    """The values in the order given, each once."""
    return list(dict.fromkeys(values)) if values else values
