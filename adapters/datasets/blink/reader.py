"""Read BLINK from local files: the hub's parquet layout or a Hugging Face cache.

Accepted roots (from `--blink-root`, else `BLINK_ROOT`, else the Hugging Face caches):
- a folder in the hub's layout: `{root}/{Task}/{split}-*.parquet`;
- a Hugging Face hub cache of the dataset repo (`.../datasets--BLINK-Benchmark--BLINK`, or the
  hub cache folder holding it): the snapshot that `refs/main` names (else the newest);
- a `datasets` library cache (`.../BLINK-Benchmark___blink`): `{Task}/{version}/{hash}/*-{split}*.arrow`.

Nothing is downloaded. Problems with a whole file (missing column, unknown task folder, no file
or no rows for a task) raise `BlinkFormatError` naming the file; problems with one row (corrupt
image, malformed id, choices or answer) become a `BrokenQuestion` for that row only, which counts
wrong (unscored only on the test split, whose answers are hidden).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from adapters.core.questions import (
    DATASET_ANSWERS,
    BrokenQuestion,
    ImageDecodeError,
    MCQuestion,
    QuestionSource,
    decode_image,
    letters_for,
    option_texts,
    parse_gold,
)
from adapters.core.tasks import TASK_NAMES, UnknownTaskError, canonical_task, task_from_idx
from adapters.datasets.blink.answers import AnswerOverrides
from checkpoints.hashing import sha256_file
from checkpoints.locations import hf_hub_cache

HUB_REPO_DIR = "datasets--BLINK-Benchmark--BLINK"
DATASETS_CACHE_DIR = "BLINK-Benchmark___blink"
REQUIRED_COLUMNS = ("idx", "prompt", "choices", "answer", "image_1")
IMAGE_COLUMNS = ("image_1", "image_2", "image_3", "image_4")
SPLITS = ("val", "test")
HIDDEN_ANSWER_SPLITS = ("test",)  # BLINK keeps the test answers to itself ("hidden")


class BlinkFormatError(ValueError):
    """A BLINK file or folder does not have the expected layout or schema."""


@dataclass(frozen=True)
class DataFile:
    path: Path
    sha256: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "sha256": self.sha256, "size": self.size}


def _hf_datasets_cache() -> Path:
    """The `datasets` library cache: HF_DATASETS_CACHE, else beside the hub cache."""
    if os.environ.get("HF_DATASETS_CACHE"):
        return Path(os.environ["HF_DATASETS_CACHE"]).expanduser()
    return hf_hub_cache().parent / "datasets"


def _snapshot_of(repo_dir: Path) -> Path | None:
    """The snapshot folder of a hub-cache repo folder: the one refs/main names, else the newest."""
    snapshots = repo_dir / "snapshots"
    if not snapshots.is_dir():
        return None
    ref = repo_dir / "refs" / "main"
    if ref.is_file():
        named = snapshots / ref.read_text().strip()
        if named.is_dir():
            return named
    candidates = sorted((p for p in snapshots.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    return candidates[-1] if candidates else None


def resolve_blink_root(explicit: str | Path | None = None) -> Path:
    """The folder whose subfolders are BLINK's tasks. See the module docstring for the order."""
    looked: list[str] = []
    if explicit is not None:
        candidates = [Path(explicit).expanduser()]
        origin = "--blink-root"
    elif os.environ.get("BLINK_ROOT"):
        candidates = [Path(os.environ["BLINK_ROOT"]).expanduser()]
        origin = "BLINK_ROOT"
    else:
        candidates = [hf_hub_cache() / HUB_REPO_DIR, _hf_datasets_cache() / DATASETS_CACHE_DIR]
        origin = "the Hugging Face caches"
    for candidate in candidates:
        found = _task_root_in(candidate)
        if found is not None:
            return found
        looked.append(str(candidate))
    raise BlinkFormatError(
        f"no BLINK data found (from {origin}); looked in: {', '.join(looked)}. Point --blink-root "
        "(or BLINK_ROOT) at a folder holding {Task}/val-*.parquet, e.g. one made by "
        "`huggingface-cli download BLINK-Benchmark/BLINK --repo-type dataset --local-dir DIR`"
    )


def _task_root_in(candidate: Path) -> Path | None:
    """The task-folder root inside `candidate` (itself, or a cache snapshot under it), if any."""
    for layout in (candidate, candidate / HUB_REPO_DIR, candidate / DATASETS_CACHE_DIR):
        layout = _snapshot_of(layout) or layout
        if layout.is_dir() and _has_task_folders(layout):
            return layout
    return None


def _has_task_folders(folder: Path) -> bool:
    return any(_task_files(sub, split) for sub in folder.iterdir() if sub.is_dir() for split in SPLITS)


