"""The objects and relations a question names, read from its text (Counting, Spatial_Relation,
Object_Localization), and the numbers its options name.

BLINK asks, e.g., "How many blue floats are in the image?", "Is the car beneath the cat?",
"... which bounding box more accurately localizes and encloses the fireplug (clothing)?". The
patterns below cover those shapes and their common variants; text they do not fit is a
QuestionError naming it, never a guess.
"""

from __future__ import annotations

import re

from adapters.core.questions import MCQuestion, QuestionError

# canonical relation -> the phrasings that mean it, longest first when they share words
RELATIONS: dict[str, tuple[str, ...]] = {
    "left": ("to the left of", "on the left side of", "at the left side of", "on the left of", "at the left of",
             "left of"),
    "right": ("to the right of", "on the right side of", "at the right side of", "on the right of",
              "at the right of", "right of"),
    "in_front": ("in front of",),
    "behind": ("behind", "in back of"),
    "on": ("on top of", "sitting on", "lying on", "resting on", "standing on", "placed on", "on"),
    "above": ("above", "over"),
    "below": ("underneath", "beneath", "below", "under"),
    "inside": ("inside of", "inside", "within", "in"),
    "touching": ("touching", "in contact with"),
    "near": ("adjacent to", "next to", "beside", "close to", "near", "by"),
    "contains": ("contains", "containing", "contain"),
    "far": ("far away from", "far from"),
}
_ARTICLE = re.compile(r"^(?:the|a|an|any|some|this|that|these|those)\s+", re.IGNORECASE)
_NUMBER_WORDS = {"zero": 0, "none": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_IES_TO_IE = {"cookies", "movies", "pies", "ties", "brownies", "zombies", "hoodies", "selfies", "smoothies", "lies",
              "calories", "rookies", "goalies"}
_IRREGULAR = {"wolves": "wolf", "halves": "half", "calves": "calf", "loaves": "loaf", "scarves": "scarf","people": "person", "men": "man", "women": "woman", "children": "child", "feet": "foot",
              "teeth": "tooth", "mice": "mouse", "geese": "goose", "sheep": "sheep", "fish": "fish", "knives": "knife",
              "leaves": "leaf", "shelves": "shelf", "buses": "bus", "glasses": "glasses", "scissors": "scissors", "pants": "pants"}


def _clean(phrase: str) -> str:
    """Drop articles, a parenthetical ("fireplug (clothing)" -> "fireplug") and trailing filler."""
    phrase = re.sub(r"\([^)]*\)", " ", phrase)
    phrase = re.sub(r"\b(?:in|on|of)\s+(?:the|this)\s+(?:image|picture|photo)\b.*$", "", phrase, flags=re.IGNORECASE)
    phrase = _ARTICLE.sub("", phrase.strip(" ?.,;:\"'"))
    return re.sub(r"\s+", " ", phrase).strip()


def singular(noun_phrase: str) -> str:
    """"blue floats" -> "blue float"; "people" -> "person": the last word made singular."""
    words = noun_phrase.split()
    if not words:
        return noun_phrase
    last = words[-1].lower()
    if last in _IRREGULAR:
        words[-1] = _IRREGULAR[last]
    elif last in _IES_TO_IE:
        words[-1] = words[-1][:-1]
    elif last.endswith("ies") and len(last) > 4:
        words[-1] = words[-1][:-3] + "y"
    elif re.search(r"(ches|shes|sses|xes|zes)$", last):
        words[-1] = words[-1][:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")):
        words[-1] = words[-1][:-1]
    return " ".join(words)


def _asking(question: MCQuestion) -> str:
    """The question sentence itself (before BLINK's "Select from the following choices" block)."""
    text = question.question or question.prompt.split("Select from the following choices")[0]
    asked = re.findall(r"[^.?!\n]*\?", text)
    return (asked[-1] if asked else text).strip()


def counted_object(question: MCQuestion) -> str:
    """"How many blue floats are there?" -> "blue float" (singular, the detector's query)."""
    text = _asking(question)
    match = (re.search(r"\bhow many\s+(.+?)\s+(?:are|is|were|can|do|does|could|appear)\b", text, re.IGNORECASE)
             or re.search(r"\bhow many\s+(.+?)\s*\?", text, re.IGNORECASE)
             or re.search(r"\b(?:count|number of)\s+(?:the\s+)?(?:number\s+of\s+)?(.+?)(?:\s+(?:are|in|on)\b|\s*[?.])",
                          text, re.IGNORECASE))
    if match is None:
        raise QuestionError(f"{question.idx}: cannot read what to count from {text[:160]!r}")
    phrase = _clean(match.group(1))
    if not phrase:
        raise QuestionError(f"{question.idx}: the counted object in {text[:160]!r} is empty")
    return singular(phrase)


def relation_triple(question: MCQuestion) -> tuple[str, str, str]:
    """"Is the car beneath the cat?" -> ("car", "below", "cat"): subject, canonical relation, object."""
    text = _asking(question)
    match = re.match(r"^\s*(?:is|are|was|were|does|do)\s+(?:there\s+)?(.+?)\s*\?\s*$", text, re.IGNORECASE)
    if match is None:
        raise QuestionError(f"{question.idx}: not a yes/no relation question: {text[:160]!r}")
    body = match.group(1)
    if re.search(r"\bnot\b", body, re.IGNORECASE):
        raise QuestionError(f"{question.idx}: a negated relation is not read: {text[:160]!r}")
    best = None
    for relation, phrasings in RELATIONS.items():
        for phrasing in phrasings:
            for found in re.finditer(rf"\s{re.escape(phrasing)}\s", f" {body} ", re.IGNORECASE):
                # the longest phrasing wins; among equals, the first in the sentence
                key = (-len(phrasing), found.start())
                if best is None or key < best[0]:
                    best = (key, relation, found.start(), found.end() - 2)
    if best is None:
        raise QuestionError(f"{question.idx}: no known spatial relation in {text[:160]!r} "
                            f"(known: {', '.join(p for ps in RELATIONS.values() for p in ps)})")
    _, relation, start, end = best
    subject, obj = _clean(body[:start]), _clean(body[end:])
    subject = re.sub(r"^(?:located|positioned|placed|situated)\s+", "", subject, flags=re.IGNORECASE)
    subject = re.sub(r"\s+(?:located|positioned|placed|situated|standing|sitting|lying)$", "", subject, flags=re.IGNORECASE)
    if not subject or not obj:
        raise QuestionError(f"{question.idx}: cannot tell the two objects apart in {text[:160]!r}")
    return subject, relation, obj


def localized_object(question: MCQuestion) -> str:
    """"... which bounding box more accurately localizes and encloses the fireplug?" -> "fireplug"."""
    text = _asking(question)
    match = (re.search(r"\b(?:localizes|localises|encloses|contains|bounds|covers)\s+(?:and\s+\w+\s+)?(.+?)\s*\?", text,
                       re.IGNORECASE)
             or re.search(r"\bbox(?:es)?\s+(?:for|of|around)\s+(.+?)\s*\?", text, re.IGNORECASE))
    if match is None:
        raise QuestionError(f"{question.idx}: cannot read which object the boxes should enclose from {text[:160]!r}")
    phrase = _clean(match.group(1))
    if not phrase:
        raise QuestionError(f"{question.idx}: the object to localise in {text[:160]!r} is empty")
    return phrase


def option_number(choice: str) -> int:
    """"3" / "(C) 3" / "three" -> 3; QuestionError when the option names no number."""
    text = re.sub(r"^\s*\(?[A-Z]\)\s*", "", choice.strip())
    match = re.search(r"\d+", text)
    if match:
        return int(match.group())
    word = re.search(r"[a-z]+", text.lower())
    if word and word.group() in _NUMBER_WORDS:
        return _NUMBER_WORDS[word.group()]
    raise QuestionError(f"option {choice!r} names no number")
