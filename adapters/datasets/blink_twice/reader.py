"""BLINK-Twice (Ye et al., 2025: yes/no questions on visual illusions, two per image; an edited
"adversarial" twin of some images turns a "no" into a "yes") for `specialists run --benchmark
blink-twice --root DIR`: the same reader interface as BlinkReader.

The release's exact column names could not be checked here (no copy of the hub files or of its
evaluation scripts was reachable), so the reader takes each field under the names a release
would likely use (ALIASES, first match wins) and says which it found; a file with none of a
required field's names is refused with the names it has. Layouts: parquet, JSON Lines, or JSON
(a list of rows, or {"data": [...]}) files anywhere under the root; one row per question, or one
row per image with a `questions` list of {question, answer}. Images: bytes ({bytes, path}), or a
path relative to the file's folder, the root, or root/images.

One task, BLINK_Twice, options ("yes", "no"); ids `blink_twice_<question id>`. The metrics group
questions by image (I-Acc) and by group, an image with its adversarial twin (G-Acc): each
question's sample line carries {"image", "group", "category"}.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pyarrow.parquet as pq

from adapters.core.questions import DATASET_ANSWERS, BrokenQuestion, MCQuestion, QuestionSource, decode_image
from adapters.core.tasks import BLINK_TWICE_TASKS, canonical_task
from adapters.datasets.blink.reader import DataFile
from checkpoints.hashing import sha256_file

CHOICES = ("yes", "no")
ALIASES = {
    "question": ("question", "prompt", "query"),
    "answer": ("answer", "label", "gt", "ground_truth", "gt_answer"),
    "image": ("image", "img", "image_path", "image_file", "img_path", "file_name"),
    "image_id": ("image_id", "img_id", "image_name", "image_idx"),
    "question_id": ("question_id", "qid", "id", "idx"),
    "group": ("group_id", "group", "pair_id", "base_image_id", "original_image_id", "source_image_id"),
    "category": ("category", "type", "illusion_type", "class"),
}
REQUIRED = ("question", "answer", "image")


class BlinkTwiceFormatError(ValueError):
    """A folder that holds no BLINK-Twice questions, or a file of it that cannot be read."""


def yes_no(value: Any) -> str | None:
    """"Yes", "no.", True, "(A) yes" -> "yes" / "no"; anything else -> None."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    words = re.findall(r"[a-z]+", str(value).lower()) if value is not None else []
    found = [w for w in words if w in CHOICES]
    return found[0] if found and len(set(found)) == 1 else None


def _rows_of(path: Path) -> list[dict[str, Any]]:
    try:
        if path.suffix == ".parquet":
            return pq.read_table(path).to_pylist()
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
            return [row for row in rows if isinstance(row, dict)]
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, OSError) as exc:
        raise BlinkTwiceFormatError(f"{path}: cannot be read ({exc}); download that file again") from None
    except Exception as exc:  # pyarrow raises its own types for a damaged parquet file
        raise BlinkTwiceFormatError(f"{path}: not a readable parquet file ({exc}); download it again") from None
    if isinstance(data, dict):
        data = data.get("data", data.get("questions", list(data.values())))
    if not isinstance(data, list):
        raise BlinkTwiceFormatError(f"{path}: expected a list of rows (or {{\"data\": [...]}}), got {type(data).__name__}")
    return [row for row in data if isinstance(row, dict)]


def _field(row: dict[str, Any], name: str) -> tuple[str | None, Any]:
    for alias in ALIASES[name]:
        if alias in row and row[alias] is not None:
            return alias, row[alias]
    return None, None


