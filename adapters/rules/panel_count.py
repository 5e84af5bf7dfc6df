"""MARVEL's coarse perception questions answered by counting the puzzle's panels
(specialists.panels): the context part (every row but the bottom one, the blank included), the
choices part (the bottom row), or the whole puzzle."""

from __future__ import annotations

import numpy as np

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver
from adapters.core.tasks import MARVEL_COUNT_TASKS


class PanelCount(Solver):
    rule = "marvel.count_panels"

    def decide(self, question: MCQuestion) -> Decision:
        from specialists.panels import find_panels

        if question.task not in MARVEL_COUNT_TASKS:
            raise QuestionError(f"{question.idx}: panel_count answers {', '.join(MARVEL_COUNT_TASKS)}, not {question.task}")
        panels = find_panels(np.asarray(question.images[0].convert("RGB")))
        count = {"MARVEL_Count_Context": panels.context, "MARVEL_Count_Choices": panels.choices,
                 "MARVEL_Count_Total": panels.total}[question.task]
        details = {"count": count, "rows": [len(row) for row in panels.rows]}
        if str(count) not in question.choices:
            return Decision({letter: float("nan") for letter in question.letters}, None, self.rule, abstained=True,
                            details={**details, "reason": "no panels found" if not panels.rows else "count out of range"})
        answer = question.letters[question.choices.index(str(count))]
        return Decision.from_scores({letter: float(letter == answer) for letter in question.letters}, self.rule, details)
