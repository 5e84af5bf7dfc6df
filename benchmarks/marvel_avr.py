"""MARVEL's AVR and fine-grained questions: the new specialists beside `random`, on a MARVEL
release and on rendered puzzles.

    python -m benchmarks.marvel_avr [--root MARVEL_DIR] [--rendered N] [--seed S]
                                    [--checkpoint tiny-random|dinov2-small|PATH] [--record]

One JSON line per (source, task, specialist): accuracy on the declared development sample
(puzzles whose id is a multiple of 5) and on the other puzzles, apart, each broken down by
pattern and by task configuration, with abstentions, errors and what uniform random choice
scores in expectation. Sources: the release at --root (read by `adapters.datasets.marvel.reader.MarvelReader`,
its files' sha256 recorded), and --rendered N puzzles written in the release's layout by
`adapters.datasets.synthetic.avr_puzzles` (answers following a rule by construction; its seed recorded).
`avr_dinov2` runs only with --checkpoint (tiny-random weights measure nothing). With --rendered
N, N / 4 BLINK IQ_Test questions are also rendered in BLINK's format (sequences and two groups,
candidates lettered A-D) and read back by `adapters.datasets.blink.reader.BlinkReader`.

MARVEL's paper reports its MLLM rows in its Table 2; this repository's documents do not state
them, so no MLLM row is printed here (the `note` line says so).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from adapters.core.questions import BrokenQuestion
from adapters.core.solver import SolverOptions
from adapters.datasets.marvel.reader import MarvelReader
from adapters.run.provenance import git_state, package_versions
from benchmarks.record import Recorder

TASKS = {"MARVEL_AVR": ("avr_rules", "random"), "MARVEL_Fine_Perception": ("fine_perception", "random")}
DEVELOPMENT = 5  # puzzles whose id is a multiple of this were looked at while the rules were written


def split_of(puzzle: str) -> str:
    return "development" if puzzle.isdigit() and int(puzzle) % DEVELOPMENT == 0 else "held_out"


def _figure(rows: list[dict]) -> dict[str, Any]:
    n = len(rows)
    return {"n": n, "correct": sum(r["correct"] for r in rows),
            "accuracy": round(sum(r["correct"] for r in rows) / n, 4) if n else None,
            "abstained": sum(r["abstained"] for r in rows), "errors": sum(r["error"] for r in rows),
            "random_expected": round(sum(1 / r["options"] for r in rows) / n, 4) if n else None}


def _breakdown(rows: list[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {"overall": _figure(rows)}
    for key in ("pattern", "configuration"):
        groups: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            groups[str(row[key])].append(row)
        out[f"by_{key}"] = {name: _figure(members) for name, members in sorted(groups.items())}
    return out


def evaluate(reader: MarvelReader, task: str, name: str, options: SolverOptions) -> tuple[list[dict], float]:
    """One row per question: puzzle, pattern, configuration, correct, abstained, error, options."""
    from adapters.core.registry import get

    solver = get(name).build(options)
    questions = list(reader.questions(task))
    asked = [q for q in questions if not isinstance(q, BrokenQuestion)]
    tic = time.perf_counter()
    outcomes = dict(zip((q.idx for q in asked), solver.decide_batch(asked)))
    seconds = (time.perf_counter() - tic) / max(len(asked), 1)
    rows = []
    for question in questions:
        outcome = outcomes.get(question.idx)
        failed = outcome is None or isinstance(outcome, Exception)
        meta = question.meta or {}
        rows.append({"puzzle": str(meta.get("puzzle")), "pattern": meta.get("pattern"),
                     "configuration": meta.get("configuration"),
                     "correct": not failed and outcome.pred == question.gold,
                     "abstained": not failed and outcome.abstained, "error": failed,
                     "options": len(getattr(question, "choices", ())) or (4 if task == "MARVEL_AVR" else 2)})
    return rows, seconds


def measure(source: str, root: Path, options: SolverOptions, extra: dict, recorder: Recorder,
            checkpoint: str | None) -> None:
    reader = MarvelReader(root, list(TASKS))
    files = [{"path": str(f.path), "sha256": f.sha256} for f in reader.data_files()]
    for task, names in TASKS.items():
        specialists = list(names) + (["avr_dinov2"] if checkpoint and task == "MARVEL_AVR" else [])
        for name in specialists:
            run_options = options if name == "avr_dinov2" else SolverOptions(seed=options.seed)
            rows, seconds = evaluate(reader, task, name, run_options)
            line = {"source": source, "task": task, "specialist": name, "puzzles": len(rows),
                    "s_per_question": round(seconds, 4), **extra}
            if name == "avr_dinov2":
                line["checkpoint"] = checkpoint
            for split in ("development", "held_out"):
                line[split] = _breakdown([r for r in rows if split_of(r["puzzle"]) == split])
            line["all"] = _figure(rows)
            line["data_files"] = files if source == "release" else None
            recorder.emit(line)


def measure_iq_test(n: int, seed: int, extra: dict, recorder: Recorder) -> None:
    """BLINK IQ_Test rows rendered in BLINK's format, read back by BlinkReader: avr_rules and random."""
    from adapters.core.registry import get
    from adapters.datasets.blink.reader import BlinkReader
    from adapters.datasets.blink.writer import write_blink_folder
    from adapters.datasets.synthetic.avr_puzzles import iq_test_rows

    with tempfile.TemporaryDirectory() as folder:
        write_blink_folder(folder, iq_test_rows(n, seed=seed))
        questions = list(BlinkReader(folder, tasks=["IQ_Test"]).questions("IQ_Test"))
        for name in ("avr_rules", "random"):
            tic = time.perf_counter()
            outcomes = get(name).build(SolverOptions(seed=seed)).decide_batch(questions)
            seconds = (time.perf_counter() - tic) / len(questions)
            rows = [{"correct": not isinstance(o, Exception) and o.pred == q.gold,
                     "abstained": not isinstance(o, Exception) and o.abstained, "error": isinstance(o, Exception),
                     "options": len(q.choices)} for q, o in zip(questions, outcomes)]
            recorder.emit({"source": "rendered_blink", "task": "IQ_Test", "specialist": name, "questions": n,
                           "s_per_question": round(seconds, 4), "all": _figure(rows), **extra})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", help="a MARVEL release folder (marvel_label.json + Marvel/, or the hub's parquet)")
    parser.add_argument("--rendered", type=int, default=200, help="rendered puzzles (0: none)")
    parser.add_argument("--seed", type=int, default=100, help="the rendered set's seed (and random's)")
    parser.add_argument("--checkpoint", help="also run avr_dinov2 with these weights")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/marvel_avr.jsonl")
    args = parser.parse_args(argv)
    recorder = Recorder("marvel_avr", args.record)
    options = SolverOptions(device=args.device, seed=args.seed, checkpoint=args.checkpoint)
    common = {"seed": args.seed, "development_sample": f"puzzle id multiple of {DEVELOPMENT}",
              "versions": {k: v for k, v in package_versions().items() if k in ("numpy", "opencv-python-headless",
                                                                                   "torch", "transformers")},
              "git": git_state()}
    recorder.emit({"note": "MARVEL's Table 2 MLLM rows are not stated in this repository's documents; none is "
                           "printed. random_expected is uniform choice's expected accuracy.", **common})
    if args.root:
        measure("release", Path(args.root), options, common, recorder, args.checkpoint)
    if args.rendered:
        from adapters.datasets.synthetic.avr_puzzles import write_avr_release

        with tempfile.TemporaryDirectory() as folder:
            write_avr_release(folder, args.rendered, seed=args.seed)
            measure("rendered", Path(folder), options, {**common, "rendered": args.rendered}, recorder,
                    args.checkpoint)
        measure_iq_test(max(args.rendered // 4, 1), args.seed, common, recorder)
    recorder.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
