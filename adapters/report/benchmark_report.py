"""Markdown tables of MARVEL's, BLINK-Twice's and CV-Bench's own metrics (marvel_metrics,
blink_twice_metrics, cv_bench_metrics) for `run`, `report` and `compare`: one column per model,
figures in %, random's expectation beside."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from adapters.core import benchmarks
from adapters.core.cells import markdown_cell as md
from adapters.core.cells import percent

MARVEL_ROWS = (("avr", "AVR (instance)"), ("fine", "fine-grained perception (instance)"),
               ("count_context", "coarse: context panels"), ("count_choices", "coarse: choice panels"),
               ("count_total", "coarse: all panels"), ("perc_c", "Perc^C (group)"), ("perc_c_f", "Perc^C&F (group)"),
               ("perc_c_f_avr", "Perc^C&F&AVR (group)"))
CV_BENCH_ROWS = (("overall", "CV-Bench accuracy: (2D + 3D) / 2"), ("2d", "2D: (ADE20K + COCO) / 2"),
                 ("3d", "3D: Omni3D"))
CV_BENCH_TASK_ROWS = (("CV_Bench_Count", "Count (2D)"), ("CV_Bench_Relation", "Relation (2D)"),
                      ("CV_Bench_Depth", "Depth (3D)"), ("CV_Bench_Distance", "Distance (3D)"))
BLINK_TWICE_ROWS = (("q_acc", "Q-Acc"), ("yes_acc", "Yes-Acc"), ("no_acc", "No-Acc"), ("i_acc", "I-Acc (image)"),
                    ("g_acc", "G-Acc (group)"))


def _pct(figure: Mapping[str, Any] | None, key: str = "accuracy") -> str:
    """One figure of a metrics block (accuracy by default) as a table cell."""
    return percent(figure.get(key) if figure else None)


def _table(rows, blocks: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[str]:
    lines = ["| metric | " + " | ".join(map(md, names)) + " | random (expected) | n |", "|---|" + "---|" * (len(names) + 2)]
    for key, label in rows:
        figures = [block.get(key) for block in blocks]
        reference = next((f for f in figures if f), None)
        lines.append(f"| {label} | " + " | ".join(_pct(f) for f in figures)
                     + f" | {_pct(reference, 'random_expected')} | {reference['n'] if reference else '-'} |")
    return lines


def metrics_lines(name: str, metrics: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[str]:
    """The benchmark's metric tables (overall, then per breakdown), one column per model; none for
    a benchmark scored by per-task accuracy alone."""
    return benchmarks.benchmark(name).lines(list(metrics), list(names))


def marvel_lines(metrics: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[str]:
    """MARVEL's metrics overall, then by pattern and by task configuration."""
    lines = ["MARVEL's metrics (%):", ""] + _table(MARVEL_ROWS, [m["overall"] for m in metrics], names)
    for key, title in (("by_pattern", "pattern"), ("by_configuration", "task configuration")):
        values = sorted({v for m in metrics for v in m.get(key, {})})
        lines += ["", f"By {title}: AVR / fine / Perc^C / Perc^C&F&AVR (%):", "",
                  f"| {title} | " + " | ".join(map(md, names)) + " | puzzles |", "|---|" + "---|" * (len(names) + 1)]
        for value in values:
            cells, n = [], "-"
            for m in metrics:
                block = m.get(key, {}).get(value)
                if block is None:
                    cells.append("-")
                    continue
                n = str(block["avr"]["n"] or block["perc_c"]["n"])
                cells.append(" / ".join(_pct(block[k]) for k in ("avr", "fine", "perc_c", "perc_c_f_avr")))
            lines.append(f"| {md(value)} | " + " | ".join(cells) + f" | {n} |")
    return lines


def blink_twice_lines(metrics: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[str]:
    """BLINK-Twice's metrics overall, then Q-Acc by category."""
    lines = ["BLINK-Twice's metrics (%):", ""] + _table(BLINK_TWICE_ROWS, metrics, names)
    notes = {m.get("g_acc_note") for m in metrics if m.get("g_acc_note")}
    lines += ["", *(f"G-Acc: {md(note)}." for note in sorted(notes))] if notes else []
    categories = sorted({c for m in metrics for c in m.get("by_category", {})})
    lines += ["", "Q-Acc by category (%):", "", "| category | " + " | ".join(map(md, names)) + " | n |",
              "|---|" + "---|" * (len(names) + 1)]
    for category in categories:
        figures = [m.get("by_category", {}).get(category) for m in metrics]
        n = next((f["n"] for f in figures if f), "-")
        lines.append(f"| {md(category)} | " + " | ".join(_pct(f) for f in figures) + f" | {n} |")
    return lines


def cv_bench_lines(metrics: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[str]:
    """CV-Bench's overall, 2D and 3D accuracy (the dataset card's formula), then per source and
    per task. The paper's rows are not printed beside them: no reference figures were verified
    for this suite (docs/other-benchmarks.md)."""
    lines = ["CV-Bench's metrics (%; overall = ((ADE20K + COCO) / 2 + Omni3D) / 2, as its dataset card "
             "defines it):", ""]
    lines += _table(CV_BENCH_ROWS, metrics, names)
    lines += ["", "By source and by task (%):", ""]
    lines += _table([(f"by_source:{s}", s) for s in ("ADE20K", "COCO", "Omni3D")]
                    + [(f"by_task:{t}", label) for t, label in CV_BENCH_TASK_ROWS],
                    [_flat(m) for m in metrics], names)
    notes = sorted({note for m in metrics for note in m.get("notes", [])})
    lines += ["", *(f"Note: {md(note)}." for note in notes)] if notes else []
    lines += ["", "The paper's reference numbers are not shown: none were checked against the paper for this "
              "suite (random's expectation is the baseline column)."]
    return lines


def _flat(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """{"by_source": {s: f}, "by_task": {t: f}} -> {"by_source:s": f, "by_task:t": f} for _table."""
    return {f"{group}:{key}": figure for group in ("by_source", "by_task")
            for key, figure in (metrics.get(group) or {}).items()}
