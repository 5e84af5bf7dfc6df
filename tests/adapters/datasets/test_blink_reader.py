import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from blink_fixture import FIXTURE_TASKS, make_blink_fixture, random_image

from adapters.core.questions import BrokenQuestion, ImageDecodeError, MCQuestion
from adapters.core.tasks import UnknownTaskError
from adapters.datasets.blink.answers import AnswersFileError, load_answers
from adapters.datasets.blink.reader import BlinkFormatError, BlinkReader, resolve_blink_root
from adapters.datasets.blink.writer import BlinkRow, write_blink_folder


def test_reads_every_task_question_and_image(tmp_path):
    rows = make_blink_fixture(tmp_path / "b", n_per_task=3)
    reader = BlinkReader(tmp_path / "b", "val")
    assert sorted(reader.tasks) == sorted(FIXTURE_TASKS)
    gold = {row.idx("val"): row.answer for row in rows}
    for task in reader.tasks:
        questions = list(reader.questions(task))
        assert len(questions) == reader.count(task) == 3
        for q in questions:
            assert isinstance(q, MCQuestion) and q.task == task
            assert q.gold == gold[q.idx]
            assert len(q.images) == FIXTURE_TASKS[task][0]
            assert q.images[0].mode == "RGB" and q.images[0].size == (32, 24)
            assert "Select from the following choices." in q.prompt


def test_limit_and_task_spellings(blink_root):
    reader = BlinkReader(blink_root, "val", tasks=["relative depth"])
    assert reader.tasks == ["Relative_Depth"]
    assert [q.idx for q in reader.questions("Relative_Depth", limit=2)] == [
        "val_Relative_Depth_1",
        "val_Relative_Depth_2",
    ]


def test_unknown_task_suggests_close_names(blink_root):
    with pytest.raises(UnknownTaskError, match="Did you mean Relative_Depth"):
        BlinkReader(blink_root, "val", tasks=["Relative_Dept"])


def test_task_without_file_names_expected_path(blink_root):
    with pytest.raises(BlinkFormatError, match=r"Counting.*val-\*\.parquet"):
        BlinkReader(blink_root, "val", tasks=["Counting"])


def test_unknown_task_folder_is_named(blink_root):
    (blink_root / "Not_A_Task").mkdir()
    (blink_root / "Relative_Depth" / "val-00000-of-00001.parquet").rename(
        blink_root / "Not_A_Task" / "val-00000-of-00001.parquet"
    )
    with pytest.raises(BlinkFormatError, match="Not_A_Task.*not a BLINK task"):
        BlinkReader(blink_root, "val")


def test_missing_column_names_file(blink_root):
    path = blink_root / "Relative_Depth" / "val-00000-of-00001.parquet"
    pq.write_table(pq.read_table(path).drop(["choices"]), path)
    with pytest.raises(BlinkFormatError, match=r"Relative_Depth.*val-00000-of-00001\.parquet: missing column\(s\) choices"):
        BlinkReader(blink_root, "val")


def test_corrupt_image_fails_only_its_question(tmp_path):
    rows = [
        BlinkRow("Relative_Depth", 1, "q?", ("A", "B"), "A", [random_image(__import__("numpy").random.default_rng(0))]),
        BlinkRow("Relative_Depth", 2, "q?", ("A", "B"), "B", [b"\x89PNG\r\n\x1a\nnot really a png"]),
    ]
    write_blink_folder(tmp_path, rows)
    good, bad = BlinkReader(tmp_path, "val").questions("Relative_Depth")
    assert good.images and bad.gold == "B"
    with pytest.raises(ImageDecodeError, match="val_Relative_Depth_2: image_1 could not be decoded"):
        bad.images


def test_malformed_row_becomes_broken_question(blink_root):
    path = blink_root / "Relative_Depth" / "val-00000-of-00001.parquet"
    table = pq.read_table(path).to_pylist()
    table[1]["answer"] = "B is closer"
    table[2]["idx"] = "val_Counting_7"
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(path)), path)
    questions = list(BlinkReader(blink_root, "val").questions("Relative_Depth"))
    assert isinstance(questions[0], MCQuestion)
    assert isinstance(questions[1], BrokenQuestion) and "expected an answer" in questions[1].error
    assert isinstance(questions[2], BrokenQuestion) and "does not belong to val/Relative_Depth" in questions[2].error


