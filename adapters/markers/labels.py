"""Which markers a question expects, per image: the one place that maps BLINK tasks to drawn labels.

BLINK draws points (circles with a label beside each) for the tasks below, and the choices name
the labels ("A is closer", "Point C"). Tasks not listed here have no drawn markers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adapters.core.questions import MCQuestion

FAR_CORNER = "far"  # the corner finder's class of every drawn box's bottom-right corner (labelled or not)

REF = "REF"


LABELS = ("A", "B", "C", "D", "E", REF)  # every label the parser can read


# task -> (kind, images holding the REF point, image holding the lettered points)
# kind: "point" = circle + label; "box" = rectangle + label.
MARKER_TASKS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "Relative_Depth": ("point", (), "image_1"),
    "Relative_Reflectance": ("point", (), "image_1"),
    "Visual_Correspondence": ("point", ("image_1",), "image_2"),
    "Semantic_Correspondence": ("point", ("image_1",), "image_2"),
    "Functional_Correspondence": ("point", ("image_1",), "image_2"),
    "Object_Localization": ("box", (), "image_1"),
}


# The colour BLINK drew each point task's rings in (read first by blink_style.points); red elsewhere.
RING_COLOURS: dict[str, tuple[int, int, int]] = {"Relative_Reflectance": (255, 255, 255)}


BLINK_RED = (255, 0, 0)


def ring_colour(task: str) -> tuple[int, int, int]:
    """The colour of the rings BLINK drew for `task`'s points."""
    return RING_COLOURS.get(task, BLINK_RED)


_LETTER = re.compile(r"(?<![A-Za-z])([A-E])(?![A-Za-z])")


@dataclass(frozen=True)
class Expected:
    """kind ("point" or "box") and image key -> the labels drawn on it."""

    kind: str
    labels: dict[str, tuple[str, ...]]


def has_markers(task: str) -> bool:
    return task in MARKER_TASKS


def letters_named(choices: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The labels A-E that the choice texts name ("A is closer" -> A; "About the same" -> none)."""
    found: list[str] = []
    for text in choices:
        for letter in _LETTER.findall(text):
            if letter not in found:
                found.append(letter)
    return tuple(sorted(found))


def expected_markers(question: MCQuestion) -> Expected:
    """The markers `question` should show; ValueError for a task that draws none."""
    if question.task not in MARKER_TASKS:
        raise ValueError(f"{question.idx}: task {question.task} draws no markers; "
                         f"marker tasks: {', '.join(MARKER_TASKS)}")
    kind, ref_images, lettered = MARKER_TASKS[question.task]
    letters = letters_named(question.choices)
    if not letters:  # choices that name no letter: one label per option
        letters = tuple(question.letters)
    labels = {key: (REF,) for key in ref_images}
    labels[lettered] = letters
    return Expected(kind, labels)
