"""BLINK's 14 tasks, and turning a user's task name into one of them ("did you mean")."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class BlinkTask:
    name: str
    n_val: int
    n_test: int


# Counts from the dataset card (val 1,901 / test 1,906 in all).
BLINK_TASKS: tuple[BlinkTask, ...] = (
    BlinkTask("Art_Style", 117, 117),
    BlinkTask("Counting", 120, 120),
    BlinkTask("Forensic_Detection", 132, 132),
    BlinkTask("Functional_Correspondence", 130, 130),
    BlinkTask("IQ_Test", 150, 150),
    BlinkTask("Jigsaw", 150, 150),
    BlinkTask("Multi-view_Reasoning", 133, 133),
    BlinkTask("Object_Localization", 122, 125),
    BlinkTask("Relative_Depth", 124, 124),
    BlinkTask("Relative_Reflectance", 134, 134),
    BlinkTask("Semantic_Correspondence", 139, 140),
    BlinkTask("Spatial_Relation", 143, 143),
    BlinkTask("Visual_Correspondence", 172, 172),
    BlinkTask("Visual_Similarity", 135, 136),
)
TASK_NAMES: tuple[str, ...] = tuple(t.name for t in BLINK_TASKS)
_BY_KEY = {re.sub(r"[\s_\-]+", "", t.lower()): t for t in TASK_NAMES}


class UnknownTaskError(ValueError):
    pass


def canonical_task(name: str) -> str:
    """"relative depth", "Relative_Depth", "relative-depth" -> "Relative_Depth".

    Raises UnknownTaskError with the closest known names for anything else.
    """
    key = re.sub(r"[\s_\-]+", "", name.lower())
    if key in _BY_KEY:
        return _BY_KEY[key]
    close = difflib.get_close_matches(name, TASK_NAMES, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UnknownTaskError(f"unknown BLINK task {name!r}.{hint} Known tasks: {', '.join(TASK_NAMES)}")


_IDX = re.compile(r"^(val|test)_(.+)_(\d+)$")


def task_from_idx(idx: str) -> tuple[str, str]:
    """"val_Relative_Depth_12" -> ("val", "Relative_Depth"). Raises ValueError if malformed."""
    match = _IDX.match(idx)
    if match is None:
        raise ValueError(f'question id {idx!r} is not of the form "<split>_<Task>_<n>"')
    return match.group(1), canonical_task(match.group(2))
