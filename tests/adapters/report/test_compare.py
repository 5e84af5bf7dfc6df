"""`specialists compare`: statistics on known small cases, scoring rules, the end-to-end report,
and (when ../shared/data is present) BLINK's published validation numbers."""

import argparse
import csv
import json
from pathlib import Path

import pytest
from blink_fixture import make_blink_fixture
from PIL import Image

from adapters.cli import compare as cli_compare
from adapters.core.scoring import bootstrap_ci
from adapters.report.compare import CompareError, accuracy_table, compare, write_comparison
from adapters.report.compare_stats import agreement, mcnemar, mcnemar_exact, union_accuracy
from adapters.run.runner import RunConfig, run

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data" / "blink-val-mllm"


@pytest.mark.parametrize(
    "b, c, p",
    [
        (0, 0, 1.0),
        (0, 5, 2 / 32),  # both tails of Binomial(5, 1/2) at the extremes
        (5, 0, 2 / 32),
        (1, 9, 2 * (1 + 10) / 1024),
        (3, 3, 1.0),  # doubled tail above 1 is capped
        (2, 8, 2 * (1 + 10 + 45) / 1024),
    ],
)
def test_mcnemar_exact_known_values(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p)


def test_paired_statistics_small_case():
    first = {"q1": True, "q2": True, "q3": False, "q4": False, "q5": True}
    second = {"q1": True, "q2": False, "q3": True, "q4": False, "q5": False}
    result = mcnemar(first, second, ["q1", "q2", "q3", "q4", "q5"])
    assert (result["both_right"], result["first_only"], result["second_only"], result["both_wrong"]) == (1, 2, 1, 1)
    assert result["p_value"] == pytest.approx(1.0)
    assert union_accuracy([first, second], ["q1", "q2", "q3", "q4"]) == 0.75
    stats = agreement({"q1": "A", "q2": "B", "q3": None}, {"q1": "A", "q2": "C", "q3": "A"}, ["q1", "q2", "q3"])
    assert stats == {"n": 2, "agree": 1, "rate": 0.5}  # q3 left out: the first model gave no answer
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_bootstrap_known_cases():
    assert bootstrap_ci([True] * 20, seed=1) == (1.0, 1.0)
    lo, hi = bootstrap_ci([True, False] * 50, seed=1)
    assert 0.38 < lo < 0.45 and 0.55 < hi < 0.62  # normal approx: 0.5 +- 1.96 * 0.05
    assert bootstrap_ci([], seed=1) is None


def test_scoring_missing_unparsed_macro_micro(tmp_path):
    answers = {"val_Relative_Depth_1": "(A)", "val_Relative_Depth_2": "(B)", "val_Counting_1": "(C)",
               "val_Counting_2": "(D)", "val_Counting_3": "(A)", "val_Counting_4": "(B)"}
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    # Depth 1/2 right; Counting: one right, one "(Z)", one "(C) text" (exact: wrong), one missing.
    preds = {"val_Relative_Depth_1": "(A)", "val_Relative_Depth_2": "(A)", "val_Counting_1": "(C)",
             "val_Counting_2": "(Z)", "val_Counting_3": "(A) three"}
    (tmp_path / "M.json").write_text(json.dumps(preds))
    exact = compare([], [str(tmp_path / "M.json")], answers=str(tmp_path / "answers.json"))
    m = exact["models"]["M"]
    assert m["match"] == "exact"
    depth = m["tasks"]["Relative_Depth"]
    assert (depth["n"], depth["correct"], depth["accuracy"]) == (2, 1, 0.5)
    counting = m["tasks"]["Counting"]
    assert (counting["n"], counting["correct"], counting["missing"], counting["out_of_options"],
            counting["rejected_by_exact"]) == (4, 1, 1, 1, 1)
    assert m["macro_accuracy"] == pytest.approx((0.5 + 0.25) / 2)
    assert m["micro_accuracy"] == pytest.approx(2 / 6)
    assert exact["answers"]["name"] == "answers.json" and len(exact["answers"]["sha256"]) == 64
    lenient = compare([], [str(tmp_path / "M.json")], answers=str(tmp_path / "answers.json"), match="lenient")
    assert lenient["models"]["M"]["tasks"]["Counting"]["correct"] == 2
    with pytest.raises(CompareError, match="pass --answers"):
        compare([], [str(tmp_path / "M.json")])


