import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from blink_fixture import FIXTURE_TASKS, make_blink_fixture

from adapters.core import registry
from adapters.core.questions import Decision, QuestionError
from adapters.core.registry import SpecialistSpec
from adapters.core.solver import Solver
from adapters.markers.find import parser_networks
from adapters.run.runner import RunConfig, RunDirError, SampleStore, run

REPO = Path(__file__).resolve().parents[3]


def _samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


class PickFirstUnlessTwo(Solver):
    """Answers "A", except question number 2 of each task raises, and number 3 reads its images."""

    def decide(self, question):
        if question.idx.endswith("_2"):
            raise QuestionError(f"{question.idx}: markers not found")
        if question.idx.endswith("_3"):
            question.images  # a corrupt image would raise here
        return Decision.from_scores({letter: float(letter == "A") for letter in question.letters}, "test.first")


class FailsWholeBatches(PickFirstUnlessTwo):
    def decide_batch(self, questions):
        if len(questions) > 1:
            raise RuntimeError("CUDA out of memory (simulated)")
        return super().decide_batch(questions)


@pytest.fixture
def test_specialists(monkeypatch):
    registry.all_specs()  # make sure the built-ins are registered first
    for name, cls in (("fragile", PickFirstUnlessTwo), ("batchfail", FailsWholeBatches)):
        spec = SpecialistSpec(name, tuple(FIXTURE_TASKS), "classical", "test rule", f"{cls.__module__}:{cls.__qualname__}")
        monkeypatch.setitem(registry._REGISTRY, name, spec)


def test_results_schema(blink_root, tmp_path):
    out = tmp_path / "out"
    results = run(RunConfig(str(out), blink_root=str(blink_root), specialist=["random"], progress=False))
    on_disk = json.loads((out / "results.json").read_text())
    assert on_disk == json.loads(json.dumps(results))
    for key in ("benchmark", "split", "tasks", "macro_accuracy", "micro_accuracy", "config", "env", "seed",
                "answers", "checkpoints", "data", "started_at", "finished_at"):
        assert key in results, key
    assert results["status"] == "complete"
    for task in FIXTURE_TASKS:
        t = results["tasks"][task]
        assert {"n", "accuracy", "ci95", "abstained", "errors", "specialist", "checkpoint"} <= set(t)
        assert t["n"] == 4 and t["specialist"] == "random" and t["baseline"] is True
        assert t["ci95"][0] <= t["accuracy"] <= t["ci95"][1]
    assert results["env"]["packages"]["torch"] and results["env"]["device"].startswith("cpu")
    assert len(results["data"]["files"]) == 3 and all(len(f["sha256"]) == 64 for f in results["data"]["files"])
    # markers parsed from the images: the parser's networks are named by their weights' sha256
    assert results["markers"]["source"] == "parsed" and results["markers"]["networks"] == parser_networks()
    assert len(results["markers"]["networks"]["patch_reader"]) == 64
    samples = _samples(out)
    assert len(samples) == 12
    correct = sum(s["correct"] for s in samples)
    assert results["micro_accuracy"] == pytest.approx(correct / 12)
    fields = {"idx", "task", "specialist", "checkpoint", "decision", "gold", "correct", "status", "error", "seconds"}
    assert all(fields <= set(s) for s in samples)


def test_failures_are_isolated_and_recorded(blink_root, tmp_path, test_specialists):
    rows = make_blink_fixture(blink_root, n_per_task=4)
    # damage image_1 of question 3 of Relative_Depth
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = blink_root / "Relative_Depth" / "val-00000-of-00001.parquet"
    table = pq.read_table(path).to_pylist()
    table[2]["image_1"] = {"bytes": b"garbage", "path": None}
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(path)), path)

    for name in ("fragile", "batchfail"):
        out = tmp_path / name
        results = run(RunConfig(str(out), blink_root=str(blink_root), specialist=[name], batch_size=4, progress=False))
        by_idx = {s["idx"]: s for s in _samples(out)}
        assert len(by_idx) == 12
        gold = {r.idx("val"): r.answer for r in rows}
        for idx, s in by_idx.items():
            if idx.endswith("_2") or idx == "val_Relative_Depth_3":
                assert s["status"] == "error" and s["correct"] is False
            else:
                assert s["status"] == "ok" and s["correct"] == (gold[idx] == "A")
        assert "markers not found" in by_idx["val_Relative_Depth_2"]["error"]
        assert "image_1 could not be decoded" in by_idx["val_Relative_Depth_3"]["error"]
        assert results["tasks"]["Relative_Depth"]["errors"] == 2
        assert results["tasks"]["Visual_Correspondence"]["errors"] == 1


