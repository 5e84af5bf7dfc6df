"""Accuracy the way BLINK scores it: exact letter match, missing or failed = wrong, per-task
accuracies averaged without weights (macro, BLINK's headline) beside the pooled (micro) mean."""

from __future__ import annotations

import hashlib
from typing import Iterable, Mapping, Sequence

import numpy as np

BOOTSTRAP_RESAMPLES = 10_000


def stable_seed(*parts: object) -> int:
    """A seed from any values that is the same in every process (unlike hash())."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def bootstrap_ci(
    correct: Sequence[bool], seed: int, level: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of `correct`; None for no data."""
    values = np.asarray(correct, dtype=np.float64)
    if values.size == 0:
        return None
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, values.size, size=(resamples, values.size))
    means = values[draws].mean(axis=1)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


def summarise_task(samples: Iterable[Mapping], task: str, seed: int) -> dict:
    """Per-task numbers from sample records (see adapters/evaluate.py for their fields).

    n counts questions with a gold answer; unscored (hidden gold) ones are counted apart.
    """
    samples = list(samples)
    scored = [s for s in samples if s.get("gold") is not None]
    correct = [bool(s.get("correct")) for s in scored]
    n = len(scored)
    return {
        "n": n,
        "correct": sum(correct),
        "accuracy": (sum(correct) / n) if n else None,
        "ci95": list(ci) if (ci := bootstrap_ci(correct, stable_seed(seed, task))) else None,
        "abstained": sum(1 for s in samples if s.get("status") == "abstained"),
        "errors": sum(1 for s in samples if s.get("status") == "error"),
        "ties": sum(1 for s in samples if (s.get("decision") or {}).get("tie")),
        "unscored": len(samples) - n,
        "expected_random": (
            float(np.mean([1.0 / s["n_choices"] for s in scored if s.get("n_choices")])) if n else None
        ),
    }


def macro_micro(tasks: Mapping[str, Mapping]) -> tuple[float | None, float | None]:
    """Unweighted mean of per-task accuracies, and pooled accuracy, over tasks with n > 0."""
    scored = [t for t in tasks.values() if t.get("n")]
    if not scored:
        return None, None
    macro = float(np.mean([t["accuracy"] for t in scored]))
    micro = sum(t["correct"] for t in scored) / sum(t["n"] for t in scored)
    return macro, micro
