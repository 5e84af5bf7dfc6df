"""MLLM prediction importers (each format written here by the test) and answer normalisation."""

import csv
import json
import re

import pytest

from adapters.report.mllm import MLLMFormatError, load_all, load_predictions
from adapters.report.mllm_answers import normalise_answer, read_letter

ABCD = ("A", "B", "C", "D")


@pytest.mark.parametrize(
    "raw, form, lenient, exact",
    [
        ("A", "exact", "A", "A"),
        ("(B)", "exact", "B", "B"),
        ("  (C)\n", "exact", "C", "C"),
        ("(A) A is closer", "with_text", "A", None),
        ("(C) About the same", "with_text", "C", None),
        ("B. Point B", "with_text", "B", None),
        ("D) the fourth", "with_text", "D", None),
        ("A.", "wrapped", "A", None),
        ("Answer: A", "wrapped", "A", None),
        ("answer: (b)", "wrapped", "B", None),
        ("The answer is C.", "wrapped", "C", None),
        ("(Z)", "out_of_options", None, None),  # BLINK's could-not-parse marker
        ("(E)", "out_of_options", None, None),
        ("(F) something", "out_of_options", None, None),
        ("(a)", "wrapped", "A", None),  # a lower-case letter in its parentheses is an answer
        ("(B) or (A)", "several_options", None, None),  # naming two options answers nothing
        ("(A) is wrong; (B)", "several_options", None, None),
        ("(C) Point C, not (C) twice", "with_text", "C", None),  # the same option again is still one
        # a model listing the options names them all: no answer, in every form the parser reads
        ("A. A is closer\nB. B is closer", "several_options", None, None),
        ("A) red\nB) blue\nC) green", "several_options", None, None),
        ("A) red B) blue C) green", "several_options", None, None),
        ("A: red\nB: blue", "several_options", None, None),
        ("(A) red\n(B) blue", "several_options", None, None),
        ("(A) red\nAnswer: B", "several_options", None, None),
        ("Answer: A. red\nC. green", "several_options", None, None),
        # one answer restating its option, or explaining with words that are not answer forms
        ("(A) A is closer", "with_text", "A", None),
        ("The answer is B) blue", "with_text", "B", None),
        ("Answer: (B) blue", "with_text", "B", None),
        ("(B) Box B\n\nBox B encloses it; box A misses the top (point A) region.", "with_text", "B", None),
        ("B. Point B\n\nI think so.\nII. more", "with_text", "B", None),  # I, II: not options here
        ("(A) yes, the answer is not B", "with_text", "A", None),
        ("a", "unparsed", None, None),  # lower-case bare letters are words, not answers
        ("A is closer", "unparsed", None, None),  # no delimiter: never guessed
        ("I think the first one", "unparsed", None, None),
        ("", "unparsed", None, None),
        (None, "missing", None, None),
        (3, "unparsed", None, None),
    ],
)
def test_normalisation_table(raw, form, lenient, exact):
    got = normalise_answer(raw, ABCD, "lenient")
    assert (got.form, got.letter) == (form, lenient)
    assert normalise_answer(raw, ABCD, "exact").letter == exact


def test_an_option_named_by_its_text_is_a_second_option():
    texts = {"A": "A is closer", "B": "B is closer"}
    assert normalise_answer("(A) A is closer\nB is closer", ("A", "B"), "lenient", texts).form == "several_options"
    assert normalise_answer("(A) B is closer", ("A", "B"), "lenient", texts).form == "several_options"
    assert normalise_answer("(A) A is closer\n\nA is closer.", ("A", "B"), "lenient", texts).letter == "A"
    assert normalise_answer("(A) A is closer\nB is closer", ("A", "B"), "lenient").letter == "A"  # texts unknown


def test_options_bound_the_letters():
    assert normalise_answer("(C)", ("A", "B")).form == "out_of_options"
    assert normalise_answer("(C)", ("A", "B", "C")).letter == "C"
    assert read_letter("(C) Point C") == ("C", "with_text")
    with pytest.raises(ValueError, match="unknown match rule"):
        normalise_answer("A", ABCD, "fuzzy")


