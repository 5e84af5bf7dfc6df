"""The evaluation runner behind `specialists run`.

Questions are read task by task, answered in batches by the task's solver, and every answer is
appended to `samples.jsonl` at once (one JSON line per question, flushed), so a killed run loses
at most the batch in flight and `--resume` continues where it stopped, once it has checked that
the folder holds the same run (adapters/run/folder.py). `results.json` is
rewritten after every task and at the end; it is always computed from the sample lines, taken in
question order, so a resumed run and an uninterrupted one produce the same numbers.

With `devices` x `num_nodes` > 1 Lightning starts one process per device (adapters/run/ranks.py).
Every rank reads the same questions; each task's unanswered questions are dealt out in turn
(rank R answers the R-th, the (R+W)-th, ...), each rank appends to its own part of the answers,
and at the end of the task rank 0 appends them to `samples.jsonl` in question order and rewrites
`results.json`: the files of a one-process run, with the launch recorded under "distributed".
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
from adapters.datasets.blink.reader import BlinkReader
from adapters.markers import apply_markers
from adapters.markers.find import markers_used
from adapters.run.folder import (
    SAMPLES_NAME,
    SampleStore,
    check_identity,
    check_samples,
    consolidate,
    has_samples,
    part_path,
    write_evidence,
    write_identity,
    write_json_atomic,
)
from adapters.run.lock import RunDirError, RunLock, lock_name, writing
from adapters.run.provenance import environment, now_iso, seed_everything
from adapters.run.ranks import SINGLE, STRATEGIES, Ranks, launch, launched_by_torchrun_without_devices
from adapters.run.sources import open_benchmark
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
    devices: int = 1  # processes per node (one per GPU; on CPUs they share the cores)
    num_nodes: int = 1
    strategy: str = "ddp"  # Lightning's launcher: ddp (re-runs the command per device) | ddp_spawn

    @property
    def world_size(self) -> int:
        return self.devices * self.num_nodes

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
        self._validate_processes()

    def _validate_processes(self) -> None:
        if self.devices < 1 or self.num_nodes < 1:
            raise ValueError("--devices and --num-nodes must be at least 1")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"--strategy {self.strategy!r}: use one of {', '.join(STRATEGIES)}")
        if line := launched_by_torchrun_without_devices(self.devices, self.num_nodes):
            raise ValueError(line)
        if self.world_size > 1 and self.device not in ("cpu", "cuda"):
            raise ValueError(f"--device {self.device} with --devices {self.devices}: each process takes its own device; "
                             "give --device cuda (GPUs 0..N-1 of CUDA_VISIBLE_DEVICES) or --device cpu")
        if self.device == "cuda" and self.devices > 1:
            import torch

            if torch.cuda.device_count() < self.devices:
                raise ValueError(f"--devices {self.devices}: this machine shows {torch.cuda.device_count()} GPU(s); "
                                 "ask for at most that many per node")


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


def run(config: RunConfig) -> dict[str, Any] | None:
    """Run (or resume) an evaluation; returns the final results dict also written to disk.

    With several processes (config.world_size > 1) each of them calls this (Lightning re-runs
    the command, or torchrun / SLURM started them): rank 0 returns the results, the others None."""
    config.validate()
    if config.world_size > 1:
        return launch(_run_as_rank, config, accelerator="cpu" if config.device == "cpu" else "cuda",
                      devices=config.devices, num_nodes=config.num_nodes, strategy=config.strategy)
    return _run_as_rank(config, SINGLE)


def _run_as_rank(config: RunConfig, ranks: Ranks) -> dict[str, Any] | None:
    out = Path(config.output_dir)

    def make_folder() -> tuple[bool, str]:
        created = not out.exists()
        with writing(out):
            out.mkdir(parents=True, exist_ok=True)
        return created, now_iso()

    created, started_at = ranks.from_main(make_folder)
    lock = RunLock(out, started_at, lock_name(ranks.rank))
    try:
        try:
            ranks.together(lock.__enter__)
            with _sigterm_as_interrupt():
                return _run_locked(config, out, started_at, ranks)
        finally:
            lock.__exit__()
    except BaseException:
        if ranks.is_main and created and not has_samples(out):  # a failed run leaves no empty folder behind
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


@dataclass
class _Prepared:
    """What every rank builds before the first question (the same on all of them)."""

    reader: Any
    data: dict
    coordinates: dict
    tasks: list[str]
    assignment: dict[str, SpecialistSpec]
    settings: dict[str, dict[str, str]]
    solvers: dict[str, Solver]
    answers: dict
    identity: dict


def _prepare(config: RunConfig, device: str, quiet: bool) -> _Prepared:
    """Open the benchmark, assign the specialists and build their solvers on `device`."""
    reader, data, coordinates = open_benchmark(config)
    if config.progress and not quiet and data["markers"].get("note"):
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
    if (note := device_note(config.device, assignment)) and not quiet:
        print(note, file=sys.stderr)
    if config.checkpoint and all(spec.default_checkpoint is None for spec in assignment.values()):
        names = ", ".join(sorted({spec.name for spec in assignment.values()}))
        raise ValueError(f"--checkpoint {config.checkpoint}: {names} load(s) no weights; drop --checkpoint")
    settings = run_settings(assignment, config.settings)
    options = SolverOptions(device, config.batch_size, config.precision, config.seed, config.checkpoint,
                            config.cache, config.cache_dir, keep_evidence=config.keep_evidence)
    solvers = {spec.name: spec.build(replace(options, settings=settings[spec.name])) for spec in assignment.values()}
    answers = reader.answer_version.to_json()
    unknown = reader.unknown_answer_ids() if isinstance(reader, BlinkReader) else []  # ComBo has no --answers
    if unknown:
        answers["unknown_ids"] = len(unknown)
        answers["unknown_ids_first"] = unknown[:5]
        if not quiet:
            print(f"warning: answers file {answers.get('name')}: {len(unknown)} id(s) name no question of the tasks "
                  f"read (first: {', '.join(unknown[:5])}); they score nothing", file=sys.stderr)
    identity = _identity(config, assignment, data, answers, settings)
    return _Prepared(reader, data, coordinates, tasks, assignment, settings, solvers, answers, identity)


def _saved_answers(config: RunConfig, out: Path, p: _Prepared) -> dict[str, dict]:
    """Rank 0, before any question: the answers a --resume keeps (checked to be this run's);
    the run's identity is written."""
    done: dict[str, dict] = {}
    if config.resume:
        check_identity(out, p.identity)
        done = consolidate(out)
        check_samples(out, done, config.benchmark, {
            task: (spec.name, p.solvers[spec.name].checkpoint.to_json() if p.solvers[spec.name].checkpoint else None)
            for task, spec in p.assignment.items()})
        if config.retry_errors:
            done = {idx: rec for idx, rec in done.items() if rec.get("status") != "error"}
    write_identity(out, p.identity)
    return done


def _run_locked(config: RunConfig, out: Path, started_at: str, ranks: Ranks) -> dict[str, Any] | None:
    store = SampleStore(out / SAMPLES_NAME)

    def check_fresh() -> None:
        if has_samples(out) and not config.resume:
            raise RunDirError(f"{out} already holds a run; pass --resume to continue it, or choose another --output-dir")

    ranks.from_main(check_fresh)
    started = time.perf_counter()
    device = ranks.device if ranks.world_size > 1 else config.device
    # rank 0 first: generated question sets and first-use caches are made once
    prepared = ranks.main_first(lambda: _prepare(config, device, quiet=not ranks.is_main))
    solvers, assignment, answers = prepared.solvers, prepared.assignment, prepared.answers
    seed_everything(config.seed)
    done = ranks.from_main(lambda: _saved_answers(config, out, prepared))
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
        "markers": prepared.data["markers"],
        "checkpoints": {
            name: (solver.checkpoint.to_json() if solver.checkpoint else None) for name, solver in solvers.items()
        },
        "auxiliary_checkpoints": {name: {role: ref.to_json() for role, ref in solver.auxiliary_checkpoints.items()}
                                  for name, solver in solvers.items() if solver.auxiliary_checkpoints},
        "settings": {name: solver.settings for name, solver in solvers.items()},
        "identity": prepared.identity,
        "config": {k: v for k, v in asdict(config).items() if k != "progress"},
        "data": prepared.data,
        "env": environment(device),
        "distributed": ranks.describe(),
        "started_at": started_at,
        "finished_at": None,
        "seconds": None,
    }
    run_samples: dict[str, list[dict]] = {}

    def write_results() -> None:
        if ranks.is_main:
            write_json_atomic(out / "results.json", results)

    try:
        for task in prepared.tasks:
            spec = assignment[task]
            run_samples[task] = _run_task(prepared.reader, prepared.coordinates, task, spec, solvers[spec.name], store,
                                          done, config, ranks)
            answers["n_overridden"] = len(getattr(prepared.reader, "overridden_ids", ()))
            _finalise(results, run_samples, assignment, config, status="running")
            ranks.together(write_results)
    except BaseException as stopped:
        if not ranks.is_main:
            raise
        _finalise(results, run_samples, assignment, config, status="interrupted")
        results["seconds"] = round(time.perf_counter() - started, 3)
        try:
            write_results()
        except RunDirError:
            if not isinstance(stopped, RunDirError):
                raise
            # the disk that refused a sample refuses results.json too: the first failure is the one to report
        raise
    _finalise(results, run_samples, assignment, config, status="complete")
    results["finished_at"] = now_iso()
    results["seconds"] = round(time.perf_counter() - started, 3)
    ranks.together(write_results)
    return results if ranks.is_main else None