def _expand(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows per image with a `questions` list -> one row per question (the image's fields kept)."""
    out = []
    for row in rows:
        nested = row.get("questions")
        if isinstance(nested, list):
            # the image's fields, but not its id as each question's: there it names the image
            base = {k: v for k, v in row.items() if k != "questions" and k not in ALIASES["question_id"]}
            if _field(row, "image_id")[0] is None and _field(row, "question_id")[1] is not None:
                base["image_id"] = _field(row, "question_id")[1]
            out.extend({**base, **q} for q in nested if isinstance(q, dict))
        else:
            out.append(row)
    return out


def safe_id(text: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", str(text)).strip("-") or "x"


def question_id(release_id: Any) -> str:
    """The suite's id of a question from the release's (or derived) question id."""
    return f"blink_twice_{safe_id(release_id)}"


class BlinkTwiceReader:
    """BLINK-Twice's questions as one task (see the module's doc)."""

    def __init__(self, root: str | Path, tasks: Sequence[str] | None = None) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise BlinkTwiceFormatError(f"--root {root}: no such folder; give the BLINK-Twice folder (its parquet, "
                                        "JSON Lines or JSON question files)")
        files = sorted(p for p in self.root.rglob("*") if p.suffix in (".parquet", ".jsonl", ".json") and p.is_file())
        self.files: list[Path] = []
        self.rows: list[tuple[dict[str, Any], Path]] = []
        unreadable: list[str] = []
        for file in files:
            try:
                rows = _expand(_rows_of(file))
            except BlinkTwiceFormatError as exc:
                unreadable.append(str(exc))
                continue
            if rows and all(_field(rows[0], name)[0] for name in REQUIRED):
                self.files.append(file)
                self.rows.extend((row, file) for row in rows)
        if not self.rows and unreadable:
            raise BlinkTwiceFormatError(unreadable[0])
        for problem in unreadable:
            print(f"warning: skipped {problem}", file=sys.stderr)
        if not self.rows:
            seen = sorted({key for file in files[:3] for row in _expand(_rows_of(file))[:1] for key in row})
            raise BlinkTwiceFormatError(
                f"--root {self.root}: no BLINK-Twice questions: no file has the fields "
                f"{', '.join('/'.join(ALIASES[n][:2]) for n in REQUIRED)}"
                + (f" (the files there have: {', '.join(seen)})" if seen else " (no parquet, JSONL or JSON files)"))
        first = self.rows[0][0]
        self.columns = {name: _field(first, name)[0] for name in ALIASES}
        for task in tasks or ():
            canonical_task(task, BLINK_TWICE_TASKS)  # "blink twice" or "BLINK_Twice"; anything else is refused
        self.tasks = list(BLINK_TWICE_TASKS)
        self.answer_version = DATASET_ANSWERS
        self._ids = self._question_ids()

    def _question_ids(self) -> list[tuple[str, str]]:
        """(question id, image id) per row: the release's, else the image's plus the question's place."""
        per_image: dict[str, int] = {}
        out, seen = [], set()
        for row, file in self.rows:
            image_id = _field(row, "image_id")[1]
            if image_id is None:  # the image's path (folders kept: original/1.png is not adversarial/1.png), or its bytes
                image = _field(row, "image")[1]
                path = image.get("path") if isinstance(image, dict) else image
                if isinstance(path, str) and path:
                    image_id = str(Path(path).with_suffix(""))
                elif isinstance(image, dict) and image.get("bytes"):
                    image_id = hashlib.sha1(image["bytes"]).hexdigest()[:12]
                else:
                    image_id = f"row{len(out)}"
            image_id = safe_id(image_id)
            per_image[image_id] = per_image.get(image_id, 0) + 1
            qid = _field(row, "question_id")[1]
            qid = safe_id(qid) if qid is not None else f"{image_id}_q{per_image[image_id]}"
            if qid in seen:
                raise BlinkTwiceFormatError(f"{file}: question id {qid!r} appears twice; each question needs its own id")
            seen.add(qid)
            out.append((qid, image_id))
        return out

    def describe(self) -> dict[str, Any]:
        return {"benchmark": "blink-twice", "questions": len(self.rows), "columns": self.columns}

    def data_files(self) -> list[DataFile]:
        return [DataFile(p, sha256_file(p), p.stat().st_size) for p in self.files]

    def count(self, task: str) -> int:
        return len(self.rows)

    def questions(self, task: str, limit: int | None = None) -> Iterator[MCQuestion | BrokenQuestion]:
        for (row, file), (qid, image_id) in list(zip(self.rows, self._ids))[:limit] if limit else zip(self.rows, self._ids):
            yield self._question(row, file, qid, image_id, task)

    def _question(self, row: dict[str, Any], file: Path, qid: str, image_id: str, task: str) -> MCQuestion | BrokenQuestion:
        idx = question_id(qid)
        # an image's group: the group column's, or (base-image columns name it on the twin only) its own id
        group = _field(row, "group")[1]
        meta = {"image": image_id, "group": safe_id(group) if group is not None else image_id,
                "category": _field(row, "category")[1]}
        gold = None
        try:
            question, raw_answer, image = (_field(row, name)[1] for name in REQUIRED)
            answer = yes_no(raw_answer)
            if answer is None:
                raise ValueError(f"answer {raw_answer!r} is neither yes nor no")
            gold = "AB"[CHOICES.index(answer)]
            read = self._image(image, file)
            return MCQuestion(idx=idx, task=task, prompt=str(question), choices=CHOICES,
                              gold=gold, question=str(question),
                              source=QuestionSource("blink-twice", "val", str(file), self.answer_version),
                              sub_task=meta["category"], meta=meta,
                              _image_loader=lambda: [decode_image(read(), idx=idx, column="image")])
        except (ValueError, TypeError, OSError) as exc:
            return BrokenQuestion(idx=idx, task=task, meta=meta, gold=gold, error=f"{file}: question {qid}: {exc}")

    def _image(self, value: Any, file: Path) -> Callable[[], bytes]:
        if isinstance(value, dict) and value.get("bytes"):
            data = value["bytes"]
            return lambda: data
        name = value.get("path") if isinstance(value, dict) else value
        if isinstance(name, (bytes, bytearray)):
            return lambda: bytes(name)
        for folder in (file.parent, self.root, self.root / "images"):
            path = folder / str(name)
            if name and path.is_file():
                return lambda: path.read_bytes()
        raise ValueError(f"image {name!r} not found beside {file.name}, in {self.root} or in {self.root / 'images'}")
