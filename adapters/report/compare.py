"""`specialists compare`: specialist runs and MLLM predictions on the same BLINK questions.

Scoring is BLINK's: exact letter match against the gold answers, a missing or unparsed
prediction is wrong, the per-task accuracies are averaged without weights (macro, the headline)
and pooled (micro) beside it. The gold answers are, in order of preference: the `--answers`
file (its name and sha256 are recorded), else the gold of the specialist runs' samples, else the
answers the prediction files themselves carry.

Which questions count: an MLLM is scored on every question of the answer key in each task it
has at least one prediction for (missing = wrong, as BLINK scores); a specialist run on the
questions it was run on (re-scored against the key), so a `--limit` run is not charged for
questions it was never asked; such cells show their n. Paired statistics (McNemar, agreement,
oracle union, misses) use only the questions both sides share.

"Best MLLM" is chosen per task: the MLLM with the highest accuracy on that task (ties: higher
macro mean, then name), since the question is where the strongest MLLM falls short of the
specialist on each kind of perception.

Outputs: comparison.json (schema COMPARISON_SCHEMA_VERSION, with the statistics), comparison.md, comparison.csv
(long format, fractions), misses.csv, comparison_bars.png, comparison_scatter.png.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from adapters.core.cells import csv_row, percent
from adapters.core.cells import markdown_cell as md
from adapters.core.scoring import macro_bootstrap_ci, macro_micro, stable_seed, wilson_ci
from adapters.core.tasks import TASK_NAMES, UnknownTaskError, task_from_idx
from adapters.datasets.blink.answers import load_answers
from adapters.report.compare_plots import plots
from adapters.report.compare_stats import accuracy_on, agreement, mcnemar, union_accuracy
from adapters.report.mllm import ModelPredictions, letters_of, load_all
from adapters.report.mllm_answers import normalise_answer
from adapters.report.reference import reference_scores
from adapters.report.run_report import load_run, read_samples, writing_into

COMPARISON_SCHEMA_VERSION = 1
MATCH_CHOICES = ("auto", "exact", "lenient")


class CompareError(ValueError):
    pass


@dataclass
class AnswerKey:
    """Gold letters by BLINK idx, and which answers they are."""

    gold: dict[str, str]
    version: dict[str, Any]


@dataclass
class ScoredModel:
    """One model's per-question outcomes on the questions it is scored on.

    questions: task -> idx list (BLINK order); letters: idx -> accepted letter or None;
    correct: idx -> bool; forms: idx -> normalisation form (MLLMs) or sample status (specialists).
    """

    name: str
    kind: str
    source: str
    format: str
    match: str | None
    questions: dict[str, list[str]] = field(default_factory=dict)
    letters: dict[str, str | None] = field(default_factory=dict)
    correct: dict[str, bool] = field(default_factory=dict)
    forms: dict[str, str] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    macro: float | None = None
    macro_ci: list[float] | None = None
    micro: float | None = None


def _idx_order(idx: str) -> tuple[str, int]:
    match = re.search(r"_(\d+)$", idx)
    return idx.rsplit("_", 1)[0], int(match.group(1)) if match else 0


def _task(idx: str) -> str | None:
    try:
        return task_from_idx(idx)[1]
    except (ValueError, UnknownTaskError):
        return None


def _ordered_tasks(tasks: set[str]) -> list[str]:
    return [t for t in TASK_NAMES if t in tasks] + sorted(tasks - set(TASK_NAMES))


# --------------------------------------------------------------------------- inputs


@dataclass
class SpecialistRun:
    directory: Path
    label: str
    results: dict[str, Any]
    samples: dict[str, dict]


def load_specialist_run(directory: str | Path) -> SpecialistRun:
    run = load_run(directory)
    return SpecialistRun(run.directory, run.label, run.results, read_samples(run.directory / "samples.jsonl", CompareError))


def build_key(answers: str | None, runs: Sequence[SpecialistRun], mllms: Sequence[ModelPredictions]) -> AnswerKey:
    if answers:
        overrides = load_answers(answers)
        return AnswerKey(dict(overrides.answers), {**overrides.version.to_json(), "source": "--answers"})
    sources = [(r.label, {i: s["gold"] for i, s in r.samples.items() if s.get("gold")}) for r in runs]
    origin = "specialist runs' samples (dataset answers of each run)"
    if not runs:
        sources = [(m.model, m.file_gold) for m in mllms]
        origin = "answers carried by the prediction files"
    gold: dict[str, str] = {}
    for name, answers_of in sources:
        for idx, letter in answers_of.items():
            if gold.setdefault(idx, letter) != letter:
                raise CompareError(
                    f"{name} has gold {letter} for {idx}, another source has {gold[idx]}: the inputs use different "
                    "answer versions; pass --answers FILE to score all of them against one"
                )
    if not gold:
        raise CompareError(
            "no gold answers: these prediction files carry none; pass --answers FILE "
            '(BLINK\'s {"val_<Task>_<n>": "(A)"}, e.g. val_answers.json)'
        )
    versions = sorted({json.dumps(r.results.get("answers"), sort_keys=True) for r in runs})
    return AnswerKey(gold, {"name": "from inputs", "source": origin, "runs": [json.loads(v) for v in versions]})


def question_options(runs: Sequence[SpecialistRun], blink_root: str | None) -> tuple[dict[str, int], dict[str, dict]]:
    """idx -> number of options, from the runs' samples and, when given, the BLINK files; and
    idx -> {letter: option text} from the BLINK files."""
    counts: dict[str, int] = {}
    texts: dict[str, dict[str, str]] = {}
    if blink_root:
        from adapters.core.questions import MCQuestion
        from adapters.datasets.blink.reader import BlinkReader

        for split in ("val", "test"):
            try:
                reader = BlinkReader(blink_root, split)
            except ValueError:
                continue
            for task in reader.tasks:
                for question in reader.questions(task):
                    if isinstance(question, MCQuestion):
                        counts[question.idx] = len(question.choices)
                        texts[question.idx] = dict(zip(question.letters, question.choices))
    for run in runs:
        for idx, sample in run.samples.items():
            if sample.get("n_choices"):
                counts[idx] = int(sample["n_choices"])
    return counts, texts


# --------------------------------------------------------------------------- scoring


def score_specialist(run: SpecialistRun, key: AnswerKey, rescore: bool) -> ScoredModel:
    model = ScoredModel(run.label, "specialist", str(run.directory), "specialists run", None)
    by_task: dict[str, list[str]] = {}
    regolded = 0
    for idx, sample in run.samples.items():
        gold = key.gold.get(idx, sample.get("gold")) if rescore else sample.get("gold")
        if gold is None and sample.get("correct") is None:
            continue  # a hidden answer: unscored, as in the run
        # gold None with correct False: a failed question whose row gave no usable answer; the
        # run counts it wrong, and so does the comparison
        regolded += gold != sample.get("gold")
        pred = (sample.get("decision") or {}).get("pred") if sample.get("status") != "error" else None
        by_task.setdefault(sample["task"], []).append(idx)
        model.letters[idx] = pred
        model.correct[idx] = gold is not None and pred == gold
        model.forms[idx] = sample.get("status", "ok")
        model.raw[idx] = pred
    model.questions = {t: sorted(v, key=_idx_order) for t, v in by_task.items()}
    model.info = {"regolded": regolded, "specialists": sorted({s["specialist"] for s in run.samples.values()}),
                  "run_answers": run.results.get("answers"), "run_status": run.results.get("status")}
    return model


def score_mllm(pred: ModelPredictions, key: AnswerKey, options: dict[str, int], match: str,
               option_texts: dict[str, dict[str, str]] | None = None) -> ScoredModel:
    """Score one model's predictions; `option_texts` (idx -> {letter: text}) lets an answer that
    also names another option by its text count as naming several."""
    rule = pred.default_match if match == "auto" else match
    model = ScoredModel(pred.model, "mllm", pred.source, pred.format, rule)
    covered = {t for idx in pred.predictions if idx in key.gold and (t := _task(idx))}
    by_task: dict[str, list[str]] = {}
    option_source: Counter = Counter()
    for idx in sorted(key.gold, key=_idx_order):
        task = _task(idx)
        if task not in covered:
            continue
        by_task.setdefault(task, []).append(idx)
        letters, source = letters_of(idx, options, pred)
        option_source[source] += 1
        raw = pred.predictions.get(idx)
        texts = (option_texts or {}).get(idx) or pred.option_texts.get(idx)
        parsed = normalise_answer(raw, letters, rule, texts) if idx in pred.predictions else normalise_answer(None, letters)
        model.letters[idx] = parsed.letter
        model.correct[idx] = parsed.letter == key.gold[idx]
        model.forms[idx] = parsed.form
        model.raw[idx] = raw
    model.questions = by_task
    outside = sum(1 for idx in pred.predictions if idx not in key.gold)
    model.info = {
        "import": pred.summary(),
        "options": dict(option_source),
        "not_in_answer_key": outside,
        "file_answer_mismatches": sum(1 for i, g in pred.file_gold.items() if i in key.gold and key.gold[i] != g),
        "hit_disagreements": sum(1 for i, h in pred.hits.items() if i in model.correct and model.correct[i] != h),
    }
    return model


def summarise(model: ScoredModel, seed: int) -> None:
    """Fill model.tasks (n, correct, accuracy, ci95, parse counts) and the macro / micro means."""
    for task, questions in model.questions.items():
        correct = [model.correct[i] for i in questions]
        forms = Counter(model.forms[i] for i in questions)
        rejected = sum(1 for i in questions if model.letters[i] is None and model.forms[i] in ("wrapped", "with_text"))
        ci = wilson_ci(correct)  # per task a proportion: Wilson (the bootstrap collapses at 0% and 100%)
        model.tasks[task] = {
            "n": len(questions),
            "correct": sum(correct),
            "accuracy": sum(correct) / len(questions) if questions else None,
            "ci95": list(ci) if ci else None,
            "missing": forms.get("missing", 0),
            # no answer form, or one naming several options ("(B) or (A)"; also counted apart)
            "unparsed": forms.get("unparsed", 0) + forms.get("several_options", 0),
            "several_options": forms.get("several_options", 0),
            "out_of_options": forms.get("out_of_options", 0),
            "rejected_by_exact": rejected,
            "errors": forms.get("error", 0),
            "abstained": forms.get("abstained", 0),
        }
    model.macro, model.micro = macro_micro(model.tasks)
    ci = macro_bootstrap_ci({t: [model.correct[i] for i in q] for t, q in model.questions.items()},
                            stable_seed(seed, model.name, "macro"))
    model.macro_ci = list(ci) if ci else None


# --------------------------------------------------------------------------- statistics


def _best_mllm_per_task(mllms: Sequence[ScoredModel]) -> dict[str, str]:
    best: dict[str, str] = {}
    tasks = {t for m in mllms for t in m.tasks}
    for task in tasks:
        candidates = [m for m in mllms if m.tasks.get(task, {}).get("accuracy") is not None]
        if candidates:
            top = min(candidates, key=lambda m: (-m.tasks[task]["accuracy"], -(m.macro or 0), m.name))
            best[task] = top.name
    return best


def statistics(specialists: Sequence[ScoredModel], mllms: Sequence[ScoredModel], key: AnswerKey) -> dict[str, Any]:
    by_name = {m.name: m for m in (*specialists, *mllms)}
    best = _best_mllm_per_task(mllms)
    tests, unions, misses = [], [], []
    for spec in specialists:
        for task, questions in spec.questions.items():
            for mllm in mllms:
                shared = [i for i in questions if i in mllm.correct]
                if shared:
                    counts = mcnemar(spec.correct, mllm.correct, shared)
                    tests.append({"specialist": spec.name, "mllm": mllm.name, "task": task,
                                  "n_shared": counts["n_shared"], "both_right": counts["both_right"],
                                  "specialist_only": counts["first_only"], "mllm_only": counts["second_only"],
                                  "both_wrong": counts["both_wrong"], "p_value": counts["p_value"]})
            top = by_name.get(best.get(task, ""))
            shared = [i for i in questions if top is not None and i in top.correct]
            others = [m.correct for m in mllms if any(i in m.correct for i in questions)]
            unions.append({
                "specialist": spec.name, "task": task, "n": len(questions), "best_mllm": top.name if top else None,
                "n_shared_with_best": len(shared),
                "specialist_accuracy": accuracy_on(spec.correct, shared or questions),
                "best_mllm_accuracy": accuracy_on(top.correct, shared) if top else None,
                "union_best": union_accuracy([spec.correct, top.correct], shared) if top else None,
                "union_any_mllm": union_accuracy([spec.correct, *others], questions) if others else None,
            })
            if top is not None:
                for idx in shared:
                    if spec.correct[idx] and not top.correct[idx]:
                        misses.append({"idx": idx, "task": task, "gold": key.gold.get(idx), "specialist": spec.name,
                                       "specialist_pred": spec.letters[idx], "best_mllm": top.name,
                                       "mllm_raw": top.raw.get(idx), "mllm_letter": top.letters.get(idx),
                                       "mllm_form": top.forms.get(idx)})
    if not specialists:  # MLLMs alone: how much the best one and all of them together get
        for task in _ordered_tasks(set(best)):
            top = by_name[best[task]]
            questions = top.questions[task]
            unions.append({"specialist": None, "task": task, "n": len(questions), "best_mllm": top.name,
                           "best_mllm_accuracy": accuracy_on(top.correct, questions),
                           "union_any_mllm": union_accuracy([m.correct for m in mllms], questions)})
    models = [m.name for m in (*specialists, *mllms)]
    rates, counts = [], []
    for a in models:
        row_rate, row_n = [], []
        for b in models:
            ma, mb = by_name[a], by_name[b]
            stats = agreement(ma.letters, mb.letters, [i for i in ma.letters if i in mb.letters])
            row_rate.append(stats["rate"])
            row_n.append(stats["n"])
        rates.append(row_rate)
        counts.append(row_n)
    return {
        "best_mllm": dict(sorted(best.items())),
        "mcnemar": tests,
        "oracle_union": unions,
        "agreement": {"models": models, "rate": rates, "n": counts,
                      "definition": "same letter, over shared questions both models answered"},
        "misses": misses,
    }


# --------------------------------------------------------------------------- the comparison


def _model_json(model: ScoredModel) -> dict[str, Any]:
    return {"kind": model.kind, "source": model.source, "format": model.format, "match": model.match,
            "tasks": model.tasks, "macro_accuracy": model.macro, "macro_ci95": model.macro_ci,
            "micro_accuracy": model.micro,
            "tasks_covered": len(model.tasks), **model.info}


def _random_expected(key: AnswerKey, options: dict[str, int]) -> dict[str, float]:
    """Expected accuracy of a uniform guess, per task, where every question's option count is known."""
    by_task: dict[str, list[float]] = {}
    unknown: set[str] = set()
    for idx in key.gold:
        task = _task(idx)
        if task is None:
            continue
        if idx in options:
            by_task.setdefault(task, []).append(1.0 / options[idx])
        else:
            unknown.add(task)
    return {t: sum(v) / len(v) for t, v in by_task.items() if t not in unknown}