def test_compare_end_to_end_specialist_and_two_mllms(tmp_path):
    rows = make_blink_fixture(tmp_path / "blink", n_per_task=6)
    run_dir = tmp_path / "run"
    run(RunConfig(str(run_dir), specialist=["random"], blink_root=str(tmp_path / "blink"), progress=False))
    samples = {json.loads(line)["idx"]: json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()}
    gold = {f"val_{r.task}_{r.number}": r.answer for r in rows}
    # "Oracle" MLLM: right everywhere but wrong wherever the specialist is right on Relative_Depth.
    oracle = {}
    for idx, letter in gold.items():
        wrong = "B" if letter == "A" else "A"
        oracle[idx] = f"({wrong})" if idx.startswith("val_Relative_Depth") and samples[idx]["correct"] else f"({letter})"
    (tmp_path / "oracle.json").write_text(json.dumps(oracle))
    # Raw-output MLLM as a generic CSV: always "A." (lenient extraction), nothing for Visual_Correspondence.
    with open(tmp_path / "always_a.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["idx", "prediction"])
        writer.writerows([idx, "A."] for idx in gold if "Visual_Correspondence" not in idx)

    args = argparse.ArgumentParser()
    cli_compare.add_parser(args.add_subparsers(dest="command"))
    out = tmp_path / "cmp"
    parsed = args.parse_args(["compare", str(run_dir), "--mllm", str(tmp_path / "oracle.json"),
                              "--mllm", str(tmp_path / "always_a.csv"), "--output", str(out)])
    assert cli_compare.handle(parsed) == 0
    comparison = json.loads((out / "comparison.json").read_text())

    spec_name = next(n for n, m in comparison["models"].items() if m["kind"] == "specialist")
    spec = comparison["models"][spec_name]
    results = json.loads((run_dir / "results.json").read_text())
    for task, t in results["tasks"].items():  # same gold (the run's own): same numbers as the run
        assert spec["tasks"][task]["accuracy"] == pytest.approx(t["accuracy"])
    oracle_m, always_a = comparison["models"]["oracle"], comparison["models"]["always_a"]
    assert oracle_m["match"] == "exact" and always_a["match"] == "lenient"
    # Option counts come from the run's samples, so random's expectation is exact per task.
    assert comparison["random_expected"]["Relative_Reflectance"] == pytest.approx(1 / 3)
    expected_a = {t: sum(1 for i, g in gold.items() if t in i and g == "A") / 6 for t in ("Relative_Depth", "Relative_Reflectance")}
    for task, acc in expected_a.items():
        assert always_a["tasks"][task]["accuracy"] == pytest.approx(acc)
    assert "Visual_Correspondence" not in always_a["tasks"] and always_a["tasks_covered"] == 2
    # Paired test on Relative_Depth between the specialist and the oracle MLLM: fully discordant.
    depth_right = sum(1 for i, s in samples.items() if "Relative_Depth" in i and s["correct"])
    [test] = [t for t in comparison["mcnemar"] if t["task"] == "Relative_Depth" and t["mllm"] == "oracle"]
    assert (test["specialist_only"], test["mllm_only"], test["n_shared"]) == (depth_right, 6 - depth_right, 6)
    assert test["p_value"] == pytest.approx(mcnemar_exact(depth_right, 6 - depth_right))
    assert comparison["best_mllm"]["Visual_Correspondence"] == "oracle"
    [union] = [u for u in comparison["oracle_union"] if u["task"] == "Relative_Depth"]
    assert union["union_best"] == 1.0 and union["best_mllm"] == "oracle"
    misses = [m for m in comparison["misses"] if m["best_mllm"] == "oracle"]
    assert sorted(m["idx"] for m in misses) == sorted(i for i, s in samples.items() if "Relative_Depth" in i and s["correct"])
    models = comparison["agreement"]["models"]
    assert comparison["agreement"]["rate"][models.index("oracle")][models.index("oracle")] == 1.0
    assert {p.name for p in out.iterdir()} >= {"comparison.json", "comparison.md", "comparison.csv", "misses.csv",
                                              "comparison_bars.png", "comparison_scatter.png"}
    assert Image.open(out / "comparison_scatter.png").size[0] > 300
    text = (out / "comparison.md").read_text()
    assert "| oracle |" in text and "Paired McNemar" in text and "Oracle union" in text

    # --answers re-scores the specialist run: flip one answered question's gold.
    idx = next(i for i, s in samples.items() if s["correct"])
    flipped = {i: f"({g})" for i, g in gold.items()}
    flipped[idx] = "(B)" if gold[idx] == "A" else "(A)"
    (tmp_path / "flipped.json").write_text(json.dumps(flipped))
    rescored = compare([run_dir], [str(tmp_path / "oracle.json")], answers=str(tmp_path / "flipped.json"))
    task = samples[idx]["task"]
    before = spec["tasks"][task]["correct"]
    assert rescored["models"][spec_name]["tasks"][task]["correct"] == before - 1
    assert rescored["models"][spec_name]["regolded"] == 1


def test_cli_needs_output_without_a_single_run(tmp_path):
    (tmp_path / "M.json").write_text(json.dumps({"val_Counting_1": "(A)"}))
    parser = argparse.ArgumentParser()
    cli_compare.add_parser(parser.add_subparsers(dest="command"))
    with pytest.raises(CompareError, match="pass --output"):
        cli_compare.handle(parser.parse_args(["compare", "--mllm", str(tmp_path / "M.json")]))


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data/blink-val-mllm (real BLINK predictions)")
def test_reproduces_blink_published_validation_numbers(tmp_path):
    comparison = compare([], [str(SHARED / "saved_val_predictions")], answers=str(SHARED / "val_answers.json"))
    models = comparison["models"]
    assert len(models) == 19 and comparison["n_answer_key"] == 1901
    assert all(m["tasks_covered"] == 14 and sum(t["n"] for t in m["tasks"].values()) == 1901 for m in models.values())
    assert round(100 * models["GeminiProVision"]["macro_accuracy"], 2) == 45.16
    gpt4v = models["GPT4V"]["tasks"]
    assert round(100 * gpt4v["Visual_Correspondence"]["accuracy"], 2) == 33.72
    assert round(100 * gpt4v["Relative_Depth"]["accuracy"], 2) == 59.68
    # Every per-task number the paper publishes (Table 1, validation; reference_scores.json) is
    # what the saved predictions score, for all 19 models, but one: GPT-4V's Functional_Correspondence
    # is published as 26.15 and scores 25.38 from its saved file (one question of 130).
    saved_name = {"GPT-4V": "GPT4V", "Gemini Pro": "GeminiProVision", "GPT-4o": "GPT4o", "GPT-4 Turbo": "GPT4Turbo",
                  "Claude 3 Opus": "OPUS", "Qwen-VL-Max": "QwenVLMax", "MiniGPT-4-v2": "MiniGPT-4-v2",
                  "OpenFlamingo-v2": "flamingov2", "InstructBLIP-7B": "instructblip_7b",
                  "InstructBLIP-13B": "instructblip_13b", "LLaVA-internLM2-7B": "llava-internlm2-7b",
                  "Yi-VL-6B": "Yi_VL_6B", "Yi-VL-34B": "Yi_VL_34B", "LLaVA-v1.5-7B-xtuner": "llava-v1.5-7b-xtuner",
                  "LLaVA-v1.5-13B-xtuner": "llava-v1.5-13b-xtuner", "CogVLM": "cogvlm-chat",
                  "LLaVA-v1.5-7B": "llava_v1.5_7b", "LLaVA-v1.5-13B": "llava_v1.5_13b", "LLaVA-v1.6-34B": "llava-v1.6-34b"}
    published = {name[: -len(" (paper, val)")]: row for name, row in comparison["reference"]["rows"].items()
                 if name.endswith(" (paper, val)")}
    assert set(published) == set(saved_name)
    differing = [(paper, task) for paper, row in published.items() for task, value in row.items()
                 if round(models[saved_name[paper]]["tasks"][task]["accuracy"], 4) != value]
    assert differing == [("GPT-4V", "Functional_Correspondence")]
    assert round(100 * gpt4v["Functional_Correspondence"]["accuracy"], 2) == 25.38
    # BLINK scored its extracted predictions by exact match: "(C) Point C" was wrong there. Lenient
    # extraction would count it and move GPT-4V's Visual_Correspondence off the published number.
    lenient = compare([], [f"GPT4V={SHARED / 'saved_val_predictions' / 'GPT4V.json'}"],
                      answers=str(SHARED / "val_answers.json"), match="lenient")
    assert round(100 * lenient["models"]["GPT4V"]["tasks"]["Visual_Correspondence"]["accuracy"], 2) == 34.30
    paths = write_comparison(comparison, tmp_path / "cmp")
    assert "GeminiProVision" in paths["markdown"].read_text()


def test_several_options_named_are_unparsed_in_lenient_mode(tmp_path):
    (tmp_path / "answers.json").write_text(json.dumps({"val_Relative_Depth_1": "(B)", "val_Relative_Depth_2": "(A)"}))
    (tmp_path / "M.json").write_text(json.dumps({"val_Relative_Depth_1": "(B) or (A)", "val_Relative_Depth_2": "(a)"}))
    depth = compare([], [str(tmp_path / "M.json")], answers=str(tmp_path / "answers.json"),
                    match="lenient")["models"]["M"]["tasks"]["Relative_Depth"]
    assert (depth["correct"], depth["unparsed"], depth["several_options"]) == (1, 1, 1)


def test_a_synthetic_run_is_not_scored_against_blink_without_being_asked(tmp_path):
    run_dir = tmp_path / "synthetic"
    run(RunConfig(str(run_dir), benchmark="synthetic", tasks=["Relative_Depth"], synthetic_n=2, limit=2,
                  specialist=["random"], progress=False))
    (tmp_path / "M.json").write_text(json.dumps({"val_Relative_Depth_1": "(A)", "val_Relative_Depth_2": "(A)"}))
    with pytest.raises(CompareError, match=r"not on BLINK: .*\(synthetic\).*--allow-other-benchmarks"):
        compare([str(run_dir)], [str(tmp_path / "M.json")])
    allowed = compare([str(run_dir)], [str(tmp_path / "M.json")], allow_other_benchmarks=True)
    assert list(allowed["other_benchmarks"].values()) == ["synthetic"]
    assert "not BLINK]" in accuracy_table(allowed)


def test_a_listing_of_the_options_is_no_answer_under_lenient_matching(tmp_path):
    (tmp_path / "answers.json").write_text(json.dumps({f"val_Counting_{i}": "(A)" for i in (1, 2, 3)}))
    rows = [("val_Counting_1", "A) red\nB) blue\nC) green"), ("val_Counting_2", "(A) red\nblue"),
            ("val_Counting_3", "The answer is A) red")]
    with open(tmp_path / "M.tsv", "w", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(["idx", "A", "B", "C", "prediction"])
        writer.writerows([idx, "red", "blue", "green", prediction] for idx, prediction in rows)
    counting = compare([], [str(tmp_path / "M.tsv")], answers=str(tmp_path / "answers.json"),
                       match="lenient")["models"]["M"]["tasks"]["Counting"]
    # the second names B by its text, known from the table's option columns
    assert (counting["correct"], counting["several_options"], counting["unparsed"]) == (1, 2, 2)


def test_marvel_and_blink_twice_prediction_files_answer_each_question_once(tmp_path):
    from adapters.report.compare_other import _read_predictions
    from adapters.report.mllm import MLLMFormatError

    (tmp_path / "rows.jsonl").write_text('{"id": "q1", "prediction": "yes"}\n{"id": "q1", "prediction": "no"}\n')
    (tmp_path / "keys.json").write_text('{"q1": "yes", "q1": "yes"}')
    (tmp_path / "puzzles.json").write_text(json.dumps({"marvel_7_avr": "2", "7": {"avr": "3"}}))
    for name, shown in (("rows.jsonl", "q1"), ("keys.json", "q1"), ("puzzles.json", "marvel_7_avr")):
        with pytest.raises(MLLMFormatError, match=rf"{name}: 1 (question id|key) appears more than once.*{shown}"):
            _read_predictions(tmp_path / name)
    (tmp_path / "noise.json").write_bytes(bytes(range(128, 256)))
    with pytest.raises(MLLMFormatError, match=r"noise\.json: byte 0 is not UTF-8 text.*JSON Lines rows"):
        _read_predictions(tmp_path / "noise.json")


@pytest.mark.parametrize("line", [b"[1, 2]", b"{}", bytes(range(128, 140))])
def test_a_samples_line_that_is_no_sample_is_named(tmp_path, line):
    from adapters.report.run_report import read_samples

    (tmp_path / "samples.jsonl").write_bytes(b'{"idx": "val_Counting_1"}\n' + line + b"\n")
    with pytest.raises(CompareError, match=r"samples\.jsonl:2 is not"):
        read_samples(tmp_path / "samples.jsonl", CompareError)


def table_widths(markdown_text):
    """Column count of every table line: pipes that are not escaped, per line."""
    import re

    return [len(re.findall(r"(?<!\\)\|", line)) for line in markdown_text.splitlines() if line.startswith("|")]


def test_names_and_answers_are_data_in_every_table_and_csv(tmp_path):
    rows = make_blink_fixture(tmp_path / "blink", n_per_task=6)
    run_dir = tmp_path / "=run|one"
    run(RunConfig(str(run_dir), tasks=["Relative_Depth"], specialist=["random"], blink_root=str(tmp_path / "blink"),
                  progress=False))
    gold = {f"val_{r.task}_{r.number}": r.answer for r in rows if r.task == "Relative_Depth"}
    (tmp_path / "m.json").write_text(json.dumps({idx: '=HYPERLINK("http://x","click")' for idx in gold}))
    hostile = "evil|<b>x<i>\n| injected row |"  # NAME= holds no slash
    comparison = compare([run_dir], [f"{hostile}={tmp_path / 'm.json'}"])
    paths = write_comparison(comparison, tmp_path / "cmp")

    text = paths["markdown"].read_text()
    assert "<b>" not in text and "\n| injected row |" not in text and "evil\\|&lt;b&gt;" in text
    header_widths = {line.count("|") for line in text.splitlines() if line.startswith("| Model |")}
    assert len(header_widths) >= 1
    for table in text.split("\n\n"):  # every row of a table has its header's columns
        widths = table_widths(table)
        assert len(set(widths)) <= 1, table
    misses = list(csv.DictReader(open(paths["misses"], newline="")))
    assert misses and all(m["mllm_raw"] == '\'=HYPERLINK("http://x","click")' for m in misses)
    assert all(m["specialist"].startswith("'=run|one") for m in misses)
    scores = list(csv.DictReader(open(paths["csv"], newline="")))
    assert {r["model"] for r in scores if r["kind"] != "reference"} == {"'=run|one: random (baseline)", hostile}
    assert all(float(r["accuracy"]) >= 0 for r in scores)  # numbers stay numbers


def test_a_failed_question_without_a_usable_answer_counts_wrong_in_the_comparison_as_in_the_run(tmp_path):
    """A broken row whose answer was empty is wrong in `run` (correct false, gold none); the
    comparison must not drop it, and an error whose gold is unknown is never 'right'."""
    from adapters.report.compare import AnswerKey, SpecialistRun, score_specialist

    samples = {
        "val_Counting_1": {"idx": "val_Counting_1", "task": "Counting", "specialist": "s", "status": "ok",
                           "gold": "A", "correct": True, "decision": {"pred": "A"}},
        "val_Counting_2": {"idx": "val_Counting_2", "task": "Counting", "specialist": "s", "status": "error",
                           "gold": None, "correct": False, "error": "no answer"},
        "test_Counting_3": {"idx": "test_Counting_3", "task": "Counting", "specialist": "s", "status": "ok",
                            "gold": None, "correct": None, "decision": {"pred": "B"}},
    }
    run = SpecialistRun(tmp_path, "s", {}, samples)
    model = score_specialist(run, AnswerKey({}, {}), rescore=False)
    assert model.questions == {"Counting": ["val_Counting_1", "val_Counting_2"]}
    assert model.correct == {"val_Counting_1": True, "val_Counting_2": False}


def test_marvel_and_blink_twice_metrics_count_a_failed_question_without_gold_wrong():
    from adapters.datasets.blink_twice.metrics import blink_twice_metrics
    from adapters.datasets.marvel.metrics import marvel_metrics

    twice = [{"correct": True, "gold": "A", "n_choices": 2, "meta": {"image": "i1"}},
             {"correct": False, "gold": None, "n_choices": 2, "meta": {"image": "i2"}},
             {"correct": None, "gold": None, "n_choices": 2, "meta": {"image": "i3"}}]
    assert blink_twice_metrics(twice)["q_acc"]["n"] == 2
    marvel = [{"task": "MARVEL_AVR", "gold": None, "correct": False, "n_choices": None,
               "meta": {"puzzle": "p1", "pattern": "x", "configuration": "y"}},
              {"task": "MARVEL_AVR", "gold": None, "correct": None, "n_choices": None,
               "meta": {"puzzle": "p2", "pattern": "x", "configuration": "y"}}]
    assert marvel_metrics(marvel)["overall"]["avr"] == {"n": 1, "correct": 0, "accuracy": 0.0, "random_expected": 0.25}
