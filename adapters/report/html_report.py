"""`report --html` and `compare --html`: one folder (index.html, img/, evidence/, plots) that
lists every question of the runs, and `--figure IDX ...`: a panel of chosen questions for a paper.

    collect_runs(run_dirs) / collect_comparison(scored, comparison) -> Collected
    iter_questions(collected, idxs, data_root, blink_root)   (text, options; MCQuestions for images)
    write_page(collected, folder, plot_writer, ...) -> index.html
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from adapters.core.questions import MCQuestion
from adapters.core.tasks import task_from_idx
from adapters.markers import MarkersFileError, load_markers
from adapters.report.page_data import (
    MARKER_SOURCES,
    comparison_table,
    marker_json,
    mllm_answer,
    page_data,
    question_entry,
    run_table,
    specialist_answer,
)
from adapters.report.page_html import render_page
from adapters.report.page_images import copy_evidence, write_question_images
from adapters.report.run_report import ReportError, load_run, read_samples, writing_into
from adapters.run.recorded import RecordedDataError, recorded_questions

PAGE_FOLDERS = {"run": "report_html", "compare": "comparison_html"}


@dataclass
class Collected:
    """The page's questions before images: entries by idx, the systems answering them, and where
    each question can be read again (run index -> results.json and run folder)."""

    title: str
    kind: str
    systems: list[dict]
    entries: dict[str, dict]
    table: dict
    runs: list[tuple[dict, Path]] = field(default_factory=list)
    asked: dict[str, int] = field(default_factory=dict)  # idx -> the first run holding it
    evidence: list[tuple[dict, Mapping[str, str], Path, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # shown on the page
    problems: list[str] = field(default_factory=list)  # shown on the page and printed


def _markers_file(results: Mapping[str, Any]) -> dict:
    """Coordinates of the run's --markers file or generator file, for samples that predate
    recording them; {} when the run parsed the drawing or the file is gone."""
    markers = results.get("markers") or {}
    if markers.get("source") in ("file", "generator") and markers.get("path"):
        try:
            return load_markers(markers["path"])
        except (MarkersFileError, OSError):
            return {}
    return {}


def _add_run(collected: Collected, index: int, results: Mapping[str, Any], directory: Path,
             samples: Mapping[str, dict], answer_of: Callable[[str, dict], dict | None], n_systems: int) -> None:
    source = MARKER_SOURCES.get((results.get("markers") or {}).get("source"))
    from_file: dict | None = None
    collected.runs.append((dict(results), directory))
    for idx, sample in samples.items():
        answer = answer_of(idx, sample)
        if answer is None:
            continue
        entry = collected.entries.setdefault(idx, question_entry(idx, sample["task"], sample.get("gold"),
                                                                 [None] * n_systems))
        entry["answers"][index] = answer
        collected.asked.setdefault(idx, len(collected.runs) - 1)
        if entry["markers"] is None:
            if sample.get("markers"):
                parsed = sample.get("markers_from") == "parsed"
                entry["markers"] = sample["markers"]
                entry["markers_from"] = MARKER_SOURCES["parsed"] if parsed else source
            elif source and source != MARKER_SOURCES["parsed"]:
                from_file = _markers_file(results) if from_file is None else from_file
                if idx in from_file:
                    entry["markers"], entry["markers_from"] = marker_json(from_file[idx]), source
        if sample.get("evidence"):
            collected.evidence.append((answer, sample["evidence"], directory, len(collected.runs) - 1))


def collect_runs(run_dirs: Sequence[str | Path]) -> Collected:
    """Every question of the runs, one specialist answer per run."""
    runs = [load_run(d) for d in run_dirs]
    benchmarks = {run.results.get("benchmark", "blink") for run in runs}
    if len(benchmarks) > 1:
        raise ReportError(f"these runs answer different benchmarks ({', '.join(sorted(benchmarks))}), whose "
                          "question ids may coincide: make one page per benchmark")
    systems = [{"name": run.label, "short": run.directory.name, "kind": "specialist", "source": str(run.directory)}
               for run in runs]
    title = "Specialist run: " + ", ".join(run.label for run in runs)
    collected = Collected(title, "run", systems, {}, run_table(runs))
    for i, run in enumerate(runs):
        samples = read_samples(run.directory / "samples.jsonl")
        _add_run(collected, i, run.results, run.directory, samples, lambda idx, s: specialist_answer(s), len(runs))
    return collected


def collect_comparison(scored: Any, comparison: Mapping[str, Any]) -> Collected:
    """Every question any specialist or MLLM of the comparison was scored on; specialists as
    re-scored against the comparison's answer key."""
    models = [*scored.specialists, *scored.mllms]
    systems = [{"name": m.name, "short": Path(m.source).name if m.kind == "specialist" else m.name, "kind": m.kind,
                "source": m.source} for m in models]
    title = "Specialists versus MLLMs: " + ", ".join(m.name for m in models)
    collected = Collected(title, "compare", systems, {}, comparison_table(comparison))
    collected.notes.append(f"answers: {comparison['answers'].get('name')} ({comparison['answers'].get('source')}); "
                           f"MLLM answers read with match rule {comparison['match']}")
    for i, (run, model) in enumerate(zip(scored.runs, scored.specialists)):
        def answer_of(idx: str, sample: dict, model=model) -> dict | None:
            if idx not in model.correct:
                return None  # unscored in the comparison (a hidden answer)
            return specialist_answer(sample, model.correct[idx], rescored=True)

        _add_run(collected, i, run.results, run.directory, run.samples, answer_of, len(models))
    for offset, model in enumerate(scored.mllms, start=len(scored.specialists)):
        for task, ids in model.questions.items():
            for idx in ids:
                entry = collected.entries.setdefault(idx, question_entry(idx, task, None, [None] * len(models)))
                entry["answers"][offset] = mllm_answer(model.letters[idx], model.correct[idx], model.forms[idx],
                                                       model.raw.get(idx))
    for idx, entry in collected.entries.items():
        entry["gold"] = scored.key.gold.get(idx, entry["gold"])
        if idx in scored.texts:
            entry["choices"] = list(scored.texts[idx].values())
    return collected


