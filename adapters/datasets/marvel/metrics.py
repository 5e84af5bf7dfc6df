"""MARVEL's metrics, from answered questions (sample lines of a run, or an MLLM's scored answers).

As MARVEL defines its hierarchical evaluation (the release has no scoring code; these follow the
paper's definitions):
- instance accuracy: per question, for the AVR question and for the fine-grained perception
  question (and, listed apart, for each of the three coarse panel counts);
- group accuracy, per puzzle: Perc^C when all three coarse questions are right; Perc^C&F when
  the fine-grained one is right too; Perc^C&F&AVR when the AVR question is right as well;
- both broken down by pattern and by task configuration.
A question answered wrongly, not answered, or failed counts as wrong. A group metric counts only
the puzzles whose questions were all asked (a `--limit` or `--tasks` run says how many).
Each figure comes with what uniform random choice would score in expectation (the mean over
questions of 1 / options; for a group, of the product), the baseline it is to be read against.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping

from adapters.core.scoring import accuracy_figure
from adapters.core.tasks import MARVEL_COUNT_TASKS
from adapters.datasets.marvel.reader import MAX_COUNT

INSTANCE = {"avr": "MARVEL_AVR", "fine": "MARVEL_Fine_Perception", "count_context": "MARVEL_Count_Context",
            "count_choices": "MARVEL_Count_Choices", "count_total": "MARVEL_Count_Total"}
OPTIONS = {"MARVEL_AVR": 4, "MARVEL_Fine_Perception": 2, **{task: MAX_COUNT for task in MARVEL_COUNT_TASKS}}
GROUPS = {"perc_c": MARVEL_COUNT_TASKS,
          "perc_c_f": MARVEL_COUNT_TASKS + ("MARVEL_Fine_Perception",),
          "perc_c_f_avr": MARVEL_COUNT_TASKS + ("MARVEL_Fine_Perception", "MARVEL_AVR")}


def _block(puzzles: Mapping[str, dict[str, tuple[bool, int]]]) -> dict[str, Any]:
    """Instance and group figures over `puzzles` (puzzle -> task -> (right, options))."""
    out: dict[str, Any] = {}
    for name, task in INSTANCE.items():
        answered = [questions[task] for questions in puzzles.values() if task in questions]
        out[name] = accuracy_figure([right for right, _ in answered], [1 / n for _, n in answered])
    for name, tasks in GROUPS.items():
        complete = [questions for questions in puzzles.values() if all(t in questions for t in tasks)]
        right = [all(questions[t][0] for t in tasks) for questions in complete]
        chance = []
        for questions in complete:
            p = 1.0
            for t in tasks:
                p /= questions[t][1]
            chance.append(p)
        out[name] = accuracy_figure(right, chance)
    return out


def marvel_metrics(samples: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """samples: {"task", "gold", "correct", "n_choices", "meta": {"puzzle", "pattern", "configuration"}}
    per question -> {"overall": figures, "by_pattern": {pattern: figures},
    "by_configuration": {configuration: figures}}, each figure {n, correct, accuracy, random_expected}."""
    puzzles: dict[str, dict[str, tuple[bool, int]]] = defaultdict(dict)
    kind: dict[str, tuple[str, str]] = {}
    for sample in samples:
        meta = sample.get("meta") or {}
        if "puzzle" not in meta or sample.get("task") not in INSTANCE.values() or sample.get("correct") is None:
            continue  # not MARVEL's, or a question whose answer is hidden: nothing to score
        puzzle = str(meta["puzzle"])
        # a question that failed (its image unreadable, say) is wrong, with its task's options
        options = int(sample.get("n_choices") or OPTIONS[sample["task"]])
        puzzles[puzzle][sample["task"]] = (bool(sample.get("correct")), options)
        kind[puzzle] = (str(meta.get("pattern")), str(meta.get("configuration")))
    out: dict[str, Any] = {"puzzles": len(puzzles), "overall": _block(puzzles)}
    for key, position in (("by_pattern", 0), ("by_configuration", 1)):
        values = sorted({k[position] for k in kind.values()})
        out[key] = {value: _block({p: q for p, q in puzzles.items() if kind[p][position] == value}) for value in values}
    return out
