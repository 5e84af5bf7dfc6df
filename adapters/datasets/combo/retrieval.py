"""Prototype retrieval ("clustering & retrieval" in ComBo): the mean of each category's
L2-normalised support embeddings is its prototype; the query goes to the prototype with the
highest cosine similarity."""

from __future__ import annotations

from typing import Sequence

import torch
import torch.nn.functional as F


def prototypes(supports: Sequence[torch.Tensor]) -> torch.Tensor:
    """Per category (k_i, D) support embeddings -> (C, D) unit-length prototypes."""
    if not supports or any(s.ndim != 2 or len(s) == 0 for s in supports):
        raise ValueError("each category needs a non-empty (k, D) tensor of support embeddings, got shapes "
                         f"{[tuple(s.shape) for s in supports]}")
    means = torch.stack([F.normalize(s.float(), dim=1).mean(dim=0) for s in supports])
    return F.normalize(means, dim=1)


def prototype_scores(supports: Sequence[torch.Tensor], query: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of a (D,) query embedding to each category's prototype -> (C,)."""
    if query.ndim != 1:
        raise ValueError(f"query must be one (D,) embedding, got shape {tuple(query.shape)}")
    return prototypes(supports) @ F.normalize(query.float(), dim=0)
