"""Known marker coordinates from a file (`specialists run --markers FILE`), overriding parsing.

Two formats, told apart by content:
- markers.jsonl (what `specialists markers --output` and `specialists synth` write), one line per
  question: {"idx", "task", "status": "ok"|"error", "error", "markers": {"image_1": {"A":
  {"xy": [x, y], "confidence": c}, ...}}}, a box as {"box": [x0, y0, x1, y1]}; lines whose status
  is "error" give no coordinates.
- plain JSON: {idx: {"image_1": {"A": [x, y], "B": [x0, y0, x1, y1], ...}}}.
Result: {idx: {"image_1": {"A": (x, y) or (x0, y0, x1, y1)}}}, the shape of MCQuestion.markers.
Coordinates are pixels of the image as a viewer displays it (its EXIF orientation applied, origin
top left), the frame every question image is decoded in (adapters/core/image_decode.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from adapters.core.questions import MCQuestion

Coordinates = dict[str, dict[str, dict[str, tuple[float, ...]]]]


class MarkersFileError(ValueError):
    """A --markers file cannot be read; the message names the file, the place and the fix."""


def _value(path: Path, where: str, value) -> tuple[float, ...]:
    if isinstance(value, dict):
        value = value.get("box", value.get("xy"))
    if not isinstance(value, (list, tuple)) or len(value) not in (2, 4):
        raise MarkersFileError(f"{path}: {where}: expected [x, y], [x0, y0, x1, y1] or "
                               f'{{"xy": [x, y]}} / {{"box": [...]}}, got {value!r}')
    try:
        return tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise MarkersFileError(f"{path}: {where}: coordinates must be numbers, got {value!r}") from None


def _images(path: Path, where: str, images) -> dict[str, dict[str, tuple[float, ...]]]:
    if not isinstance(images, dict):
        raise MarkersFileError(f'{path}: {where}: expected {{"image_1": {{"A": [x, y]}}}}, got {type(images).__name__}')
    out = {}
    for key, labels in images.items():
        if not str(key).startswith("image_") or not isinstance(labels, dict):
            raise MarkersFileError(f'{path}: {where}: image keys must be "image_1", "image_2", ... '
                                   f"each mapping labels to coordinates; got {key!r}")
        out[key] = {label: _value(path, f"{where} {key} {label}", v) for label, v in labels.items()}
    return out


def load_markers(path: str | Path) -> Coordinates:
    """Read a markers.jsonl or plain JSON coordinates file (see the module doc)."""
    path = Path(path)
    if not path.is_file():
        raise MarkersFileError(f"--markers {path}: no such file")
    text = path.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    result: Coordinates = {}
    if isinstance(whole, dict) and "idx" not in whole:
        for idx, images in whole.items():
            result[str(idx)] = _images(path, str(idx), images)
        return result
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MarkersFileError(f"{path}: line {number} is not JSON ({exc.msg}); expected markers.jsonl "
                                   'lines or one JSON object {idx: {"image_1": {...}}}') from None
        if not isinstance(row, dict) or "idx" not in row:
            raise MarkersFileError(f'{path}: line {number}: expected an object with "idx" and "markers"')
        if row.get("status", "ok") != "ok":
            continue
        result[str(row["idx"])] = _images(path, f"line {number} ({row['idx']})", row.get("markers") or {})
    return result


def apply_markers(questions: Iterable[MCQuestion], coordinates: Coordinates) -> Iterable[MCQuestion]:
    """Attach known coordinates to the questions they name (question.markers); others pass unchanged."""
    for question in questions:
        known = coordinates.get(getattr(question, "idx", None))
        if known is not None and isinstance(question, MCQuestion):
            question.markers = known
        yield question
