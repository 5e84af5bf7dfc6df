"""Gold-answer overrides (`--answers FILE`), e.g. the corrected Relative_Reflectance labels.

The file is BLINK's flat format, `{idx: "(X)"}`. Its name and sha256 become the run's answer
version, so two runs scored against different labels can never be mixed up.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from adapters.core.questions import AnswerVersion, parse_gold
from checkpoints.hashing import sha256_file


class AnswersFileError(ValueError):
    pass


@dataclass(frozen=True)
class AnswerOverrides:
    answers: dict[str, str]
    version: AnswerVersion

    def gold_for(self, idx: str, dataset_gold: str | None) -> str | None:
        return self.answers.get(idx, dataset_gold)


def _refuse_repeated_ids(path: Path):
    """json.loads would keep the last of two entries for one id without a word."""
    def pairs(items: list[tuple[str, object]]) -> dict:
        seen: dict[str, object] = {}
        for key, value in items:
            if key in seen:
                raise AnswersFileError(f"answers file {path}: {key} is given twice ({seen[key]!r} and {value!r}); "
                                       "keep one entry per id")
            seen[key] = value
        return seen
    return pairs


def load_answers(path: str | Path) -> AnswerOverrides:
    """Read `{idx: "(X)"}`; every malformed entry is reported at once, with its key."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_refuse_repeated_ids(path))
    except FileNotFoundError:
        raise AnswersFileError(f"answers file {path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise AnswersFileError(f"answers file {path} is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise AnswersFileError(
            f'answers file {path} must be a JSON object {{"val_Task_1": "(A)", ...}}, '
            f"got {type(raw).__name__}"
        )
    answers: dict[str, str] = {}
    bad: list[str] = []
    for idx, value in raw.items():
        try:
            letter = parse_gold(value) if isinstance(value, str) else None
        except ValueError:
            letter = None
        if letter is None:
            bad.append(f"{idx}: {value!r}")
        else:
            answers[idx] = letter
    if bad:
        shown = "; ".join(bad[:5]) + (f"; ... ({len(bad)} in all)" if len(bad) > 5 else "")
        raise AnswersFileError(f'answers file {path}: entries not of the form "(A)": {shown}')
    version = AnswerVersion(name=path.name, sha256=sha256_file(path), n_entries=len(answers))
    return AnswerOverrides(answers=answers, version=version)
