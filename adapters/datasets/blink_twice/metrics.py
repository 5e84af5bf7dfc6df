"""BLINK-Twice's metrics, from answered questions (sample lines of a run, or an MLLM's scored
answers), as the benchmark defines them:
- Q-Acc: accuracy over questions; Yes-Acc and No-Acc: over the questions whose answer is yes,
  and no (the benchmark's adversarial edits turn "no" into "yes");
- I-Acc: the share of images whose questions (two each) are all right;
- G-Acc: the share of groups (an image with its adversarial twin) whose four questions are all
  right; only groups holding more than one image count, and none when the data names no group;
- Q-Acc per category.
A question answered wrongly, not answered, or failed counts as wrong. Each figure comes with what
uniform random choice scores in expectation (1/2 per question; 1/2^k for k questions that must
all be right).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping

from adapters.core.scoring import accuracy_figure


def _all_right(units: Mapping[str, list[tuple[bool, int]]], minimum: int) -> dict[str, Any]:
    kept = [answers for answers in units.values() if len(answers) >= minimum]
    chance = []
    for answers in kept:
        p = 1.0
        for _, options in answers:
            p /= options
        chance.append(p)
    return accuracy_figure([all(right for right, _ in answers) for answers in kept], chance)


def blink_twice_metrics(samples: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """samples: {"correct", "gold" (A = yes, B = no), "n_choices", "meta": {"image", "group",
    "category"}} per question -> {q_acc, yes_acc, no_acc, i_acc, g_acc, by_category}; each a
    figure {n, correct, accuracy, random_expected}; g_acc None (with g_acc_note) without groups."""
    questions: list[tuple[bool, int, str | None]] = []
    images: dict[str, list[tuple[bool, int]]] = defaultdict(list)
    groups: dict[str, list[tuple[bool, int]]] = defaultdict(list)
    group_images: dict[str, set[str]] = defaultdict(set)
    categories: dict[str, list[tuple[bool, int]]] = defaultdict(list)
    for sample in samples:
        if sample.get("correct") is None:
            continue  # its answer is hidden: unscored (a failed question with no usable answer counts wrong)
        meta = sample.get("meta") or {}
        right, options = bool(sample.get("correct")), int(sample.get("n_choices") or 2)  # a failed question: yes/no
        questions.append((right, options, sample["gold"]))
        image = meta.get("image")
        if image is not None:
            images[str(image)].append((right, options))
        if meta.get("group") is not None:
            groups[str(meta["group"])].append((right, options))
            group_images[str(meta["group"])].add(str(image))
        categories[str(meta.get("category"))].append((right, options))
    out: dict[str, Any] = {
        "q_acc": accuracy_figure([r for r, _, _ in questions], [1 / n for _, n, _ in questions]),
        "yes_acc": accuracy_figure([r for r, _, g in questions if g == "A"], [1 / n for _, n, g in questions if g == "A"]),
        "no_acc": accuracy_figure([r for r, _, g in questions if g == "B"], [1 / n for _, n, g in questions if g == "B"]),
        "i_acc": _all_right(images, 2),
    }
    # a group counts when it holds more than one image and every image's questions (two) were asked
    asked = {image for image, answers in images.items() if len(answers) >= 2}
    twins = {g: answers for g, answers in groups.items() if len(group_images[g]) > 1 and group_images[g] <= asked}
    if twins:
        out["g_acc"] = _all_right(twins, 2)
    else:
        out["g_acc"] = None
        out["g_acc_note"] = ("no group holds an image and its adversarial twin (the data names no group column, "
                             "or no twin was asked)")
    out["by_category"] = {c: accuracy_figure([r for r, _ in a], [1 / n for _, n in a]) for c, a in sorted(categories.items())}
    return out
