"""What the report page shows, as one JSON-able dict (the page's embedded data blob).

    {"title", "kind": "run" | "compare", "systems": [{"name", "short", "kind", "source"}],
     "tasks": [...], "table": {...}, "plots": [{"src", "alt"}], "notes": [...],
     "questions": [{"idx", "task", "text", "choices", "gold", "images": [...], "markers": {...},
                    "markers_from", "note", "answers": [answer or null, one per system]}]}

An answer is what one system said about one question: a specialist's choice, whether it is
right (null: unscored), status (ok, abstained, error with its reason), seconds, rule, scores,
the details the rule measured and its evidence pictures; an MLLM's parsed choice, how its text
was read ("form") and the raw text. Everything here is data: the page writes it as text, never
as markup.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from adapters.core.tasks import ALL_TASK_NAMES
from adapters.report.reference import reference_scores

# How an MLLM's answer text was read (mllm_answers' forms) -> the status the page filters by.
MLLM_STATUS = {"missing": "missing", "unparsed": "unparsed", "several_options": "unparsed",
               "out_of_options": "unparsed"}
# samples.jsonl's marker source (results.json "markers.source") in words
MARKER_SOURCES = {"parsed": "read from the drawing", "file": "from the --markers file",
                  "generator": "from the generator's markers file", "none": None}
# Questions per page: the page builds only the rows it shows, so thousands open at once.
PAGE_SIZE = 50


def _number(value: Any) -> Any:
    """JSON-safe: NaN and infinities (which JSON has no word for) become null."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {str(k): _number(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_number(v) for v in value]
    return value


def specialist_answer(sample: Mapping[str, Any], correct: bool | None = None, rescored: bool = False) -> dict:
    """A samples.jsonl line as the page shows it; `correct` overrides the line's (re-scored by
    compare against another answer key) when `rescored`."""
    decision = sample.get("decision") or {}
    status = sample.get("status") or "ok"
    return _number({
        "pred": decision.get("pred") if status != "error" else None,
        "ok": correct if rescored else sample.get("correct"),
        "status": status,
        "error": sample.get("error"),
        "sec": sample.get("seconds"),
        "rule": decision.get("rule"),
        "tie": bool(decision.get("tie")),
        "scores": decision.get("scores") or {},
        "details": decision.get("details") or {},
        "who": sample.get("specialist"),
        "evidence": [],
    })


def mllm_answer(letter: str | None, correct: bool, form: str, raw: Any) -> dict:
    """An MLLM's answer: the letter read from its text (None: none could be), right or wrong, the
    form it was read in, and the raw text as the prediction file holds it."""
    return {"pred": letter, "ok": bool(correct), "status": MLLM_STATUS.get(form, "ok"), "form": form,
            "raw": None if raw is None else str(raw)}


def question_entry(idx: str, task: str, gold: str | None, answers: Sequence[dict | None],
                   text: str = "", choices: Sequence[str] | None = None) -> dict:
    """One question with no images yet (page_images adds them)."""
    return {"idx": idx, "task": task, "text": text, "choices": list(choices) if choices else None, "gold": gold,
            "images": [], "markers": None, "markers_from": None, "note": None, "answers": list(answers)}


def ordered_tasks(tasks: set[str]) -> list[str]:
    return [t for t in ALL_TASK_NAMES if t in tasks] + sorted(tasks - set(ALL_TASK_NAMES))


def _cell(task: Mapping[str, Any] | None) -> dict | None:
    if not task or task.get("accuracy") is None:
        return None
    ci = task.get("ci95") or [None, None]
    return {"acc": task["accuracy"], "n": task.get("n"), "lo": ci[0], "hi": ci[1]}


def _reference_rows(tasks: Sequence[str]) -> list[dict]:
    """The paper's specialist and human rows for BLINK's tasks (Table 1 and 2), as cells."""
    refs = reference_scores()["tasks"]
    rows = []
    for name, key in (("paper specialist", "specialist_accuracy"), ("human (paper)", "human")):
        cells = {t: {"acc": refs[t][key]} for t in tasks if refs.get(t, {}).get(key) is not None}
        if cells:
            rows.append({"name": name, "kind": "reference", "cells": cells, "macro": None})
    return rows


def run_table(runs: Sequence[Any]) -> dict:
    """Per-task accuracy of each run (its results.json), with the paper's reference rows."""
    tasks = ordered_tasks({t for run in runs for t in run.results["tasks"]})
    rows = [{"name": run.label, "kind": "specialist", "macro": run.results.get("macro_accuracy"),
             "cells": {t: c for t, v in run.results["tasks"].items() if (c := _cell(v))}} for run in runs]
    return {"tasks": tasks, "rows": rows + _reference_rows(tasks)}


def comparison_table(comparison: Mapping[str, Any]) -> dict:
    """Per-task accuracy of every specialist and MLLM as `compare` scored them (comparison.json)."""
    tasks = list(comparison["tasks"])
    rows = [{"name": name, "kind": m["kind"], "macro": m.get("macro_accuracy"),
             "cells": {t: c for t, v in m["tasks"].items() if (c := _cell(v))}}
            for name, m in comparison["models"].items()]
    return {"tasks": tasks, "rows": rows + _reference_rows(tasks)}


def marker_json(coordinates: Mapping[str, Mapping[str, Sequence[float]]]) -> dict:
    """Known coordinates ({image: {label: (x, y) or (x0, y0, x1, y1)}}, a --markers file's) in
    the shape samples.jsonl records markers ({image: {label: {"xy": [...], "box": [...]}}})."""
    out: dict[str, dict] = {}
    for key, labels in coordinates.items():
        out[key] = {}
        for label, value in labels.items():
            value = [float(v) for v in value]
            if len(value) == 4:
                out[key][label] = {"xy": [(value[0] + value[2]) / 2, (value[1] + value[3]) / 2], "box": value}
            else:
                out[key][label] = {"xy": value[:2]}
    return out


def page_data(title: str, kind: str, systems: Sequence[dict], questions: Sequence[dict], table: dict,
              plots: Sequence[dict] = (), notes: Sequence[str] = ()) -> dict:
    """The page's data blob; questions ordered by task (BLINK's order) then by their number."""
    def order(entry: dict) -> tuple:
        head, _, number = entry["idx"].rpartition("_")
        task_rank = ALL_TASK_NAMES.index(entry["task"]) if entry["task"] in ALL_TASK_NAMES else len(ALL_TASK_NAMES)
        return (task_rank, entry["task"], head, int(number) if number.isdigit() else 0, entry["idx"])

    ordered = sorted(questions, key=order)
    return {
        "title": title,
        "kind": kind,
        "systems": list(systems),
        "tasks": ordered_tasks({q["task"] for q in ordered}),
        "table": table,
        "plots": list(plots),
        "notes": list(notes),
        "page_size": PAGE_SIZE,
        "questions": ordered,
    }
