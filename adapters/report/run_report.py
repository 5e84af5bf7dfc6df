"""`specialists report RUN_DIR ...`: per-task tables (Markdown, CSV) and a bar chart.

Each run is a column; reference rows come from the questions themselves (expected accuracy of a
random choice) and from the paper (human, the paper's specialist), each with its source.
Percentages in tables (for reading), fractions in CSV (for computing).
"""

from __future__ import annotations

import csv
import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from adapters.core.cells import csv_row, percent
from adapters.core.cells import markdown_cell as md
from adapters.core.scoring import macro_bootstrap_ci, stable_seed
from adapters.core.tasks import ALL_TASK_NAMES
from adapters.report.benchmark_report import metrics_lines
from adapters.report.reference import reference_scores


class ReportError(ValueError):
    pass


@contextmanager
def writing_into(folder: Path, what: str, error: type[ValueError] = ReportError) -> Iterator[None]:
    """A folder that cannot take the files (read-only, full, not ours) is one line naming it."""
    try:
        yield
    except OSError as exc:
        raise error(f"cannot write {what} into {folder}: {exc.strerror or exc}; pass --output-dir DIR, "
                    "a folder you can write") from None


@dataclass(frozen=True)
class Run:
    directory: Path
    results: dict[str, Any]

    @property
    def label(self) -> str:
        names = sorted({t["specialist"] for t in self.results["tasks"].values()})
        baseline = all(t.get("baseline") for t in self.results["tasks"].values()) and names
        tiny = any((t.get("checkpoint") or {}).get("tiny_random") for t in self.results["tasks"].values())
        tag = " (baseline)" if baseline else ""
        tag += " (tiny-random weights: meaningless)" if tiny else ""
        tag += "" if self.results.get("status") == "complete" else f" [{self.results.get('status')}]"
        return f"{self.directory.name}: {'+'.join(names) or 'no tasks'}{tag}"


def load_run(directory: str | Path) -> Run:
    directory = Path(directory)
    path = directory / "results.json"
    if not path.is_file():
        raise ReportError(f"{directory} is not a run directory: it has no results.json (made by `specialists run`)")
    try:
        results = json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path} is not valid JSON ({exc}): not a results file of `specialists run`") from None
    if not isinstance(results, dict) or not isinstance(results.get("tasks"), dict):
        raise ReportError(f"{path} has no 'tasks' section: not a results file of this suite")
    return Run(directory, results)


def _cell(task: dict | None, name_specialist: bool = False) -> str:
    """"96.51 [93.02, 98.84]", with the task's specialist named when a run mixes several."""
    if not task or task.get("accuracy") is None:
        return "-" if not task else f"unscored ({task.get('unscored', 0)})"
    lo, hi = task["ci95"]
    who = f" {md(task['specialist'])}" if name_specialist else ""
    return f"{percent(task['accuracy'])} [{percent(lo)}, {percent(hi)}]{who}"


def read_samples(path: Path, error: type[ValueError] = ReportError) -> dict[str, dict]:
    """samples.jsonl, last line per idx wins; a torn final line (run in progress) is ignored."""
    records: dict[str, dict] = {}
    if not path.is_file():
        raise error(f"{path.parent} has no samples.jsonl: not a finished `specialists run` folder")
    lines = path.read_bytes().splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        if not line.endswith(b"\n"):
            break
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise error(f"{path}:{number} is not valid JSON ({exc})") from None
        if not isinstance(record, dict) or not isinstance(record.get("idx"), str):
            raise error(f"{path}:{number} is not a sample line (a JSON object with an 'idx'): not written by "
                               "`specialists run`")
        records[record["idx"]] = record
    return records


def macro_ci(run: Run) -> list[float] | None:
    """The macro mean's bootstrap interval: results.json's, else recomputed from samples.jsonl
    as the run computes it (same questions, same seed), for results written before it was kept."""
    if "macro_ci95" in run.results:
        return run.results["macro_ci95"]
    try:
        samples = read_samples(run.directory / "samples.jsonl").values()
    except ValueError:
        return None
    scored: dict[str, list[bool]] = {}
    for sample in samples:
        if sample.get("gold") is not None:
            scored.setdefault(str(sample.get("task")), []).append(bool(sample.get("correct")))
    ci = macro_bootstrap_ci(scored, stable_seed(run.results.get("seed", 0), "macro"))
    return list(ci) if ci else None


def _macro_cell(run: Run) -> str:
    macro = run.results.get("macro_accuracy")
    ci = macro_ci(run) if macro is not None else None
    return percent(macro) + (f" [{percent(ci[0])}, {percent(ci[1])}]" if ci else "")


