"""CV-Bench's reader on fixtures in the release's layouts (hub parquet, JSON Lines with img/, a
`datasets` arrow cache, a hub cache snapshot): the same questions from each, and clear errors."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from adapters.core.questions import BrokenQuestion, MCQuestion
from adapters.core.tasks import CV_BENCH_TASKS
from adapters.datasets.cv_bench.reader import CvBenchFormatError, CvBenchReader, boxes_of
from adapters.datasets.synthetic.cv_bench_release import write_cv_bench_release


def _all(reader):
    return {q.idx: q for task in reader.tasks for q in reader.questions(task)}


def test_parquet_and_jsonl_layouts_give_the_same_questions(tmp_path):
    rows = write_cv_bench_release(tmp_path / "hub", 3, seed=1, layout="parquet")
    write_cv_bench_release(tmp_path / "lines", 3, seed=1, layout="jsonl")
    hub, lines = CvBenchReader(tmp_path / "hub"), CvBenchReader(tmp_path / "lines")
    assert (hub.layout, lines.layout) == ("parquet", "jsonl")
    assert [f.name for f in hub.files] == ["test_2d.parquet", "test_3d.parquet"]
    a, b = _all(hub), _all(lines)
    assert len(a) == 12 and set(a) == set(b) == {f"cv_bench_{r['idx']}" for r in rows}
    for idx, question in a.items():
        other = b[idx]
        assert isinstance(question, MCQuestion)
        assert (question.task, question.choices, question.gold, question.meta, question.prompt) == \
               (other.task, other.choices, other.gold, other.meta, other.prompt)
        assert np.array_equal(np.asarray(question.images[0]), np.asarray(other.images[0]))
    for row in rows:  # the release's fields, as written
        question = a[f"cv_bench_{row['idx']}"]
        assert question.task == f"CV_Bench_{row['task']}" and question.question == row["question"]
        assert question.choice_text(question.gold) == row["choices"]["ABCD".index(row["answer"][1])]
        assert question.meta["source"] == row["source"] and question.meta["type"] == row["type"]
        assert np.array_equal(np.asarray(question.images[0]), row["pixels"])
        assert question.meta.get("bbox") == row["bbox"]  # Omni3D rows only
    assert {q.meta["source"] for q in a.values() if q.task == "CV_Bench_Count"} == {"ADE20K", "COCO"}


def test_tasks_are_chosen_by_the_release_name_or_ours(tmp_path):
    write_cv_bench_release(tmp_path, 2)
    reader = CvBenchReader(tmp_path, ["count", "CV_Bench_Depth", "Count"])
    assert reader.tasks == ["CV_Bench_Count", "CV_Bench_Depth"]
    assert [q.idx for q in reader.questions("CV_Bench_Depth", limit=1)] == ["cv_bench_4"]
    assert reader.count("CV_Bench_Count") == 2
    with pytest.raises(ValueError, match="unknown task 'Colour'"):
        CvBenchReader(tmp_path, ["Colour"])


def test_a_missing_column_is_named(tmp_path):
    write_cv_bench_release(tmp_path, 2)
    table = pq.read_table(tmp_path / "test_3d.parquet").drop(["choices"])
    pq.write_table(table, tmp_path / "test_3d.parquet")
    with pytest.raises(CvBenchFormatError, match=r"test_3d.parquet: no column 'choices'; CV-Bench rows carry "
                                                 r"idx, task, question, choices, answer, source, image"):
        CvBenchReader(tmp_path)


def test_a_jsonl_file_without_filename_is_refused_by_name(tmp_path):
    write_cv_bench_release(tmp_path, 2, layout="jsonl")
    path = tmp_path / "test_2d.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "filename"}) + "\n" for r in rows))
    with pytest.raises(CvBenchFormatError, match="test_2d.jsonl: no column 'filename'"):
        CvBenchReader(tmp_path)


def test_a_datasets_arrow_cache_and_a_hub_snapshot_are_read(tmp_path):
    write_cv_bench_release(tmp_path / "hub", 2)
    cache = tmp_path / "datasets" / "nyu-visionx___cv-bench" / "default" / "0.0.0" / "abc123"
    cache.mkdir(parents=True)
    table = pa.concat_tables([pq.read_table(tmp_path / "hub" / f"test_{k}.parquet") for k in ("2d", "3d")],
                             promote_options="default")
    with pa.OSFile(str(cache / "cv-bench-test.arrow"), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    (cache / "cache-0123.arrow").write_bytes(b"not read")  # a map() cache beside it
    arrow = CvBenchReader(tmp_path / "datasets")
    assert arrow.layout == "arrow" and set(_all(arrow)) == set(_all(CvBenchReader(tmp_path / "hub")))
    repo = tmp_path / "hub_cache" / "datasets--nyu-visionx--CV-Bench"
    (repo / "snapshots" / "old").mkdir(parents=True)
    (tmp_path / "hub").rename(repo / "snapshots" / "rev1")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("rev1")
    pq.write_table(pq.read_table(repo / "snapshots" / "rev1" / "test_2d.parquet"), repo / "snapshots" / "old" / "x.parquet")
    snapshot = CvBenchReader(tmp_path / "hub_cache")
    assert snapshot.root.name == "rev1" and len(_all(snapshot)) == 8


def test_a_broken_row_costs_only_its_own_question(tmp_path):
    write_cv_bench_release(tmp_path, 2, layout="jsonl")
    path = tmp_path / "test_2d.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["answer"] = "(Q)"
    rows[1]["choices"] = "12"
    rows[2]["filename"] = "img/missing.png"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    questions = _all(CvBenchReader(tmp_path))
    assert len(questions) == 8
    broken = {idx: q.error for idx, q in questions.items() if isinstance(q, BrokenQuestion)}
    assert set(broken) == {"cv_bench_0", "cv_bench_1", "cv_bench_2"}
    assert "test_2d.jsonl: idx 0: " in broken["cv_bench_0"] and "gold answer (Q) is not one of the options" in broken["cv_bench_0"]
    assert "choices must be a list" in broken["cv_bench_1"]
    assert "image 'img/missing.png' not found" in broken["cv_bench_2"]
    assert questions["cv_bench_0"].meta["source"] == "ADE20K"  # still grouped by its source when scored wrong


def test_a_repeated_idx_and_an_empty_folder_are_refused(tmp_path):
    with pytest.raises(CvBenchFormatError, match="no CV-Bench files here"):
        CvBenchReader(tmp_path)
    write_cv_bench_release(tmp_path / "a", 2)
    (tmp_path / "a" / "copy").mkdir()
    (tmp_path / "a" / "copy" / "test_2d.parquet").write_bytes((tmp_path / "a" / "test_2d.parquet").read_bytes())
    with pytest.raises(CvBenchFormatError, match=r"question idx 0 appears in \S*copy/test_2d.parquet and in \S*/a/test_2d.parquet; point --root"):
        CvBenchReader(tmp_path / "a")


def test_an_unknown_task_value_is_skipped_with_a_warning(tmp_path, capsys):
    write_cv_bench_release(tmp_path, 1, layout="jsonl")
    path = tmp_path / "test_3d.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["task"] = "Size"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reader = CvBenchReader(tmp_path)
    assert reader.count("CV_Bench_Depth") == 0 and reader.skipped == {"Size": 1}
    assert "1 row(s) with task 'Size' skipped" in capsys.readouterr().err
    assert set(reader.tasks) == set(CV_BENCH_TASKS)


def test_bbox_shapes():
    assert boxes_of([[1, 2, 3, 4], [0, 0, 5, 5]]) == [[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 5.0, 5.0]]
    assert boxes_of([1, 2, 3, 4, 0, 0, 5, 5]) == [[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 5.0, 5.0]]
    assert boxes_of([[10, 20, 5, 5]]) is None  # x, y, width, height: not corners
    assert boxes_of(None) is None and boxes_of([]) is None and boxes_of([["a", 1, 2, 3]]) is None