def _task_files(task_dir: Path, split: str) -> list[Path]:
    """Parquet shards of one split, or arrow files of a `datasets` cache, sorted."""
    parquet = sorted(task_dir.glob(f"{split}-*.parquet"))
    if parquet:
        return parquet
    # datasets cache: {Task}/{version}/{fingerprint}/blink-{split}[-00000-of-0000N].arrow
    return sorted(p for p in task_dir.glob("*/*/*.arrow") if f"-{split}" in p.stem)


def _read_table_batches(path: Path, batch_size: int) -> Iterator[pa.RecordBatch]:
    if path.suffix == ".parquet":
        yield from pq.ParquetFile(path).iter_batches(batch_size=batch_size)
    else:  # the datasets library writes arrow *stream* files
        with pa.memory_map(str(path)) as source:
            yield from pa.ipc.open_stream(source)


def _schema_of(path: Path) -> pa.Schema:
    try:
        if path.suffix == ".parquet":
            return pq.read_schema(path)
        with pa.memory_map(str(path)) as source:
            return pa.ipc.open_stream(source).schema
    except (pa.ArrowInvalid, OSError) as exc:
        raise BlinkFormatError(f"{path} is not a readable {path.suffix[1:]} file: {exc}") from None


def _ids_of(path: Path) -> list[str]:
    """The idx column of one file, in order."""
    if path.suffix == ".parquet":
        return [str(v) for v in pq.read_table(path, columns=["idx"]).column("idx").to_pylist()]
    return [str(v) for batch in _read_table_batches(path, 1024) for v in batch.column("idx").to_pylist()]


