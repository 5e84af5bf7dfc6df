"""Names and answers written into reports stay data: one Markdown cell, one inert CSV cell."""

import pytest

from adapters.core.cells import csv_cell, csv_row, markdown_cell


@pytest.mark.parametrize(
    "value, cell",
    [
        ("GPT4o", "GPT4o"),
        ("a|b", "a\\|b"),
        ("two\nlines\r\nthree\rfour", "two lines three four"),
        ("`code`", "\\`code\\`"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("R&D", "R&amp;D"),
        ("back\\slash|", "back\\\\slash\\|"),  # an escaped pipe in the data stays escaped, not a column
        (3, "3"),
        (None, "None"),
    ],
)
def test_markdown_cell(value, cell):
    assert markdown_cell(value) == cell


@pytest.mark.parametrize(
    "value, cell",
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+cmd", "'+1+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("(A) text", "(A) text"),
        ("a=b", "a=b"),
        (-0.5, -0.5),  # numbers stay numbers
        (-3, -3),
        (None, None),
    ],
)
def test_csv_cell(value, cell):
    assert csv_cell(value) == cell


def test_csv_row_defuses_every_text_cell():
    assert csv_row({"model": "=1+1", "accuracy": -0.25, "n": 4}) == {"model": "'=1+1", "accuracy": -0.25, "n": 4}


def unescaped_pipes(line):
    import re

    return len(re.findall(r"(?<!\\)\|", line))


def test_benchmark_tables_keep_names_and_categories_as_data():
    from adapters.datasets.blink_twice.metrics import blink_twice_metrics
    from adapters.datasets.combo.evaluation import markdown_table
    from adapters.report.benchmark_report import metrics_lines

    samples = [{"correct": True, "gold": "A", "n_choices": 2, "meta": {"image": "i1", "category": "cat|x\n| row |"}},
               {"correct": False, "gold": "B", "n_choices": 2, "meta": {"image": "i1", "category": "cat|x\n| row |"}}]
    lines = metrics_lines("blink-twice", [blink_twice_metrics(samples)], ["m|<b>"])
    text = "\n".join(lines)
    assert "| row |" not in text.replace("\\| row \\|", "") and "<b>" not in text
    for table in text.split("\n\n"):
        assert len({unescaped_pipes(line) for line in table.splitlines() if line.startswith("|")}) <= 1
    level = {"n": 1, "accuracy": 1.0, "ci95": None, "errors": 0}
    combo = markdown_table({"x|y\nz": dict.fromkeys(("easy", "medium", "hard", "expert"), level)}, False)
    assert len({unescaped_pipes(line) for line in combo.splitlines()}) == 1
