"""The objects a CV-Bench question marks, their boxes, and which option names which of them.

CV-Bench's Relation, Depth and Distance questions name their objects with the box drawn round
each, in these shapes (Cambrian-1's wording):
    "... where is the X (annotated by the red box) located with respect to the Y (annotated by the blue box)?"
    "Which object is closer to the camera taking this photo, the X (highlighted by a red box) or the Y (...)?"
    "Which object is closer to the A (highlighted by a red box), the X (highlighted by a blue box) or the Y (...)?"
A mention is a name followed by "(<verb> by a|the <colour> box)"; the name is the words after the
last article before it. Mentions are kept once per colour, in the order the question first makes them.

Boxes, first found first used:
1. "dataset": the row's `bbox` (kept by the reader as meta["bbox"]), taken to list one box per
   marked object in the order of the mentions (an assumption: the dataset card does not say; a
   bbox whose count differs from the mentions' is not used, and the decision says so);
2. "drawn": each mention's outline, found by its colour in the image (adapters/rules/coloured_boxes.py);
3. none: the rule says which object has no box (a detector can then look for it by name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adapters.core.questions import MCQuestion, QuestionError
from adapters.rules.coloured_boxes import HUES, find_outline_box

Box = tuple[float, float, float, float]
_MENTION = re.compile(
    r"\(\s*(?:highlighted|annotated|marked|indicated|outlined|shown|enclosed|denoted|labeled|labelled)\s+"
    rf"(?:by|with|in)\s+(?:a\s+|an\s+|the\s+)?({'|'.join(HUES)})\s+(?:bounding\s+)?box(?:es)?\s*\)",
    re.IGNORECASE)
_ARTICLE = re.compile(r"\b(?:the|a|an)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    """One marked object: its name, the colour of its box, where the question marks it (character)."""

    name: str
    colour: str
    start: int


@dataclass(frozen=True)
class MarkedObject:
    """A mention with its box (x0, y0, x1, y1 pixels) and where the box came from (dataset, drawn,
    detector), or box None when none was found."""

    name: str
    colour: str | None
    box: Box | None
    box_from: str | None


def normalised(name: str) -> str:
    return " ".join(_ARTICLE.sub("", name.lower()).replace("_", " ").split()).strip(" .,;:?!")


def _name_before(text: str, end: int) -> str:
    """The object named just before position `end`: from the last delimiter, after its last article."""
    before = text[:end]
    start = max(before.rfind(c) for c in ",()?.;:\n") + 1
    phrase = before[start:]
    articles = list(_ARTICLE.finditer(phrase))
    return normalised(phrase[articles[-1].end():] if articles else phrase)


def _occurrences(text: str) -> list[Mention]:
    """Every mention in the text, repeats included, in order."""
    out = []
    for match in _MENTION.finditer(text):
        name = _name_before(text, match.start())
        if name:
            out.append(Mention(name, match.group(1).lower(), match.start()))
    return out


def mentions(question: MCQuestion) -> list[Mention]:
    """The marked objects of the question's text, once per colour, in first-mention order."""
    found: dict[str, Mention] = {}
    for mention in _occurrences(question.question or question.prompt):
        found.setdefault(mention.colour, mention)
    return list(found.values())


def marked_objects(question: MCQuestion, use_drawn: bool = True) -> tuple[list[MarkedObject], dict]:
    """Each mention with its box (see the module's doc), and a note of where the boxes came from."""
    marked = mentions(question)
    meta = question.meta or {}
    dataset = meta.get("bbox")
    note: dict = {}
    if dataset is not None and len(dataset) == len(marked) and marked:
        return [MarkedObject(m.name, m.colour, tuple(box), "dataset") for m, box in zip(marked, dataset)], note
    if dataset is not None:
        note["bbox_unused"] = f"bbox lists {len(dataset)} box(es) for {len(marked)} marked object(s)"
    if meta.get("bbox_unread"):
        note["bbox_unused"] = meta["bbox_unread"]
    objects = []
    for m in marked:
        box = find_outline_box(question.images[0], m.colour) if use_drawn and question.images else None
        objects.append(MarkedObject(m.name, m.colour, box, "drawn" if box else None))
    return objects, note


def _matches(option: str, name: str) -> bool:
    return normalised(option) == name


def option_objects(question: MCQuestion, objects: list[MarkedObject], skip: int = 0) -> dict[str, MarkedObject]:
    """Option letter -> the marked object its text names, among objects[skip:] (the names equal
    once articles and case are set aside; a name marked twice goes to the options in order)."""
    free = list(objects[skip:])
    out: dict[str, MarkedObject] = {}
    for letter, text in zip(question.letters, question.choices):
        named = [o for o in free if _matches(text, o.name)]
        if not named:
            named = [o for o in free if normalised(text) in o.name or o.name in normalised(text)]
        if not named:
            marked = ", ".join(o.name for o in objects[skip:]) or "none"
            raise QuestionError(f"{question.idx}: option {text!r} names none of the marked objects ({marked})")
        out[letter] = named[0]
        free.remove(named[0])
    return out


def relation_pair(question: MCQuestion, objects: list[MarkedObject]) -> tuple[MarkedObject, MarkedObject]:
    """(subject, reference) of "where is the X ... with respect to the Y": the first object marked
    after "where is" and the first after "with respect to"; by name when the question marks none."""
    text = question.question or question.prompt
    where = re.search(r"\bwhere\s+is\b", text, re.IGNORECASE)
    respect = re.search(r"\bwith\s+respect\s+to\b|\brelative\s+to\b", text, re.IGNORECASE)
    if where is None or respect is None:
        raise QuestionError(f"{question.idx}: not a 'where is X ... with respect to Y' question: {text[:160]!r}")
    if objects:
        by_colour = {o.colour: o for o in objects}

        def first_after(position: int) -> MarkedObject | None:
            later = [m for m in _occurrences(text) if m.start >= position and m.colour in by_colour]
            return by_colour[later[0].colour] if later else None

        subject, reference = first_after(where.end()), first_after(respect.end())
        if subject is not None and reference is not None and subject is not reference:
            return subject, reference
    subject_name = re.search(r"\bwhere\s+is\s+(.+?)\s+(?:located|positioned|placed|situated|\()", text, re.IGNORECASE)
    reference_name = re.search(r"(?:with\s+respect|relative)\s+to\s+(.+?)\s*(?:\(|\?|$)", text, re.IGNORECASE)
    if subject_name is None or reference_name is None:
        raise QuestionError(f"{question.idx}: cannot read the two objects of {text[:160]!r}")
    return (MarkedObject(normalised(subject_name.group(1)), None, None, None),
            MarkedObject(normalised(reference_name.group(1)), None, None, None))


def relation_words(question: MCQuestion) -> dict[str, str]:
    """Option letter -> the relation it names (left, right, above, below)."""
    out = {}
    for letter, text in zip(question.letters, question.choices):
        found = re.search(r"\b(left|right|above|below)\b", text, re.IGNORECASE)
        if found is None:
            raise QuestionError(f"{question.idx}: option {text!r} names no left, right, above or below")
        out[letter] = found.group(1).lower()
    return out
