"""The one JSON Lines parser the question and prediction readers share."""

import pytest

from adapters.core.json_lines import json_lines


class BadFile(ValueError):
    pass


def test_rows_come_with_their_line_numbers_and_blank_lines_are_passed_over():
    text = '{"idx": "a", "answer": "(A)"}\n\n  \n{"idx": "b"}\n'
    assert list(json_lines(text, "preds.jsonl", BadFile)) == [(1, {"idx": "a", "answer": "(A)"}), (4, {"idx": "b"})]


def test_a_broken_line_names_the_file_and_line_and_what_to_do():
    with pytest.raises(BadFile, match=r"^preds\.jsonl:2: not valid JSON .*; download it again$"):
        list(json_lines('{"idx": "a"}\n{"idx": \n', "preds.jsonl", BadFile, fix="download it again"))


def test_a_value_that_is_not_an_object_is_refused_unless_any_value_is_asked_for():
    with pytest.raises(BadFile, match=r"^p\.jsonl:1: expected one JSON object per line, got list$"):
        list(json_lines("[1, 2]\n", "p.jsonl", BadFile))
    assert list(json_lines("[1, 2]\n7\n", "p.jsonl", BadFile, objects=False)) == [(1, [1, 2]), (2, 7)]
