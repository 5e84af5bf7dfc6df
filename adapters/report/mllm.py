"""MLLM predictions on BLINK questions: importers, each format detected by the file's shape.

Formats read:

- BLINK flat: one JSON file per model, `{"val_Relative_Depth_1": "(A)", ...}`; a folder of such
  files is one model per file, named by the file stem.
- BLINK per task: `{model}/{Task}.json` with `{"val": [{"idx", "answer", "full_prediction",
  "prediction"}], "test": [...]}`. Task names with spaces or underscores; a file whose stem ends
  in "concatenate images" is the same model run with its images concatenated into one, a
  different configuration, so it becomes a separate model "{model} (concatenate images)".
- VLMEvalKit tables (`.xlsx` / `.tsv` / `.csv`): columns `index`, `category`, `answer`,
  `prediction`, optional `hit` and option columns `A`..`D`.
- lmms-eval `samples_*.jsonl`: the BLINK id sits only inside the metric dict (`blink_acc.id`).
- generic CSV: columns `idx,prediction`.

VLMEvalKit's `index` is an integer row number over the whole table, not a BLINK id. We map it
positionally: rows of one `category` (= task), sorted by `index`, are that task's questions
1, 2, 3, ... in BLINK's order, so the k-th row becomes `val_{Task}_{k}`. That holds for the
official BLINK.tsv, which lists each task's val questions in dataset order, but the table itself
cannot prove it; so the importer checks it: a category with more rows than the task has val
questions is refused (e.g. a BLINK_circular table, whose rotated copies would be mis-numbered),
a different count is reported, and the comparison counts the rows whose `answer` column
disagrees with the gold of the question it was mapped to (`answer_mismatches`). A table with an
explicit BLINK id column (`idx`, `id` or `question_id` holding "val_Task_n") is keyed by it instead.

Answers are turned into letters by adapters/report/mllm_answers.py, which never guesses.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from adapters.core.json_lines import json_lines
from adapters.core.questions import LETTERS, letters_for
from adapters.core.tasks import BLINK_TASKS, UnknownTaskError, canonical_task, task_from_idx
from adapters.report.mllm_answers import EXACT

# Letters assumed when nothing says how many options a question has: BLINK offers at most four.
ASSUMED_OPTIONS = 4

_CONCAT = re.compile(r"[\s_\-]*\(?concat(?:enate|enated)?[\s_\-]*images?\)?$", re.IGNORECASE)


class MLLMFormatError(ValueError):
    """A prediction file or folder that no importer can read, with what was expected."""


# --------------------------------------------------------------------------- imported data


@dataclass
class ModelPredictions:
    """What one importer read for one model.

    predictions: BLINK idx -> raw prediction text (None when the file has a row but no value).
    file_gold: idx -> gold letter the file itself carries (per-task "answer", VLMEvalKit
      "answer", lmms-eval "target"); used only to cross-check, never to score.
    n_choices: idx -> number of options, when the file says (VLMEvalKit option columns).
    option_texts: idx -> {letter: option text}, from the same columns.
    extracted: True when the values are already-extracted answers (BLINK's files), whose
      faithful scoring is exact match; False for raw model output (lenient extraction).
    hits: idx -> the file's own correctness flag (VLMEvalKit `hit`), for cross-checking.
    positional: True when ids were derived from row order (VLMEvalKit `index`).
    """

    model: str
    source: str
    format: str
    predictions: dict[str, str | None] = field(default_factory=dict)
    file_gold: dict[str, str] = field(default_factory=dict)
    n_choices: dict[str, int] = field(default_factory=dict)
    option_texts: dict[str, dict[str, str]] = field(default_factory=dict)
    hits: dict[str, bool] = field(default_factory=dict)
    extracted: bool = False
    positional: bool = False
    skipped: Counter = field(default_factory=Counter)  # reason -> rows not read
    notes: list[str] = field(default_factory=list)

    @property
    def default_match(self) -> str:
        return "exact" if self.extracted else "lenient"

    def counts_by_task(self) -> dict[str, int]:
        counts: Counter = Counter()
        for idx in self.predictions:
            counts[_task_of(idx)] += 1
        return dict(sorted(counts.items()))

    def summary(self) -> dict[str, Any]:
        """What was read: per-task counts, rows skipped and why, notes."""
        return {
            "model": self.model,
            "source": self.source,
            "format": self.format,
            "read": len(self.predictions),
            "per_task": self.counts_by_task(),
            "skipped": dict(self.skipped),
            "positional_ids": self.positional,
            "notes": list(self.notes),
        }


def _task_of(idx: str) -> str:
    try:
        return task_from_idx(idx)[1]
    except (ValueError, UnknownTaskError):
        return "?"


def _gold_letter(value: Any) -> str | None:
    """A gold value as files write it ("(A)", "A", "hidden") -> letter or None."""
    if not isinstance(value, str):
        return None
    match = EXACT.match(value.strip())
    return match.group(1) if match else None


def _is_blink_idx(value: Any) -> bool:
    # task_from_idx matches the whole id in ASCII digits, so "val_Counting_1\n" is no id
    return isinstance(value, str) and _task_of(value) != "?"


# --------------------------------------------------------------------------- BLINK formats


ACCEPTED_FORMATS = ('BLINK JSON ({"val_<Task>_<n>": "(A)"} or {model}/{Task}.json), a VLMEvalKit .xlsx/.tsv/.csv '
                    "table, lmms-eval samples_*.jsonl, or a CSV with idx,prediction")


def unreadable(path: Path, why: str, accepted: str = ACCEPTED_FORMATS) -> MLLMFormatError:
    return MLLMFormatError(f"{path}: {why}, so not a prediction file; --mllm reads {accepted}")


def read_text(path: Path, accepted: str = ACCEPTED_FORMATS) -> str:
    """A prediction file's text (UTF-8, a byte-order mark dropped), or one line saying it is not text."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise unreadable(path, f"byte {exc.start} is not UTF-8 text", accepted) from None


def refuse_repeats(source: Any, pairs: Iterable[tuple[Any, Any]], what: str = "question id") -> None:
    """One answer per question: a file naming a question twice is refused, never resolved by
    keeping one of its answers. pairs: (id, answer) in file order."""
    answers: dict[Any, list[str]] = {}
    for key, value in pairs:
        answers.setdefault(key, []).append(json.dumps(value, sort_keys=True, default=str))
    repeated = [key for key, values in answers.items() if len(values) > 1]
    if repeated:
        differing = sum(1 for key in repeated if len(set(answers[key])) > 1)
        shown = ", ".join(map(str, repeated[:3])) + (", ..." if len(repeated) > 3 else "")
        raise MLLMFormatError(
            f"{source}: {len(repeated)} {what}{'s appear' if len(repeated) > 1 else ' appears'} more than once "
            f"({differing} with different answers): {shown}; "
            "a prediction file holds one answer per question: remove the repeats, keeping the answer to score"
        )


def read_json(path: Path, accepted: str = ACCEPTED_FORMATS) -> Any:
    """JSON whose objects name each key once (json.loads would keep the last of two)."""
    def once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        refuse_repeats(path, pairs, "key")
        return dict(pairs)

    try:
        return json.loads(read_text(path, accepted), object_pairs_hook=once)
    except json.JSONDecodeError as exc:
        raise MLLMFormatError(f"{path} is not valid JSON: {exc}") from None


def _flat(path: Path, data: dict, model: str) -> ModelPredictions:
    out = ModelPredictions(model, str(path), "blink-flat", extracted=True)
    for key, value in data.items():
        if not _is_blink_idx(key):
            out.skipped["key is not a BLINK id"] += 1
            continue
        out.predictions[key] = value if isinstance(value, str) or value is None else str(value)
    if not out.predictions:
        raise MLLMFormatError(
            f'{path}: no key is a BLINK question id like "val_Relative_Depth_1"; '
            'a flat prediction file is {"val_<Task>_<n>": "(A)", ...}'
        )
    return out


def _looks_flat(data: Any) -> bool:
    return isinstance(data, dict) and any(_is_blink_idx(k) for k in list(data)[:50])


def _looks_per_task(data: Any) -> bool:
    return isinstance(data, dict) and any(isinstance(data.get(s), list) for s in ("val", "test"))


def _per_task_file(path: Path) -> tuple[str, bool]:
    """"Relative Depth.json" -> ("Relative_Depth", False); "... concatenate images" -> (task, True)."""
    stem = path.stem
    concat = bool(_CONCAT.search(stem))
    return canonical_task(_CONCAT.sub("", stem)), concat


def _read_per_task(files: Sequence[Path], model: str) -> list[ModelPredictions]:
    """Per-task JSON files of one model folder; plain and concatenated-image runs kept apart."""
    by_variant: dict[bool, ModelPredictions] = {}
    answered: dict[bool, list[tuple[str, Any]]] = {}
    for path in sorted(files):
        task, concat = _per_task_file(path)
        name = f"{model} (concatenate images)" if concat else model
        out = by_variant.setdefault(concat, ModelPredictions(name, str(path.parent), "blink-per-task", extracted=True))
        data = read_json(path)
        if not _looks_per_task(data):
            raise MLLMFormatError(f'{path}: expected {{"val": [...], "test": [...]}} (BLINK per-task outputs)')
        raw_only = 0
        for split in ("val", "test"):
            for row in data.get(split) or []:
                idx = row.get("idx") if isinstance(row, dict) else None
                if not _is_blink_idx(idx):
                    out.skipped["row without a BLINK idx"] += 1
                    continue
                if _task_of(idx) != task:
                    out.notes.append(f"{path.name}: {idx} is not a {task} question; kept under its own task")
                if "prediction" in row:
                    out.predictions[idx] = row["prediction"]
                else:
                    # No extracted answer: keep the raw text; exact matching will count it unparsed.
                    out.predictions[idx] = row.get("full_prediction")
                    raw_only += 1
                answered.setdefault(concat, []).append((idx, out.predictions[idx]))
                if (gold := _gold_letter(row.get("answer"))) is not None:
                    out.file_gold[idx] = gold
        if raw_only:
            out.notes.append(f"{path.name}: {raw_only} rows have no 'prediction'; their 'full_prediction' was used "
                             "(raw text: score with --match lenient)")
    for concat, pairs in answered.items():  # "Relative Depth.json" beside "Relative_Depth.json" repeats ids too
        refuse_repeats(files[0] if len(files) == 1 else by_variant[concat].source, pairs)
    return list(by_variant.values())


def _per_task_files_in(folder: Path) -> list[Path]:
    """The JSON files of `folder` whose names are BLINK tasks (with spaces or underscores)."""
    found = []
    for path in folder.glob("*.json"):
        try:
            _per_task_file(path)
        except UnknownTaskError:
            continue
        found.append(path)
    return found


# --------------------------------------------------------------------------- tables


def _read_table(path: Path) -> list[dict[str, Any]]:
    """Rows of a .csv / .tsv / .xlsx file as dicts with lower-cased, stripped column names."""
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        try:
            import openpyxl  # optional: only VLMEvalKit's .xlsx tables need it
            from openpyxl.utils.exceptions import InvalidFileException
        except ImportError:
            raise MLLMFormatError(
                f"{path}: reading .xlsx needs openpyxl (pip install openpyxl), or save the table as .tsv"
            ) from None
        try:
            book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        except (zipfile.BadZipFile, KeyError, InvalidFileException) as exc:
            raise unreadable(path, f"it is not an .xlsx workbook ({type(exc).__name__})") from None
        rows = list(book.worksheets[0].iter_rows(values_only=True))
        book.close()
        if not rows:
            return []
        header = [str(h).strip().lower() if h is not None else "" for h in rows[0]]
        return [dict(zip(header, row)) for row in rows[1:]]
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""), delimiter="\t" if suffix == ".tsv" else ",")
    try:
        return [{(k or "").strip().lower(): v for k, v in row.items()} for row in reader]
    except csv.Error as exc:
        raise unreadable(path, f"line {reader.line_num} is not a table row ({exc})") from None


