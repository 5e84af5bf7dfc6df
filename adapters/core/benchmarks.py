"""Every benchmark the suite reads, in one table: how its questions are found, how it is scored
beyond per-task accuracy, and how its own metrics are printed.

The runner, `compare` and the reports look a benchmark up here instead of testing its name. Each
reference is "module:function" and imported when used, so reading the table costs nothing (the
CLI takes its `--benchmark` choices from it).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Benchmark:
    """name: the `--benchmark` value; title: as tables print it;
    questions: where its questions come from: "blink" (a BLINK-layout folder, --blink-root),
    "generated" (written on demand, answers known by construction), "combo" (ComBo or ComBo-lite),
    "release" (a release folder, --root, read by `reader`);
    reader: "module:Class" taking (root, tasks) for a "release" benchmark;
    metrics: "module:function", samples -> the benchmark's own metrics (None: per-task accuracy only);
    metrics_lines: "module:function" (metrics per model, model names) -> report lines;
    weight_free_defaults: answer with the best weight-free specialist per task by default (the
    embedded default must run on a machine without weights)."""

    name: str
    title: str
    questions: str
    reader: str | None = None
    metrics: str | None = None
    metrics_lines: str | None = None
    weight_free_defaults: bool = False

    @property
    def has_markers(self) -> bool:
        """Questions with drawn points or boxes (BLINK's layout); --markers and --answers apply."""
        return self.questions in ("blink", "generated")

    @property
    def from_release(self) -> bool:
        return self.questions == "release"

    def open_reader(self, root: str, tasks: list[str] | None = None) -> Any:
        """The release folder's question reader (`release` benchmarks only)."""
        if self.reader is None:
            raise ValueError(f"--benchmark {self.name} is not read from a release folder")
        return _resolve(self.reader)(root, tasks)

    def score(self, samples: list[dict]) -> dict[str, Any] | None:
        """Its own metrics over answered questions (sample rows), or None for per-task accuracy alone."""
        return _resolve(self.metrics)(samples) if self.metrics else None

    def lines(self, metrics: list[dict], names: list[str]) -> list[str]:
        """Its own metrics as report lines (Markdown tables), one column per model."""
        return _resolve(self.metrics_lines)(metrics, names) if self.metrics_lines else []


def _resolve(reference: str) -> Callable[..., Any]:
    module, name = reference.split(":")
    return getattr(importlib.import_module(module), name)


BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (
    Benchmark("blink", "BLINK", "blink"),
    Benchmark("synthetic", "synthetic BLINK-format", "generated", weight_free_defaults=True),
    Benchmark("combo", "ComBo", "combo"),
    Benchmark("marvel", "MARVEL", "release", reader="adapters.datasets.marvel.reader:MarvelReader",
              metrics="adapters.datasets.marvel.metrics:marvel_metrics",
              metrics_lines="adapters.report.benchmark_report:marvel_lines"),
    Benchmark("blink-twice", "BLINK-Twice", "release", reader="adapters.datasets.blink_twice.reader:BlinkTwiceReader",
              metrics="adapters.datasets.blink_twice.metrics:blink_twice_metrics",
              metrics_lines="adapters.report.benchmark_report:blink_twice_lines"),
    Benchmark("cv-bench", "CV-Bench", "release", reader="adapters.datasets.cv_bench.reader:CvBenchReader",
              metrics="adapters.datasets.cv_bench.metrics:cv_bench_metrics",
              metrics_lines="adapters.report.benchmark_report:cv_bench_lines", weight_free_defaults=True),
)}
RELEASE_BENCHMARKS = tuple(name for name, b in BENCHMARKS.items() if b.from_release)


def benchmark(name: str) -> Benchmark:
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]