def test_same_seed_same_answers_other_seed_differs(blink_root, tmp_path):
    preds = {}
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        run(RunConfig(str(tmp_path / name), specialist=["random"], blink_root=str(blink_root), seed=seed, progress=False))
        preds[name] = [s["decision"]["pred"] for s in _samples(tmp_path / name)]
    assert preds["a"] == preds["b"]
    assert preds["a"] != preds["c"]


def test_existing_run_needs_resume_and_same_settings(blink_root, tmp_path):
    out = tmp_path / "out"
    run(RunConfig(str(out), specialist=["random"], blink_root=str(blink_root), progress=False))
    with pytest.raises(RunDirError, match="already holds a run; pass --resume"):
        run(RunConfig(str(out), specialist=["random"], blink_root=str(blink_root), progress=False))
    with pytest.raises(RunDirError, match="seed: was 0, now 1"):
        run(RunConfig(str(out), specialist=["random"], blink_root=str(blink_root), seed=1, resume=True, progress=False))


def test_resume_after_limit_and_torn_line(blink_root, tmp_path):
    out = tmp_path / "out"
    full = run(RunConfig(str(tmp_path / "full"), specialist=["random"], blink_root=str(blink_root), progress=False))
    run(RunConfig(str(out), specialist=["random"], blink_root=str(blink_root), limit=2, progress=False))
    with open(out / "samples.jsonl", "a") as handle:
        handle.write('{"idx": "val_Relative_Depth_3", "ta')  # a kill in the middle of a write
    resumed = run(RunConfig(str(out), specialist=["random"], blink_root=str(blink_root), resume=True, progress=False))
    assert len(SampleStore(out / "samples.jsonl").load()) == 12
    assert resumed["tasks"] == full["tasks"]


def test_retry_errors_reanswers_failed_questions(blink_root, tmp_path, test_specialists):
    out = tmp_path / "out"
    run(RunConfig(str(out), blink_root=str(blink_root), specialist=["fragile"], progress=False))
    lines_before = len(_samples(out))
    run(RunConfig(str(out), blink_root=str(blink_root), specialist=["fragile"], resume=True, progress=False))
    assert len(_samples(out)) == lines_before  # nothing left to do
    run(RunConfig(str(out), blink_root=str(blink_root), specialist=["fragile"], resume=True, retry_errors=True,
                  progress=False))
    assert len(_samples(out)) == lines_before + 3  # the three failing questions, answered (and failing) again


def test_checkpoint_for_a_weightless_specialist_is_refused(blink_root, tmp_path):
    with pytest.raises(ValueError, match="random load\\(s\\) no weights; drop --checkpoint"):
        run(RunConfig(str(tmp_path / "o"), specialist=["random"], blink_root=str(blink_root), checkpoint="tiny-random", progress=False))


def test_hidden_answers_are_unscored_not_wrong(tmp_path):
    make_blink_fixture(tmp_path / "b", split="test", hidden=True)
    results = run(RunConfig(str(tmp_path / "out"), specialist=["random"], blink_root=str(tmp_path / "b"), split="test", progress=False))
    for t in results["tasks"].values():
        assert (t["n"], t["accuracy"], t["unscored"]) == (0, None, 4)
    assert results["macro_accuracy"] is None


def test_answers_override_is_recorded(blink_root, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"val_Relative_Depth_1": "(B)"}))
    results = run(RunConfig(str(tmp_path / "out"), specialist=["random"], blink_root=str(blink_root), answers=str(answers), progress=False))
    assert results["answers"]["name"] == "answers.json" and results["answers"]["n_overridden"] == 1
    assert {s["idx"]: s["gold"] for s in _samples(tmp_path / "out")}["val_Relative_Depth_1"] == "B"


