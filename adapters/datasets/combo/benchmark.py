"""ComBo as a benchmark for `specialists run --benchmark combo`: the same reader interface as
BlinkReader (tasks, count, questions, data_files, answer_version, root), over questions built
from a real ComBo folder (`--combo-root`) or, without one, from ComBo-lite renders.

Tasks: Category_Building_easy/medium/hard/expert (one per difficulty level) and
Pattern_Perception. Questions are built once when the benchmark opens, deterministically in the
seed, so a resumed run sees the same questions with the same ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from adapters.core.questions import DATASET_ANSWERS, MCQuestion
from adapters.core.tasks import CATEGORY_BUILDING_TASKS, combo_tasks
from adapters.datasets.blink.reader import DataFile
from adapters.datasets.combo.category_building import CategoryBuildingConfig, build_category_building, pixel_features
from adapters.datasets.combo.factors import DEFAULT_FACTOR_FILE, FactorTable
from adapters.datasets.combo.manifest import read_manifest
from adapters.datasets.combo.pattern_perception import TASK as PATTERN_PERCEPTION
from adapters.datasets.combo.pattern_perception import build_pattern_perception
from adapters.datasets.combo.render import ComboLiteRenderer
from adapters.datasets.combo.sources import ComboLiteSource, ImageSource, ManifestSource
from checkpoints.hashing import sha256_file

MANIFEST_NAME = "manifest.csv"


@dataclass(frozen=True)
class ComboSettings:
    """root: ComBo folder (with manifest.csv) or a manifest CSV; None = ComBo-lite renders.
    n: questions per Category Building level and for Pattern Perception; k_support: support
    images per category; image_size: ComBo-lite render size; factors: factor table TOML."""

    root: str | None = None
    n: int = 50
    k_support: int = 5
    image_size: int = 64
    factors: str | None = None
    seed: int = 0


def _manifest_path(root: str) -> Path:
    path = Path(root).expanduser()
    if path.is_dir():
        path = path / MANIFEST_NAME
    if not path.is_file():
        raise ValueError(f"--combo-root {root}: no {MANIFEST_NAME} there; give a ComBo folder holding {MANIFEST_NAME} "
                         "(columns path, object_id or the factor columns, view) or the CSV itself")
    return path


class ComboBenchmark:
    """ComBo questions, task by task (see module docstring)."""

    def __init__(self, settings: ComboSettings, tasks: Sequence[str] | None = None) -> None:
        if settings.n < 1 or settings.k_support < 1:
            raise ValueError("ComBo needs at least 1 question per task and 1 support image per category")
        self.settings = settings
        self.table = FactorTable.load(settings.factors)
        self.answer_version = DATASET_ANSWERS
        self._tasks = combo_tasks(list(tasks) if tasks else None)
        files = [Path(settings.factors) if settings.factors else DEFAULT_FACTOR_FILE]
        if settings.root:
            manifest_path = _manifest_path(settings.root)
            source: ImageSource = ManifestSource(read_manifest(manifest_path, self.table))
            files.append(manifest_path)
            self.root = manifest_path.parent
        else:
            source = ComboLiteSource(ComboLiteRenderer(self.table, settings.image_size, seed=settings.seed))
            self.root = Path("combo-lite")
        self.source = source
        self._files = [DataFile(p, sha256_file(p), p.stat().st_size) for p in files]
        self._questions = self._build()

    def _build(self) -> dict[str, list[MCQuestion]]:
        by_task: dict[str, list[MCQuestion]] = {task: [] for task in self._tasks}
        s = self.settings
        if any(task in CATEGORY_BUILDING_TASKS for task in self._tasks):
            # Questions for every level are drawn together: the levels are quartiles of one pool.
            config = CategoryBuildingConfig(n_per_level=s.n, k_support=s.k_support, seed=s.seed)
            for q in build_category_building(self.source, self.table, config, pixel_features):
                if q.task in by_task:
                    by_task[q.task].append(q)
        if PATTERN_PERCEPTION in by_task:
            by_task[PATTERN_PERCEPTION] = list(build_pattern_perception(self.source, self.table, s.n, seed=s.seed))
        return by_task

    @property
    def tasks(self) -> list[str]:
        return list(self._tasks)

    def describe(self) -> dict[str, Any]:
        """The generator section of results.json: how the questions were made."""
        s = self.settings
        return {"source": self.source.name, "questions_per_task": s.n, "k_support": s.k_support,
                "image_size": s.image_size if not s.root else None, "difficulty_features": "pixels (16x16)",
                "factor_table": str(self.table.source), "n_objects": self.table.n_objects, "seed": s.seed}

    def data_files(self) -> list[DataFile]:
        return list(self._files)

    def count(self, task: str) -> int:
        return len(self._questions[task])

    def questions(self, task: str, limit: int | None = None) -> Iterator[MCQuestion]:
        yield from self._questions[task][:limit]
