"""The files of a run folder besides its lock: `samples.jsonl` (SampleStore), `results.json` and
`run_identity.json` (each written whole or not at all), `evidence/` (the thumbnails of dense
outputs `--keep-evidence` keeps), and the checks that a `--resume` continues the same run.

What makes a run the run it is (benchmark, split, specialists, settings, checkpoint, seed,
answers, markers, data: see `adapters.run.runner._identity`) is written to `run_identity.json`
before the first question, so it outlives a lost `results.json`. Each sample line also names its
benchmark, specialist and checkpoint, so a folder holding neither file is still checked against
what it holds: a resume never files old answers under another specialist's name.

A run of several processes (`--devices N`) has each rank append to its own part,
`samples.rank{R}.jsonl`; at the end of every task rank 0 appends that task's answers to
`samples.jsonl` in question order and the parts are removed, so between tasks the folder looks
like a one-process run's. A `--resume` first moves whatever the parts hold (a killed rank's
answers) into `samples.jsonl`: parts are never older than the lines of `samples.jsonl`, so
appended last they win as the newest answers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

from adapters.run.lock import RunDirError, writing

IDENTITY_NAME = "run_identity.json"
SAMPLES_NAME = "samples.jsonl"
_PART = re.compile(r"samples\.rank(\d+)\.jsonl")
_TODO = "resume with the settings the run was started with, or use a new --output-dir"


class SampleStore:
    """`samples.jsonl`: append-only, one flushed line per question; the last line per idx wins."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, dict]:
        """Read every complete line; a torn last line (a kill mid-write) is cut off the file."""
        if not self.path.exists():
            return {}
        records: dict[str, dict] = {}
        data = self.path.read_bytes()
        good_end = 0
        for number, line in enumerate(data.splitlines(keepends=True), start=1):
            if not line.endswith(b"\n"):
                break  # torn final line: dropped below
            record = self._parse(line, number)
            records[record["idx"]] = record
            good_end += len(line)
        if good_end < len(data):
            with writing(self.path), open(self.path, "r+b") as handle:
                handle.truncate(good_end)
        return records

    def _parse(self, line: bytes, number: int) -> dict:
        """One complete line as a sample, or RunDirError naming the line (never a guess)."""
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RunDirError(f"{self.path}:{number} is not valid JSON ({exc}); fix or remove that line") from None
        if not isinstance(record, dict) or not all(isinstance(record.get(key), str) for key in ("idx", "task")):
            shown = line.decode("utf-8", "replace").strip()
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise RunDirError(f"{self.path}:{number} is not a sample (a JSON object with idx and task), it reads "
                              f"{shown}; fix or remove that line")
        return record

    def append(self, record: dict) -> None:
        self.append_many([record])

    def append_many(self, records: list[dict]) -> None:
        """Append records, one flushed line each (a kill loses at most the line being written)."""
        with writing(self.path), open(self.path, "a", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                handle.flush()


def part_path(out: Path, rank: int) -> Path:
    """Where rank `rank` of a several-process run appends its answers."""
    return out / f"samples.rank{rank}.jsonl"


def part_files(out: Path) -> list[Path]:
    """Every rank's part in the folder, by rank (a run may have had more ranks than this one)."""
    found = [(int(m.group(1)), p) for p in out.glob("samples.rank*.jsonl") if (m := _PART.fullmatch(p.name))]
    return [p for _, p in sorted(found)]


def has_samples(out: Path) -> bool:
    """Whether the folder holds answers of a run (merged or still in ranks' parts)."""
    return (out / SAMPLES_NAME).exists() or bool(part_files(out))


def consolidate(out: Path) -> dict[str, dict]:
    """Every saved answer, newest per idx: samples.jsonl, then the parts appended to it (those
    not already there, line for line) and removed. Called by rank 0 while no rank writes."""
    store = SampleStore(out / SAMPLES_NAME)
    records = store.load()
    for part in part_files(out):
        pending = [r for r in SampleStore(part).load().values() if records.get(r["idx"]) != r]
        store.append_many(pending)
        records.update({r["idx"]: r for r in pending})
        with writing(part):
            part.unlink()
    return records


def write_json_atomic(path: Path, payload: Mapping) -> None:
    """Write `path` whole or leave the old one: a full disk never leaves a half-written file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        with writing(path):
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
            os.replace(tmp, path)
    except RunDirError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # a read-only folder: nothing was written there either
            pass
        raise


EVIDENCE_DIR = "evidence"


def file_stem(idx: str) -> str:
    """A question id as a file name: itself when it is one, else its safe characters and a hash
    (ids of other benchmarks may hold slashes or spaces; two ids never share a name)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", idx)[:80].lstrip(".")  # no hidden files, no ".."
    if safe == idx:
        return idx
    return f"{safe}-{hashlib.sha256(idx.encode('utf-8')).hexdigest()[:10]}"


def write_evidence(out: Path, idx: str, views: Mapping[str, object]) -> dict[str, str]:
    """Each evidence picture (name -> PIL image) as evidence/<idx>.<name>.png; returns name ->
    path relative to the run folder (what the sample line records)."""
    folder = out / EVIDENCE_DIR
    written = {}
    with writing(folder):
        folder.mkdir(exist_ok=True)
        for name, image in views.items():
            relative = f"{EVIDENCE_DIR}/{file_stem(idx)}.{file_stem(name)}.png"
            image.save(out / relative, optimize=True)
            written[name] = relative
    return written


def write_identity(out: Path, identity: Mapping) -> None:
    write_json_atomic(out / IDENTITY_NAME, identity)


def _recorded_identity(out: Path) -> tuple[dict, str] | None:
    """The identity the folder records, and the file it came from: run_identity.json, else the
    identity section of results.json; None when neither can be read."""
    for name in (IDENTITY_NAME, "results.json"):
        try:
            data = json.loads((out / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # absent or unreadable: the next record, then the samples, decide
            continue
        if isinstance(data, dict):
            return (data if name == IDENTITY_NAME else data.get("identity") or {}), name
    return None


def check_identity(out: Path, identity: Mapping[str, Any]) -> None:
    """Refuse a --resume whose settings differ from those the folder records."""
    recorded = _recorded_identity(out)
    if recorded is None:
        return  # a run from before run_identity.json, killed before its first results.json: the samples decide
    previous, name = recorded
    changed = [key for key in identity if previous.get(key) != identity[key]]
    if changed:
        details = "; ".join(f"{k}: was {previous[k]!r}, now {identity[k]!r}" if k in previous else
                            f"{k}: not recorded (the run predates it), now {identity[k]!r}" for k in changed)
        raise RunDirError(f"cannot --resume {out}: the run's settings differ ({details}; as {name} records them); "
                          f"{_TODO}")


def check_samples(out: Path, samples: Mapping[str, dict], benchmark: str,
                  answered_by: Mapping[str, tuple[str, dict | None]]) -> None:
    """Refuse a --resume whose questions would be answered by another benchmark, specialist or
    checkpoint than the saved samples were. answered_by: task -> (specialist, checkpoint json)."""
    for idx, sample in samples.items():
        task = sample.get("task")
        if sample.get("benchmark", benchmark) != benchmark:
            differs = f"benchmark: the samples are {sample['benchmark']!r}, this run {benchmark!r}"
        elif task not in answered_by:
            continue
        elif sample.get("specialist") != answered_by[task][0]:
            differs = f"{task}: the samples are answered by {sample.get('specialist')!r}, this run asks {answered_by[task][0]!r}"
        elif not same_checkpoint(sample.get("checkpoint"), answered_by[task][1]):
            differs = (f"{task}: the samples are answered with checkpoint {_checkpoint_name(sample.get('checkpoint'))}, "
                       f"this run loads {_checkpoint_name(answered_by[task][1])}")
        else:
            continue
        raise RunDirError(f"cannot --resume {out}: {differs} (first at {idx} in samples.jsonl); {_TODO}")


def same_checkpoint(a: Mapping | None, b: Mapping | None) -> bool:
    """The same weights: by content hash (the path may have moved), else by name."""
    if a is None or b is None:
        return a is b
    if a.get("sha256") or b.get("sha256"):
        return (a.get("sha256"), bool(a.get("tiny_random"))) == (b.get("sha256"), bool(b.get("tiny_random")))
    return (a.get("name"), bool(a.get("tiny_random"))) == (b.get("name"), bool(b.get("tiny_random")))


def _checkpoint_name(checkpoint: Mapping | None) -> str:
    if checkpoint is None:
        return "none"
    sha = checkpoint.get("sha256")
    return f"{checkpoint.get('name')} (sha256 {sha[:12]})" if sha else str(checkpoint.get("name"))
