"""An MLLM's answer text -> the option letter it gives, or why it gives none.

Normalisation never guesses: a value is a letter only when it has one of the forms below, and
that letter is one of the question's options; everything else is unparsed, counted, and wrong.
BLINK's own files hold predictions its pipeline already extracted, and BLINK scored them by
exact match against "(X)", so "(C) Point C" was wrong there; `exact` matching reproduces that,
`lenient` accepts a letter followed by text too (the right rule for raw model output).

A text that names more than one option gives no answer ("several_options"), whatever form
names the others: "(B)" anywhere, a line opening with "B.", "B)", "B:" or "(B)" (a model
listing the options), "B) blue" inside a line, "Answer: B", or a line that is another option's
text when the texts are known. A single answer that restates its own option ("(A) A is
closer", "The answer is B) blue") is still that answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Collection, Mapping, Sequence

MATCH_RULES = ("exact", "lenient")

EXACT = re.compile(r"^\(?([A-Z])\)?$")  # "A", "(A)"
_ANSWER_PREFIX = r"(?:(?:the\s+)?(?:final\s+)?answer(?:\s+is)?\s*[:：]?\s*)?"
_WRAPPED = re.compile(  # "A.", "A)", "Answer: A", "The answer is (B)."
    rf"^{_ANSWER_PREFIX}\(?([A-Z])\)?\s*[.:]?$", re.IGNORECASE
)
_WITH_TEXT = re.compile(  # "(A) A is closer", "A. Point A", "A) text", "A: text", "Answer: (B) text"
    rf"^{_ANSWER_PREFIX}(?:\(([A-Z])\)|([A-Z])[.):])\s*\S", re.IGNORECASE
)
_ANSWER_WORD = re.compile(r"^(?:the\s+)?(?:final\s+)?answer", re.IGNORECASE)
_IN_PARENTHESES = re.compile(r"\([a-z]\)\s*[.:]?$")  # "(a)": a lowercase answer in its parentheses

# Where a text names an option besides the one it opens with.
_NAMED_IN_PARENTHESES = re.compile(r"\(([A-Z])\)")  # "(B)" anywhere
_LINE_OPENS_WITH_OPTION = re.compile(r"^[ \t]*(?:\(([A-Z])\)|([A-Z])[.):])(?=\s|$)", re.MULTILINE)  # "B. text"
_OPTION_INSIDE_LINE = re.compile(r"(?<![(\w])([A-Z])\)(?=[ \t]+\S)")  # "A) red B) blue" on one line
_ANSWER_NAMED = re.compile(r"(?i:\banswer(?:\s+is)?)\s*[:：]?\s*\(?([A-Z])(?![A-Za-z])")  # "Answer: B"
_LEADING_MARKER = re.compile(r"^\s*(?:\(?[A-Z]\)|[A-Z][.:])\s*")


@dataclass(frozen=True)
class ParsedAnswer:
    """One prediction after normalisation.

    form: "exact" ("A", "(A)"), "wrapped" ("A.", "Answer: A", "(a)"), "with_text" ("(A) text"),
    "missing" (no prediction for the question), "out_of_options" (a letter the question does
    not offer, "(Z)" included), "several_options" ("(B) or (A)", a listing of the options) or
    "unparsed" (no answer form).
    letter: the chosen letter under the match rule used, or None (scored wrong).
    """

    raw: str | None
    form: str
    letter: str | None


def _outside_parentheses(text: str, position: int) -> bool:
    """"A) red B) blue" lists B; "the sky (point B) is" only mentions it."""
    line = text[text.rfind("\n", 0, position) + 1:position]
    return line.count("(") <= line.count(")")


def _comparable(text: str) -> str:
    return " ".join(text.lower().strip(" \t.:;,!").split())


def options_named(text: str, letters: Collection[str] | None = None,
                  option_texts: Mapping[str, str] | None = None) -> set[str]:
    """Every option letter `text` names in a form the parser reads as an answer.

    letters: the question's options, when known; other capitals ("I think", "II.") are not
    options. option_texts: letter -> the option's text, when known: a whole line equal to it
    names that option (a marker in front of it, "B. B is closer", is allowed).
    """
    named = set(_NAMED_IN_PARENTHESES.findall(text))
    named |= {a or b for a, b in _LINE_OPENS_WITH_OPTION.findall(text)}
    named |= {m.group(1) for m in _OPTION_INSIDE_LINE.finditer(text) if _outside_parentheses(text, m.start())}
    named |= set(_ANSWER_NAMED.findall(text))
    if option_texts:
        by_text = {_comparable(t): letter for letter, t in option_texts.items() if t and _comparable(t)}
        for line in text.splitlines():
            if (letter := by_text.get(_comparable(_LEADING_MARKER.sub("", line)))) is not None:
                named.add(letter)
    return named & set(letters) if letters is not None else named


def read_letter(raw: Any, letters: Collection[str] | None = None,
                option_texts: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """The letter a value names and its form, before checking it against the options.

    Returns (letter, form) with form one of "exact", "wrapped", "with_text", "missing",
    "several_options" (a text that names more than one option: no answer) or "unparsed". Only
    capital letters count as bare answers ("a" is an English word); "(a)" and "Answer: a" read
    as A (lenient matching only). `letters` and `option_texts` as in `options_named`.
    """
    if raw is None:
        return None, "missing"
    if not isinstance(raw, str):
        return None, "unparsed"
    text = raw.strip()
    if not text:
        return None, "unparsed"
    if match := EXACT.match(text):
        return match.group(1), "exact"
    match = _WRAPPED.match(text)
    # a lowercase letter is an answer only where the form says so: in parentheses, or after "answer"
    if match and (match.group(1).isupper() or _ANSWER_WORD.match(text) or _IN_PARENTHESES.search(text)):
        return match.group(1).upper(), "wrapped"
    if match := _WITH_TEXT.match(text):
        letter = match.group(1) or match.group(2)
        if letter.isupper():
            others = options_named(text, letters, option_texts) - {letter}
            return (None, "several_options") if others else (letter, "with_text")
    return None, "unparsed"


def normalise_answer(raw: Any, letters: Sequence[str], match: str = "lenient",
                     option_texts: Mapping[str, str] | None = None) -> ParsedAnswer:
    """Turn a raw prediction into a letter among `letters`, or say why not.

    match="exact" accepts only the bare letter or "(X)" (BLINK's exact-match scoring of its
    extracted predictions); "lenient" also accepts "A.", "Answer: A" and "(A) text". A letter
    outside `letters` (including BLINK's "(Z)" for could-not-parse) is "out_of_options".
    """
    if match not in MATCH_RULES:
        raise ValueError(f"unknown match rule {match!r}; choose one of {', '.join(MATCH_RULES)}")
    letter, form = read_letter(raw, letters, option_texts)
    text = raw if isinstance(raw, str) or raw is None else str(raw)
    if letter is None:
        return ParsedAnswer(text, form, None)
    if letter not in letters:
        return ParsedAnswer(text, "out_of_options", None)
    accepted = form == "exact" or match == "lenient"
    return ParsedAnswer(text, form, letter if accepted else None)