_ID_COLUMNS = ("idx", "id", "question_id")


def _table_model_name(path: Path) -> str:
    """"GPT4o_BLINK.xlsx" -> "GPT4o"; "x_BLINK_openai_result.xlsx" -> "x"; else the stem."""
    stem = path.stem
    cut = re.split(r"_BLINK(?:_|$)", stem, maxsplit=1)
    return cut[0] or stem


def _read_table_file(path: Path, model: str | None) -> ModelPredictions:
    rows = _read_table(path)
    columns = set(rows[0]) if rows else set()
    id_column = next((c for c in _ID_COLUMNS if c in columns and any(_is_blink_idx(r.get(c)) for r in rows)), None)
    if "prediction" not in columns:
        raise MLLMFormatError(
            f"{path}: no 'prediction' column (columns: {', '.join(sorted(columns)) or 'none'}); expected a "
            "VLMEvalKit table (index, category, answer, prediction) or a CSV with idx,prediction"
        )
    if id_column is None and not {"index", "category"} <= columns:
        raise MLLMFormatError(
            f"{path}: neither a BLINK id column (idx, id or question_id holding 'val_<Task>_<n>') nor VLMEvalKit's "
            f"index + category columns; found {', '.join(sorted(columns))}"
        )
    vlmevalkit = {"index", "category"} <= columns
    out = ModelPredictions(model or _table_model_name(path), str(path), "vlmevalkit" if vlmevalkit else "generic-csv")
    if id_column is not None:
        keyed = []
        for row in rows:
            if _is_blink_idx(row.get(id_column)):
                keyed.append((row[id_column], row))
            else:
                out.skipped[f"row without a BLINK id in '{id_column}'"] += 1
    else:
        keyed = _positional_ids(path, rows, out)
    refuse_repeats(path, ((idx, row.get("prediction")) for idx, row in keyed))
    option_columns = [c for c in LETTERS if c.lower() in columns]
    for idx, row in keyed:
        value = row.get("prediction")
        out.predictions[idx] = None if value is None else str(value)
        if (gold := _gold_letter(_as_text(row.get("answer")))) is not None:
            out.file_gold[idx] = gold
        texts = {c: _as_text(row.get(c.lower())).strip() for c in option_columns}
        texts = {c: text for c, text in texts.items() if text not in ("", "nan", "None")}
        if texts:
            out.n_choices[idx] = len(texts)
            out.option_texts[idx] = texts
        if "hit" in columns and (hit := _as_text(row.get("hit")).strip()) in ("0", "1", "0.0", "1.0", "True", "False"):
            out.hits[idx] = hit in ("1", "1.0", "True")
    return out


