"""MARVEL (Jiang et al., 2024: 770 abstract visual reasoning puzzles) for `specialists run
--benchmark marvel --root DIR`: the same reader interface as BlinkReader (tasks, count,
questions, data_files, answer_version, root).

Layouts read (the fields are the release's, the same in each):
- the GitHub release (1171-jpg/MARVEL_AVR): `marvel_label.json` (one JSON array), or one
  `Json_data/<id>/<id>_label.json` per puzzle, with the puzzle image at `Marvel/<id>.png`,
  `Json_data/<id>/<id>.png` or `images/<id>.png`;
- the hub's parquet (kianasun/MARVEL): the same columns plus `image` ({bytes, path}).
Fields: id, pattern, task_configuration, avr_question, answer (1-4), f_perception_question,
f_perception_answer, f_perception_distractor, c_perception_question_tuple (3 questions),
c_perception_answer_tuple (3 counts: context panels with the blank, choice panels, all panels).

Each puzzle gives five questions, one per task (adapters.core.tasks.MARVEL_TASKS), with ids
`marvel_<id>_<part>`:
- MARVEL_AVR: choices "1".."4" (the release numbers them), gold the `answer`;
- MARVEL_Fine_Perception: two options, the answer and the distractor, in the order the question
  names them (yes before no, else alphabetical, when it names neither);
- MARVEL_Count_*: open-ended numbers; held as the options "1".."MAX_COUNT" so that the runner's
  letter scoring applies (a count is right only when it is the number).
A malformed puzzle becomes one error per question, naming the puzzle and the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pyarrow.parquet as pq

from adapters.core.questions import (
    DATASET_ANSWERS,
    BrokenQuestion,
    MCQuestion,
    QuestionSource,
    decode_image,
    letters_for,
)
from adapters.core.tasks import MARVEL_TASKS, canonical_task
from adapters.datasets.blink.reader import DataFile
from adapters.datasets.hub_image import hub_image_cell
from checkpoints.hashing import sha256_file

MAX_COUNT = 20  # the largest panel count a count question can be answered with (MARVEL's largest is 13)
COUNT_CHOICES = tuple(str(n) for n in range(1, MAX_COUNT + 1))
PARTS = {"MARVEL_AVR": "avr", "MARVEL_Fine_Perception": "fine", "MARVEL_Count_Context": "count_context",
         "MARVEL_Count_Choices": "count_choices", "MARVEL_Count_Total": "count_total"}
COUNT_INDEX = {"MARVEL_Count_Context": 0, "MARVEL_Count_Choices": 1, "MARVEL_Count_Total": 2}
# the fields each task's question needs (pattern and task configuration only group the metrics)
TASK_FIELDS = {"MARVEL_AVR": ("avr_question", "answer"),
               "MARVEL_Fine_Perception": ("f_perception_question", "f_perception_answer", "f_perception_distractor"),
               **{task: ("c_perception_question_tuple", "c_perception_answer_tuple") for task in COUNT_INDEX}}
KNOWN_FIELDS = {name for fields in TASK_FIELDS.values() for name in fields}
LABEL_FILE = "marvel_label.json"


class MarvelFormatError(ValueError):
    """A folder that holds no MARVEL release, or a file of it that cannot be read."""


def question_id(puzzle: Any, task: str) -> str:
    return f"marvel_{puzzle}_{PARTS[task]}"


def fine_options(question: str, answer: str, distractor: str) -> tuple[str, str]:
    """The fine-grained question's two options in the order its question names them (its last
    sentence: the release's preamble before it describes the puzzle)."""
    def first(option: str, text: str) -> int:
        match = re.search(rf"(?<![a-z0-9]){re.escape(option.lower())}(?![a-z0-9])", text)
        return match.start() if match else -1

    sentences = [part.lower() for part in re.split(r"(?<=[.?!])\s+", question.strip()) if part]
    for text in reversed(sentences):  # the last sentence that names both
        where = {option: first(option, text) for option in (answer, distractor)}
        if all(position >= 0 for position in where.values()) and where[answer] != where[distractor]:
            return tuple(sorted((answer, distractor), key=lambda o: where[o]))  # type: ignore[return-value]
    if {answer.lower(), distractor.lower()} == {"yes", "no"}:
        return (answer, distractor) if answer.lower() == "yes" else (distractor, answer)
    return tuple(sorted((answer, distractor)))  # type: ignore[return-value]


