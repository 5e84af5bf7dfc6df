"""The comparison's two figures: accuracy per task with CIs (grouped bars) and each specialist
against the best MLLM of each task (scatter), from comparison.json's dict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

# Grouped bars stay readable up to this many models; beyond it, the best MLLMs by macro mean.
MAX_BARS = 8


def plots(comparison: dict[str, Any], bars: Path, scatter: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    tasks = comparison["tasks"]
    models = comparison["models"]
    specialists = [n for n, m in models.items() if m["kind"] == "specialist"]
    mllms = [n for n, m in models.items() if m["kind"] == "mllm"]  # already sorted by macro
    shown = specialists + mllms[: max(1, MAX_BARS - len(specialists))]
    refs = comparison["reference"]["rows"]
    # Tasks in rows of at most 7, so the figure keeps a page's proportions (14 tasks in one row
    # made it 2328x576 px); whiskers thin and grey, reference marks each their own shape.
    per_row = 7
    rows = [tasks[i:i + per_row] for i in range(0, len(tasks), per_row)] or [[]]
    width = 0.8 / max(len(shown), 1)
    fig, axes = plt.subplots(len(rows), 1, figsize=(11, 3.6 * len(rows) + 1.2), squeeze=False)
    for ax, row_tasks in zip(axes[:, 0], rows):
        x = np.arange(len(row_tasks))
        for i, name in enumerate(shown):
            acc, lo, hi = [], [], []
            for task in row_tasks:
                t = models[name]["tasks"].get(task) or {}
                a = t.get("accuracy")
                ci = t.get("ci95") or (a, a)
                acc.append(100 * a if a is not None else np.nan)
                lo.append(100 * (a - ci[0]) if a is not None else 0)
                hi.append(100 * (ci[1] - a) if a is not None else 0)
            ax.bar(x - 0.4 + width * (i + 0.5), acc, width, yerr=[lo, hi], capsize=0,
                   error_kw={"elinewidth": 0.8, "ecolor": "0.35"}, label=name)
        for row, marker, colour in (("paper specialist", "D", "black"), ("human (paper)", "^", "tab:green")):
            ax.scatter(x, [100 * refs[row][t] if t in refs[row] else np.nan for t in row_tasks], marker=marker, s=40,
                       color=colour, edgecolors="white", linewidths=0.8, label=row, zorder=3)
        ax.set_xticks(x, [t.replace("_", "\n", 1) for t in row_tasks], fontsize=10)
        ax.set_ylabel("accuracy %", fontsize=10)
        ax.set_ylim(0, 105)
        ax.set_xlim(-0.5, per_row - 0.5)
    hidden = len(specialists) + len(mllms) - len(shown)
    fig.suptitle("Accuracy per task, 95% Wilson CI" + (f" ({hidden} lower-ranked MLLMs not drawn)" if hidden else ""),
                 fontsize=12)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.06 + 0.02 * (len(labels) // 6), 1, 0.97))
    fig.savefig(bars, dpi=120)
    plt.close(fig)

    # Specialist (measured, else the paper's) against the best MLLM of each task.
    best = comparison["best_mllm"]
    fig, ax = plt.subplots(figsize=(6, 6))
    sources = [(n, {t: v["accuracy"] for t, v in models[n]["tasks"].items()}) for n in specialists]
    if not sources:
        sources = [("paper specialist", refs["paper specialist"])]
    placed: list[tuple[float, float]] = []  # label positions so far, in data units
    for name, accs in sources:
        pts = [(models[best[t]]["tasks"][t]["accuracy"], accs[t], t) for t in tasks if t in best and t in accs]
        ax.scatter([100 * p[0] for p in pts], [100 * p[1] for p in pts], label=name)
        for bx, sy, task in sorted(pts, key=lambda p: -p[1]):
            # beside the point, on the side with room, moved down past labels it would overlap
            right = 100 * bx < 62
            lx, ly = 100 * bx + (2 if right else -2), 100 * sy
            while any(abs(ly - py) < 3.5 and abs(lx - px) < 30 for px, py in placed):
                ly -= 3.5
            placed.append((lx, ly))
            ax.annotate(task.replace("_", " "), (100 * bx, 100 * sy), xytext=(lx, ly), fontsize=8,
                        ha="left" if right else "right", va="center",
                        arrowprops={"arrowstyle": "-", "color": "0.6", "linewidth": 0.6} if ly != 100 * sy else None)
    ax.plot([0, 100], [0, 100], color="grey", linewidth=1, linestyle="--")
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("best MLLM on the task, accuracy %")
    ax.set_ylabel("specialist accuracy %")
    ax.set_title("Specialist vs best MLLM per task")
    ax.legend(fontsize=9, loc="lower right")
    fig.tight_layout()
    fig.savefig(scatter, dpi=120)
    plt.close(fig)