def _as_text(value: Any) -> str:
    return "" if value is None else str(value)


def _positional_ids(path: Path, rows: list[dict], out: ModelPredictions) -> list[tuple[str, dict]]:
    """VLMEvalKit rows -> (val_{Task}_{k}, row): k-th row of a category by `index` (see module doc)."""
    out.positional = True
    by_task: dict[str, list[tuple[float, dict]]] = {}
    for row in rows:
        try:
            task = canonical_task(_as_text(row.get("category")))
            position = float(_as_text(row.get("index")))
        except (UnknownTaskError, ValueError):
            out.skipped["row with an unknown category or non-numeric index"] += 1
            continue
        by_task.setdefault(task, []).append((position, row))
    # a repeated row would shift every later question of its task by one
    refuse_repeats(path, ((_as_text(row.get("index")), row.get("prediction")) for items in by_task.values()
                          for _, row in items), "'index' value")
    expected = {t.name: t.n_val for t in BLINK_TASKS}
    keyed = []
    for task, items in sorted(by_task.items()):
        if len(items) > expected[task]:
            raise MLLMFormatError(
                f"{path}: category {task} has {len(items)} rows but BLINK val has {expected[task]} {task} "
                "questions; a circular-evaluation table (BLINK_circular) or a test-split table cannot be mapped "
                "to BLINK ids by position: add an 'idx' column with the BLINK ids"
            )
        if len(items) != expected[task]:
            out.notes.append(
                f"{task}: {len(items)} rows for {expected[task]} val questions: ids by position may be shifted"
            )
        items.sort(key=lambda item: item[0])
        keyed += [(f"val_{task}_{k}", row) for k, (_, row) in enumerate(items, start=1)]
    return keyed