def _mixed(run: Run) -> bool:
    return len({t["specialist"] for t in run.results["tasks"].values()}) > 1


def _tasks_in(runs: Sequence[Run]) -> list[str]:
    present = {task for run in runs for task in run.results["tasks"]}
    return [t for t in ALL_TASK_NAMES if t in present] + sorted(present - set(ALL_TASK_NAMES))


def _random_expected(runs: Sequence[Run], task: str) -> float | None:
    for run in runs:
        value = run.results["tasks"].get(task, {}).get("expected_random")
        if value is not None:
            return value
    return None


def markdown(runs: Sequence[Run]) -> str:
    refs = reference_scores()
    tasks = _tasks_in(runs)
    head = ["Task", *(md(run.label) for run in runs), "random (expected)", "human (paper)", "paper specialist",
            "best MLLM (paper)"]
    lines = ["# Specialist results", "", "Accuracy % with 95% Wilson CI per task; the macro mean with a 95% bootstrap CI (questions resampled within tasks).", ""]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for task in tasks:
        ref = refs["tasks"].get(task, {})
        paper = f"{ref['specialist']} {percent(ref['specialist_accuracy'])}" if ref.get("specialist") else "-"
        best = best_mllm(refs, task)
        best_text = f"{best[0]} {percent(best[1])}" if best else "-"
        cells = [_cell(run.results["tasks"].get(task), _mixed(run)) for run in runs]
        lines.append(
            "| " + " | ".join([md(task), *cells, percent(_random_expected(runs, task)), percent(ref.get("human")), paper,
                               best_text]) + " |"
        )
    blink = all(run.results.get("benchmark") in ("blink", "synthetic", None) for run in runs)
    headline = "**macro mean** (BLINK's headline)" if blink else "**macro mean** over tasks"
    lines.append("| " + " | ".join([headline, *(_macro_cell(run) for run in runs), "", "", "", ""]) + " |")
    lines.append("| " + " | ".join(["micro mean", *(percent(run.results.get("micro_accuracy")) for run in runs),
                                    "", "", "", ""]) + " |")
    for run in runs:
        r = run.results
        lines += ["", f"## {md(run.label)}", ""]
        lines.append(md(
            f"benchmark {r.get('benchmark')}, split {r.get('split')}, seed {r.get('seed')}, "
            f"answers {(r.get('answers') or {}).get('name')}, status {r.get('status')}, "
            f"commit {(r.get('env', {}).get('git') or {}).get('commit')}, device {r.get('env', {}).get('device')}"
        ))
        choices = [md(f"{name} " + ", ".join(f"{k}={v}" for k, v in values.items()))
                   for name, values in (r.get("settings") or {}).items() if values]
        if choices:
            lines += ["", "Pipeline settings (`--set`; defaults follow the official code): " + "; ".join(choices) + "."]
        for name, roles in (r.get("auxiliary_checkpoints") or {}).items():
            for role, ckpt in roles.items():
                lines += ["", md(f"{name} {role}: {ckpt.get('name')} ({(ckpt.get('sha256') or 'no hash')[:12]}).")]
        if r.get("benchmark_metrics"):
            lines += [""] + metrics_lines(r["benchmark"], [r["benchmark_metrics"]], [run.label])
        lines += ["", "| Task | n | accuracy % | 95% CI | abstained | errors | unscored | specialist | checkpoint |"]
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for task in tasks:
            t = r["tasks"].get(task)
            if t is None:
                continue
            ci = "-" if not t.get("ci95") else f"[{percent(t['ci95'][0])}, {percent(t['ci95'][1])}]"
            ckpt = t.get("checkpoint") or {}
            ckpt_text = f"{ckpt.get('name')} ({(ckpt.get('sha256') or 'no hash')[:12]})" if ckpt else "none"
            lines.append(
                f"| {md(task)} | {md(t['n'])} | {percent(t['accuracy'])} | {ci} | {md(t['abstained'])} | {md(t['errors'])} | "
                f"{md(t.get('unscored', 0))} | {md(t['specialist'])} | {md(ckpt_text)} |"
            )
    lines += ["", f"Reference numbers: {refs['source']}.", ""]
    return "\n".join(lines)


CSV_FIELDS = ("source", "model", "task", "accuracy", "ci_lo", "ci_hi", "n", "abstained", "errors", "unscored")


