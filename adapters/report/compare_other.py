"""`specialists compare` on MARVEL, BLINK-Twice or CV-Bench: specialist runs and MLLM predictions
scored on the same questions with each benchmark's own metrics (marvel_metrics,
blink_twice_metrics, cv_bench_metrics).

The questions (ids, options, gold answers, what the metrics group by) are read from the release
(`--root`, else the root the runs read). Predictions: a flat JSON {question id: answer}, with our
ids (`marvel_<puzzle>_<part>`, `blink_twice_<question>`, `cv_bench_<idx>`) or, for BLINK-Twice
and CV-Bench, the release's question ids (CV-Bench's `idx`); MARVEL also as {puzzle id: {avr,
fine, count_context, count_choices, count_total}}; or JSON Lines rows {id | question_id |
questionId | idx, prediction | response | output | text | pred (else answer)}: Cambrian-1's
evaluation scripts write {"questionId", "answer" (the model's output), "gt_answer", ...} per line,
its questionId the row's position in the dataset (CV-Bench's idx when the rows are in idx order).
MARVEL and BLINK-Twice ship no evaluation script or saved model outputs to follow, so their
answers are parsed by one stated rule per kind of question:
- AVR: the choice's number 1-4 (or its letter in parentheses, "(B)" = 2);
- fine-grained: the one option the answer names, or the number it gives when the options are
  numbers (or "(A)"/"(B)" in the offered order);
- panel counts: the first whole number, in digits or words;
- BLINK-Twice: yes or no, when the answer says exactly one of them;
- CV-Bench (Cambrian-1's scripts ask for "the option's letter"): BLINK's lenient letter parsing
  (adapters/report/mllm_answers.py: "(A)", "A", "A.", "Answer: A", "(A) left"; an answer naming
  two options gives none), else an answer that is exactly one option's text ("left", "3").
A missing or unparsed answer is wrong, as BLINK scores it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Sequence

from adapters.core import benchmarks
from adapters.core.cells import markdown_cell as md
from adapters.core.json_lines import json_lines
from adapters.core.questions import MCQuestion
from adapters.core.tasks import CV_BENCH_TASKS
from adapters.datasets.blink_twice.reader import question_id, yes_no
from adapters.datasets.cv_bench.reader import question_id as cv_bench_id
from adapters.datasets.marvel.reader import PARTS, parse_count
from adapters.report.benchmark_report import metrics_lines
from adapters.report.mllm import read_json, read_text, refuse_repeats
from adapters.report.mllm_answers import normalise_answer
from adapters.report.run_report import writing_into

ACCEPTED = ("a JSON file {question id: answer} (MARVEL also {puzzle id: {avr, fine, count_context, ...}}) "
            "or JSON Lines rows {id, prediction}")


class OtherCompareError(ValueError):
    pass


def _questions(benchmark: str, root: str) -> dict[str, MCQuestion]:
    reader = benchmarks.benchmark(benchmark).open_reader(root)
    return {q.idx: q for task in reader.tasks for q in reader.questions(task) if isinstance(q, MCQuestion)}


def parse_answer(question: MCQuestion, raw: Any) -> str | None:
    """The letter an answer gives to `question` under the stated rules, or None."""
    if raw is None:
        return None
    if question.task in CV_BENCH_TASKS:
        return _option_letter(question, raw)
    text = str(raw).strip()
    named_letters = set(re.findall(r"\(([A-Z])\)", text))
    bare = re.fullmatch(r"([A-Z])\.?", text)
    letter = named_letters.pop() if len(named_letters) == 1 else (bare.group(1) if bare else None)
    if question.task == "MARVEL_AVR":
        digits = re.findall(r"\b([1-4])\b", text)
        if len(set(digits)) == 1:
            return question.letters[int(digits[0]) - 1]
    elif question.task == "MARVEL_Fine_Perception":
        named = [c for c in question.choices if re.search(rf"\b{re.escape(c.lower())}\b", text.lower())]
        if len(named) == 1:
            return question.letters[question.choices.index(named[0])]
        numbers = [parse_count(c) for c in question.choices]
        if not named and None not in numbers:  # options that are numbers: "3" answers "three"
            given = parse_count(text)
            if numbers.count(given) == 1:
                return question.letters[numbers.index(given)]
    elif question.task.startswith("MARVEL_Count"):
        count = parse_count(raw)
        return question.letters[question.choices.index(str(count))] if str(count) in question.choices else None
    else:
        answer = yes_no(text)
        if answer is not None:
            return question.letters[question.choices.index(answer)]
    if letter in question.letters:
        return letter
    return None


def _plain(text: str) -> str:
    return " ".join(text.lower().strip(" \t\n.:;,!").split())


def _option_letter(question: MCQuestion, raw: Any) -> str | None:
    """A multiple-choice answer: BLINK's lenient letter forms, else exactly one option's text."""
    text = str(raw).strip()
    options = dict(zip(question.letters, question.choices))
    parsed = normalise_answer(text, question.letters, "lenient", options)
    if parsed.letter is not None:
        return parsed.letter
    if parsed.form == "unparsed":
        named = [letter for letter, choice in options.items() if _plain(choice) == _plain(text)]
        return named[0] if len(named) == 1 else None
    return None


def _read_predictions(path: Path) -> dict[str, Any]:
    """A prediction file -> {id as written: answer}; an id given twice refuses the file."""
    if path.suffix == ".jsonl":
        pairs = []
        for number, row in json_lines(read_text(path, ACCEPTED), path, OtherCompareError):
            key = next((row[k] for k in ("idx", "question_id", "questionId", "id") if k in row), None)
            # the model's words first: an `answer` column beside them is the gold, not the model's
            value = next((row[k] for k in ("prediction", "response", "output", "text", "pred", "answer") if k in row), None)
            if key is None:
                raise OtherCompareError(f"{path}:{number}: no id (idx, question_id, questionId or id) in {sorted(row)}")
            pairs.append((str(key), value))
        refuse_repeats(path, pairs)
        return dict(pairs)
    data = read_json(path, ACCEPTED)
    if not isinstance(data, dict):
        raise OtherCompareError(f"{path}: expected {{question id: answer}} (or JSON Lines rows), got {type(data).__name__}")
    pairs = []
    for key, value in data.items():
        if isinstance(value, dict) and set(value) & set(PARTS.values()):  # MARVEL, per puzzle
            pairs += [(f"marvel_{key}_{part}", answer) for part, answer in value.items()]
        else:
            pairs.append((str(key), value))
    refuse_repeats(path, pairs)  # "marvel_7_avr" beside {"7": {"avr": ...}}
    return dict(pairs)


def _our_id(key: str, questions: dict[str, MCQuestion], benchmark: str) -> str:
    if key in questions:
        return key
    prefixed = {"blink-twice": question_id, "cv-bench": cv_bench_id}.get(benchmark, str)(key)
    return prefixed if prefixed in questions else key


def compare_other(benchmark: str, run_dirs: Sequence[str | Path], mllm_specs: Sequence[str], root: str | None = None) -> dict[str, Any]:
    """Score runs and prediction files on `benchmark`; returns comparison.json's dict."""
    from adapters.report.compare import load_specialist_run

    runs = [load_specialist_run(d) for d in run_dirs]
    wrong = [f"{r.label} ({r.results.get('benchmark')})" for r in runs if r.results.get("benchmark") != benchmark]
    if wrong:
        raise OtherCompareError(f"run(s) not on {benchmarks.benchmark(benchmark).title}: {', '.join(wrong)}; compare runs of one benchmark")
    root = root or next((r.results.get("data", {}).get("root") for r in runs), None)
    if not root:
        raise OtherCompareError(f"--root DIR: the {benchmarks.benchmark(benchmark).title} release, to know each question's options and answer")
    questions = _questions(benchmark, root)
    models: dict[str, dict[str, Any]] = {}
    for run in runs:
        samples = [s for s in run.samples.values() if s["idx"] in questions]
        models[run.label] = _scored("specialist", str(run.directory), samples, benchmark, {})
    for spec in mllm_specs:
        name, _, path_text = spec.rpartition("=") if "=" in spec else ("", "", spec)
        path = Path(path_text)
        if not path.is_file():
            raise OtherCompareError(f"--mllm {spec}: no such file")
        raw = {_our_id(k, questions, benchmark): v for k, v in _read_predictions(path).items()}
        unknown = [k for k in raw if k not in questions]
        asked = {questions[k].task for k in raw if k in questions}
        samples, forms = [], {"parsed": 0, "unparsed": 0, "missing": 0}
        for idx, question in questions.items():
            if question.task not in asked:
                continue  # a task the model was not run on is not charged to it
            letter = parse_answer(question, raw.get(idx)) if idx in raw else None
            forms["missing" if idx not in raw else "parsed" if letter else "unparsed"] += 1
            samples.append({"idx": idx, "task": question.task, "gold": question.gold, "correct": letter == question.gold,
                            "n_choices": len(question.choices), "meta": question.meta})
        models[name or path.stem] = _scored("mllm", str(path), samples, benchmark,
                                            {**forms, "ids_not_in_release": len(unknown), "first_unknown": unknown[:3]})
    return {"benchmark": benchmark, "root": str(root), "questions": len(questions), "models": models}


