import math

import pytest

from adapters.core.questions import Decision, MCQuestion, QuestionSource, letters_for, option_lines, parse_gold

SOURCE = QuestionSource("blink", "val")


@pytest.mark.parametrize("raw, letter", [("(A)", "A"), (" (C) ", "C"), ("hidden", None), ("HIDDEN", None), (None, None)])
def test_parse_gold(raw, letter):
    assert parse_gold(raw) == letter


@pytest.mark.parametrize("raw", ["A", "(a)", "(AB)", "B is closer"])
def test_parse_gold_rejects_malformed(raw):
    with pytest.raises(ValueError, match="expected an answer"):
        parse_gold(raw)


def test_letters_and_options():
    assert letters_for(3) == ("A", "B", "C")
    assert option_lines(["left", "right"]) == "(A) left\n(B) right"
    with pytest.raises(ValueError):
        letters_for(0)


def test_decision_argmax_tie_and_nan():
    assert Decision.from_scores({"A": 0.1, "B": 0.9}, "r").pred == "B"
    tie = Decision.from_scores({"A": 0.5, "B": 0.5, "C": 0.1}, "r")
    assert (tie.pred, tie.tie) == ("A", True)
    nan = Decision.from_scores({"A": math.nan, "B": 0.2}, "r")
    assert (nan.pred, nan.tie) == ("B", False)
    abstain = Decision.from_scores({"A": math.nan, "B": math.nan}, "r")
    assert abstain.abstained and abstain.pred is None
    assert abstain.to_json()["scores"] == {"A": None, "B": None}


def test_decision_rejects_inconsistent_abstention():
    with pytest.raises(ValueError):
        Decision({"A": 1.0}, None, "r", abstained=False)


def test_question_checks_gold_against_options():
    q = MCQuestion("val_Relative_Depth_1", "Relative_Depth", "p", ("A is closer", "B is closer"), "B", SOURCE)
    assert q.letters == ("A", "B") and q.choice_text("B") == "B is closer"
    with pytest.raises(ValueError, match="not one of the options"):
        MCQuestion("val_Relative_Depth_2", "Relative_Depth", "p", ("x", "y"), "C", SOURCE)
