"""Category Building accuracy per difficulty level, and the table of it next to ComBo's
published rows (Table 4 of the paper; accuracies as fractions)."""

from __future__ import annotations

from typing import Mapping, Sequence

from adapters.core.cells import markdown_cell
from adapters.core.scoring import bootstrap_ci, stable_seed
from adapters.core.solver import Solver
from adapters.datasets.combo.category_building import CategoryBuildingQuestion
from adapters.datasets.combo.difficulty import LEVELS

# ComBo, Category Building, prototype retrieval (and GPT-4V), easy/medium/hard/expert.
PUBLISHED: dict[str, tuple[float, float, float, float]] = {
    "ResNet-50 (paper)": (0.98, 0.80, 0.70, 0.58),
    "ViT-B/16 (paper)": (1.00, 0.98, 0.86, 0.66),
    "ResNet-50 + 1 epoch 9,504-way (paper)": (1.00, 1.00, 1.00, 0.92),
    "ViT-B/16 + 1 epoch 9,504-way (paper)": (1.00, 1.00, 0.96, 0.94),
    "GPT-4V (paper)": (0.98, 0.92, 0.80, 0.72),
}


def evaluate_by_level(questions: Sequence[CategoryBuildingQuestion], solver: Solver, batch_size: int = 16,
                      seed: int = 0) -> dict[str, dict]:
    """level -> {"n", "accuracy", "ci95", "errors"}; a failed question counts as wrong."""
    return levels_summary(questions, answer_questions(questions, solver, batch_size), seed)


def answer_questions(questions: Sequence[CategoryBuildingQuestion], solver: Solver,
                     batch_size: int = 16) -> list[tuple[bool, bool]]:
    """(correct, failed) per question, in order; a failed question counts as wrong. Several
    processes each answer a share of the questions and `levels_summary` takes them all."""
    outcomes: list[tuple[bool, bool]] = []
    for start in range(0, len(questions), batch_size):
        batch = questions[start:start + batch_size]
        for q, decision in zip(batch, solver.decide_batch(batch)):
            failed = isinstance(decision, Exception)
            outcomes.append((not failed and decision.pred == q.gold, failed))
    return outcomes


def levels_summary(questions: Sequence[CategoryBuildingQuestion], outcomes: Sequence[tuple[bool, bool]],
                   seed: int = 0) -> dict[str, dict]:
    """The per-level figures of `answer_questions`' outcomes (one per question, in order)."""
    correct: dict[str, list[bool]] = {level: [] for level in LEVELS}
    errors = dict.fromkeys(LEVELS, 0)
    for q, (right, failed) in zip(questions, outcomes, strict=True):
        correct[q.level].append(right)
        errors[q.level] += failed
    out = {}
    for level in LEVELS:
        values = correct[level]
        out[level] = {"n": len(values), "accuracy": sum(values) / len(values) if values else None,
                      "ci95": bootstrap_ci(values, stable_seed("combo", level, seed)), "errors": errors[level]}
    return out


def levels_of_run(results: Mapping) -> dict[str, dict] | None:
    """A `specialists run --benchmark combo` results dict -> level -> {"n", "accuracy", "ci95",
    "errors"} (the rows markdown_table takes); None when the run has no Category Building task."""
    from adapters.core.tasks import CATEGORY_BUILDING_TASKS, COMBO_LEVELS

    tasks = results.get("tasks", {})
    if not any(t in tasks for t in CATEGORY_BUILDING_TASKS):
        return None
    empty = {"n": 0, "accuracy": None, "ci95": None, "errors": 0}
    return {level: {k: tasks.get(task, empty).get(k) for k in empty}
            for level, task in zip(COMBO_LEVELS, CATEGORY_BUILDING_TASKS)}


def run_label(results: Mapping) -> str:
    """The row name of a run: its specialist and checkpoint (flagging random weights)."""
    tasks = [t for t in results.get("tasks", {}).values() if t.get("specialist")]
    specialist = tasks[0]["specialist"] if tasks else "?"
    checkpoint = tasks[0].get("checkpoint") if tasks else None
    if not checkpoint:
        return specialist
    flag = " (random weights: meaningless)" if checkpoint.get("tiny_random") else ""
    return f"{specialist}: {checkpoint.get('name')}{flag}"


def markdown_table(rows: Mapping[str, Mapping[str, dict]], with_published: bool = True) -> str:
    """Rows name -> level results (from evaluate_by_level) as a Markdown table in percent,
    followed by the published reference rows."""
    lines = ["| model | " + " | ".join(LEVELS) + " |", "|---|" + "---:|" * len(LEVELS)]
    for name, levels in rows.items():
        cells = []
        for level in LEVELS:
            r = levels[level]
            cells.append("n/a" if r["accuracy"] is None else f"{100 * r['accuracy']:.1f} (n={r['n']})")
        lines.append(f"| {markdown_cell(name)} | " + " | ".join(cells) + " |")
    if with_published:
        for name, values in PUBLISHED.items():
            lines.append(f"| {name} | " + " | ".join(f"{100 * v:.0f}" for v in values) + " |")
    return "\n".join(lines)
