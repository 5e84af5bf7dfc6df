"""Category Building difficulty, as ComBo defines it: features of both categories' images ->
PCA -> one Gaussian per category -> Wasserstein-2 distance between the Gaussians; the nearer
the two categories, the harder the question. Distances are bucketed into easy / medium / hard /
expert by quantiles of the candidate pairs' distances.

Why by hand: the closed-form W2 between Gaussians needs a PSD matrix square root, which numpy
has only through `eigh` (scipy is not a dependency); PCA is an SVD, also numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LEVELS = ("easy", "medium", "hard", "expert")


def pca_project(features: np.ndarray, n_components: int) -> np.ndarray:
    """(N, D) features -> (N, k) coordinates on the top k = min(n_components, N-1, D) principal
    axes of these features (centred on their mean)."""
    if features.ndim != 2 or len(features) < 2:
        raise ValueError(f"PCA needs (N>=2, D) features, got shape {features.shape}")
    centred = features - features.mean(axis=0, keepdims=True)
    k = max(1, min(n_components, len(features) - 1, features.shape[1]))
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:k].T


@dataclass(frozen=True)
class Gaussian:
    """mean (k,), cov (k, k)."""

    mean: np.ndarray
    cov: np.ndarray

    @classmethod
    def fit(cls, points: np.ndarray, ridge: float = 1e-6) -> "Gaussian":
        """Fit to (N, k) points; `ridge` keeps the covariance positive definite for small N."""
        if points.ndim != 2 or len(points) < 2:
            raise ValueError(f"fitting a Gaussian needs (N>=2, k) points, got shape {points.shape}")
        cov = np.cov(points, rowvar=False).reshape(points.shape[1], points.shape[1])
        return cls(points.mean(axis=0), cov + ridge * np.eye(points.shape[1]))


def _psd_sqrt(matrix: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return (vectors * np.sqrt(np.clip(values, 0, None))) @ vectors.T


def wasserstein2(a: Gaussian, b: Gaussian) -> float:
    """Closed-form W2 distance between two Gaussians:
    W2^2 = |m_a - m_b|^2 + tr(S_a + S_b - 2 (S_b^1/2 S_a S_b^1/2)^1/2)."""
    root_b = _psd_sqrt(b.cov)
    cross = _psd_sqrt(root_b @ a.cov @ root_b)
    squared = float(np.sum((a.mean - b.mean) ** 2) + np.trace(a.cov + b.cov - 2 * cross))
    return float(np.sqrt(max(squared, 0.0)))


def category_distance(features_a: np.ndarray, features_b: np.ndarray, n_components: int = 8) -> float:
    """W2 distance between two categories: (Na, D) and (Nb, D) features, PCA fitted on both
    together (so the two Gaussians live in one space), one Gaussian per category."""
    projected = pca_project(np.vstack([features_a, features_b]), n_components)
    return wasserstein2(Gaussian.fit(projected[: len(features_a)]), Gaussian.fit(projected[len(features_a):]))


def level_thresholds(distances: np.ndarray) -> np.ndarray:
    """The 3 distance cut points (descending) that split candidate pairs into four equal groups."""
    if len(distances) < 4:
        raise ValueError(f"bucketing into {len(LEVELS)} levels needs at least 4 candidate distances, "
                         f"got {len(distances)}")
    return np.quantile(distances, [0.75, 0.5, 0.25])


def level_of(distance: float, thresholds: np.ndarray) -> str:
    """Far apart = easy ... nearly the same distribution = expert."""
    for level, cut in zip(LEVELS, thresholds):
        if distance >= cut:
            return level
    return LEVELS[-1]
