"""The evaluation runner behind `specialists run`.

Questions are read task by task, answered in batches by the task's solver, and every answer is
appended to `samples.jsonl` at once (one JSON line per question, flushed), so a killed run loses
at most the batch in flight and `--resume` continues where it stopped, once it has checked that
the folder holds the same run (adapters/run/folder.py). `results.json` is
rewritten after every task and at the end; it is always computed from the sample lines, so a
resumed run and an uninterrupted one produce the same numbers.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from tqdm import tqdm

from adapters.core.benchmarks import RELEASE_BENCHMARKS, benchmark
from adapters.core.questions import BrokenQuestion, Decision, MCQuestion
from adapters.core.registry import SpecialistSpec, assign, device_note
from adapters.core.scoring import is_scored, macro_bootstrap_ci, macro_micro, stable_seed, summarise_task
from adapters.core.settings import SettingError, parse_overrides, resolve
from adapters.core.solver import PRECISIONS, Solver, SolverOptions
from adapters.core.tasks import canonical_task
from adapters.datasets.blink.answers import load_answers
from adapters.datasets.blink.reader import BlinkReader
from adapters.datasets.synthetic import cached_synthetic
from adapters.markers import apply_markers, load_markers
from adapters.markers.find import markers_used, parser_networks
from adapters.run.folder import (SampleStore, check_identity, check_samples, write_evidence, write_identity,
                                 write_json_atomic)
from adapters.run.lock import RunDirError, RunLock, writing
from adapters.run.provenance import environment, now_iso, seed_everything
from checkpoints.hashing import sha256_file
from specialists.feature_cache import MODES as CACHE_MODES
from specialists.precision import check_device

RESULTS_SCHEMA_VERSION = 1


@dataclass
class RunConfig:
    """Everything `specialists run` was asked; stored verbatim in results.json."""

    output_dir: str
    benchmark: str = "blink"
    split: str = "val"
    tasks: list[str] | None = None
    specialist: list[str] | None = None
    checkpoint: str | None = None
    limit: int | float | None = None  # questions per task, or a fraction (0-1) of each task's
    device: str = "cpu"
    batch_size: int = 8
    precision: str = "fp32"
    seed: int = 0
    answers: str | None = None
    blink_root: str | None = None
    synthetic_n: int = 50
    synthetic_images: str | None = None
    markers: str | None = None  # "drawn" (= "parse"), "file" (the root's markers.jsonl), a path, or None (default)
    root: str | None = None  # --benchmark marvel | blink-twice | cv-bench: the release folder
    combo_root: str | None = None  # ComBo folder or manifest CSV; None = ComBo-lite renders
    combo_n: int = 50  # --benchmark combo: questions per Category Building level and Pattern Perception
    combo_factors: str | None = None  # factor table TOML (default: the packaged 9,504-object table)
    combo_k_support: int = 5  # support images per Category Building category
    settings: list[str] | None = None  # --set SPECIALIST.KEY=VALUE pipeline choices (adapters/core/settings.py)
    cache: str = "off"  # feature cache: off | read | refresh
    cache_dir: str | None = None
    resume: bool = False
    retry_errors: bool = False
    keep_evidence: bool = False  # thumbnails of the dense outputs beside the samples (evidence/)
    progress: bool = True

    def validate(self) -> None:
        kind = benchmark(self.benchmark)  # an unknown name is refused with the known ones
        if self.precision not in PRECISIONS:
            raise ValueError(f"unknown precision {self.precision!r}; choose one of {', '.join(PRECISIONS)}")
        if self.cache not in CACHE_MODES:
            raise ValueError(f"unknown --cache {self.cache!r}; choose one of {', '.join(CACHE_MODES)}")
        if self.batch_size < 1:
            raise ValueError("--batch-size must be at least 1")
        if self.synthetic_n < 1:
            raise ValueError("--synthetic-n must be at least 1")
        if self.combo_n < 1 or self.combo_k_support < 1:
            raise ValueError("--combo-n and --combo-k-support must be at least 1")
        if self.benchmark != "combo" and (self.combo_root or self.combo_factors):
            raise ValueError("--combo-root and --combo-factors belong to --benchmark combo")
        if self.benchmark != "blink" and self.blink_root:
            raise ValueError(f"--blink-root belongs to --benchmark blink (this run is --benchmark {self.benchmark}); "
                             "to run on a folder `specialists synth` wrote: --benchmark blink --blink-root DIR")
        if kind.from_release and not self.root:
            raise ValueError(f"--benchmark {self.benchmark} reads its release from --root DIR; give the folder")
        if not kind.from_release and self.root:
            raise ValueError(f"--root belongs to --benchmark {' or '.join(RELEASE_BENCHMARKS)}; BLINK's folder is --blink-root")
        if kind.from_release and (self.answers or self.markers):
            raise ValueError(f"--answers and --markers belong to BLINK; {self.benchmark}'s answers come with its release")
        if self.limit is not None and self.limit <= 0:
            raise ValueError("--limit must be a number of questions (at least 1) or a fraction between 0 and 1")
        check_device(self.device)  # a GPU that is not here stops the run before its first question


def questions_limit(limit: int | float | None, total: int) -> int | None:
    """Questions to take of a task holding `total`: --limit N, or a fraction of them (at least one)."""
    if limit is None:
        return None
    if 0 < limit < 1:
        return max(1, int(limit * total))
    return int(limit)


def _sample(
    question: MCQuestion | BrokenQuestion,
    spec: SpecialistSpec,
    solver: Solver,
    outcome: Decision | Exception,
    seconds: float,
    benchmark: str,
    markers: dict | None = None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "idx": question.idx,
        "task": question.task,
        "benchmark": benchmark,
        "specialist": spec.name,
        "baseline": spec.baseline,
        "checkpoint": solver.checkpoint.to_json() if solver.checkpoint else None,
        "decision": None,
        "gold": question.gold,
        "n_choices": len(question.choices) if isinstance(question, MCQuestion) else None,
        "correct": None,
        "status": "ok",
        "error": None,
        "seconds": round(seconds, 6),
    }
    if question.meta:
        record["meta"] = question.meta
    if markers:  # where the rule read the points and boxes: the report draws them over the images
        record["markers"] = markers
        # given with the question (--markers file, generator) or read from its drawing
        record["markers_from"] = "given" if isinstance(question, MCQuestion) and question.markers is not None \
            else "parsed"
    if isinstance(outcome, Exception):
        record["status"] = "error"
        record["error"] = f"{type(outcome).__name__}: {outcome}"
        # a failure counts wrong; only a question of a split whose answers are hidden stays unscored
        hidden = question.gold is None and (isinstance(question, MCQuestion) or question.answer_hidden)
        record["correct"] = None if hidden else False
        return record
    record["decision"] = outcome.to_json()
    if outcome.abstained:
        record["status"] = "abstained"
    if question.gold is not None:
        record["correct"] = outcome.pred == question.gold
    return record


def _marker_source(config: RunConfig, data_root: Path) -> tuple[dict, dict[str, Any]]:
    """Known marker coordinates for the run, and how they were obtained (recorded in results;
    its "note" is the line a run prints about them).

    --markers: None (parse the drawing; the synthetic benchmark reads its generator's file),
    "drawn" or "parse" (parse the drawing), "file" (the root's own markers.jsonl, as `specialists
    synth` writes it), or a path."""
    path: Path | None = None
    own = data_root / "markers.jsonl"
    if config.markers == "file":
        if not own.is_file():
            raise ValueError(f"--markers file: {data_root} holds no markers.jsonl; parse the drawing "
                             "(--markers drawn) or name a file (--markers FILE)")
        path, source = own, "file"
    elif config.markers not in (None, "parse", "drawn"):
        path, source = Path(config.markers), "file"
    elif config.markers is None and benchmark(config.benchmark).questions == "generated":
        path, source = own, "generator"
    if path is None:
        note = "markers: read from the drawing"
        if own.is_file():
            note += f" ({own} gives them too: --markers file reads it)"
        return {}, {"source": "parsed", "path": None, "sha256": None, "networks": parser_networks(), "note": note}
    note = f"markers: read from {path} (--markers drawn reads the drawing instead)"
    return load_markers(path), {"source": source, "path": str(path), "sha256": sha256_file(path), "note": note}


def _open_combo(config: RunConfig) -> tuple[Any, dict[str, Any], dict]:
    """ComBo's questions (no drawn markers, answers known by construction)."""
    from adapters.datasets.combo.benchmark import ComboBenchmark, ComboSettings

    if config.answers:
        raise ValueError("--answers overrides BLINK gold answers; ComBo's answers are known by construction")
    if config.markers:
        raise ValueError("--markers: ComBo questions have no drawn markers")
    reader = ComboBenchmark(ComboSettings(config.combo_root, config.combo_n, config.combo_k_support,
                                          factors=config.combo_factors, seed=config.seed), config.tasks)
    data = {"root": str(reader.root), "markers": {"source": "none", "path": None, "sha256": None},
            "generator": reader.describe(), "files": [f.to_json() for f in reader.data_files()]}
    return reader, data, {}


def _open_release(config: RunConfig) -> tuple[Any, dict[str, Any], dict]:
    """A release folder's questions (MARVEL, BLINK-Twice, CV-Bench: no BLINK markers)."""
    reader = benchmark(config.benchmark).open_reader(config.root, config.tasks)
    data = {"root": str(reader.root), "markers": {"source": "none", "path": None, "sha256": None},
            "generator": reader.describe(), "files": [f.to_json() for f in reader.data_files()]}
    return reader, data, {}


def _open_benchmark(config: RunConfig) -> tuple[BlinkReader, dict[str, Any], dict]:
    """The question reader, the data section of results.json, and known marker coordinates."""
    questions = benchmark(config.benchmark).questions
    if questions == "combo":
        return _open_combo(config)
    if questions == "release":
        return _open_release(config)
    answers = load_answers(config.answers) if config.answers else None
    if questions == "generated":
        data_dir = cached_synthetic(config.synthetic_n, config.seed, config.synthetic_images)
        reader = BlinkReader(data_dir, "val", config.tasks, answers)
        generator = json.loads((data_dir / "synth.json").read_text(encoding="utf-8"))
    else:
        reader = BlinkReader(config.blink_root, config.split, config.tasks, answers)
        generator = None
    coordinates, markers = _marker_source(config, Path(reader.root))
    data = {
        "root": str(reader.root),
        "markers": markers,
        "generator": generator,
        "files": [f.to_json() for f in reader.data_files()],
    }
    return reader, data, coordinates


def _identity(config: RunConfig, assignment: dict[str, SpecialistSpec], data: dict, answers: dict,
              settings: dict[str, dict[str, str]]) -> dict:
    """What must not change between a run and its --resume (limit, device, batch size may)."""
    return {
        "benchmark": config.benchmark,
        "split": config.split,
        "specialists": {task: spec.name for task, spec in assignment.items()},
        "settings": settings,
        "checkpoint": config.checkpoint,
        "seed": config.seed,
        "precision": config.precision,
        "answers_sha256": answers.get("sha256"),
        "markers": [data["markers"]["source"], data["markers"]["sha256"], data["markers"].get("networks")],
        "data_sha256": sorted(f["sha256"] for f in data["files"]),
        # ComBo's questions are generated: how (count, source, seed) is part of what they are.
        "combo": data["generator"] if benchmark(config.benchmark).questions == "combo" else None,
        "root": data["root"] if benchmark(config.benchmark).from_release else None,
    }


def run_settings(assignment: dict[str, SpecialistSpec], overrides: list[str] | None) -> dict[str, dict[str, str]]:
    """Each assigned specialist's effective settings (defaults + `--set`); a `--set` for a
    specialist this run does not use is refused rather than silently ignored."""
    by_specialist = parse_overrides(overrides)
    used = {spec.name: spec for spec in assignment.values()}
    stray = sorted(set(by_specialist) - set(used))
    if stray:
        raise SettingError(f"--set {stray[0]}.KEY: specialist {stray[0]!r} answers none of this run's tasks "
                           f"(this run uses {', '.join(sorted(used))})")
    return {name: resolve(name, spec.settings, by_specialist.get(name)) for name, spec in used.items()}


def _batches(items: Iterator, size: int) -> Iterator[list]:
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def run(config: RunConfig) -> dict[str, Any]:
    """Run (or resume) an evaluation; returns the final results dict also written to disk."""
    config.validate()
    out = Path(config.output_dir)
    created = not out.exists()
    with writing(out):
        out.mkdir(parents=True, exist_ok=True)
    started_at = now_iso()
    try:
        with RunLock(out, started_at), _sigterm_as_interrupt():
            return _run_locked(config, out, started_at)
    except BaseException:
        if created and not (out / "samples.jsonl").exists():  # a failed run leaves no empty folder behind
            shutil.rmtree(out, ignore_errors=True)
        raise


@contextmanager
def _sigterm_as_interrupt():
    """SIGTERM (a scheduler's stop, `kill`) ends the run as Ctrl-C does: results.json says
    "interrupted" and --resume continues it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run_locked(config: RunConfig, out: Path, started_at: str) -> dict[str, Any]:
    store = SampleStore(out / "samples.jsonl")
    if store.path.exists() and not config.resume:
        raise RunDirError(f"{out} already holds a run; pass --resume to continue it, or choose another --output-dir")
    started = time.perf_counter()

    reader, data, coordinates = _open_benchmark(config)
    if config.progress and data["markers"].get("note"):
        print(data["markers"]["note"], file=sys.stderr)
    tasks = reader.tasks
    bare = [s for s in config.specialist or [] if "=" not in s]
    if config.tasks is None and bare:
        from adapters.core.registry import ALL_TASK_NAMES, get

        named = {canonical_task(s.split("=", 1)[0], ALL_TASK_NAMES) for s in config.specialist or [] if "=" in s}
        # "run sift essential" = every task one of them answers (and those named TASK=NAME)
        tasks = [t for t in tasks if t in named or any(t in get(b).tasks for b in bare)]
        if not tasks:
            who = f"specialist {bare[0]!r} answers" if len(bare) == 1 else f"specialists {', '.join(bare)} answer"
            raise ValueError(f"{who} none of the tasks in {reader.root}")
    assignment = assign(tasks, config.specialist, weight_free=benchmark(config.benchmark).weight_free_defaults)
    if note := device_note(config.device, assignment):
        print(note, file=sys.stderr)
    if config.checkpoint and all(spec.default_checkpoint is None for spec in assignment.values()):
        names = ", ".join(sorted({spec.name for spec in assignment.values()}))
        raise ValueError(f"--checkpoint {config.checkpoint}: {names} load(s) no weights; drop --checkpoint")
    settings = run_settings(assignment, config.settings)
    options = SolverOptions(config.device, config.batch_size, config.precision, config.seed, config.checkpoint,
                            config.cache, config.cache_dir, keep_evidence=config.keep_evidence)
    solvers = {spec.name: spec.build(replace(options, settings=settings[spec.name])) for spec in assignment.values()}
    seed_everything(config.seed)

    answers = reader.answer_version.to_json()
    unknown = reader.unknown_answer_ids() if isinstance(reader, BlinkReader) else []  # ComBo has no --answers
    if unknown:
        answers["unknown_ids"] = len(unknown)
        answers["unknown_ids_first"] = unknown[:5]
        print(f"warning: answers file {answers.get('name')}: {len(unknown)} id(s) name no question of the tasks "
              f"read (first: {', '.join(unknown[:5])}); they score nothing", file=sys.stderr)
    identity = _identity(config, assignment, data, answers, settings)
    done: dict[str, dict] = {}
    if config.resume:
        check_identity(out, identity)
        done = store.load()
        check_samples(out, done, config.benchmark, {
            task: (spec.name, solvers[spec.name].checkpoint.to_json() if solvers[spec.name].checkpoint else None)
            for task, spec in assignment.items()})
        if config.retry_errors:
            done = {idx: rec for idx, rec in done.items() if rec.get("status") != "error"}
    write_identity(out, identity)
    answers["n_overridden"] = 0  # --answers ids applied to this run's questions, counted as they are read

    results: dict[str, Any] = {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "status": "running",
        "benchmark": config.benchmark,
        "split": config.split if benchmark(config.benchmark).questions == "blink" else "val",
        "tasks": {},
        "macro_accuracy": None,
        "micro_accuracy": None,
        "seed": config.seed,
        "answers": answers,
        "markers": data["markers"],
        "checkpoints": {
            name: (solver.checkpoint.to_json() if solver.checkpoint else None) for name, solver in solvers.items()
        },
        "auxiliary_checkpoints": {name: {role: ref.to_json() for role, ref in solver.auxiliary_checkpoints.items()}
                                  for name, solver in solvers.items() if solver.auxiliary_checkpoints},
        "settings": {name: solver.settings for name, solver in solvers.items()},
        "identity": identity,
        "config": {k: v for k, v in asdict(config).items() if k != "progress"},
        "data": data,
        "env": environment(config.device),
        "started_at": started_at,
        "finished_at": None,
        "seconds": None,
    }
    run_samples: dict[str, list[dict]] = {}
    try:
        for task in tasks:
            spec = assignment[task]
            run_samples[task] = _run_task(reader, coordinates, task, spec, solvers[spec.name], store, done, config)
            answers["n_overridden"] = len(getattr(reader, "overridden_ids", ()))
            _finalise(results, run_samples, assignment, config, status="running")
            write_json_atomic(out / "results.json", results)
    except BaseException as stopped:
        _finalise(results, run_samples, assignment, config, status="interrupted")
        results["seconds"] = round(time.perf_counter() - started, 3)
        try:
            write_json_atomic(out / "results.json", results)
        except RunDirError:
            if not isinstance(stopped, RunDirError):
                raise
            # the disk that refused a sample refuses results.json too: the first failure is the one to report
        raise
    _finalise(results, run_samples, assignment, config, status="complete")
    results["finished_at"] = now_iso()
    results["seconds"] = round(time.perf_counter() - started, 3)
    write_json_atomic(out / "results.json", results)
    return results


def _run_task(
    reader: BlinkReader,
    coordinates: dict,
    task: str,
    spec: SpecialistSpec,
    solver: Solver,
    store: SampleStore,
    done: dict[str, dict],
    config: RunConfig,
) -> list[dict]:
    """Answer one task's questions not yet in `done`; returns this task's samples, old and new."""
    total = reader.count(task)
    limit = questions_limit(config.limit, total)
    total = min(total, limit) if limit else total
    samples: list[dict] = []
    todo: list[MCQuestion | BrokenQuestion] = []
    for question in apply_markers(reader.questions(task, limit=limit), coordinates):
        if question.idx in done:
            samples.append(done[question.idx])
        else:
            todo.append(question)
    # on a terminal only (disable=None), so logs and CI output stay clean
    with tqdm(total=total, initial=len(samples), desc=task, unit="q", disable=None if config.progress else True) as bar:
        for batch in _batches(iter(todo), config.batch_size):
            for question, outcome, seconds in _answer(batch, solver):
                used = markers_used(question) if isinstance(question, MCQuestion) else None
                record = _sample(question, spec, solver, outcome, seconds, config.benchmark,
                                 used.to_json() if used else None)
                if config.keep_evidence and isinstance(outcome, Decision) and outcome.evidence:
                    record["evidence"] = write_evidence(store.path.parent, question.idx, outcome.evidence)
                store.append(record)
                samples.append(record)
                bar.update(1)
    return samples


def _answer(
    batch: Sequence[MCQuestion | BrokenQuestion], solver: Solver
) -> Iterator[tuple[MCQuestion | BrokenQuestion, Decision | Exception, float]]:
    """Run one batch; if the batch as a whole fails, retry its questions one at a time."""
    broken = [q for q in batch if isinstance(q, BrokenQuestion)]
    for question in broken:
        yield question, ValueError(question.error), 0.0
    questions = [q for q in batch if isinstance(q, MCQuestion)]
    if not questions:
        return
    tic = time.perf_counter()
    try:
        outcomes = solver.decide_batch(questions)
        if len(outcomes) != len(questions):
            raise RuntimeError(f"{type(solver).__name__}.decide_batch returned {len(outcomes)} results for {len(questions)}")
    except Exception:
        for question in questions:
            tic_one = time.perf_counter()
            try:
                outcome = solver.decide_batch([question])[0]
            except Exception as exc:
                outcome = exc
            yield question, outcome, time.perf_counter() - tic_one
        return
    per_question = (time.perf_counter() - tic) / len(questions)
    for question, outcome in zip(questions, outcomes):
        yield question, outcome, per_question


def _finalise(
    results: dict, run_samples: dict[str, list[dict]], assignment: dict[str, SpecialistSpec], config: RunConfig, status: str
) -> None:
    tasks = {}
    for task, samples in run_samples.items():
        summary = summarise_task(samples)
        spec = assignment[task]
        checkpoints = {json.dumps(s["checkpoint"], sort_keys=True) for s in samples if s.get("checkpoint")}
        summary.update(
            specialist=spec.name,
            baseline=spec.baseline,
            checkpoint=json.loads(checkpoints.pop()) if len(checkpoints) == 1 else None,
            rules=sorted({s["decision"]["rule"] for s in samples if s.get("decision")}),
            settings=results.get("settings", {}).get(spec.name, {}),
        )
        tasks[task] = summary
    results["tasks"] = tasks
    results["macro_accuracy"], results["micro_accuracy"] = macro_micro(tasks)
    scored = {task: [bool(s.get("correct")) for s in samples if is_scored(s)]
              for task, samples in run_samples.items()}
    ci = macro_bootstrap_ci(scored, stable_seed(config.seed, "macro"))
    results["macro_ci95"] = list(ci) if ci else None
    own = benchmark(config.benchmark).score([s for samples in run_samples.values() for s in samples])
    if own is not None:
        results["benchmark_metrics"] = own
    results["status"] = status
