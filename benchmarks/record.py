"""Where benchmarks keep their measurements: `--record` writes each printed JSON line to
benchmarks/results/<benchmark>.jsonl (replacing the previous record), so the figures README
points to are the ones a command produced, with its settings and the machine in each line."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


class Recorder:
    """print() each line; with `path`, also collect it and write them all on close()."""

    def __init__(self, name: str, record: bool) -> None:
        self.path = RESULTS / f"{name}.jsonl" if record else None
        self.lines: list[dict] = []

    def emit(self, line: dict) -> None:
        print(json.dumps(line), flush=True)
        if self.path is not None:
            self.lines.append({**line, "recorded": time.strftime("%Y-%m-%d"), "machine": platform.processor() or
                               platform.machine()})

    def close(self) -> None:
        if self.path is not None:
            self.path.parent.mkdir(exist_ok=True)
            self.path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
            print(f"recorded {len(self.lines)} line(s) in {self.path}")