def _task_of(idx: str) -> str | None:
    try:
        return task_from_idx(idx)[1]
    except ValueError:  # UnknownTaskError is one too
        return None


def _blink_questions(blink_root: str, wanted: set[str]) -> Iterator[MCQuestion]:
    """Questions no run holds, from a BLINK folder (`compare --blink-root`)."""
    from adapters.datasets.blink.reader import BlinkReader

    for split in ("val", "test"):
        ids = {i for i in wanted if i.startswith(split + "_")}
        tasks = sorted({t for i in ids if (t := _task_of(i))})
        if not tasks:
            continue
        reader = BlinkReader(blink_root, split, tasks)
        for task in tasks:
            yield from (q for q in reader.questions(task) if q.idx in ids and isinstance(q, MCQuestion))


def iter_questions(collected: Collected, idxs: Iterable[str], data_root: str | None = None,
                   blink_root: str | None = None) -> Iterator[MCQuestion]:
    """The questions behind `idxs`, one at a time (their decoded images go with them), read from
    the runs' recorded data, else --blink-root; their text and options go into the entries. A
    source that cannot be read becomes a problem the page and the terminal name."""
    wanted = set(idxs)
    by_run: dict[int, dict[str, set[str]]] = {}
    for idx in wanted:
        if idx in collected.asked:
            by_run.setdefault(collected.asked[idx], {}).setdefault(collected.entries[idx]["task"], set()).add(idx)
    seen: set[str] = set()

    def read(source: Iterable[Any]) -> Iterator[MCQuestion]:
        for question in source:
            seen.add(question.idx)
            entry = collected.entries[question.idx]
            if isinstance(question, MCQuestion):
                entry["text"], entry["choices"] = question.question or question.prompt, list(question.choices)
                yield question
            else:
                entry["note"] = f"the question could not be read: {question.error}"

    for index, tasks in by_run.items():
        results, directory = collected.runs[index]
        try:
            yield from read(recorded_questions(results, tasks, data_root))
        except RecordedDataError as exc:
            collected.problems.append(f"{directory}: no images: {exc}")
    if wanted - seen and blink_root:
        try:
            yield from read(_blink_questions(blink_root, wanted - seen))
        except (OSError, ValueError) as exc:
            collected.problems.append(f"--blink-root {blink_root}: no images: {exc}")
    missing = sorted(wanted - seen)
    if missing:
        collected.problems.append(f"{len(missing)} question(s) without images or text (no run data or --blink-root "
                                  f"holds them; first: {missing[0]})")


# Questions whose images are decoded at once: a bounded few, so memory does not grow with the
# benchmark (BLINK's val split decoded whole would be gigabytes).
CHUNK = 32