def write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_flat_file_and_folder_of_flat_files(tmp_path):
    messy = {"val_Relative_Depth_1": "(A)", "val_Relative_Depth_2": "(Z)", "val_Counting_1": "(C) Point C",
             "val_Counting_2": "(E)", "not_an_id": "(A)"}
    write_json(tmp_path / "preds" / "ModelOne.json", messy)
    write_json(tmp_path / "preds" / "ModelTwo.json", {"val_Jigsaw_3": "(B)"})
    models = load_predictions(tmp_path / "preds")
    assert [m.model for m in models] == ["ModelOne", "ModelTwo"]
    one = models[0]
    assert one.format == "blink-flat" and one.extracted and one.default_match == "exact"
    assert one.predictions["val_Counting_1"] == "(C) Point C"
    assert one.counts_by_task() == {"Counting": 2, "Relative_Depth": 2}
    assert one.summary()["skipped"] == {"key is not a BLINK id": 1}
    [single] = load_predictions(f"Renamed={tmp_path / 'preds' / 'ModelTwo.json'}")
    assert single.model == "Renamed" and single.predictions == {"val_Jigsaw_3": "(B)"}


def per_task(idx_pred_gold):
    return {"val": [{"idx": i, "answer": g, "full_prediction": f"text {p}", "prediction": p} for i, p, g in idx_pred_gold],
            "test": [{"idx": "test_Relative_Depth_1", "answer": "hidden", "full_prediction": "x", "prediction": "(A)"}]}


def test_per_task_folders_spaces_underscores_and_concatenated(tmp_path):
    write_json(tmp_path / "outs" / "GPT4V" / "Relative Depth.json", per_task([("val_Relative_Depth_1", "(A)", "(B)")]))
    write_json(tmp_path / "outs" / "GPT4V" / "Relative Depth concatenate images.json",
               per_task([("val_Relative_Depth_1", "(B)", "(B)")]))
    write_json(tmp_path / "outs" / "GPT4o" / "Visual_Correspondence.json",
               per_task([("val_Visual_Correspondence_2", "(D) Point D", "(D)")]))
    models = {m.model: m for m in load_predictions(tmp_path / "outs")}
    assert set(models) == {"GPT4V", "GPT4V (concatenate images)", "GPT4o"}
    plain = models["GPT4V"]
    assert plain.format == "blink-per-task"
    assert plain.predictions == {"val_Relative_Depth_1": "(A)", "test_Relative_Depth_1": "(A)"}
    assert plain.file_gold == {"val_Relative_Depth_1": "B"}  # "hidden" is not a gold answer
    assert models["GPT4V (concatenate images)"].predictions["val_Relative_Depth_1"] == "(B)"
    assert models["GPT4o"].predictions["val_Visual_Correspondence_2"] == "(D) Point D"
    # One model folder given directly, and one per-task file given directly.
    assert {m.model for m in load_predictions(tmp_path / "outs" / "GPT4o")} == {"GPT4o"}
    [direct] = load_predictions(tmp_path / "outs" / "GPT4V" / "Relative Depth.json")
    assert direct.model == "GPT4V"


VLMEVAL_HEADER = ["index", "question", "A", "B", "C", "D", "answer", "category", "prediction", "hit"]


def vlmeval_rows():
    # Rows deliberately out of index order; category spelled with a space for one task.
    return [
        [7, "q", "A is closer", "B is closer", "", "", "B", "Relative_Depth", "B", 1],
        [3, "q", "A is closer", "B is closer", "", "", "A", "Relative Depth", "(A) A is closer", 1],
        [12, "q", "p1", "p2", "p3", "p4", "D", "Visual_Correspondence", "Answer: C", 0],
    ]


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".xlsx"])
def test_vlmevalkit_tables_positional_ids(tmp_path, suffix):
    path = tmp_path / f"Qwen2-VL_BLINK{suffix}"
    if suffix == ".xlsx":
        openpyxl = pytest.importorskip("openpyxl")
        book = openpyxl.Workbook()
        book.active.append(VLMEVAL_HEADER)
        for row in vlmeval_rows():
            book.active.append(row)
        book.save(path)
    else:
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t" if suffix == ".tsv" else ",")
            writer.writerow(VLMEVAL_HEADER)
            writer.writerows(vlmeval_rows())
    [model] = load_predictions(path)
    assert model.model == "Qwen2-VL" and model.format == "vlmevalkit" and model.positional
    assert not model.extracted  # raw output: lenient extraction by default
    # Within Relative_Depth, index 3 comes before index 7: it is question 1.
    assert model.predictions == {"val_Relative_Depth_1": "(A) A is closer", "val_Relative_Depth_2": "B",
                                 "val_Visual_Correspondence_1": "Answer: C"}
    assert model.file_gold == {"val_Relative_Depth_1": "A", "val_Relative_Depth_2": "B", "val_Visual_Correspondence_1": "D"}
    assert model.n_choices == {"val_Relative_Depth_1": 2, "val_Relative_Depth_2": 2, "val_Visual_Correspondence_1": 4}
    assert model.hits == {"val_Relative_Depth_1": True, "val_Relative_Depth_2": True, "val_Visual_Correspondence_1": False}
    assert any("Relative_Depth: 2 rows for 124 val questions" in n for n in model.notes)


