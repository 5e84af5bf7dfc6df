"""JSON Lines, as benchmark releases and evaluation harnesses write them: one JSON value per line,
blank lines allowed. Readers of question files and of prediction files share this one parser so
that a broken line is reported the same way everywhere: the file and line number, and why.

    for number, row in json_lines(text, path, MyFormatError):   # rows are dicts
        ...
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def json_lines(text: str, source: Any, error: type[Exception], objects: bool = True,
               fix: str = "") -> Iterator[tuple[int, Any]]:
    """(1-based line number, parsed value) for each non-blank line of `text`.

    A line that is not JSON raises `error` naming `source`:line; with `objects` a value that is
    not a JSON object does too. `fix` is appended to those messages (what the user should do)."""
    tail = f"; {fix}" if fix else ""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{source}:{number}: not valid JSON ({exc}){tail}") from None
        if objects and not isinstance(value, dict):
            raise error(f"{source}:{number}: expected one JSON object per line, got {type(value).__name__}{tail}")
        yield number, value
