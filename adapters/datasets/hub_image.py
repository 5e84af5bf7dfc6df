"""The image cell of a Hugging Face dataset's parquet or arrow file: `{"bytes": ..., "path": ...}`.

The hub writes the encoded file in `bytes`; a locally built dataset may keep only `path` (relative
to the file that holds the cell). Readers of every hub release (MARVEL, CV-Bench) open cells here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def hub_image_cell(value: Any, file: Path) -> Callable[[], bytes] | None:
    """A loader of the cell's encoded image (read when called, so a run holds no image it has not
    reached), or None when the cell holds neither bytes nor a path to a file that exists."""
    if isinstance(value, dict) and value.get("bytes"):
        data = value["bytes"]
        return lambda: data
    if isinstance(value, dict) and value.get("path"):
        path = Path(value["path"])
        path = path if path.is_absolute() else file.parent / path
        if path.is_file():
            return path.read_bytes
    return None
