"""Rule-defined categories over ComBo's factors ("primary is a red cube") and random pairs of
disjoint categories, the raw material of Category Building questions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from adapters.datasets.combo.factors import FACTOR_NAMES, ComboObject, FactorTable

# Factors a rule may constrain. Colour and material are constrained separately, so "metal" and
# "red" are each a category, as in ComBo's abstract categories.
RULE_FACTORS = FACTOR_NAMES


@dataclass(frozen=True)
class CategoryRule:
    """A category: the objects whose factors equal all `constraints` ((factor, value) pairs)."""

    constraints: tuple[tuple[str, str], ...]

    def matches(self, obj: ComboObject) -> bool:
        return all(getattr(obj, factor) == value for factor, value in self.constraints)

    def members(self, table: FactorTable) -> list[int]:
        return [obj.object_id for obj in table.all_objects if self.matches(obj)]

    def describe(self) -> str:
        return " and ".join(f"{factor.replace('_', ' ')} is {value.replace('_', ' ')}"
                            for factor, value in self.constraints)


def random_category_pair(table: FactorTable, rng: np.random.Generator,
                         max_factors: int = 2) -> tuple[CategoryRule, CategoryRule]:
    """Two disjoint categories constraining the same 1..max_factors factors, with values that
    differ on at least one of them (so no object belongs to both)."""
    varying = [f for f in RULE_FACTORS if len(table.values(f)) > 1]
    if not varying:
        raise ValueError(f"factor table {table.source} has no factor with two values; no categories to build")
    n = int(rng.integers(1, min(max_factors, len(varying)) + 1))
    factors = [varying[i] for i in sorted(rng.choice(len(varying), size=n, replace=False))]
    while True:
        a = tuple((f, str(rng.choice(table.values(f)))) for f in factors)
        b = tuple((f, str(rng.choice(table.values(f)))) for f in factors)
        if a != b:
            return CategoryRule(a), CategoryRule(b)
