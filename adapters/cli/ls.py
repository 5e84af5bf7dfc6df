"""`specialists ls`: tasks, specialists, and which serves which task (instant: nothing heavy is imported)."""

from __future__ import annotations

import argparse
import json


def add_parser(commands: argparse._SubParsersAction) -> None:
    ls = commands.add_parser("ls", help="tasks, specialists, and which serves which task")
    ls.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    from adapters.cli.checkpoints import status_rows
    from adapters.core import registry
    from adapters.core.benchmarks import benchmark
    from adapters.core.tasks import (
        BLINK_TASKS,
        BLINK_TWICE_TASKS,
        COMBO_TASKS,
        CV_BENCH_TASKS,
        MARVEL_TASKS,
        TASK_NAMES,
    )

    specs = registry.all_specs()
    weights = {row["name"]: row["status"] for row in status_rows()}
    tasks = [
        {"task": t.name, "n_val": t.n_val, "n_test": t.n_test,
         "default": registry.default_for(t.name).name, "default_weight_free": registry.default_for(t.name, True).name,
         "specialists": [s.name for s in registry.serving(t.name)]}
        for t in BLINK_TASKS
    ]
    combo = [{"task": t, "benchmark": "combo", "default": registry.default_for(t).name,
              "specialists": [s.name for s in registry.serving(t)]} for t in COMBO_TASKS]
    # each benchmark's own default: cv-bench's runs take the weight-free specialists
    other_tasks = [{"task": t, "benchmark": name,
                    "default": registry.default_for(t, benchmark(name).weight_free_defaults).name,
                    "specialists": [s.name for s in registry.serving(t)]}
                   for name, names in (("marvel", MARVEL_TASKS), ("blink-twice", BLINK_TWICE_TASKS),
                                       ("cv-bench", CV_BENCH_TASKS)) for t in names]
    specialists = [
        {"name": s.name, "kind": s.kind, "summary": s.summary, "tasks": list(s.tasks),
         "checkpoint": s.default_checkpoint, "checkpoint_status": "no weights needed" if s.default_checkpoint is None
         else f"{s.default_checkpoint} {weights.get(s.default_checkpoint, 'not in the manifest')}",
         "settings": [{"name": x.name, "default": x.default, "choices": list(x.choices), "why": x.why}
                      for x in s.settings]}
        for s in specs
    ]
    if args.json:
        print(json.dumps({"tasks": tasks, "combo_tasks": combo, "other_tasks": other_tasks, "specialists": specialists},
                         indent=2))
        return 0
    print("Specialists:")
    for s in specialists:
        served = ("every task" if set(TASK_NAMES) <= set(s["tasks"]) and set(COMBO_TASKS) <= set(s["tasks"])
                  else ", ".join(s["tasks"]))
        print(f"  {s['name']:<18} {s['kind']:<9} {s['summary']}; weights: {s['checkpoint_status']}; answers: {served}")
        for x in s["settings"]:
            others = ", ".join(c for c in x["choices"] if c != x["default"])
            print(f"  {'':<28} --set {s['name']}.{x['name']}={x['default']} ({x['why']}; or: {others})")
    print("\nTasks (val/test questions; default on BLINK (the paper's); default without weights (synthetic); all):")
    for t in tasks:
        print(f"  {t['task']:<26} {t['n_val']:>4}/{t['n_test']:<4} {t['default']:<16} {t['default_weight_free']:<16} {', '.join(t['specialists'])}")
    print("\nComBo tasks (`run --benchmark combo`; default; all):")
    for t in combo:
        print(f"  {t['task']:<26} {t['default']:<16} {', '.join(t['specialists'])}")
    print("\nMARVEL, BLINK-Twice and CV-Bench tasks (`run --benchmark marvel|blink-twice|cv-bench --root DIR`; "
          "default; all):")
    for t in other_tasks:
        print(f"  {t['task']:<26} {t['default']:<20} {', '.join(t['specialists'])}")
    return 0
