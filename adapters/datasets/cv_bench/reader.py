"""CV-Bench (Tong et al., 2024, "Cambrian-1": 2,638 vision-centric questions on ADE20K, COCO and
Omni3D images) for `specialists run --benchmark cv-bench --root DIR`: the same reader interface
as BlinkReader (tasks, count, questions, data_files, answer_version, root).

Layouts read, as the dataset card (nyu-visionx/CV-Bench) describes them, one per folder:
- the hub's parquet: `test_2d.parquet`, `test_3d.parquet` (its default config reads `test*.parquet`),
  images in the `image` column ({bytes, path});
- a `datasets` library cache: arrow files of the same columns (`cache-*.arrow` files are skipped);
- JSON Lines: `test_2d.jsonl`, `test_3d.jsonl`, images under `img/` named by `filename`.
The hub's repository holds both parquet and JSON Lines: parquet wins (reading both would ask every
question twice). A hub cache folder (`datasets--nyu-visionx--CV-Bench`) is read at the snapshot
its refs/main names.

Columns required: REQUIRED, and `image` (parquet, arrow) or `filename` (JSON Lines); a file missing
one is refused with a message naming it. Optional: `type` (else from the task), `prompt` (else
built from question and choices), `bbox` (the card: Omni3D rows only; kept as the question's
`meta["bbox"]` when it is a list of [x0, y0, x1, y1]), and the card's other columns, unused.
The column names are the card's; check them against the card of the copy you have.

Questions: one task per value of `task` (CV_BENCH_TASK), ids `cv_bench_<idx>`; gold from
`answer` ("(A)"); each sample line carries meta {source, type, bbox}, what the metrics group by.
A malformed row becomes one BrokenQuestion naming the row and the field.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from adapters.core.json_lines import json_lines
from adapters.core.questions import (
    DATASET_ANSWERS,
    BrokenQuestion,
    ImageDecodeError,
    MCQuestion,
    QuestionSource,
    decode_image,
    option_lines,
    option_texts,
    parse_gold,
)
from adapters.core.tasks import CV_BENCH_TASKS, canonical_task
from adapters.datasets.blink.reader import DataFile, _snapshot_of
from adapters.datasets.hub_image import hub_image_cell
from checkpoints.hashing import sha256_file

REQUIRED = ("idx", "task", "question", "choices", "answer", "source")
NO_IMAGE_IN_CELL = "the image column holds neither bytes nor a readable path"
IMAGE_COLUMN = {"parquet": "image", "arrow": "image", "jsonl": "filename"}
CV_BENCH_TASK = dict(zip(("Count", "Relation", "Depth", "Distance"), CV_BENCH_TASKS))
TASK_TYPE = {"CV_Bench_Count": "2D", "CV_Bench_Relation": "2D", "CV_Bench_Depth": "3D", "CV_Bench_Distance": "3D"}
HUB_REPO_DIR = "datasets--nyu-visionx--CV-Bench"


class CvBenchFormatError(ValueError):
    """A folder that holds no CV-Bench questions, or a file of it that cannot be read."""


def question_id(release_idx: Any) -> str:
    """The suite's id of a question from the release's `idx`."""
    return f"cv_bench_{release_idx}"


def task_of(value: Any) -> str | None:
    """The release's task ("Count") -> the suite's (CV_Bench_Count); None for an unknown one."""
    if value in CV_BENCH_TASK:
        return CV_BENCH_TASK[value]
    return value if value in CV_BENCH_TASKS else None


def boxes_of(value: Any) -> list[list[float]] | None:
    """`bbox` as a list of [x0, y0, x1, y1]: a list of 4-number lists, or a flat list of 4k numbers;
    None when absent or not of that shape (the rules then find the boxes drawn in the image)."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    items = list(value)
    if all(isinstance(v, (int, float)) for v in items) and len(items) % 4 == 0:
        items = [items[i:i + 4] for i in range(0, len(items), 4)]
    boxes = []
    for box in items:
        if not (isinstance(box, (list, tuple)) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box)):
            return None
        x0, y0, x1, y1 = (float(v) for v in box)
        if not (x1 > x0 and y1 > y0):
            return None  # not corners (x, y, width, height would fail here for most boxes)
        boxes.append([x0, y0, x1, y1])
    return boxes


def _gold(raw: Any, choices: tuple[str, ...]) -> str:
    """The answer "(A)" -> "A"; a bare letter or an option's exact text is taken too."""
    text = str(raw).strip() if raw is not None else ""
    if len(text) == 1 and text.isalpha() and text.isupper():
        text = f"({text})"
    try:
        gold = parse_gold(text)
    except ValueError:
        named = [i for i, choice in enumerate(choices) if choice.strip().lower() == text.lower()]
        if len(named) != 1:
            raise ValueError(f'answer {raw!r} is neither "(A)"-style nor one option\'s text') from None
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[named[0]]
    if gold is None:
        raise ValueError(f"no answer (the answer column holds {raw!r}); CV-Bench's answers are public")
    return gold