def csv_rows(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Long format: one row per (run or reference, task); accuracies as fractions."""
    refs = reference_scores()
    rows = []
    for run in runs:
        for task, t in run.results["tasks"].items():
            ci = t.get("ci95") or [None, None]
            rows.append(
                {"source": str(run.directory), "model": run.label, "task": task, "accuracy": t.get("accuracy"),
                 "ci_lo": ci[0], "ci_hi": ci[1], "n": t.get("n"), "abstained": t.get("abstained"),
                 "errors": t.get("errors"), "unscored": t.get("unscored")}
            )
    for task in _tasks_in(runs):
        expected = _random_expected(runs, task)
        if expected is not None:
            rows.append({"source": "questions", "model": "random (expected)", "task": task, "accuracy": expected})
        ref = refs["tasks"].get(task)
        if ref:
            rows.append({"source": refs["source"], "model": "human (paper)", "task": task, "accuracy": ref["human"]})
            if ref.get("specialist"):
                rows.append({"source": refs["source"], "model": f"{ref['specialist']} (paper)", "task": task,
                             "accuracy": ref["specialist_accuracy"]})
        for model, scores in refs.get("mllms", {}).items():
            if task in scores:
                rows.append({"source": refs["source"], "model": f"{model} (paper, {refs['mllms_split']})", "task": task,
                             "accuracy": scores[task]})
    return rows


def best_mllm(refs: dict, task: str) -> tuple[str, float] | None:
    """The paper's best MLLM on a task (name, accuracy), from its Table 1 rows."""
    scored = [(scores[task], model) for model, scores in refs.get("mllms", {}).items() if task in scores]
    if not scored:
        return None
    accuracy, model = max(scored)
    return model, accuracy


def bar_chart(runs: Sequence[Run], path: Path) -> None:
    """Grouped bars per task (runs, with CI whiskers); paper specialist, human and random as ticks."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    refs = reference_scores()["tasks"]
    tasks = _tasks_in(runs)
    x = np.arange(len(tasks))
    width = 0.8 / max(len(runs), 1)
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(tasks) + 2) + 3, 4.5))
    for i, run in enumerate(runs):
        acc, err_lo, err_hi = [], [], []
        for task in tasks:
            t = run.results["tasks"].get(task) or {}
            a = t.get("accuracy")
            acc.append(100 * a if a is not None else np.nan)
            lo, hi = t.get("ci95") or (a, a)
            err_lo.append(100 * (a - lo) if a is not None else 0)
            err_hi.append(100 * (hi - a) if a is not None else 0)
        # thin grey whiskers without caps, so they never read as one of the reference marks
        ax.bar(x - 0.4 + width * (i + 0.5), acc, width, yerr=[err_lo, err_hi], capsize=0,
               error_kw={"elinewidth": 1, "ecolor": "0.35"}, label=f"{run.label} (95% CI)")
    # reference marks: each its own shape and colour, drawn over the bars
    for marker, key, name, colour in (("D", "specialist_accuracy", "paper specialist", "black"),
                                      ("^", "human", "human (paper)", "tab:green")):
        ys = [100 * refs[t][key] if refs.get(t, {}).get(key) is not None else np.nan for t in tasks]
        ax.scatter(x, ys, marker=marker, s=45, color=colour, edgecolors="white", linewidths=0.8, label=name, zorder=3)
    rand = [100 * v if (v := _random_expected(runs, t)) is not None else np.nan for t in tasks]
    ax.hlines(rand, x - 0.42, x + 0.42, colors="0.45", linestyles="dashed", linewidth=1.2, label="random (expected)",
              zorder=3)
    ax.set_xticks(x, [t.replace("_", "\n", 1) for t in tasks], fontsize=10)
    ax.set_ylabel("accuracy %", fontsize=11)
    ax.set_ylim(0, 105)
    ax.legend(fontsize=10, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title("Accuracy per task (95% Wilson CI)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(run_dirs: Sequence[str | Path], output: str | Path | None = None) -> dict[str, Path]:
    """Write report.md, report.csv and report.png; returns their paths."""
    if not run_dirs:
        raise ReportError("name at least one run directory")
    runs = [load_run(d) for d in run_dirs]
    if output is None:
        if len(runs) > 1:
            raise ReportError("several runs: pass --output-dir DIR for the combined report")
        output = runs[0].directory
    output = Path(output)
    paths = {"markdown": output / "report.md", "csv": output / "report.csv", "plot": output / "report.png"}
    with writing_into(output, "the report"):
        output.mkdir(parents=True, exist_ok=True)
        paths["markdown"].write_text(markdown(runs), encoding="utf-8")
        with open(paths["csv"], "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
            writer.writeheader()
            writer.writerows(csv_row(row) for row in csv_rows(runs))
        bar_chart(runs, paths["plot"])
    return paths
