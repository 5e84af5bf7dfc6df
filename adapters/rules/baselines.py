"""Baselines that answer without looking: the floor every specialist is compared against."""

from __future__ import annotations

import random

from adapters.core.questions import Decision, MCQuestion
from adapters.core.solver import Solver


class RandomChoice(Solver):
    """Uniform random choice among a question's options (a BASELINE, not a specialist).

    The draw depends only on (seed, question id), so answers are the same whatever the order,
    batching or resumption of a run.
    """

    rule = "baseline.uniform_random"

    def decide(self, question: MCQuestion) -> Decision:
        rng = random.Random(f"{self.options.seed}:{question.idx}")  # str seeds hash with sha512: stable
        scores = {letter: rng.random() for letter in question.letters}
        return Decision.from_scores(scores, self.rule, details={"seed": self.options.seed})
