"""Pattern Perception questions from ComBo's factors: which candidate shows the same object as
the reference image?

Our construction (ComBo's paper gives the task's name and size, not its question format):
the reference is one view of an object; the candidates are another view of that same object
and distractors that each differ from it in exactly ONE part of the composition (the primary's
shape and anchor, the secondary's shape and pivot, the primary's look, or the secondary's
look). Telling them apart needs every factor to be perceived; a retrieval specialist answers by
the candidate nearest to the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.datasets.combo.factors import FactorTable
from adapters.datasets.combo.sources import ImageSource

TASK = "Pattern_Perception"
PARTS = FactorTable.PARTS


@dataclass
class PatternPerceptionQuestion(MCQuestion):
    """An MCQuestion whose first image is the reference and the rest are the candidates, in
    choice order; `changed[i]` names the part candidate i changes ("" for the same object);
    `object_ids`: the reference's object id, then each candidate's."""

    changed: tuple[str, ...] = ()
    object_ids: tuple[int, ...] = ()

    def reference_and_candidates(self) -> tuple[Image.Image, list[Image.Image]]:
        images = self.images
        if len(images) != len(self.choices) + 1:
            raise ValueError(f"{self.idx}: expected {len(self.choices) + 1} images (reference + candidates), "
                             f"got {len(images)}")
        return images[0], images[1:]


def one_part_neighbours(table: FactorTable, object_id: int) -> dict[str, list[int]]:
    """part name -> the objects that differ from `object_id` in that part alone."""
    parts = list(table.parts_of(object_id))
    out: dict[str, list[int]] = {}
    for i, (name, size) in enumerate(zip(PARTS, table.part_sizes)):
        out[name] = [table.object_of_parts(parts[:i] + [v] + parts[i + 1:]) for v in range(size) if v != parts[i]]
    return out


def build_pattern_perception(source: ImageSource, table: FactorTable, n: int, n_choices: int = 4,
                             seed: int = 0) -> list[PatternPerceptionQuestion]:
    """n questions with `n_choices` candidates each (one right, the rest one-part distractors
    from different parts where the table allows). Deterministic in (seed, source)."""
    if not 2 <= n_choices <= 5:
        raise ValueError(f"n_choices must be 2..5 (choices A-E), got {n_choices}")
    rng = np.random.default_rng([seed, 0x9A77])
    letters = "ABCDE"[:n_choices]
    questions: list[PatternPerceptionQuestion] = []
    attempts = 0
    while len(questions) < n:
        attempts += 1
        if attempts > 100 * n + 1000:
            raise ValueError(f"{source.name}: could not build {n} Pattern Perception questions; too few objects "
                             f"with {n_choices - 1} one-part neighbours in the folder")
        target = int(rng.integers(table.n_objects))
        if not source.has(target):
            continue
        neighbours = {part: [o for o in ids if source.has(o)] for part, ids in one_part_neighbours(table, target).items()}
        parts = [p for p in PARTS if neighbours[p]]
        if sum(len(v) for v in neighbours.values()) < n_choices - 1 or not parts:
            continue
        # Spread distractors over parts first (one per part, in random order), then repeat parts.
        order = list(rng.permutation(parts))
        distractors: list[tuple[str, int]] = []
        while len(distractors) < n_choices - 1:
            part = order[len(distractors) % len(order)]
            free = [o for o in neighbours[part] if o not in {d for _, d in distractors}]
            if free:
                distractors.append((part, int(rng.choice(free))))
            else:
                order.remove(part)
        gold = int(rng.integers(n_choices))
        candidates = [(p, o) for p, o in distractors]
        candidates.insert(gold, ("", target))
        images = [Image.fromarray(source.sample_image(target, rng))]
        images += [Image.fromarray(source.sample_image(o, rng)) for _, o in candidates]
        choices = tuple(f"image {i + 2}" for i in range(n_choices))
        prompt = ("The first image shows an object made of two parts. Which of the other images shows the same "
                  "object (seen from another viewpoint)?\n" + "\n".join(f"({l}) {c}" for l, c in zip(letters, choices)))
        questions.append(PatternPerceptionQuestion(
            idx=f"{source.name}_{TASK}_{len(questions) + 1}", task=TASK, prompt=prompt, choices=choices,
            gold=letters[gold], source=QuestionSource(benchmark=source.name, split="val"),
            question="Which image shows the same object as the first image?", sub_task="", _images=images,
            changed=tuple(p for p, _ in candidates), object_ids=(target, *(o for _, o in candidates)),
        ))
    return questions
