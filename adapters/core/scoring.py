"""Accuracy the way BLINK scores it: exact letter match, missing or failed = wrong, per-task
accuracies averaged without weights (macro, BLINK's headline) beside the pooled (micro) mean."""

from __future__ import annotations

import hashlib
from math import sqrt
from statistics import NormalDist
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

BOOTSTRAP_RESAMPLES = 10_000


def stable_seed(*parts: object) -> int:
    """A seed from any values that is the same in every process (unlike hash())."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def bootstrap_ci(
    correct: Sequence[float], seed: int, level: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of `correct`; None for no data (one group of
    macro_bootstrap_ci)."""
    return macro_bootstrap_ci({"": correct}, seed, level, resamples)


def macro_bootstrap_ci(correct_by_task: Mapping[str, Sequence[bool]], seed: int, level: float = 0.95,
                       resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the unweighted mean of per-task accuracies, questions
    resampled within each task (a mean of proportions has no closed form worth trusting)."""
    tasks = [np.asarray(v, dtype=np.float64) for v in correct_by_task.values() if len(v)]
    if not tasks:
        return None
    rng = np.random.default_rng(seed)
    means = np.mean([values[rng.integers(0, values.size, size=(resamples, values.size))].mean(axis=1)
                     for values in tasks], axis=0)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


def wilson_ci(correct: Sequence[bool], level: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion; None for no data. Unlike the percentile bootstrap,
    it stays informative at the extremes (30 of 30 right: 0.886-1.0, not 1.0-1.0). Written out
    here because it is three lines; the z quantile comes from the standard library."""
    n = len(correct)
    if n == 0:
        return None
    p = sum(bool(c) for c in correct) / n
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # the interval holds p; rounding can leave 0 of n a bound of 3e-17 above it, which plots
    # as a negative error bar: clamp to [0, p] and [p, 1]
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def is_scored(sample: Mapping) -> bool:
    """Whether a sample counts in its task's accuracy: every question but those whose answer is
    hidden (`correct` null). A question that failed, even one whose row gave no usable answer,
    is scored, as wrong."""
    return sample.get("correct") is not None or sample.get("gold") is not None


def summarise_task(samples: Iterable[Mapping]) -> dict:
    """Per-task numbers from sample records (see adapters/run/runner.py for their fields).

    n counts the scored questions (`is_scored`); unscored (hidden gold) ones are counted apart.
    """
    samples = list(samples)
    scored = [s for s in samples if is_scored(s)]
    correct = [bool(s.get("correct")) for s in scored]
    n = len(scored)
    return {
        "n": n,
        "correct": sum(correct),
        "accuracy": (sum(correct) / n) if n else None,
        "ci95": list(ci) if (ci := wilson_ci(correct)) else None,  # Wilson: sound at 0% and 100%
        "abstained": sum(1 for s in samples if s.get("status") == "abstained"),
        "errors": sum(1 for s in samples if s.get("status") == "error"),
        "ties": sum(1 for s in samples if (s.get("decision") or {}).get("tie")),
        "unscored": len(samples) - n,
        # over the questions whose option count is known (a row too broken to read has none)
        "expected_random": float(np.mean(chance)) if (chance := [1.0 / s["n_choices"] for s in scored
                                                                  if s.get("n_choices")]) else None,
    }


def macro_micro(tasks: Mapping[str, Mapping]) -> tuple[float | None, float | None]:
    """Unweighted mean of per-task accuracies, and pooled accuracy, over tasks with n > 0."""
    scored = [t for t in tasks.values() if t.get("n")]
    if not scored:
        return None, None
    macro = float(np.mean([t["accuracy"] for t in scored]))
    micro = sum(t["correct"] for t in scored) / sum(t["n"] for t in scored)
    return macro, micro


def accuracy_figure(right: list[bool], chance: list[float]) -> dict[str, Any]:
    """A benchmark metric's block: n, correct, accuracy and the expected accuracy of random
    choice (the mean of each unit's chance of being right), None where nothing was answered."""
    n = len(right)
    return {"n": n, "correct": sum(right), "accuracy": sum(right) / n if n else None,
            "random_expected": sum(chance) / n if n else None}