def write_page(collected: Collected, folder: Path, plot_writer: Callable[[Path], list[dict]],
               data_root: str | None = None, blink_root: str | None = None) -> dict[str, Any]:
    """Write the page into `folder` (index.html, img/, evidence/, plots); returns its path and
    what it took (questions, images written, seconds)."""
    tic = time.perf_counter()
    image_seconds = 0.0
    with writing_into(folder, "the page"):
        folder.mkdir(parents=True, exist_ok=True)
        questions = iter_questions(collected, collected.entries, data_root, blink_root)
        while chunk := list(islice(questions, CHUNK)):
            image_seconds += write_question_images(collected.entries, {q.idx: q for q in chunk}, folder)
        for answer, recorded, directory, index in collected.evidence:
            copy_evidence(answer, recorded, directory, folder, index)
        plots = plot_writer(folder)
        data = page_data(collected.title, collected.kind, collected.systems, list(collected.entries.values()),
                         collected.table, plots, list(dict.fromkeys(collected.notes + collected.problems)))
        path = folder / "index.html"
        path.write_text(render_page(data), encoding="utf-8")
    n_images = sum(len(e["images"]) for e in collected.entries.values())
    return {"path": path, "questions": len(collected.entries), "images": n_images,
            "image_seconds": round(image_seconds, 2), "seconds": round(time.perf_counter() - tic, 2)}


def describe(written: Mapping[str, Any]) -> str:
    return (f"wrote {written['path']} ({written['questions']} questions, {written['images']} images in "
            f"{written['image_seconds']} s; {written['seconds']} s in all): open it in a browser")


def check_known(collected: Collected, idxs: Sequence[str]) -> None:
    """--figure ids must be questions of the inputs; a typo is named with an id that is one."""
    missing = [i for i in idxs if i not in collected.entries]
    if missing:
        raise ReportError(f"--figure {', '.join(missing[:3])}: not a question of these inputs (ids look like "
                          f"{next(iter(collected.entries), 'val_Relative_Depth_1')})")


def write_figure_of(collected: Collected, idxs: Sequence[str], stem: Path, data_root: str | None = None,
                    blink_root: str | None = None) -> dict[str, Path]:
    """The --figure panel of `idxs` (PNG and PDF at `stem`)."""
    from adapters.report.figure_panel import write_figure

    check_known(collected, idxs)
    questions = {q.idx: q for q in iter_questions(collected, idxs, data_root, blink_root)}
    with writing_into(stem.parent, "the figure"):
        return write_figure([collected.entries[i] for i in idxs], questions, collected.systems, stem)


def run_pages(run_dirs: Sequence[str | Path], output: Path, html: bool, figure: Sequence[str] | None,
              data_root: str | None = None) -> list[str]:
    """`report --html` / `--figure`: the page in output/report_html, the panel output/figure.*;
    returns the lines to print."""
    from adapters.report.run_report import bar_chart

    collected = collect_runs(run_dirs)
    said = []
    if figure:
        paths = write_figure_of(collected, figure, output / "figure", data_root)
        said.append(f"wrote {paths['png']} and {paths['pdf']}")
    if html:
        runs = [load_run(d) for d in run_dirs]

        def plot(folder: Path) -> list[dict]:
            bar_chart(runs, folder / "report.png")
            return [{"src": "report.png", "alt": "accuracy per task with 95% CIs"}]

        said.append(describe(write_page(collected, output / PAGE_FOLDERS["run"], plot, data_root)))
    return said + [f"note: {n}" for n in dict.fromkeys(collected.problems)]


def comparison_pages(scored: Any, comparison: Mapping[str, Any], output: Path, html: bool,
                     figure: Sequence[str] | None, data_root: str | None = None,
                     blink_root: str | None = None) -> list[str]:
    """`compare --html` / `--figure`: the page in output/comparison_html, the panel output/figure.*."""
    from adapters.report.compare_plots import plots

    collected = collect_comparison(scored, comparison)
    said = []
    if figure:
        paths = write_figure_of(collected, figure, output / "figure", data_root, blink_root)
        said.append(f"wrote {paths['png']} and {paths['pdf']}")
    if html:
        def plot(folder: Path) -> list[dict]:
            plots(dict(comparison), folder / "comparison_bars.png", folder / "comparison_scatter.png")
            return [{"src": "comparison_bars.png", "alt": "accuracy per task with 95% CIs"},
                    {"src": "comparison_scatter.png", "alt": "specialist against the best MLLM per task"}]

        said.append(describe(write_page(collected, output / PAGE_FOLDERS["compare"], plot, data_root, blink_root)))
    return said + [f"note: {n}" for n in dict.fromkeys(collected.problems)]