def _run_task(
    reader: BlinkReader,
    coordinates: dict,
    task: str,
    spec: SpecialistSpec,
    solver: Solver,
    store: SampleStore,
    done: dict[str, dict],
    config: RunConfig,
    ranks: Ranks = SINGLE,
) -> list[dict]:
    """Answer one task's questions not yet in `done`; returns this task's samples, old and new,
    in question order (rank 0's; the other ranks return their own share only)."""
    total = reader.count(task)
    limit = questions_limit(config.limit, total)
    questions = list(apply_markers(reader.questions(task, limit=limit), coordinates))  # images load lazily
    slots: list[dict | None] = [done.get(q.idx) for q in questions]
    todo = [i for i, record in enumerate(slots) if record is None]
    mine = todo[ranks.rank::ranks.world_size]  # dealt out in turn: every rank gets hard and easy questions alike
    # this rank's own part while several write; samples.jsonl itself for one process
    part = store if ranks.world_size == 1 else SampleStore(part_path(store.path.parent, ranks.rank))

    def answer() -> list[tuple[int, dict]]:
        answered: list[tuple[int, dict]] = []
        desc = task if ranks.world_size == 1 else f"{task} (rank {ranks.rank} of {ranks.world_size})"
        # on a terminal only (disable=None), so logs and CI output stay clean; one bar, rank 0's
        show = config.progress and ranks.is_main
        with tqdm(total=len(slots) if ranks.world_size == 1 else len(mine),
                  initial=len(slots) - len(todo) if ranks.world_size == 1 else 0,
                  desc=desc, unit="q", disable=None if show else True) as bar:
            for batch in _batches(iter(mine), config.batch_size):
                position_of = {id(questions[i]): i for i in batch}  # _answer yields broken questions first
                for question, outcome, seconds in _answer([questions[i] for i in batch], solver):
                    position = position_of[id(question)]
                    used = markers_used(question) if isinstance(question, MCQuestion) else None
                    record = _sample(question, spec, solver, outcome, seconds, config.benchmark,
                                     used.to_json() if used else None)
                    if config.keep_evidence and isinstance(outcome, Decision) and outcome.evidence:
                        record["evidence"] = write_evidence(part.path.parent, question.idx, outcome.evidence)
                    part.append(record)
                    answered.append((position, record))
                    bar.update(1)
        return answered

    for answered in ranks.gather(answer):
        for position, record in answered:
            slots[position] = record
    if ranks.world_size > 1:
        # rank 0 files the task's new answers as one process would have (question order), then
        # every rank drops its part: the answers are in samples.jsonl
        ranks.from_main(lambda: store.append_many([slots[i] for i in todo]))
        ranks.together(lambda: part.path.unlink(missing_ok=True))
    return [record for record in slots if record is not None]


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