def _scored(kind: str, source: str, samples: list[dict], benchmark: str, parsing: dict) -> dict[str, Any]:
    tasks: dict[str, dict[str, Any]] = {}
    for sample in samples:
        task = tasks.setdefault(sample["task"], {"n": 0, "correct": 0})
        task["n"] += 1
        task["correct"] += bool(sample.get("correct"))
    for task in tasks.values():
        task["accuracy"] = task["correct"] / task["n"] if task["n"] else None
    return {"kind": kind, "source": source, "tasks": tasks, "metrics": benchmarks.benchmark(benchmark).score(samples),
            "parsing": parsing}


def comparison_markdown(comparison: dict[str, Any]) -> str:
    names = list(comparison["models"])
    benchmark = comparison["benchmark"]
    lines = [f"# {benchmarks.benchmark(benchmark).title}: specialists and MLLMs", "",
             f"{comparison['questions']} questions from {md(comparison['root'])}; a missing or unparsed answer is wrong.", ""]
    lines += metrics_lines(benchmark, [m["metrics"] for m in comparison["models"].values()], names)
    lines += ["", "Answers parsed per model:", ""]
    for name, model in comparison["models"].items():
        if model["kind"] == "mllm":
            p = model["parsing"]
            lines.append(f"- {md(name)}: {p['parsed']} parsed, {p['unparsed']} unparsed, {p['missing']} missing; "
                         f"{p['ids_not_in_release']} id(s) name no question of the release")
    return "\n".join(lines) + "\n"


def write_other_comparison(comparison: dict[str, Any], output: str | Path) -> dict[str, Path]:
    out = Path(output)
    paths = {"json": out / "comparison.json", "markdown": out / "comparison.md"}
    with writing_into(out, "the comparison", OtherCompareError):
        out.mkdir(parents=True, exist_ok=True)
        paths["json"].write_text(json.dumps(comparison, indent=2), encoding="utf-8")
        paths["markdown"].write_text(comparison_markdown(comparison), encoding="utf-8")
    return paths