@dataclass
class Scored:
    """Everything `compare` scored, question by question: the runs (their samples), the answer
    key, option counts and texts, and each model's outcomes (what the report page shows)."""

    runs: list[SpecialistRun]
    key: AnswerKey
    options: dict[str, int]
    texts: dict[str, dict[str, str]]
    specialists: list[ScoredModel]
    mllms: list[ScoredModel]
    other: dict[str, Any]
    match: str
    seed: int


def score_inputs(
    run_dirs: Sequence[str | Path],
    mllm_specs: Sequence[str],
    answers: str | None = None,
    blink_root: str | None = None,
    match: str = "auto",
    seed: int = 0,
    allow_other_benchmarks: bool = False,
) -> Scored:
    """Score every specialist run and MLLM against one answer key.

    MLLM predictions and BLINK's answers are for BLINK's questions; a run on another benchmark
    (the synthetic one reuses BLINK's ids) is refused unless `allow_other_benchmarks`, and then
    named in the result's "other_benchmarks". `match` is how an MLLM's words become a letter
    (MATCH_CHOICES); `seed` seeds the bootstrap intervals."""
    if match not in MATCH_CHOICES:
        raise CompareError(f"--match {match!r}: choose one of {', '.join(MATCH_CHOICES)}")
    if not mllm_specs:
        raise CompareError("name MLLM predictions with --mllm PATH (a file or a folder)")
    runs = [load_specialist_run(d) for d in run_dirs]
    other = {r.label: r.results.get("benchmark") for r in runs if r.results.get("benchmark", "blink") != "blink"}
    if other and not allow_other_benchmarks:
        named = "; ".join(f"{label} ({benchmark})" for label, benchmark in other.items())
        raise CompareError(f"run(s) not on BLINK: {named}. Their questions reuse BLINK's ids but are not BLINK's, so "
                           "BLINK's answers and MLLM predictions do not apply; compare runs on BLINK, or pass "
                           "--allow-other-benchmarks to score them anyway (named in the report)")
    predictions = load_all(mllm_specs)
    key = build_key(answers, runs, predictions)
    options, texts = question_options(runs, blink_root)
    specialists = [score_specialist(r, key, rescore=answers is not None) for r in runs]
    mllms = [score_mllm(p, key, options, match, texts) for p in predictions]
    for model in (*specialists, *mllms):
        summarise(model, seed)
    mllms.sort(key=lambda m: (-(m.macro or 0), m.name))
    return Scored(runs, key, options, texts, specialists, mllms, other, match, seed)