@dataclass(frozen=True)
class _Record:
    """One puzzle's release record and where its image is."""

    fields: dict[str, Any]
    file: Path
    image: Callable[[], bytes] | None


def _records_from_json(root: Path) -> tuple[list[_Record], list[Path]]:
    label = root / LABEL_FILE
    if label.is_file():
        data = _load_json(label)
        if not isinstance(data, list):
            raise MarvelFormatError(f"{label}: expected a JSON array of puzzles, got {type(data).__name__}")
        return [_Record(fields, label, _image_file(root, fields.get("id"))) for fields in data if isinstance(fields, dict)], [label]
    files = sorted(root.glob("Json_data/*/*_label.json"), key=lambda p: _numeric(p.parent.name))
    records = []
    for file in files:
        fields = _load_json(file)
        if not isinstance(fields, dict):
            raise MarvelFormatError(f"{file}: expected one puzzle (a JSON object), got {type(fields).__name__}")
        records.append(_Record(fields, file, _image_file(root, fields.get("id"))))
    return records, files


def _records_from_parquet(files: list[Path]) -> list[_Record]:
    records = []
    for file in files:
        table = pq.read_table(file)
        if "id" not in table.column_names or not KNOWN_FIELDS & set(table.column_names):
            raise MarvelFormatError(f"{file}: not MARVEL's parquet: no id or question columns (it has "
                                    f"{', '.join(table.column_names)})")
        for row in table.to_pylist():
            image = row.pop("image", None)
            records.append(_Record(row, file, hub_image_cell(image, file)))
    return records


def _image_file(root: Path, puzzle: Any) -> Callable[[], bytes] | None:
    for candidate in (root / "Marvel" / f"{puzzle}.png", root / "Json_data" / str(puzzle) / f"{puzzle}.png",
                      root / "images" / f"{puzzle}.png"):
        if candidate.is_file():
            return lambda path=candidate: path.read_bytes()
    return None


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MarvelFormatError(f"{path}: not valid JSON ({exc}); download that file again") from None


