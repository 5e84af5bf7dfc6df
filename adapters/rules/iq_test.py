"""BLINK's IQ_Test through the AVR solver (`adapters.rules.avr`).

BLINK gives each IQ_Test question as one image: the puzzle's panels above a row of candidates
lettered A-D, asking "Which one picture follows the same pattern or rule established by the
previous pictures?", options "picture A".."picture D". That layout is the one MARVEL's puzzles
have, so the same reading applies: the bottom row's panels are the candidates, left to right
A-D (or as the options name them), and the blank is the "?" panel, or the place after the last
panel when the question asks for the next one. A question that asks something else, or an
image whose panels are not bordered boxes in rows, abstains with the reason.
"""

from __future__ import annotations

import re

from adapters.core.questions import MCQuestion

TASK = "IQ_Test"
# what a completion question says: the choice follows / completes / continues a pattern or rule
COMPLETION = re.compile(r"\b(pattern|rule|follows?|next|complet\w*|missing|continu\w*|sequence|fill)\b", re.IGNORECASE)


def unreadable_reason(question: MCQuestion) -> str | None:
    """Why the AVR solver cannot answer this IQ_Test question (None: it can)."""
    text = question.question or question.prompt
    if not COMPLETION.search(text):
        return f"the question does not ask for the picture that completes a pattern ({text[:80]!r})"
    if not question.images:
        return "the question has no image"
    return None