def comparison_of(scored: Scored) -> dict[str, Any]:
    """comparison.json's dict from what `score_inputs` scored."""
    specialists, mllms, key = scored.specialists, scored.mllms, scored.key
    refs = reference_scores()
    tasks = _ordered_tasks({t for m in (*specialists, *mllms) for t in m.tasks})
    reference_rows = {
        "paper specialist": {t: r["specialist_accuracy"] for t, r in refs["tasks"].items() if r.get("specialist")},
        "human (paper)": {t: r["human"] for t, r in refs["tasks"].items()},
        "random (paper)": {t: r["random"] for t, r in refs["tasks"].items()},
        **{f"{model} (paper, {refs['mllms_split']})": scores for model, scores in refs.get("mllms", {}).items()},
    }
    return {
        "schema_version": COMPARISON_SCHEMA_VERSION,
        "answers": key.version,
        "other_benchmarks": scored.other,
        "n_answer_key": len(key.gold),
        "match": scored.match,
        "seed": scored.seed,
        "tasks": tasks,
        "models": {m.name: _model_json(m) for m in (*specialists, *mllms)},
        "random_expected": _random_expected(key, scored.options),
        "reference": {"source": refs["source"],
                      "specialists": {t: r["specialist"] for t, r in refs["tasks"].items() if r.get("specialist")},
                      "rows": reference_rows},
        **statistics(specialists, mllms, key),
    }


