"""Write questions in BLINK's parquet layout and schema: `{root}/{Task}/{split}-00000-of-00001.parquet`.

Used by the synthetic generators and by the tests' fixtures, so everything we generate is read
back through the same reader as the real benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from adapters.core.questions import letters_for, option_lines
from specialists.engine import encode_image

IMAGE_STRUCT = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
BLINK_SCHEMA = pa.schema(
    [
        ("idx", pa.string()),
        ("question", pa.string()),
        ("sub_task", pa.string()),
        ("image_1", IMAGE_STRUCT),
        ("image_2", IMAGE_STRUCT),
        ("image_3", IMAGE_STRUCT),
        ("image_4", IMAGE_STRUCT),
        ("choices", pa.list_(pa.string())),
        ("answer", pa.string()),
        ("prompt", pa.string()),
        ("explanation", pa.string()),
    ]
)


@dataclass
class BlinkRow:
    """One question to write. `answer` is a letter, or None for a hidden (test-style) answer.

    images: PIL images, or already-encoded bytes (to write deliberately damaged data in tests).
    """

    task: str
    number: int
    question: str
    choices: Sequence[str]
    answer: str | None
    images: Sequence[Image.Image | bytes]
    lead: str = ""
    sub_task: str | None = None
    explanation: str = ""
    image_format: str = "PNG"

    def idx(self, split: str) -> str:
        return f"{split}_{self.task}_{self.number}"

    def prompt(self) -> str:
        """BLINK's prompt shape: lead sentence, question, then the options block."""
        head = f"{self.lead} {self.question}".strip()
        return f"{head}\nSelect from the following choices.\n{option_lines(self.choices)}"


def write_blink_folder(root: str | Path, rows: Sequence[BlinkRow], split: str = "val") -> dict[str, Path]:
    """Write `rows` grouped by task; returns task -> parquet path."""
    if len(set(row.idx(split) for row in rows)) != len(rows):
        raise ValueError("rows must have distinct (task, number)")
    root = Path(root)
    by_task: dict[str, list[BlinkRow]] = {}
    for row in rows:
        if row.answer is not None and row.answer not in letters_for(len(row.choices)):
            raise ValueError(f"{row.idx(split)}: answer {row.answer} is not an option letter")
        if not 1 <= len(row.images) <= 4:
            raise ValueError(f"{row.idx(split)}: BLINK questions have 1 to 4 images")
        by_task.setdefault(row.task, []).append(row)
    written = {}
    for task, task_rows in by_task.items():
        records = []
        for row in task_rows:
            record = {
                "idx": row.idx(split),
                "question": row.question,
                "sub_task": row.sub_task,
                "choices": list(row.choices),
                "answer": f"({row.answer})" if row.answer is not None else "hidden",
                "prompt": row.prompt(),
                "explanation": row.explanation,
            }
            for i in range(4):
                image = row.images[i] if i < len(row.images) else None
                record[f"image_{i + 1}"] = (
                    None if image is None else {"bytes": encode_image(image, row.image_format, quality=92), "path": None}
                )
            records.append(record)
        folder = root / task
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{split}-00000-of-00001.parquet"
        pq.write_table(pa.Table.from_pylist(records, schema=BLINK_SCHEMA), path)
        written[task] = path
    return written