def test_specialist_that_does_not_serve_a_task_is_refused(blink_root, tmp_path, test_specialists, monkeypatch):
    spec = registry._REGISTRY["fragile"]
    monkeypatch.setitem(registry._REGISTRY, "fragile", SpecialistSpec(
        "fragile", ("Relative_Depth",), "classical", "x", spec.solver))
    with pytest.raises(ValueError, match="does not answer Visual_Correspondence; specialists for it: random"):
        run(RunConfig(str(tmp_path / "a"), blink_root=str(blink_root), tasks=list(FIXTURE_TASKS),
                      specialist=["fragile"], progress=False))
    # a bare specialist with no --tasks runs the tasks it answers
    results = run(RunConfig(str(tmp_path / "b"), blink_root=str(blink_root), specialist=["fragile"], progress=False))
    assert list(results["tasks"]) == ["Relative_Depth"]
    mixed = run(RunConfig(str(tmp_path / "c"), blink_root=str(blink_root),
                          specialist=["Relative_Depth=fragile", "random"], progress=False))
    assert {t: v["specialist"] for t, v in mixed["tasks"].items()} == {
        "Relative_Depth": "fragile", "Relative_Reflectance": "random", "Visual_Correspondence": "random"}


SLOW_CLI = """
import sys, time
from adapters.rules import baselines
answer = baselines.RandomChoice.decide
def slow(self, question):
    time.sleep(0.04)
    return answer(self, question)
baselines.RandomChoice.decide = slow
from adapters.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_resume_after_real_kill_matches_uninterrupted_run(tmp_path):
    root = tmp_path / "blink"
    make_blink_fixture(root, n_per_task=15)
    args = ["run", "--blink-root", str(root), "--specialist", "random", "--batch-size", "2", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def cli(out, *extra):
        return subprocess.run([sys.executable, "-c", SLOW_CLI, *args, "--output-dir", str(out), *extra],
                              env=env, capture_output=True, text=True, timeout=120)

    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_CLI, *args, "--output-dir", str(killed)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        samples = killed / "samples.jsonl"
        if samples.exists() and len(samples.read_bytes().splitlines()) >= 20:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    n_before = len((killed / "samples.jsonl").read_bytes().splitlines())
    assert 20 <= n_before < 45, "the kill must land mid-run"

    resumed = cli(killed, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    fresh = cli(tmp_path / "fresh")
    assert fresh.returncode == 0, fresh.stderr

    a = json.loads((killed / "results.json").read_text())
    b = json.loads((tmp_path / "fresh" / "results.json").read_text())
    assert a["status"] == b["status"] == "complete"
    assert a["tasks"] == b["tasks"]
    assert (a["macro_accuracy"], a["micro_accuracy"]) == (b["macro_accuracy"], b["micro_accuracy"])
    idx = [s["idx"] for s in _samples(killed)]
    assert len(idx) == len(set(idx)) == 45  # nothing answered twice, nothing lost


@pytest.mark.slow
def test_a_run_folder_in_use_is_refused_and_sigterm_ends_a_run_as_interrupted(tmp_path):
    """Two runs into one folder interleaved their samples; a SIGTERM left results.json "running"."""
    root = tmp_path / "blink"
    make_blink_fixture(root, n_per_task=15)
    out = tmp_path / "run"
    args = ["run", "--blink-root", str(root), "--specialist", "random", "--batch-size", "2", "--no-progress",
            "--output-dir", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    slower = SLOW_CLI.replace("time.sleep(0.04)", "time.sleep(0.5)")  # outlasts the second run's start
    proc = subprocess.Popen([sys.executable, "-c", slower, *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (out / "samples.jsonl").exists() and len((out / "samples.jsonl").read_bytes().splitlines()) >= 2:
            break
        time.sleep(0.01)
    second = subprocess.run([sys.executable, "-c", SLOW_CLI, *args, "--resume"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert second.returncode == 2 and f"is in use by another run (pid {proc.pid}" in second.stderr
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err
    assert json.loads((out / "results.json").read_text())["status"] == "interrupted"
    resumed = subprocess.run([sys.executable, "-c", SLOW_CLI, *args, "--resume"], env=env, capture_output=True,
                             text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((out / "results.json").read_text())["status"] == "complete"


def test_a_run_that_fails_before_writing_leaves_no_folder(tmp_path):
    out = tmp_path / "never"
    with pytest.raises(ValueError):
        run(RunConfig(str(out), blink_root=str(tmp_path / "no-such-root"), specialist=["random"], progress=False))
    assert not out.exists()


def test_limit_takes_a_number_or_a_fraction_of_each_task(blink_root, tmp_path):
    from adapters.cli.arguments import question_limit as _limit
    from adapters.run.runner import questions_limit

    assert (questions_limit(None, 40), questions_limit(5, 40), questions_limit(0.1, 40), questions_limit(0.01, 40)) == \
        (None, 5, 4, 1)
    assert _limit("3") == 3 and _limit("0.25") == 0.25
    for bad in ("0", "1.5", "-2", "half"):
        with pytest.raises(argparse.ArgumentTypeError):
            _limit(bad)
    results = run(RunConfig(str(tmp_path / "r"), blink_root=str(blink_root), specialist=["random"], limit=0.5,
                            progress=False))
    per_task = {task: t["n"] for task, t in results["tasks"].items()}
    assert set(per_task.values()) == {2}  # half of the fixture's 4 questions per task


# --- named pipeline choices (--set) ----------------------------------------------------------------


def test_settings_are_applied_recorded_and_part_of_the_run_identity(tmp_path):
    out = tmp_path / "out"
    config = dict(benchmark="synthetic", synthetic_n=2, tasks=["Relative_Reflectance"], specialist=["retinex"],
                  progress=False)
    results = run(RunConfig(str(out), settings=["retinex.measure=luminance"], **config))
    assert results["settings"] == {"retinex": {"measure": "luminance"}}
    assert results["tasks"]["Relative_Reflectance"]["settings"] == {"measure": "luminance"}
    assert results["identity"]["settings"] == {"retinex": {"measure": "luminance"}}
    assert {s["decision"]["details"]["measure"] for s in _samples(out) if s["decision"]} == {"luminance"}
    with pytest.raises(RunDirError, match="settings: was"):
        run(RunConfig(str(out), resume=True, **config))  # the default is mean_rgb: a different run
    defaults = run(RunConfig(str(tmp_path / "defaults"), **config))
    assert defaults["tasks"]["Relative_Reflectance"]["settings"] == {"measure": "mean_rgb"}
    # a run from before named settings (and run_identity.json) existed is refused with that reason
    (tmp_path / "defaults" / "run_identity.json").unlink()
    results_file = tmp_path / "defaults" / "results.json"
    old = json.loads(results_file.read_text())
    del old["identity"]["settings"]
    results_file.write_text(json.dumps(old))
    with pytest.raises(RunDirError, match="settings: not recorded \\(the run predates it\\)"):
        run(RunConfig(str(tmp_path / "defaults"), resume=True, **config))


@pytest.mark.parametrize("setting, message", [
    ("retinex.shade=1", "retinex has no setting 'shade' \\(its settings: measure\\)"),
    ("retinex.measure=median", "choose one of mean_rgb, luminance"),
    ("dire.codec=png", "specialist 'dire' answers none of this run's tasks"),
    ("measure=luminance", "write SPECIALIST.KEY=VALUE"),
])
def test_a_bad_setting_is_refused_before_any_question(setting, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        run(RunConfig(str(tmp_path / "out"), benchmark="synthetic", synthetic_n=2, tasks=["Relative_Reflectance"],
                      specialist=["retinex"], settings=[setting], progress=False))
    assert not (tmp_path / "out").exists()


def test_every_specialist_setting_defaults_to_one_of_its_choices_and_is_listed(capsys):
    from adapters.cli.main import main

    specs = {spec.name: spec for spec in registry.all_specs()}
    assert {s.name for s in specs["ordinal_shading"].settings} == {"resolution", "albedo", "fit", "measure"}
    assert {s.name for s in specs["dire"].settings} == {"codec", "classifier", "unet_precision"}
    assert specs["depth_anything"].default_checkpoint == "depth-anything-v1-large"
    assert registry.default_for("Multi-view_Reasoning").name == "loftr_flow"
    assert main(["ls"]) == 0
    listed = capsys.readouterr().out
    assert "--set depth_anything.resize=lower_bound (official v1 run.py" in listed and "or: transformers" in listed


# --- a malformed question counts wrong ---------------------------------------------------------------


def _rewrite_rows(path: Path, change, choices_type=None) -> None:
    """Apply `change(rows)` to a parquet file of the fixture (choices_type: another type for that column)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    rows = pq.read_table(path).to_pylist()
    change(rows)
    if choices_type is not None:
        schema = schema.set(schema.get_field_index("choices"), pa.field("choices", choices_type))
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def test_emptying_the_choices_of_a_wrong_question_does_not_raise_the_accuracy(blink_root, tmp_path):
    clean = run(RunConfig(str(tmp_path / "clean"), blink_root=str(blink_root), specialist=["random"], progress=False))
    wrong = next(s for s in _samples(tmp_path / "clean") if s["correct"] is False)
    task, number = wrong["task"], int(wrong["idx"].rsplit("_", 1)[1])
    _rewrite_rows(blink_root / task / "val-00000-of-00001.parquet", lambda rows: rows[number - 1].update(choices=[]))
    broken = run(RunConfig(str(tmp_path / "broken"), blink_root=str(blink_root), specialist=["random"], progress=False))
    assert broken["tasks"][task]["accuracy"] == clean["tasks"][task]["accuracy"]
    assert (broken["tasks"][task]["n"], broken["tasks"][task]["errors"], broken["tasks"][task]["unscored"]) == (4, 1, 0)
    sample = {s["idx"]: s for s in _samples(tmp_path / "broken")}[wrong["idx"]]
    assert (sample["status"], sample["correct"], sample["gold"]) == ("error", False, wrong["gold"])
    assert "the choices list is empty" in sample["error"]