def compare(run_dirs: Sequence[str | Path], mllm_specs: Sequence[str], **options: Any) -> dict[str, Any]:
    """comparison.json's dict for `score_inputs(run_dirs, mllm_specs, **options)` (its options)."""
    return comparison_of(score_inputs(run_dirs, mllm_specs, **options))


# --------------------------------------------------------------------------- rendering


def accuracy_table(comparison: dict[str, Any]) -> str:
    """Models as rows, tasks as columns (accuracy %), macro and micro means; reference rows last."""
    tasks = comparison["tasks"]
    key_n: Counter = Counter()  # questions per task in the key, seen as the MLLMs' n (full tasks)
    for model in comparison["models"].values():
        if model["kind"] == "mllm":
            for task, t in model["tasks"].items():
                key_n[task] = max(key_n[task], t["n"])
    head = ["Model", *map(md, tasks), "macro", "micro"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, model in comparison["models"].items():
        cells = []
        for task in tasks:
            t = model["tasks"].get(task)
            cell = percent(t["accuracy"]) if t else "-"
            if t and key_n.get(task) and t["n"] < key_n[task]:
                cell += f" (n={t['n']})"
            cells.append(cell)
        partial = "" if len(model["tasks"]) == len(tasks) else f" ({len(model['tasks'])} tasks)"
        label = f"{md(name)} [{model['kind']}]" if model["kind"] == "specialist" else md(name)
        if name in comparison.get("other_benchmarks", {}):
            label += f" [{md(comparison['other_benchmarks'][name])}, not BLINK]"
        lines.append("| " + " | ".join([label, *cells, percent(model["macro_accuracy"]) + partial,
                                         percent(model["micro_accuracy"])]) + " |")
    rows = dict(comparison["reference"]["rows"])
    if comparison["random_expected"]:
        rows["random (expected, from option counts)"] = comparison["random_expected"]
    for name, values in rows.items():
        cells = [percent(values.get(t)) for t in tasks]
        lines.append("| " + " | ".join([md(name), *cells, "", ""]) + " |")
    return "\n".join(lines)


def markdown(comparison: dict[str, Any]) -> str:
    answers = comparison["answers"]
    lines = ["# Specialists versus MLLMs", ""]
    lines.append(
        f"Answers: {md(answers.get('name'))} ({md(answers.get('source'))}"
        + (f", sha256 {md(answers['sha256'][:12])}" if answers.get("sha256") else "")
        + f"), {comparison['n_answer_key']} questions. Match rule: {md(comparison['match'])} "
        "(auto = exact for BLINK's extracted predictions, lenient for raw model output). "
        "Accuracy %; missing or unparsed = wrong; macro = unweighted mean over the model's tasks "
        "(BLINK's headline), micro = pooled. (n=...) marks a cell scored on fewer questions than the task has."
    )
    lines += ["", "## Accuracy per task", "", accuracy_table(comparison), ""]
    lines += [f"Reference rows: {md(comparison['reference']['source'])}.", ""]

    lines += ["## Reading the predictions", "",
              "| Model | format | match | scored | missing | unparsed | outside options (incl. (Z)) | "
              "rejected by exact match | options assumed | file answers differing | not in answer key |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in comparison["models"].items():
        if m["kind"] != "mllm":
            continue
        total = lambda key: sum(t[key] for t in m["tasks"].values())  # noqa: E731
        lines.append(
            f"| {md(name)} | {md(m['format'])} | {md(m['match'])} | {total('n')} | {total('missing')} | {total('unparsed')} | "
            f"{total('out_of_options')} | {total('rejected_by_exact')} | {m['options'].get('assumed', 0)} | "
            f"{m['file_answer_mismatches']} | {m['not_in_answer_key']} |"
        )
    notes = [(n, m["import"]["notes"], m["import"]["skipped"]) for n, m in comparison["models"].items()
             if m["kind"] == "mllm" and (m["import"]["notes"] or m["import"]["skipped"])]
    for name, model_notes, skipped in notes:
        lines.append("\n" + md(f"{name}: skipped {skipped or 'nothing'}; " + "; ".join(model_notes[:5])))
    lines.append("\nOptions assumed: a question whose option count no run, BLINK file or table gave is taken to "
                 "offer A-D (BLINK's maximum); a letter beyond its options is unparsed.")

    lines += ["", "## 95% confidence intervals (%): Wilson per task, bootstrap for the macro mean", "",
              "| Model | " + " | ".join(map(md, comparison["tasks"])) + " | macro |",
              "|" + "---|" * (len(comparison["tasks"]) + 2)]
    for name, m in comparison["models"].items():
        cis = [(m["tasks"].get(task) or {}).get("ci95") for task in comparison["tasks"]] + [m.get("macro_ci95")]
        cells = [f"{percent(ci[0])}-{percent(ci[1])}" if ci else "-" for ci in cis]
        lines.append(f"| {md(name)} | " + " | ".join(cells) + " |")

    if comparison["mcnemar"]:
        lines += ["", "## Paired McNemar tests (exact, two-sided), specialist vs each MLLM", "",
                  "| Task | specialist | MLLM | shared | both right | specialist only | MLLM only | both wrong | p |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for t in comparison["mcnemar"]:
            lines.append(f"| {md(t['task'])} | {md(t['specialist'])} | {md(t['mllm'])} | {t['n_shared']} | {t['both_right']} | "
                         f"{t['specialist_only']} | {t['mllm_only']} | {t['both_wrong']} | {t['p_value']:.3g} |")
    lines += ["", "## Oracle union", "",
              "| Task | specialist | best MLLM | n | specialist % | best MLLM % | specialist or best MLLM % | "
              "specialist or any MLLM % |", "|---|---|---|---|---|---|---|---|"]
    for u in comparison["oracle_union"]:
        lines.append(f"| {md(u['task'])} | {md(u['specialist'] or '-')} | {md(u['best_mllm'] or '-')} | {u['n']} | "
                     f"{percent(u.get('specialist_accuracy'))} | {percent(u.get('best_mllm_accuracy'))} | "
                     f"{percent(u.get('union_best'))} | {percent(u.get('union_any_mllm'))} |")
    agree = comparison["agreement"]
    lines += ["", f"## Agreement matrix ({agree['definition']}, %)", "",
              "| | " + " | ".join(str(i + 1) for i in range(len(agree["models"]))) + " |",
              "|" + "---|" * (len(agree["models"]) + 1)]
    for i, name in enumerate(agree["models"]):
        lines.append(f"| {i + 1}. {md(name)} | " + " | ".join(percent(r) if r is not None else "-" for r in agree["rate"][i]) + " |")
    if comparison["misses"]:
        per_task = Counter(m["task"] for m in comparison["misses"])
        lines += ["", "## Questions the best MLLM misses and the specialist gets", "",
                  ", ".join(f"{md(t)}: {n}" for t, n in per_task.items()) + " (all listed in misses.csv)"]
    lines.append("")
    return "\n".join(lines)


CSV_FIELDS = ("model", "kind", "task", "accuracy", "ci_lo", "ci_hi", "n", "correct", "missing", "unparsed",
              "out_of_options", "source")


def csv_rows(comparison: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, m in comparison["models"].items():
        for task, t in m["tasks"].items():
            ci = t.get("ci95") or [None, None]
            rows.append({"model": name, "kind": m["kind"], "task": task, "accuracy": t["accuracy"], "ci_lo": ci[0],
                         "ci_hi": ci[1], "n": t["n"], "correct": t["correct"], "missing": t["missing"],
                         "unparsed": t["unparsed"], "out_of_options": t["out_of_options"], "source": m["source"]})
    for name, values in comparison["reference"]["rows"].items():
        for task, value in values.items():
            rows.append({"model": name, "kind": "reference", "task": task, "accuracy": value,
                         "source": comparison["reference"]["source"]})
    return rows


def write_comparison(comparison: dict[str, Any], output: str | Path) -> dict[str, Path]:
    output = Path(output)
    paths = {name: output / file for name, file in (
        ("json", "comparison.json"), ("markdown", "comparison.md"), ("csv", "comparison.csv"),
        ("misses", "misses.csv"), ("bars", "comparison_bars.png"), ("scatter", "comparison_scatter.png"))}
    with writing_into(output, "the comparison", CompareError):
        _write_files(comparison, output, paths)
    return paths


def _write_files(comparison: dict[str, Any], output: Path, paths: dict[str, Path]) -> None:
    output.mkdir(parents=True, exist_ok=True)
    paths["json"].write_text(json.dumps(comparison, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths["markdown"].write_text(markdown(comparison), encoding="utf-8")
    with open(paths["csv"], "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(csv_row(row) for row in csv_rows(comparison))
    fields = ("idx", "task", "gold", "specialist", "specialist_pred", "best_mllm", "mllm_raw", "mllm_letter", "mllm_form")
    with open(paths["misses"], "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(csv_row(row) for row in comparison["misses"])
    plots(comparison, paths["bars"], paths["scatter"])