def test_hidden_answers_give_no_gold(tmp_path):
    make_blink_fixture(tmp_path, split="test", hidden=True)
    reader = BlinkReader(tmp_path, "test")
    assert all(q.gold is None for task in reader.tasks for q in reader.questions(task))


def test_answers_override_and_version(tmp_path, blink_root):
    override = tmp_path / "corrected.json"
    override.write_text(json.dumps({"val_Relative_Reflectance_1": "(C)"}))
    answers = load_answers(override)
    reader = BlinkReader(blink_root, "val", answers=answers)
    q = next(reader.questions("Relative_Reflectance"))
    assert q.gold == "C"
    assert q.source.answers.name == "corrected.json" and len(q.source.answers.sha256) == 64
    assert answers.version.n_entries == 1 and reader.overridden_ids == {"val_Relative_Reflectance_1"}


def test_bad_answers_file_lists_bad_entries(tmp_path):
    bad = tmp_path / "a.json"
    bad.write_text(json.dumps({"val_X_1": "A", "val_X_2": "(B)"}))
    with pytest.raises(AnswersFileError, match="val_X_1: 'A'"):
        load_answers(bad)
    with pytest.raises(AnswersFileError, match="does not exist"):
        load_answers(tmp_path / "missing.json")


def test_hub_cache_snapshot_and_env_root(tmp_path, monkeypatch):
    repo = tmp_path / "hub" / "datasets--BLINK-Benchmark--BLINK"
    make_blink_fixture(repo / "snapshots" / "abc123")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    assert resolve_blink_root(tmp_path / "hub") == repo / "snapshots" / "abc123"
    assert resolve_blink_root(repo) == repo / "snapshots" / "abc123"
    monkeypatch.setenv("BLINK_ROOT", str(repo))
    assert BlinkReader(None, "val").root == repo / "snapshots" / "abc123"
    monkeypatch.delenv("BLINK_ROOT")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "none"))
    assert resolve_blink_root(None) == repo / "snapshots" / "abc123"


def test_datasets_arrow_cache(tmp_path, blink_root):
    """The `datasets` library cache: {Task}/0.0.0/<hash>/blink-val.arrow (arrow stream files)."""
    cache = tmp_path / "BLINK-Benchmark___blink"
    for task in FIXTURE_TASKS:
        table = pq.read_table(blink_root / task / "val-00000-of-00001.parquet")
        target = cache / task / "0.0.0" / "f00d" / "blink-val.arrow"
        target.parent.mkdir(parents=True)
        with pa.OSFile(str(target), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    reader = BlinkReader(tmp_path, "val")
    assert reader.root == cache
    assert reader.count("Relative_Depth") == 4
    assert [q.gold for q in reader.questions("Relative_Depth")] == [
        q.gold for q in BlinkReader(blink_root, "val").questions("Relative_Depth")
    ]


def test_no_data_anywhere_names_places(tmp_path, monkeypatch):
    monkeypatch.delenv("BLINK_ROOT", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "ds"))
    with pytest.raises(BlinkFormatError, match=r"looked in: .*hub.*ds.*--blink-root"):
        resolve_blink_root(None)


def test_a_repeated_question_id_is_refused_naming_file_and_id(tmp_path):
    """Counted twice by a run and once by compare, a duplicate would give two accuracies."""
    image = random_image(np.random.default_rng(0))
    rows = [BlinkRow("Relative_Depth", n, "Which point is closer?", ("A is closer", "B is closer"), "A", [image])
            for n in (1, 2)]
    write_blink_folder(tmp_path, rows)
    (path,) = (tmp_path / "Relative_Depth").glob("val-*.parquet")
    table = pq.read_table(path)
    pq.write_table(pa.concat_tables([table, table.slice(1, 1)]), path)  # question 2 again
    with pytest.raises(BlinkFormatError, match=r"'val_Relative_Depth_2' appears twice in .*val-.*\.parquet"):
        BlinkReader(tmp_path, "val")


