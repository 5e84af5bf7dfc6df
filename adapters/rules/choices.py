"""Reading what each option of a question means, so rules never depend on option order."""

from __future__ import annotations

import re

from adapters.core.questions import MCQuestion, QuestionError

_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4}
_IMAGE_CHOICE = re.compile(r"\b(first|second|third|fourth|fifth)\b|\bimage\s*#?\s*([1-5])\b", re.IGNORECASE)


def image_index(choice: str) -> int:
    """The 0-based index of the image an option names: "the third image" / "Image 3" -> 2."""
    match = _IMAGE_CHOICE.search(choice)
    if match is None:
        raise QuestionError(f"option {choice!r} names no image")
    return _ORDINALS[match.group(1).lower()] if match.group(1) else int(match.group(2)) - 1


def image_options(question: MCQuestion, first_option_image: int = 1) -> dict[str, int]:
    """Option letter -> the image it names, each at least `first_option_image` (the images before
    it are what the options are compared with) and present in the question."""
    found = {}
    for letter, text in zip(question.letters, question.choices):
        index = image_index(text)
        if not first_option_image <= index < len(question.images):
            raise QuestionError(f"{question.idx}: option {text!r} names image {index + 1} of {len(question.images)}")
        found[letter] = index
    return found


def point_label(choice: str) -> str:
    """"Point C" -> "C"; "Box B" -> "B"; "A is closer" -> "A"; "B is darker" -> "B"."""
    text = choice.strip()
    match = re.match(r"^\s*(?:point|box)\s+([A-Z])\b", text, re.IGNORECASE) or re.match(r"^\s*([A-Z])\b", text)
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
