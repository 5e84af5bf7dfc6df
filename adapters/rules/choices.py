"""Reading what each option of a question means, so rules never depend on option order."""

from __future__ import annotations

import re

from ..questions import MCQuestion, QuestionError

def point_label(choice: str) -> str:
    """"Point C" -> "C"; "A is closer" -> "A"; "B is darker" -> "B"."""
    text = choice.strip()
    match = re.match(r"^\s*point\s+([A-Z])\b", text, re.IGNORECASE) or re.match(r"^\s*([A-Z])\b", text)
    if match is None:
        raise QuestionError(f"option {choice!r} names no point label")
    return match.group(1).upper()


def letters_by_label(question: MCQuestion, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Marker label -> option letter, for options that name a point (others listed in `skip` ignored)."""
    mapping = {}
    for letter, text in zip(question.letters, question.choices):
        if any(word in text.lower() for word in skip):
            continue
        mapping[point_label(text)] = letter
    return mapping


def letter_for_word(question: MCQuestion, word: str) -> str | None:
    """The option whose text contains `word` (case-insensitive), or None if no option does."""
    found = [letter for letter, text in zip(question.letters, question.choices) if word in text.lower()]
    if len(found) > 1:
        raise QuestionError(f"{question.idx}: several options mention {word!r}: {question.choices}")
    return found[0] if found else None