class BlinkReader:
    """Iterates BLINK questions of one split, task by task.

    tasks: task names (any spelling `canonical_task` accepts); None = every task folder found.
    answers: optional `--answers` overrides; their version is stamped on every question.
    """

    def __init__(
        self,
        root: str | Path | None,
        split: str = "val",
        tasks: Sequence[str] | None = None,
        answers: AnswerOverrides | None = None,
    ) -> None:
        if split not in SPLITS:
            raise BlinkFormatError(f"unknown split {split!r}; BLINK has {', '.join(SPLITS)}")
        self.root = resolve_blink_root(root)
        self.split = split
        self.answers = answers
        self.answer_version = answers.version if answers else DATASET_ANSWERS
        self.overridden_ids: set[str] = set()  # --answers ids applied to a question read so far
        self.files = self._discover(tasks)

    @property
    def tasks(self) -> list[str]:
        return list(self.files)

    def _discover(self, tasks: Sequence[str] | None) -> dict[str, list[Path]]:
        found: dict[str, list[Path]] = {}
        if tasks is None:
            for sub in sorted(p for p in self.root.iterdir() if p.is_dir()):
                shards = _task_files(sub, self.split)
                if not shards:
                    continue
                try:
                    found[canonical_task(sub.name)] = shards
                except UnknownTaskError as exc:
                    raise BlinkFormatError(f"{sub}: folder is not a BLINK task: {exc}") from None
            if not found:
                raise BlinkFormatError(
                    f"{self.root}: no {{Task}}/{self.split}-*.parquet files; tasks are {', '.join(TASK_NAMES)}"
                )
        else:
            for name in tasks:
                task = canonical_task(name)
                shards = _task_files(self.root / task, self.split)
                if not shards:
                    raise BlinkFormatError(
                        f"no {self.split} file for task {task}: looked for "
                        f"{self.root / task / f'{self.split}-*.parquet'} (and *-{self.split}*.arrow)"
                    )
                found[task] = shards
        self._ids: dict[str, list[str]] = {}  # read here once: the duplicate check and unknown_answer_ids
        for task, shards in found.items():
            seen: dict[str, Path] = {}
            for path in shards:
                missing = [c for c in REQUIRED_COLUMNS if c not in _schema_of(path).names]
                if missing:
                    raise BlinkFormatError(
                        f"{path}: missing column(s) {', '.join(missing)}; BLINK files have "
                        f"{', '.join(REQUIRED_COLUMNS)} and image_2..image_4"
                    )
                # one id, one question: a repeated id would be scored twice by a run and once by compare
                for idx in _ids_of(path):
                    if idx in seen:
                        where = "twice in" if seen[idx] == path else f"in {seen[idx]} and in"
                        raise BlinkFormatError(f"question id {idx!r} appears {where} {path}; each id must be "
                                               "unique: remove the duplicate row")
                    seen[idx] = path
            if not seen:
                raise BlinkFormatError(f"{', '.join(map(str, shards))}: task {task} has no questions (0 rows); "
                                       "re-download that task's file, or leave the task out with --tasks")
            self._ids[task] = list(seen)
        return found

    def ids(self, task: str) -> list[str]:
        """Every question id of `task`, in file order."""
        return list(self._ids[task])

    def unknown_answer_ids(self) -> list[str]:
        """--answers ids that name no question of this split's tasks read here (a typo, a
        test id, another benchmark's), sorted; ids of tasks not read are not counted."""
        if self.answers is None:
            return []
        known = {idx for task in self.files for idx in self.ids(task)}
        unknown = []
        for idx in self.answers.answers:
            try:
                split, task = task_from_idx(idx)
            except (ValueError, UnknownTaskError):
                unknown.append(idx)
                continue
            if split == self.split and task in self.files and idx not in known:
                unknown.append(idx)
        return sorted(unknown)

    def data_files(self) -> list[DataFile]:
        """Every file read, with its sha256: the data section of results.json."""
        return [DataFile(p, sha256_file(p), p.stat().st_size) for shards in self.files.values() for p in shards]

    def count(self, task: str) -> int:
        total = 0
        for path in self.files[task]:
            if path.suffix == ".parquet":
                total += pq.ParquetFile(path).metadata.num_rows
            else:
                total += sum(batch.num_rows for batch in _read_table_batches(path, 256))
        return total

    def questions(
        self, task: str, limit: int | None = None, batch_size: int = 32
    ) -> Iterator[MCQuestion | BrokenQuestion]:
        """Questions of one task in file order; at most `limit` of them."""
        produced = 0
        for path in self.files[task]:
            for batch in _read_table_batches(path, batch_size):
                for row in batch.to_pylist():
                    if limit is not None and produced >= limit:
                        return
                    produced += 1
                    yield self._question(row, task, path)

    def _question(self, row: dict[str, Any], task: str, path: Path) -> MCQuestion | BrokenQuestion:
        idx = str(row.get("idx"))
        overridden = self.answers is not None and idx in self.answers.answers
        # a broken row of a split with hidden answers is unscored like its neighbours; elsewhere it counts wrong
        hidden = self.split in HIDDEN_ANSWER_SPLITS and not overridden
        gold = None
        try:
            gold = self.answers.answers[idx] if overridden else self._dataset_gold(row.get("answer"))
            split, idx_task = task_from_idx(idx)
            if idx_task != task or split != self.split:
                raise ValueError(f"id {idx!r} does not belong to {self.split}/{task} but lies in {path}")
            choices = option_texts(row["choices"])
            if overridden and gold not in letters_for(len(choices)):
                return BrokenQuestion(idx=idx, task=task, gold=gold, answer_hidden=hidden, error=(
                    f"answers file {self.answers.version.name}: {idx} is given ({gold}), but the question has "
                    f"{len(choices)} options ({', '.join(letters_for(len(choices)))}); correct that entry"))
            source = QuestionSource("blink", self.split, str(path), self.answer_version)
            images = [(col, row.get(col)) for col in IMAGE_COLUMNS if row.get(col) is not None]
            question = MCQuestion(
                idx=idx,
                task=task,
                prompt=row["prompt"] or "",
                choices=choices,
                gold=gold,
                source=source,
                question=row.get("question") or "",
                sub_task=row.get("sub_task"),
                _image_loader=lambda: [_decode_struct(value, idx, col, path) for col, value in images],
            )
        except (ValueError, KeyError, TypeError) as exc:
            shown = idx if idx.isprintable() else repr(idx)  # an id with a newline must not break the line
            return BrokenQuestion(idx=idx, task=task, gold=gold, answer_hidden=hidden,
                                  error=f"{path}: row {shown}: {exc}")
        if overridden:
            self.overridden_ids.add(idx)
        return question

    def _dataset_gold(self, raw: Any) -> str | None:
        """The row's own answer: a letter, or None on a split whose answers are hidden; an empty
        or missing answer where answers are public is malformed (ValueError), never unscored."""
        gold = parse_gold(raw)
        if gold is None and self.split not in HIDDEN_ANSWER_SPLITS:
            raise ValueError(f"no answer (the answer column holds {raw!r}), but {self.split} answers are public: "
                             "re-download that task's file, or give this id's answer with --answers")
        return gold


def _decode_struct(value: Any, idx: str, column: str, path: Path) -> Image.Image:
    """An image column holds {"bytes": ..., "path": ...}; bytes win, a relative path is tried next."""
    if isinstance(value, dict):
        if value.get("bytes"):
            return decode_image(value["bytes"], idx=idx, column=column)
        if value.get("path"):
            file = Path(value["path"])
            file = file if file.is_absolute() else path.parent / file
            if file.is_file():
                return decode_image(file.read_bytes(), idx=idx, column=column)
    raise ImageDecodeError(f"{idx}: {column} has neither image bytes nor a readable path (in {path})")