def test_a_bad_gold_from_the_answers_file_names_the_answers_file(tmp_path, blink_root):
    override = tmp_path / "fixed.json"
    override.write_text(json.dumps({"val_Relative_Depth_1": "(C)"}))  # Relative_Depth has two options
    reader = BlinkReader(blink_root, "val", ["Relative_Depth"], answers=load_answers(override))
    first = next(reader.questions("Relative_Depth"))
    assert isinstance(first, BrokenQuestion)
    assert "answers file fixed.json" in first.error and "2 options" in first.error and ".parquet" not in first.error


def test_answers_naming_no_question_read_are_counted(tmp_path, blink_root):
    override = tmp_path / "fixed.json"
    override.write_text(json.dumps({"val_Relative_Depth_1": "(B)", "val_Relative_Depth_999": "(A)",
                                    "not_an_id": "(A)", "val_Counting_1": "(A)"}))
    reader = BlinkReader(blink_root, "val", ["Relative_Depth"], answers=load_answers(override))
    # Counting is not read here, so its id is not unknown; the typo and the missing number are
    assert reader.unknown_answer_ids() == ["not_an_id", "val_Relative_Depth_999"]


@pytest.mark.parametrize("idx", ["val_Relative_Depth_1\n", "val_Relative_Depth_\u0661", "val_Relative_Depth_1 ",
                                 "xval_Relative_Depth_1"])
def test_question_ids_match_whole_and_in_ascii_digits(idx):
    from adapters.core.tasks import task_from_idx

    with pytest.raises(ValueError, match="is not of the form"):
        task_from_idx(idx)
    assert task_from_idx("val_Relative_Depth_12") == ("val", "Relative_Depth")


def test_an_id_with_a_trailing_newline_is_a_broken_question(blink_root):
    path = blink_root / "Relative_Depth" / "val-00000-of-00001.parquet"
    table = pq.read_table(path).to_pylist()
    table[0]["idx"] = "val_Relative_Depth_1\n"
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(path)), path)
    first = next(BlinkReader(blink_root, "val").questions("Relative_Depth"))
    assert isinstance(first, BrokenQuestion) and "is not of the form" in first.error and first.gold is not None
    assert "\n" not in first.error  # the id is quoted, so the error stays one line


@pytest.mark.parametrize("choices, message", [
    ("AB", "choices must be a list of option texts, got str 'AB'"),
    ((), "the choices list is empty"),
    (("left", None), "choices must be texts, got NoneType None among them"),
    ({"A": "left"}, "choices must be a list of option texts, got dict"),
])
def test_malformed_choices_are_refused(choices, message):
    from adapters.core.questions import QuestionSource

    with pytest.raises(ValueError, match=message):
        MCQuestion("val_Relative_Depth_1", "Relative_Depth", "p", choices, None, QuestionSource("blink", "val"))


def test_an_empty_answer_is_malformed_on_val_and_hidden_on_test(tmp_path):
    for split in ("val", "test"):
        make_blink_fixture(tmp_path / split, split=split)
        path = tmp_path / split / "Relative_Depth" / f"{split}-00000-of-00001.parquet"
        table = pq.read_table(path).to_pylist()
        table[0]["answer"] = ""
        pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(path)), path)
    on_val = next(BlinkReader(tmp_path / "val", "val").questions("Relative_Depth"))
    assert isinstance(on_val, BrokenQuestion) and not on_val.answer_hidden
    assert "no answer (the answer column holds '')" in on_val.error
    on_test = next(BlinkReader(tmp_path / "test", "test").questions("Relative_Depth"))
    assert isinstance(on_test, MCQuestion) and on_test.gold is None


def test_an_answers_file_giving_one_id_twice_is_refused(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"val_Relative_Depth_1": "(A)", "val_Relative_Depth_1": "(B)"}')
    with pytest.raises(AnswersFileError, match="val_Relative_Depth_1 is given twice \\('\\(A\\)' and '\\(B\\)'\\)"):
        load_answers(path)