def test_malformed_rows_count_wrong_and_the_run_goes_on(blink_root, tmp_path):
    def damage(rows):
        rows[0]["answer"] = "(D)"  # Relative_Depth has two options
        rows[1]["answer"] = ""  # val answers are public: an empty one is malformed
        rows[2]["answer"] = None

    _rewrite_rows(blink_root / "Relative_Depth" / "val-00000-of-00001.parquet", damage)
    results = run(RunConfig(str(tmp_path / "out"), blink_root=str(blink_root), specialist=["random"], progress=False))
    depth = results["tasks"]["Relative_Depth"]
    assert (depth["n"], depth["errors"], depth["unscored"]) == (4, 3, 0) and depth["accuracy"] <= 0.25
    by_idx = {s["idx"]: s for s in _samples(tmp_path / "out")}
    assert "not one of the options" in by_idx["val_Relative_Depth_1"]["error"]
    assert "no answer (the answer column holds '')" in by_idx["val_Relative_Depth_2"]["error"]
    assert all(by_idx[f"val_Relative_Depth_{n}"]["correct"] is False for n in (1, 2, 3))
    assert results["tasks"]["Visual_Correspondence"]["n"] == 4  # the other tasks are untouched


def test_a_string_of_choices_is_refused_not_split_into_letters(blink_root, tmp_path):
    import pyarrow as pa

    def as_text(rows):
        for row in rows:
            row["choices"] = "AB" if row["idx"].endswith("_1") else "\n".join(row["choices"])

    _rewrite_rows(blink_root / "Relative_Depth" / "val-00000-of-00001.parquet", as_text, choices_type=pa.string())
    results = run(RunConfig(str(tmp_path / "out"), blink_root=str(blink_root), specialist=["random"], progress=False))
    depth = results["tasks"]["Relative_Depth"]
    assert (depth["n"], depth["errors"], depth["correct"]) == (4, 4, 0)
    errors = {s["error"] for s in _samples(tmp_path / "out") if s["task"] == "Relative_Depth"}
    assert any("choices must be a list of option texts, got str 'AB'" in e for e in errors)
    assert results["tasks"]["Visual_Correspondence"]["errors"] == 0


