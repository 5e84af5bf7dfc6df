import pytest

from adapters.core.scoring import bootstrap_ci, macro_micro, stable_seed, summarise_task


def test_bootstrap_ci_degenerate_and_empty():
    assert bootstrap_ci([True] * 10, seed=1) == (1.0, 1.0)
    assert bootstrap_ci([], seed=1) is None


def test_bootstrap_ci_is_seeded_and_matches_binomial_width():
    correct = [True] * 60 + [False] * 40
    lo, hi = bootstrap_ci(correct, seed=7)
    assert (lo, hi) == bootstrap_ci(correct, seed=7)
    assert lo < 0.6 < hi
    # normal approximation: 0.6 +- 1.96 * sqrt(0.24 / 100) = [0.504, 0.696]
    assert lo == pytest.approx(0.504, abs=0.02) and hi == pytest.approx(0.696, abs=0.02)


def test_stable_seed_is_deterministic_and_distinct():
    assert stable_seed(0, "Relative_Depth") == stable_seed(0, "Relative_Depth")
    assert stable_seed(0, "Relative_Depth") != stable_seed(1, "Relative_Depth")


def test_summary_counts_hidden_errors_and_abstentions():
    samples = [
        {"gold": "A", "correct": True, "status": "ok", "n_choices": 2, "decision": {"tie": True}},
        {"gold": "B", "correct": False, "status": "error", "n_choices": 2, "decision": None},
        {"gold": "A", "correct": False, "status": "abstained", "n_choices": 4, "decision": {"tie": False}},
        {"gold": None, "correct": None, "status": "ok", "n_choices": 2, "decision": {"tie": False}},
    ]
    s = summarise_task(samples)
    assert (s["n"], s["correct"], s["errors"], s["abstained"], s["unscored"], s["ties"]) == (3, 1, 1, 1, 1, 1)
    assert s["accuracy"] == pytest.approx(1 / 3)
    assert s["expected_random"] == pytest.approx((0.5 + 0.5 + 0.25) / 3)


def test_macro_is_unweighted_micro_is_pooled():
    tasks = {"a": {"n": 10, "correct": 10, "accuracy": 1.0}, "b": {"n": 30, "correct": 0, "accuracy": 0.0},
             "hidden": {"n": 0, "correct": 0, "accuracy": None}}
    assert macro_micro(tasks) == (0.5, 0.25)
    assert macro_micro({}) == (None, None)


def test_wilson_interval_stays_informative_at_the_extremes():
    from adapters.core.scoring import wilson_ci

    lo, hi = wilson_ci([True] * 30)
    assert hi == 1.0 and 0.88 < lo < 0.89  # the percentile bootstrap gave [1.0, 1.0]
    lo, hi = wilson_ci([False] * 30)
    assert lo == 0.0 and 0.11 < hi < 0.12
    lo, hi = wilson_ci([True, False] * 50)  # p = 0.5, n = 100: 0.5 -+ 0.096
    assert abs(lo - 0.4038) < 1e-3 and abs(hi - 0.5962) < 1e-3
    assert wilson_ci([]) is None
    for n in range(1, 60):  # rounding never leaves p outside its interval (0 of 10 gave lo = 3e-17)
        for k in (0, n // 3, n):
            lo, hi = wilson_ci([True] * k + [False] * (n - k))
            assert lo <= k / n <= hi


def test_macro_interval_resamples_within_tasks():
    from adapters.core.scoring import macro_bootstrap_ci

    assert macro_bootstrap_ci({"A": [True] * 10, "B": [False] * 10}, seed=0) == (0.5, 0.5)
    lo, hi = macro_bootstrap_ci({"A": [True, False] * 20, "B": [True] * 40}, seed=0)
    assert lo < 0.75 < hi and hi <= 1.0
    assert macro_bootstrap_ci({}, seed=0) is None


def test_a_failed_question_without_a_usable_answer_counts_wrong_and_only_hidden_ones_are_unscored():
    samples = [
        {"gold": "A", "correct": True, "status": "ok", "n_choices": 2},
        {"gold": None, "correct": False, "status": "error", "n_choices": None},  # its row gave no answer
        {"gold": None, "correct": None, "status": "error", "n_choices": None},  # the test split's: hidden
    ]
    summary = summarise_task(samples)
    assert (summary["n"], summary["accuracy"], summary["errors"], summary["unscored"]) == (2, 0.5, 2, 1)
    assert summary["expected_random"] == 0.5  # from the question whose option count is known
    assert summarise_task(samples[1:2])["expected_random"] is None