# --------------------------------------------------------------------------- lmms-eval


def _metric_dict(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """lmms-eval stores the BLINK id only in the metric's dict (e.g. record["blink_acc"]["id"])."""
    preferred = record.get("blink_acc")
    if isinstance(preferred, Mapping) and _is_blink_idx(preferred.get("id")):
        return preferred
    for value in record.values():
        if isinstance(value, Mapping) and _is_blink_idx(value.get("id")):
            return value
    return None


def _first_text(value: Any) -> str | None:
    """filtered_resps is ["text"] or [["text"]] depending on the lmms-eval version."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _read_lmms_eval(files: Sequence[Path], model: str) -> ModelPredictions:
    out = ModelPredictions(model, str(files[0].parent), "lmms-eval")
    answered: list[tuple[str, Any]] = []
    for path in sorted(files):
        for _, record in json_lines(read_text(path), path, MLLMFormatError, objects=False):
            metric = _metric_dict(record) if isinstance(record, dict) else None
            if metric is None:
                out.skipped["line without a BLINK id in its metric dict"] += 1
                continue
            idx = metric["id"]
            text = _first_text(record.get("filtered_resps"))
            if text is None:
                text = metric.get("pred") if isinstance(metric.get("pred"), str) else _first_text(record.get("resps"))
            out.predictions[idx] = text
            answered.append((idx, text))
            gold = _gold_letter(record.get("target")) or _gold_letter(metric.get("gt_content"))
            if gold is not None:
                out.file_gold[idx] = gold
    if not out.predictions:
        raise MLLMFormatError(
            f"{files[0].parent}: no lmms-eval sample line carries a BLINK id (expected a metric dict such as "
            '"blink_acc": {"id": "val_Art_Style_1", ...}); re-run lmms-eval with --log_samples on a version whose '
            "BLINK task records the id"
        )
    # several samples files of one task in a folder are usually two runs of the model
    refuse_repeats(files[0] if len(files) == 1 else f"{out.source} ({len(files)} samples files)", answered)
    return out


# --------------------------------------------------------------------------- detection


TABLE_SUFFIXES = (".xlsx", ".tsv", ".csv")


def _split_name(spec: str) -> tuple[str | None, Path]:
    """"NAME=PATH" names the model; a plain PATH keeps the name the files give."""
    if "=" in spec and not Path(spec).exists():
        name, _, path = spec.partition("=")
        if name and "/" not in name:
            return name, Path(path)
    return None, Path(spec)


def load_predictions(spec: str | Path) -> list[ModelPredictions]:
    """Read every model found at `spec` (a file, a folder, or NAME=PATH), detected by shape."""
    name, path = _split_name(str(spec))
    if not path.exists():
        raise MLLMFormatError(f"--mllm {spec}: no such file or folder")
    models = _load_dir(path) if path.is_dir() else _load_file(path)
    if not models:
        raise MLLMFormatError(
            f"--mllm {spec}: found no predictions: expected BLINK JSON ({{idx: \"(A)\"}} or {{model}}/{{Task}}.json), "
            "a VLMEvalKit .xlsx/.tsv/.csv table, lmms-eval samples_*.jsonl, or a CSV with idx,prediction"
        )
    if name is not None:
        if len(models) > 1:
            raise MLLMFormatError(f"--mllm {spec}: NAME= names one model, but {path} holds {len(models)}")
        models[0].model = name
    return models


def _load_file(path: Path, model: str | None = None) -> list[ModelPredictions]:
    suffix = path.suffix.lower()
    if suffix in TABLE_SUFFIXES:
        return [_read_table_file(path, model)]
    if suffix == ".jsonl":
        return [_read_lmms_eval([path], model or path.parent.name)]
    if suffix == ".json":
        data = read_json(path)
        if _looks_per_task(data):
            return _read_per_task([path], model or path.parent.name)
        if _looks_flat(data):
            return [_flat(path, data, model or path.stem)]
        raise MLLMFormatError(
            f'{path}: neither a flat {{"val_<Task>_<n>": "(A)"}} file nor a per-task {{"val": [...]}} file'
        )
    raise MLLMFormatError(f"{path}: unknown prediction file type {suffix!r} (.json, .jsonl, .xlsx, .tsv, .csv)")


def _load_dir(folder: Path) -> list[ModelPredictions]:
    """A folder is one model (per-task JSONs or lmms-eval samples in it) or holds several."""
    per_task = _per_task_files_in(folder)
    samples = sorted(folder.glob("*samples_*.jsonl"))
    if per_task:
        return _read_per_task(per_task, folder.name)
    if samples:
        return [_read_lmms_eval(samples, folder.name)]
    models: list[ModelPredictions] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            if _per_task_files_in(entry) or list(entry.glob("*samples_*.jsonl")):
                models += _load_dir(entry)
        elif entry.suffix.lower() in (".json", *TABLE_SUFFIXES):
            models += _load_file(entry)
    return models


def load_all(specs: Iterable[str | Path]) -> list[ModelPredictions]:
    """Every model of every --mllm argument; two models with one name are an error."""
    models: list[ModelPredictions] = []
    for spec in specs:
        models += load_predictions(spec)
    names = Counter(m.model for m in models)
    if dupes := [n for n, c in names.items() if c > 1]:
        raise MLLMFormatError(
            f"several prediction sources are named {', '.join(dupes)}; name them apart with --mllm NAME=PATH"
        )
    return models


def letters_of(idx: str, n_choices: Mapping[str, int], model: ModelPredictions) -> tuple[tuple[str, ...], str]:
    """The options of question `idx` and where that count came from ("questions", "file", "assumed")."""
    if idx in n_choices:
        return letters_for(n_choices[idx]), "questions"
    if idx in model.n_choices:
        return letters_for(model.n_choices[idx]), "file"
    return letters_for(ASSUMED_OPTIONS), "assumed"