def _choices(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):  # JSON text of a list, as some exports write it
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            pass
    if isinstance(raw, (list, tuple)):
        raw = [str(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else c for c in raw]
    return option_texts(raw)


def _arrow_batches(path: Path) -> Iterator[pa.RecordBatch]:
    with pa.memory_map(str(path)) as source:
        try:
            reader = pa.ipc.open_stream(source)  # what the datasets library writes
        except pa.ArrowInvalid:
            reader = pa.ipc.open_file(source)
            for i in range(reader.num_record_batches):
                yield reader.get_batch(i)
            return
        yield from reader


def _batches(path: Path, kind: str, columns: list[str] | None = None) -> Iterator[list[dict[str, Any]]]:
    """Rows of a parquet or arrow file in batches (only `columns` when given)."""
    try:
        if kind == "parquet":
            for batch in pq.ParquetFile(path).iter_batches(batch_size=64, columns=columns):
                yield batch.to_pylist()
        else:
            for batch in _arrow_batches(path):
                rows = batch.to_pylist()
                yield [{k: r[k] for k in columns} for r in rows] if columns else rows
    except (pa.ArrowInvalid, OSError) as exc:
        raise CvBenchFormatError(f"{path}: not a readable {kind} file ({exc}); download it again") from None


def _columns(path: Path, kind: str) -> list[str]:
    try:
        if kind == "parquet":
            return list(pq.read_schema(path).names)
        return list(_arrow_schema(path).names)
    except (pa.ArrowInvalid, OSError) as exc:
        raise CvBenchFormatError(f"{path}: not a readable {kind} file ({exc}); download it again") from None


def _arrow_schema(path: Path) -> pa.Schema:
    with pa.memory_map(str(path)) as source:
        try:
            return pa.ipc.open_stream(source).schema
        except pa.ArrowInvalid:
            return pa.ipc.open_file(source).schema


def _jsonl_rows(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CvBenchFormatError(f"{path}: cannot be read ({exc}); download it again") from None
    return [row for _, row in json_lines(text, path, CvBenchFormatError, fix="download that file again")]


def find_files(root: Path) -> tuple[str, list[Path]]:
    """The layout of `root` and its question files (see the module's doc)."""
    parquet = sorted(root.rglob("*.parquet"))
    if parquet:
        return "parquet", parquet
    arrow = sorted(p for p in root.rglob("*.arrow") if not p.name.startswith("cache-"))
    if arrow:
        return "arrow", arrow
    return "jsonl", sorted(root.rglob("*.jsonl"))


class CvBenchReader:
    """CV-Bench's questions as four tasks (see the module's doc)."""

    def __init__(self, root: str | Path, tasks: Sequence[str] | None = None) -> None:
        given = Path(root).expanduser()
        if not given.is_dir():
            raise CvBenchFormatError(f"--root {root}: no such folder; give the CV-Bench folder (test_2d.parquet and "
                                     "test_3d.parquet, or test_*.jsonl with img/)")
        given = given.resolve()
        self.root = _snapshot_of(given / HUB_REPO_DIR) or _snapshot_of(given) or given
        self.layout, files = find_files(self.root)
        if not files:
            raise CvBenchFormatError(f"--root {self.root}: no CV-Bench files here: expected test_2d.parquet and "
                                     "test_3d.parquet (the hub's), arrow files (a datasets cache), or test_2d.jsonl "
                                     "and test_3d.jsonl with img/")
        self.tasks = self._tasks(tasks)
        self.files: list[Path] = []
        self.rows: dict[str, list[tuple[dict[str, Any], Path]]] = {task: [] for task in CV_BENCH_TASKS}
        self.skipped: dict[str, int] = {}  # rows whose task is none of CV-Bench's four: task value -> rows
        seen: dict[str, Path] = {}
        for file in files:
            rows = self._index(file)
            if rows is None:
                continue  # a parquet or JSON Lines file of something else beside the release
            self.files.append(file)
            for row in rows:
                idx = str(row.get("idx"))
                if idx in seen:
                    where = "twice in" if seen[idx] == file else f"in {seen[idx]} and in"
                    raise CvBenchFormatError(f"question idx {idx} appears {where} {file}; point --root at one copy "
                                             "of the release (each idx once)")
                seen[idx] = file
                task = task_of(row.get("task"))
                if task is None:
                    self.skipped[str(row.get("task"))] = self.skipped.get(str(row.get("task")), 0) + 1
                    continue
                self.rows[task].append((row, file))
        if not self.files:
            raise CvBenchFormatError(self._no_questions(files))
        for value, n in self.skipped.items():
            print(f"warning: {n} row(s) with task {value!r} skipped: CV-Bench's tasks are "
                  f"{', '.join(CV_BENCH_TASK)}", file=sys.stderr)
        self.answer_version = DATASET_ANSWERS

    @staticmethod
    def _tasks(names: Sequence[str] | None) -> list[str]:
        chosen = [CV_BENCH_TASK.get(n.capitalize()) or canonical_task(n, CV_BENCH_TASKS) for n in names or ()]
        return list(dict.fromkeys(chosen)) if chosen else list(CV_BENCH_TASKS)

    def _index(self, file: Path) -> list[dict[str, Any]] | None:
        """The file's rows without their image bytes; None when it holds no CV-Bench columns at all;
        CvBenchFormatError naming the missing column when it holds some of them."""
        image = IMAGE_COLUMN[self.layout]
        if self.layout == "jsonl":
            rows = _jsonl_rows(file)
            names = list(rows[0]) if rows else []
        else:
            names = _columns(file, self.layout)
            rows = None
        wanted = REQUIRED + (image,)
        missing = [c for c in wanted if c not in names]
        if len(missing) == len(wanted):
            return None
        if missing:
            raise CvBenchFormatError(
                f"{file}: no column {', '.join(repr(c) for c in missing)}; CV-Bench rows carry "
                f"{', '.join(wanted)} (the names of the dataset card nyu-visionx/CV-Bench: check them against "
                f"the card of your copy). This file has: {', '.join(names)}")
        if rows is None:
            rows = [r for batch in _batches(file, self.layout, [c for c in names if c != image]) for r in batch]
        return rows

    def _no_questions(self, files: list[Path]) -> str:
        return (f"--root {self.root}: no CV-Bench questions in its {self.layout} files "
                f"({', '.join(f.name for f in files[:4])}): none has the columns {', '.join(REQUIRED)}")

    def describe(self) -> dict[str, Any]:
        return {"benchmark": "cv-bench", "layout": self.layout, "files": [f.name for f in self.files],
                "questions": {task: len(rows) for task, rows in self.rows.items()},
                "skipped_rows": dict(self.skipped)}

    def data_files(self) -> list[DataFile]:
        return [DataFile(p, sha256_file(p), p.stat().st_size) for p in self.files]

    def count(self, task: str) -> int:
        return len(self.rows[task])

    def questions(self, task: str, limit: int | None = None) -> Iterator[MCQuestion | BrokenQuestion]:
        """The task's questions in file order, at most `limit`."""
        wanted = self.rows[task][:limit] if limit else self.rows[task]
        if self.layout == "jsonl":
            for row, file in wanted:
                yield self._question(row, file, task, self._image_file(row.get("filename"), file))
            return
        pending = {(str(row.get("idx")), file) for row, file in wanted}
        for file in dict.fromkeys(f for _, f in wanted):
            # the image column is read here, a batch at a time, not kept for the whole release
            for batch in _batches(file, self.layout):
                for row in batch:
                    key = (str(row.get("idx")), file)
                    if key in pending:
                        pending.discard(key)
                        image = hub_image_cell(row.get("image"), file) or NO_IMAGE_IN_CELL
                        yield self._question(row, file, task, image)
                if not pending:
                    return

    def _question(self, row: dict[str, Any], file: Path, task: str,
                  image: Callable[[], bytes] | str) -> MCQuestion | BrokenQuestion:
        idx = question_id(row.get("idx"))
        meta: dict[str, Any] = {"source": row.get("source"), "type": row.get("type") or TASK_TYPE[task]}
        if (boxes := boxes_of(row.get("bbox"))) is not None:
            meta["bbox"] = boxes
        elif row.get("bbox") is not None:
            meta["bbox_unread"] = "bbox is not a list of [x0, y0, x1, y1]"
        gold = None
        try:
            missing = [name for name in REQUIRED if row.get(name) is None]
            if missing:
                raise ValueError(f"no {', '.join(missing)}")
            choices = _choices(row["choices"])
            gold = _gold(row["answer"], choices)
            if isinstance(image, str):
                raise ValueError(image)
            read = image
            question = str(row["question"])
            prompt = row.get("prompt") or f"{question}\n{option_lines(choices)}"
            return MCQuestion(idx=idx, task=task, prompt=str(prompt), choices=choices, gold=gold, question=question,
                              source=QuestionSource("cv-bench", "test", str(file), self.answer_version),
                              sub_task=str(row.get("source")), meta=meta,
                              _image_loader=lambda: [decode_image(read(), idx=idx, column="image")])
        except (ValueError, TypeError, ImageDecodeError) as exc:
            return BrokenQuestion(idx=idx, task=task, gold=gold, meta=meta, error=f"{file}: idx {row.get('idx')}: {exc}")

    def _image_file(self, name: Any, file: Path) -> Callable[[], bytes] | str:
        """`filename` beside the file, under the root, or under root/img (the card: a path in img/)."""
        if not name:
            return "no filename"
        for folder in (file.parent, self.root, self.root / "img", file.parent / "img"):
            path = folder / str(name)
            if path.is_file():
                return lambda: path.read_bytes()
        return f"image {name!r} not found beside {file.name}, in {self.root} or in {self.root / 'img'}"
