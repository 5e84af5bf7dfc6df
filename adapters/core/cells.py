"""Data written into reports, made safe for where it lands.

Run and model names, question ids, task names and answers come from files a user was given, so
they are data: in a Markdown table a `|` would open a column and a newline end the row, and a
renderer would run `<script>` or draw a backtick as code; in a spreadsheet a CSV cell opening
with `=`, `+`, `-`, `@`, a tab or a carriage return is run as a formula (OWASP's CSV injection:
the cell is prefixed with a single quote). Numbers stay numbers: only text is changed.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

_LINE_BREAKS = re.compile(r"\r\n|\r|\n|\u2028|\u2029")
# Markdown's own characters in a cell, and HTML's (reports are rendered on forges and in browsers)
_MARKDOWN_ESCAPES = {"\\": "\\\\", "|": "\\|", "`": "\\`", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
_FORMULA_OPENERS = ("=", "+", "-", "@", "\t", "\r")


def markdown_cell(value: Any) -> str:
    """`value` as the text of one Markdown table cell or inline phrase: one line, no markup."""
    text = _LINE_BREAKS.sub(" ", str(value))
    return "".join(_MARKDOWN_ESCAPES.get(char, char) for char in text)


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows rather than runs: text opening like a formula gets a
    leading single quote; numbers, None and other text pass unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_OPENERS):
        return "'" + value
    return value


def csv_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Every cell of a csv.DictWriter row through csv_cell."""
    return {key: csv_cell(value) for key, value in row.items()}


def percent(fraction: float | None) -> str:
    """A fraction as the tables print it: "96.51"; "-" where there is none."""
    return "-" if fraction is None else f"{100 * fraction:.2f}"