def test_a_broken_row_of_the_hidden_test_split_stays_unscored(tmp_path):
    make_blink_fixture(tmp_path / "b", split="test", hidden=True)
    _rewrite_rows(tmp_path / "b" / "Relative_Depth" / "test-00000-of-00001.parquet",
                  lambda rows: rows[0].update(choices=[]))
    results = run(RunConfig(str(tmp_path / "out"), specialist=["random"], blink_root=str(tmp_path / "b"), split="test",
                            progress=False))
    depth = results["tasks"]["Relative_Depth"]
    assert (depth["n"], depth["errors"], depth["unscored"]) == (0, 1, 4)


def test_a_bad_answers_entry_counts_wrong_and_only_applied_ids_are_counted(blink_root, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"val_Relative_Depth_1": "(B)", "val_Relative_Depth_2": "(D)",
                                   "val_Relative_Depth_99": "(A)", "val_Counting_1": "(A)"}))
    config = dict(specialist=["random"], blink_root=str(blink_root), answers=str(answers), progress=False)
    results = run(RunConfig(str(tmp_path / "out"), **config))
    assert (results["answers"]["n_entries"], results["answers"]["n_overridden"]) == (4, 1)
    depth = results["tasks"]["Relative_Depth"]
    assert (depth["n"], depth["errors"]) == (4, 1)
    bad = {s["idx"]: s for s in _samples(tmp_path / "out")}["val_Relative_Depth_2"]
    assert (bad["status"], bad["correct"], bad["gold"]) == ("error", False, "D")
    assert "answers file answers.json: val_Relative_Depth_2 is given (D), but the question has 2 options" in bad["error"]
    limited = run(RunConfig(str(tmp_path / "first"), limit=1, **config))
    assert limited["answers"]["n_overridden"] == 1
    other_task = run(RunConfig(str(tmp_path / "vc"), tasks=["Visual_Correspondence"], **config))
    assert other_task["answers"]["n_overridden"] == 0