def test_vlmevalkit_explicit_idx_column_and_circular_refused(tmp_path):
    path = tmp_path / "m.tsv"
    path.write_text("index\tidx\tcategory\tanswer\tprediction\n5\tval_Counting_9\tCounting\tA\tA\n")
    [model] = load_predictions(path)
    assert model.predictions == {"val_Counting_9": "A"} and not model.positional
    circular = tmp_path / "circ_BLINK_circular.tsv"
    rows = "".join(f"{i}\tq\tB\tJigsaw\tB\n" for i in range(151))  # Jigsaw has 150 val questions
    circular.write_text("index\tquestion\tanswer\tcategory\tprediction\n" + rows)
    with pytest.raises(MLLMFormatError, match="circular"):
        load_predictions(circular)


def test_lmms_eval_samples(tmp_path):
    folder = tmp_path / "llava-onevision"
    folder.mkdir()
    lines = [
        {"doc_id": 0, "target": "(B)", "filtered_resps": [["(B) B is closer"]],
         "blink_acc": {"id": "val_Relative_Depth_1", "gt_content": "B", "pred_parsed": "B", "pred": "(B) B is closer"}},
        {"doc_id": 1, "target": "(A)", "filtered_resps": ["C"], "blink_acc": {"id": "val_Relative_Depth_2"}},
        {"doc_id": 2, "target": "(A)", "filtered_resps": ["A"], "blink_acc": {"score": 1}},  # no id: skipped
    ]
    (folder / "20240601_samples_blink_relative_depth.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    [model] = load_predictions(folder)
    assert model.model == "llava-onevision" and model.format == "lmms-eval"
    assert model.predictions == {"val_Relative_Depth_1": "(B) B is closer", "val_Relative_Depth_2": "C"}
    assert model.file_gold == {"val_Relative_Depth_1": "B", "val_Relative_Depth_2": "A"}
    assert model.summary()["skipped"] == {"line without a BLINK id in its metric dict": 1}
    bare = tmp_path / "old" / "samples_blink_jigsaw.jsonl"
    bare.parent.mkdir()
    bare.write_text(json.dumps({"doc_id": 0, "filtered_resps": ["A"], "blink_acc": 1.0}) + "\n")
    with pytest.raises(MLLMFormatError, match="no lmms-eval sample line carries a BLINK id"):
        load_predictions(bare.parent)


def test_generic_csv(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("idx,prediction\nval_Art_Style_1,A\nval_Art_Style_2,(B)\nbad,C\n")
    [model] = load_predictions(path)
    assert model.format == "generic-csv" and model.model == "mine"
    assert model.predictions == {"val_Art_Style_1": "A", "val_Art_Style_2": "(B)"}
    assert sum(model.skipped.values()) == 1


def test_clear_errors(tmp_path):
    with pytest.raises(MLLMFormatError, match="no such file"):
        load_predictions(tmp_path / "absent.json")
    write_json(tmp_path / "x.json", {"something": 1})
    with pytest.raises(MLLMFormatError, match="neither a flat"):
        load_predictions(tmp_path / "x.json")
    (tmp_path / "t.csv").write_text("question,answer\nq,A\n")
    with pytest.raises(MLLMFormatError, match="no 'prediction' column"):
        load_predictions(tmp_path / "t.csv")
    (tmp_path / "empty").mkdir()
    with pytest.raises(MLLMFormatError, match="found no predictions"):
        load_predictions(tmp_path / "empty")
    write_json(tmp_path / "a" / "M.json", {"val_Counting_1": "(A)"})
    write_json(tmp_path / "b" / "M.json", {"val_Counting_1": "(B)"})
    with pytest.raises(MLLMFormatError, match="NAME=PATH"):
        load_all([tmp_path / "a", tmp_path / "b"])
    assert [m.model for m in load_all([f"M1={tmp_path / 'a' / 'M.json'}", tmp_path / "b"])] == ["M1", "M"]


def write_xlsx(path, rows):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.save(path)


def write_repeating_file(folder, kind):
    """A prediction file of format `kind` that answers val_Counting_1 twice, differently."""
    rows = [("val_Counting_1", "(A)"), ("val_Counting_2", "(B)"), ("val_Counting_1", "(C)")]
    if kind == "flat":
        path = folder / "M.json"
        path.write_text("{" + ", ".join(f'"{i}": "{p}"' for i, p in rows) + "}")
    elif kind == "per-task":
        path = folder / "M" / "Counting.json"
        write_json(path, {"val": [{"idx": i, "prediction": p} for i, p in rows], "test": []})
    elif kind in ("csv", "tsv"):
        path = folder / f"M.{kind}"
        sep = "\t" if kind == "tsv" else ","
        path.write_text(f"idx{sep}prediction\n" + "".join(f"{i}{sep}{p}\n" for i, p in rows))
    elif kind == "xlsx":
        path = folder / "M.xlsx"
        write_xlsx(path, [("idx", "prediction"), *rows])
    elif kind == "vlmevalkit":  # a repeated row would shift the task's later questions by one
        path = folder / "M.tsv"
        path.write_text("index\tcategory\tprediction\n1\tCounting\tA\n2\tCounting\tB\n1\tCounting\tC\n")
    else:  # lmms-eval
        path = folder / "samples_blink_counting.jsonl"
        path.write_text("".join(json.dumps({"filtered_resps": [p], "blink_acc": {"id": i}}) + "\n" for i, p in rows))
    return path


@pytest.mark.parametrize("kind", ["flat", "per-task", "csv", "tsv", "xlsx", "vlmevalkit", "lmms-eval"])
def test_a_question_answered_twice_refuses_the_file(tmp_path, kind):
    path = write_repeating_file(tmp_path, kind)
    with pytest.raises(MLLMFormatError) as caught:
        load_predictions(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message
    assert re.search(r": 1 (question id|key|'index' value) appears more than once \(1 with different answers\)", message)
    assert ("val_Counting_1" in message) != (kind == "vlmevalkit")  # a table without ids names its index value


def test_two_per_task_files_of_one_task_repeat_its_ids(tmp_path):
    write_json(tmp_path / "M" / "Relative Depth.json", per_task([("val_Relative_Depth_1", "(A)", "(A)")]))
    write_json(tmp_path / "M" / "Relative_Depth.json", per_task([("val_Relative_Depth_1", "(A)", "(A)")]))
    with pytest.raises(MLLMFormatError, match=r"M: 2 question ids appear more than once \(0 with different"):
        load_predictions(tmp_path / "M")  # the test row repeats as well


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv", ".tsv", ".xlsx"])
def test_random_bytes_are_named_with_the_formats_read(tmp_path, suffix):
    path = tmp_path / f"noise{suffix}"
    path.write_bytes(bytes(range(128, 256)) * 8)
    with pytest.raises(MLLMFormatError) as caught:
        load_predictions(path)
    assert str(caught.value).startswith(f"{path}: ") and "--mllm reads BLINK JSON" in str(caught.value)


def test_a_zip_that_is_no_workbook_is_named(tmp_path):
    import zipfile

    pytest.importorskip("openpyxl")
    with zipfile.ZipFile(tmp_path / "M.xlsx", "w") as archive:
        archive.writestr("word/document.xml", "<w/>")
    with pytest.raises(MLLMFormatError, match=r"M\.xlsx: it is not an \.xlsx workbook"):
        load_predictions(tmp_path / "M.xlsx")
