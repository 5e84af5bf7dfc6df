"""A finished run's questions again, from the data its results.json recorded: what the report
page and the figure panels show (images, question text, options).

    recorded_questions(results, wanted, data_root=None) -> iterator of MCQuestion | BrokenQuestion

`wanted` maps task -> the question ids to find; a task or a folder that cannot be read any more
(moved, deleted) raises RecordedDataError naming it and what to pass instead. `data_root`
overrides the recorded folder (the data moved since the run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Mapping

from adapters.core.benchmarks import benchmark
from adapters.core.questions import BrokenQuestion, MCQuestion


class RecordedDataError(ValueError):
    pass


def _reader(results: Mapping[str, Any], tasks: list[str], data_root: str | None) -> Any:
    """The question reader over the run's own data (as runner._open_benchmark opened it)."""
    config = results.get("config") or {}
    name = results.get("benchmark") or config.get("benchmark") or "blink"
    kind = benchmark(name)
    root = data_root or (results.get("data") or {}).get("root")
    if kind.questions == "combo":
        from adapters.datasets.combo.benchmark import ComboBenchmark, ComboSettings

        settings = ComboSettings(config.get("combo_root"), config.get("combo_n", 50), config.get("combo_k_support", 5),
                                 factors=config.get("combo_factors"), seed=config.get("seed", 0))
        return ComboBenchmark(settings, tasks)
    if kind.from_release:
        return kind.open_reader(root, tasks)
    from adapters.datasets.blink.reader import BlinkReader

    if kind.questions == "generated" and (root is None or not Path(root).is_dir()) and data_root is None:
        from adapters.datasets.synthetic import cached_synthetic

        root = str(cached_synthetic(config.get("synthetic_n", 50), config.get("seed", 0),
                                    config.get("synthetic_images")))
    return BlinkReader(root, results.get("split") or "val", tasks)


def recorded_questions(results: Mapping[str, Any], wanted: Mapping[str, set[str]],
                       data_root: str | None = None) -> Iterator[MCQuestion | BrokenQuestion]:
    """The questions named in `wanted` (task -> ids), read from the run's data one at a time in
    file order; images decode lazily, on first use. RecordedDataError on the first step when the
    data cannot be opened."""
    if not wanted:
        return
    root = data_root or (results.get("data") or {}).get("root")
    try:
        reader = _reader(results, sorted(wanted), data_root)
    except (OSError, ValueError) as exc:
        raise RecordedDataError(f"the run's questions cannot be read from {root} ({exc}); pass --data-root DIR, "
                                "the folder the run read (its results.json records the one it used)") from None
    for task, ids in wanted.items():
        left = set(ids)
        for question in reader.questions(task):
            if question.idx in left:
                left.discard(question.idx)
                yield question
                if not left:
                    break