# --- a task without questions, options given twice -----------------------------------------------


def test_a_task_file_without_rows_is_refused_before_the_run_starts(blink_root, tmp_path):
    path = blink_root / "Relative_Depth" / "val-00000-of-00001.parquet"
    _rewrite_rows(path, lambda rows: rows.clear())
    with pytest.raises(ValueError, match=f"{path}: task Relative_Depth has no questions \\(0 rows\\); re-download "
                       "that task's file, or leave the task out with --tasks"):
        run(RunConfig(str(tmp_path / "out"), blink_root=str(blink_root), specialist=["random"], progress=False))
    assert not (tmp_path / "out").exists()
    other = run(RunConfig(str(tmp_path / "other"), blink_root=str(blink_root), specialist=["random"],
                          tasks=["Visual_Correspondence"], progress=False))
    assert other["tasks"]["Visual_Correspondence"]["n"] == 4


def test_list_options_given_twice_add_up_and_a_second_checkpoint_is_refused(blink_root, tmp_path, capsys):
    from adapters.cli.main import main

    out = tmp_path / "out"
    assert main(["run", "--blink-root", str(blink_root), "--tasks", "Relative_Depth", "--tasks",
                 "Visual_Correspondence", "Relative_Depth", "--specialist", "random", "--specialist", "random",
                 "--no-progress", "--output-dir", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert list(results["tasks"]) == ["Relative_Depth", "Visual_Correspondence"]
    assert results["config"]["tasks"] == ["Relative_Depth", "Visual_Correspondence"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(["run", "--checkpoint", "a.pt", "--checkpoint", "b.pt"])
    assert stop.value.code == 2
    assert "--checkpoint given twice (a.pt and b.pt); a run takes one: give it once" in capsys.readouterr().err
    with pytest.raises(ValueError, match="--specialist names Relative_Depth twice \\(random and lower_is_closer\\)"):
        run(RunConfig(str(tmp_path / "pairs"), blink_root=str(blink_root), progress=False,
                      specialist=["Relative_Depth=random", "relative depth=lower_is_closer"]))
