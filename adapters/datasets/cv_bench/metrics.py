"""CV-Bench's metrics, from answered questions (sample lines of a run, or an MLLM's scored answers).

As the dataset card (nyu-visionx/CV-Bench, "Accuracy") and Cambrian-1 define them:
- accuracy per source: ADE20K, COCO (the 2D questions), Omni3D (the 3D ones);
- 2D accuracy = (ADE20K + COCO) / 2, the two sources weighted alike whatever their sizes;
- 3D accuracy = Omni3D;
- CV-Bench accuracy (the overall score) = (2D + 3D) / 2
  = ((acc_ADE20K + acc_COCO) / 2 + acc_Omni3D) / 2.
Beside them, accuracy per task (Count, Relation, Depth, Distance), pooled over its questions.
A question answered wrongly, not answered, or failed counts as wrong. A combined figure needs all
its parts: with no ADE20K or no COCO question scored, 2D (and the overall score) is None and a
note says which part is missing (a `--tasks` or `--limit` run).
Each figure comes with what uniform random choice scores in expectation, combined by the same
formula (each question: 1 / its number of options).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping

from adapters.core.scoring import accuracy_figure
from adapters.core.tasks import CV_BENCH_TASKS

SOURCES_2D = ("ADE20K", "COCO")
SOURCES_3D = ("Omni3D",)
SOURCES = SOURCES_2D + SOURCES_3D


def _figure(pairs: list[tuple[bool, float | None]]) -> dict[str, Any]:
    """accuracy_figure, random's expectation over the questions whose options are known."""
    known = [c for _, c in pairs if c is not None]
    out = accuracy_figure([r for r, _ in pairs], known)
    out["random_expected"] = sum(known) / len(known) if known else None
    return out


def _mean_of(figures: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """The unweighted mean of figures' accuracy and random expectation; None if any is missing."""
    if not figures or any(f is None or f["n"] == 0 for f in figures):
        return None
    chance = [f["random_expected"] for f in figures]
    return {"n": sum(f["n"] for f in figures), "correct": sum(f["correct"] for f in figures),
            "accuracy": sum(f["accuracy"] for f in figures) / len(figures),
            "random_expected": None if None in chance else sum(chance) / len(chance)}


def cv_bench_metrics(samples: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """samples: {"task", "correct", "n_choices", "meta": {"source"}} per question ->
    {"overall", "2d", "3d": figure or None, "by_source": {source: figure}, "by_task": {task: figure},
    "notes": [...]}; a figure is {n, correct, accuracy, random_expected} (n and correct summed over
    its parts for a combined one)."""
    by_source: dict[str, list[tuple[bool, float | None]]] = defaultdict(list)
    by_task: dict[str, list[tuple[bool, float | None]]] = defaultdict(list)
    unknown: dict[str, int] = defaultdict(int)
    for sample in samples:
        if sample.get("task") not in CV_BENCH_TASKS or sample.get("correct") is None:
            continue
        right = bool(sample["correct"])
        # a question too broken to read has no option count: it counts wrong, and not in random's figure
        chance = 1.0 / sample["n_choices"] if sample.get("n_choices") else None
        source = str((sample.get("meta") or {}).get("source"))
        if source in SOURCES:
            by_source[source].append((right, chance))
        else:
            unknown[source] += 1
        by_task[sample["task"]].append((right, chance))

    sources = {s: _figure(by_source[s]) for s in SOURCES if by_source.get(s)}
    two_d = _mean_of([sources.get(s) for s in SOURCES_2D])
    three_d = _mean_of([sources.get(s) for s in SOURCES_3D])
    notes = []
    for name, parts, combined in (("2D", SOURCES_2D, two_d), ("3D", SOURCES_3D, three_d)):
        absent = [s for s in parts if s not in sources]
        if combined is None and sources:
            notes.append(f"{name} accuracy needs {' and '.join(parts)}; no {' or '.join(absent)} question was scored")
    for source, n in sorted(unknown.items()):
        notes.append(f"{n} question(s) from source {source!r} count in their task but in no source "
                     f"(CV-Bench's are {', '.join(SOURCES)})")
    return {"overall": _mean_of([two_d, three_d]), "2d": two_d, "3d": three_d, "by_source": sources,
            "by_task": {t: _figure(by_task[t]) for t in CV_BENCH_TASKS if by_task.get(t)}, "notes": notes}
