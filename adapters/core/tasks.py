"""BLINK's 14 tasks, ComBo's, MARVEL's, BLINK-Twice's and CV-Bench's, and turning a user's task name into one of them ("did you mean")."""

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

# ComBo (`--benchmark combo`): Category Building split by difficulty level (the levels of
# adapters.datasets.combo.difficulty.LEVELS; kept literal here so this module stays import-light), and
# Pattern Perception.
COMBO_LEVELS: tuple[str, ...] = ("easy", "medium", "hard", "expert")
CATEGORY_BUILDING_TASKS: tuple[str, ...] = tuple(f"Category_Building_{level}" for level in COMBO_LEVELS)
COMBO_TASKS: tuple[str, ...] = CATEGORY_BUILDING_TASKS + ("Pattern_Perception",)
# MARVEL (`--benchmark marvel`): each puzzle asks five questions, one task each: the abstract
# visual reasoning question (4 choices), the fine-grained perception question (2 options), and
# the three coarse panel counts (the context part, the choices part, the whole puzzle).
MARVEL_COUNT_TASKS: tuple[str, ...] = ("MARVEL_Count_Context", "MARVEL_Count_Choices", "MARVEL_Count_Total")
MARVEL_TASKS: tuple[str, ...] = ("MARVEL_AVR", "MARVEL_Fine_Perception") + MARVEL_COUNT_TASKS
# BLINK-Twice (`--benchmark blink-twice`): yes/no questions on visual illusions, two per image.
BLINK_TWICE_TASKS: tuple[str, ...] = ("BLINK_Twice",)
# CV-Bench (`--benchmark cv-bench`): the release's `task` column (Count, Relation: 2D; Depth,
# Distance: 3D), prefixed so that its Count is not BLINK's Counting.
CV_BENCH_TASKS: tuple[str, ...] = ("CV_Bench_Count", "CV_Bench_Relation", "CV_Bench_Depth", "CV_Bench_Distance")
ALL_TASK_NAMES: tuple[str, ...] = TASK_NAMES + COMBO_TASKS + MARVEL_TASKS + BLINK_TWICE_TASKS + CV_BENCH_TASKS


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.lower())


class UnknownTaskError(ValueError):
    pass


def canonical_task(name: str, known: tuple[str, ...] = TASK_NAMES) -> str:
    """"relative depth", "Relative_Depth", "relative-depth" -> "Relative_Depth".

    known: the task names accepted (BLINK's by default; COMBO_TASKS or ALL_TASK_NAMES for
    others). Raises UnknownTaskError with the closest known names for anything else.
    """
    by_key = {_key(task): task for task in known}
    if _key(name) in by_key:
        return by_key[_key(name)]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    what = "BLINK task" if known == TASK_NAMES else "task"
    raise UnknownTaskError(f"unknown {what} {name!r}.{hint} Known tasks: {', '.join(known)}")


def combo_tasks(names: list[str] | None) -> list[str]:
    """User task names for `--benchmark combo` -> ComBo tasks; "Category_Building" means all
    four levels; None means the four Category Building levels (Pattern Perception on request)."""
    if not names:
        return list(CATEGORY_BUILDING_TASKS)
    out: list[str] = []
    for name in names:
        expanded = CATEGORY_BUILDING_TASKS if _key(name) == _key("Category_Building") else (
            canonical_task(name, COMBO_TASKS),)
        out.extend(t for t in expanded if t not in out)
    return out


# The whole id must match ("$" alone lets a trailing newline through), numbered in ASCII digits
# ("\d" also takes other scripts' digits, such as Arabic-Indic ones).
_IDX = re.compile(r"(val|test)_(.+)_([0-9]+)")


def task_from_idx(idx: str) -> tuple[str, str]:
    """"val_Relative_Depth_12" -> ("val", "Relative_Depth"). Raises ValueError if malformed."""
    match = _IDX.fullmatch(idx)
    if match is None:
        raise ValueError(f'question id {idx!r} is not of the form "<split>_<Task>_<n>"')
    return match.group(1), canonical_task(match.group(2))