def _numeric(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (1 << 30, text)


class MarvelReader:
    """MARVEL's puzzles as five tasks of questions (see the module's doc)."""

    def __init__(self, root: str | Path, tasks: Sequence[str] | None = None) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise MarvelFormatError(f"--root {root}: no such folder; give the MARVEL release folder "
                                    f"(holding {LABEL_FILE}, Json_data/ or the hub's parquet files)")
        records, self.files = _records_from_json(self.root)
        if not records:
            parquet = sorted(self.root.rglob("*.parquet"))
            records, self.files = _records_from_parquet(parquet), parquet
        if not records:
            raise MarvelFormatError(
                f"--root {self.root}: no MARVEL puzzles here: expected {LABEL_FILE} (the GitHub release), "
                "Json_data/<id>/<id>_label.json, or the hub's parquet files")
        self.records = records
        by_part = {part: task for task, part in PARTS.items()}
        named = [by_part.get(t.lower(), None) or canonical_task(t, MARVEL_TASKS) for t in tasks or ()]
        self.tasks = list(dict.fromkeys(named)) if named else list(MARVEL_TASKS)  # two spellings of one task run it once
        self.answer_version = DATASET_ANSWERS
        unnamed = [r.file for r in records if r.fields.get("id") is None]
        if unnamed:
            raise MarvelFormatError(f"{unnamed[0]}: a puzzle has no id; every MARVEL record carries its id (1-770)")
        ids = [str(r.fields.get("id")) for r in records]
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise MarvelFormatError(f"--root {self.root}: puzzle id {duplicated[0]} appears more than once; "
                                    "each puzzle must be listed once (remove the duplicate record)")

    def describe(self) -> dict[str, Any]:
        return {"benchmark": "marvel", "puzzles": len(self.records), "layout": self.files[0].name if self.files else None}

    def data_files(self) -> list[DataFile]:
        return [DataFile(p, sha256_file(p), p.stat().st_size) for p in self.files]

    def count(self, task: str) -> int:
        return len(self.records)

    def questions(self, task: str, limit: int | None = None) -> Iterator[MCQuestion | BrokenQuestion]:
        for record in self.records[:limit] if limit else self.records:
            yield self._question(record, task)

    def _question(self, record: _Record, task: str) -> MCQuestion | BrokenQuestion:
        fields = record.fields
        puzzle = fields.get("id")
        idx = question_id(puzzle, task)
        meta = {"puzzle": str(puzzle), "pattern": fields.get("pattern"), "configuration": fields.get("task_configuration")}
        gold = None
        try:
            missing = [name for name in TASK_FIELDS[task] if fields.get(name) is None]
            if missing:
                hint = (" (the hub's copy leaves the panel counts out: the GitHub release's marvel_label.json has them)"
                        if task in COUNT_INDEX else "")
                raise ValueError(f"no {', '.join(missing)}{hint}")
            prompt, choices, gold = self._ask(fields, task)
            if record.image is None:
                raise ValueError(f"no image (looked for Marvel/{puzzle}.png, Json_data/{puzzle}/{puzzle}.png, "
                                 f"images/{puzzle}.png, or an image column)")
            read = record.image
            return MCQuestion(idx=idx, task=task, prompt=prompt, choices=choices, gold=gold,
                              source=QuestionSource("marvel", "val", str(record.file), self.answer_version),
                              question=prompt, sub_task=str(fields.get("pattern")), meta=meta,
                              _image_loader=lambda: [decode_image(read(), idx=idx, column="image")])
        except (ValueError, TypeError, KeyError, IndexError, OSError) as exc:
            return BrokenQuestion(idx=idx, task=task, meta=meta, gold=gold,
                                  error=f"{record.file}: puzzle {puzzle}: {exc}; correct or re-download that record")

    @staticmethod
    def _ask(fields: dict[str, Any], task: str) -> tuple[str, tuple[str, ...], str]:
        """(prompt, choices, gold letter) of one of the puzzle's five questions."""
        if task == "MARVEL_AVR":
            answer = int(fields["answer"])
            if not 1 <= answer <= 4:
                raise ValueError(f"answer {answer} is not a choice 1-4")
            return str(fields["avr_question"]), ("1", "2", "3", "4"), letters_for(4)[answer - 1]
        if task == "MARVEL_Fine_Perception":
            answer, distractor = str(fields["f_perception_answer"]), str(fields["f_perception_distractor"])
            if answer == distractor:
                raise ValueError(f"f_perception_answer and f_perception_distractor are both {answer!r}")
            options = fine_options(str(fields["f_perception_question"]), answer, distractor)
            return str(fields["f_perception_question"]), options, letters_for(2)[options.index(answer)]
        questions, counts = list(fields["c_perception_question_tuple"]), list(fields["c_perception_answer_tuple"])
        if len(questions) != 3 or len(counts) != 3:
            raise ValueError("c_perception_question_tuple and c_perception_answer_tuple must hold 3 entries each")
        k = COUNT_INDEX[task]
        count = int(counts[k])
        if not 1 <= count <= MAX_COUNT:
            raise ValueError(f"panel count {count} is outside 1-{MAX_COUNT}")
        return str(questions[k]), COUNT_CHOICES, letters_for(MAX_COUNT)[count - 1]


def parse_count(text: Any) -> int | None:
    """An answer to a count question -> the first whole number it gives, in digits or in words up
    to ninety-nine ("twenty-one"), or None."""
    if text is None:
        return None
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return int(text) if float(text).is_integer() else None
    for match in _NUMBER.finditer(str(text).lower()):
        if match.group("digits"):
            return int(match.group("digits"))
        tens = _TENS.index(match.group("tens")) * 10 + 20 if match.group("tens") else 0
        unit = match.group("unit") or match.group("word")
        return tens + (_NUMBER_WORDS.index(unit) if unit else 0)
    return None


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_NUMBER = re.compile(
    r"(?P<digits>\d+)"
    rf"|\b(?P<tens>{'|'.join(_TENS)})(?:[- ](?P<unit>{'|'.join(_NUMBER_WORDS[1:10])}))?\b"
    rf"|\b(?P<word>{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})\b")
