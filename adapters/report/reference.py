"""Published reference numbers (paper specialists, GPT-4V, Gemini Pro, random, human) as data."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def reference_scores() -> dict[str, Any]:
    """`{"source", "columns", "tasks": {TASK: {...}}}`; accuracies are fractions."""
    text = resources.files("adapters.report").joinpath("data/reference_scores.json").read_text(encoding="utf-8")
    return json.loads(text)
