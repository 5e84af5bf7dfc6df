import numpy as np
import pytest

from adapters.datasets.combo.difficulty import (
    LEVELS,
    Gaussian,
    category_distance,
    level_of,
    level_thresholds,
    wasserstein2,
)


def test_w2_matches_the_one_dimensional_closed_form():
    a = Gaussian(np.array([1.0]), np.array([[4.0]]))
    b = Gaussian(np.array([-2.0]), np.array([[1.0]]))
    # 1-D: W2^2 = (m_a - m_b)^2 + (s_a - s_b)^2
    assert wasserstein2(a, b) == pytest.approx(np.sqrt(9 + 1))
    assert wasserstein2(a, a) == pytest.approx(0, abs=1e-6)


def test_w2_of_commuting_covariances():
    a = Gaussian(np.zeros(2), np.diag([4.0, 9.0]))
    b = Gaussian(np.array([3.0, 4.0]), np.diag([1.0, 1.0]))
    assert wasserstein2(a, b) == pytest.approx(np.sqrt(25 + 1 + 4))


def test_levels_follow_separation_on_constructed_gaussians():
    rng = np.random.default_rng(0)
    separations = np.linspace(0.0, 6.0, 16)
    distances = []
    for s in separations:
        a = rng.normal(size=(200, 10))
        b = rng.normal(size=(200, 10))
        b[:, 0] += s
        distances.append(category_distance(a, b, n_components=4))
    assert np.all(np.diff(distances[2:]) > 0)  # beyond sampling noise, farther = larger W2
    thresholds = level_thresholds(np.array(distances))
    levels = [level_of(d, thresholds) for d in distances]
    assert levels[0] == "expert" and levels[-1] == "easy"
    ranks = [LEVELS.index(level) for level in levels]
    assert ranks == sorted(ranks, reverse=True) and [ranks.count(i) for i in range(4)] == [4, 4, 4, 4]
