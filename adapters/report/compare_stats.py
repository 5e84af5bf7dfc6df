"""Paired statistics for the specialist-versus-MLLM comparison.

Every function takes per-question outcomes keyed by BLINK idx, so two models are always compared
on the questions they share: a paired McNemar test, letter agreement, the oracle union
("either model right"), and the questions one model gets that another misses.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b and c.

    Under the null each discordant pair is a fair coin, so min(b, c) ~ Binomial(b + c, 1/2); the
    two-sided p-value doubles the smaller tail, capped at 1. Written out here (exact integer
    sums with math.comb) because scipy is not a dependency. No discordant pairs -> 1.0.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def paired_counts(
    first: Mapping[str, bool], second: Mapping[str, bool], shared: Iterable[str]
) -> dict[str, int]:
    """Counts of (first right?, second right?) over `shared` question ids."""
    counts = {"n_shared": 0, "both_right": 0, "first_only": 0, "second_only": 0, "both_wrong": 0}
    for idx in shared:
        a, b = first[idx], second[idx]
        counts["n_shared"] += 1
        key = "both_right" if a and b else "first_only" if a else "second_only" if b else "both_wrong"
        counts[key] += 1
    return counts


def mcnemar(first: Mapping[str, bool], second: Mapping[str, bool], shared: Iterable[str]) -> dict:
    """Paired counts plus the exact McNemar p-value (first_only vs second_only discordant pairs)."""
    counts = paired_counts(first, second, shared)
    counts["p_value"] = mcnemar_exact(counts["first_only"], counts["second_only"])
    return counts


def agreement(first: Mapping[str, str | None], second: Mapping[str, str | None], shared: Iterable[str]) -> dict:
    """How often two models choose the same letter, over shared questions both answered.

    A question either model left unanswered (missing or unparsed) is left out, since "no
    answer" is not a choice two models can agree on. Returns {"n", "agree", "rate"}.
    """
    both = [idx for idx in shared if first.get(idx) is not None and second.get(idx) is not None]
    agree = sum(1 for idx in both if first[idx] == second[idx])
    return {"n": len(both), "agree": agree, "rate": (agree / len(both)) if both else None}


def union_accuracy(outcomes: Sequence[Mapping[str, bool]], questions: Sequence[str]) -> float | None:
    """Fraction of `questions` that at least one of `outcomes` gets right (the oracle union)."""
    if not questions:
        return None
    return sum(1 for idx in questions if any(o.get(idx, False) for o in outcomes)) / len(questions)


def accuracy_on(outcome: Mapping[str, bool], questions: Sequence[str]) -> float | None:
    if not questions:
        return None
    return sum(1 for idx in questions if outcome.get(idx, False)) / len(questions)
