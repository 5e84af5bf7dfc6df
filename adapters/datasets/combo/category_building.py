"""Category Building questions: two rule-defined categories, k support images of each, one
query image; which category does the query belong to? Difficulty per question from the
Wasserstein-2 distance between the two categories' feature Gaussians (difficulty.py).

The feature extractor behind the difficulty is a parameter: ComBo used CLIP features; the
weight-free default here is the image itself shrunk to 16x16 (colour layout), which needs no
weights and orders pairs by how different they look.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import cv2
import numpy as np
from PIL import Image

from adapters.core.questions import MCQuestion, QuestionSource
from adapters.datasets.combo.categories import CategoryRule, random_category_pair
from adapters.datasets.combo.difficulty import LEVELS, category_distance, level_of, level_thresholds
from adapters.datasets.combo.factors import FactorTable
from adapters.datasets.combo.sources import ImageSource

CHOICES = ("the first category", "the second category")
FeatureFn = Callable[[Sequence[np.ndarray]], np.ndarray]


def task_name(level: str) -> str:
    """The results.json task of one difficulty level: Category_Building_easy ... _expert."""
    if level not in LEVELS:
        raise ValueError(f"unknown Category Building level {level!r}; levels are {', '.join(LEVELS)}")
    return f"Category_Building_{level}"


def pixel_features(images: Sequence[np.ndarray]) -> np.ndarray:
    """Weight-free features: each (H, W, 3) uint8 image shrunk to 16x16 -> (N, 768) in [0, 1]."""
    return np.stack([cv2.resize(im, (16, 16), interpolation=cv2.INTER_AREA).reshape(-1) / 255.0
                     for im in images]).astype(np.float64)


@dataclass
class CategoryBuildingQuestion(MCQuestion):
    """An MCQuestion whose images are: support_counts[0] images of the first category, then
    support_counts[1] of the second, then the query (last)."""

    support_counts: tuple[int, int] = (0, 0)
    level: str = ""
    distance: float = float("nan")
    rules: tuple[str, str] = field(default=("", ""))

    def supports_and_query(self) -> tuple[list[list[Image.Image]], Image.Image]:
        images = self.images
        k1, k2 = self.support_counts
        if len(images) != k1 + k2 + 1:
            raise ValueError(f"{self.idx}: expected {k1 + k2 + 1} images (supports + query), got {len(images)}")
        return [images[:k1], images[k1:k1 + k2]], images[-1]


@dataclass(frozen=True)
class CategoryBuildingConfig:
    """n_per_level: questions per difficulty level; k_support: support images per category;
    n_difficulty_images: images per category for its Gaussian; pca_components: PCA size."""

    n_per_level: int = 25
    k_support: int = 5
    n_difficulty_images: int = 12
    pca_components: int = 8
    max_rule_factors: int = 2
    seed: int = 0


def _pair_with_members(table: FactorTable, source: ImageSource, rng: np.random.Generator, need: int,
                       max_factors: int) -> tuple[tuple[CategoryRule, CategoryRule], tuple[list[int], list[int]]]:
    for _ in range(1000):
        rules = random_category_pair(table, rng, max_factors)
        members = tuple([i for i in rule.members(table) if source.has(i)] for rule in rules)
        if all(len(m) >= need for m in members):
            return rules, members
    raise ValueError(f"could not find two categories with at least {need} objects each in {source.name}; "
                     "the folder holds too few objects for this many support images (lower k_support)")


def build_category_building(source: ImageSource, table: FactorTable, config: CategoryBuildingConfig,
                            feature_fn: FeatureFn = pixel_features) -> list[CategoryBuildingQuestion]:
    """4 x n_per_level questions: 4 x n_per_level random category pairs, ranked by W2 distance
    into quartiles (far = easy ... near = expert), one question per pair with a random query
    category. Deterministic in (config.seed, source)."""
    rng = np.random.default_rng([config.seed, 0xC0B0])
    n_pairs = len(LEVELS) * config.n_per_level
    pairs, distances = [], []
    for _ in range(n_pairs):
        rules, members = _pair_with_members(table, source, rng, config.k_support + 1, config.max_rule_factors)
        feats = [feature_fn([source.sample_image(int(rng.choice(m)), rng) for _ in range(config.n_difficulty_images)])
                 for m in members]
        pairs.append((rules, members))
        distances.append(category_distance(feats[0], feats[1], config.pca_components))
    thresholds = level_thresholds(np.array(distances))
    questions: list[CategoryBuildingQuestion] = []
    counters = dict.fromkeys(LEVELS, 0)
    for (rules, members), distance in zip(pairs, distances):
        level = level_of(distance, thresholds)
        gold_index = int(rng.integers(2))
        # Support and query objects are distinct objects of their category (a query is never
        # one of the support objects seen from another view).
        picks = [list(rng.choice(m, size=config.k_support + (1 if c == gold_index else 0), replace=False))
                 for c, m in enumerate(members)]
        query_id = picks[gold_index].pop()
        arrays = [source.sample_image(int(i), rng) for i in picks[0] + picks[1]] + [source.sample_image(int(query_id), rng)]
        images = [Image.fromarray(a) for a in arrays]
        task = task_name(level)
        counters[level] += 1
        k = config.k_support
        prompt = (f"The first {k} images show objects of the first category, the next {k} images objects of the "
                  "second category. Which category does the last image belong to?\n"
                  f"(A) {CHOICES[0]}\n(B) {CHOICES[1]}")
        questions.append(CategoryBuildingQuestion(
            idx=f"{source.name}_{task}_{counters[level]}", task=task, prompt=prompt, choices=CHOICES,
            gold="AB"[gold_index], source=QuestionSource(benchmark=source.name, split="val"),
            question="Which category does the last image belong to?", sub_task=level, _images=images,
            support_counts=(k, k), level=level, distance=float(distance),
            rules=(rules[0].describe(), rules[1].describe()),
        ))
    return questions
