"""Every BLINK task through `specialists run --checkpoint tiny-random`: a fixture of one question
per task in BLINK's layout, markers given as a file, and no question failing."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

from adapters.core.tasks import BLINK_TASKS
from adapters.datasets.blink.writer import BlinkRow, write_blink_folder

REPO = Path(__file__).resolve().parents[3]
FOUR = ("the first image", "the second image", "the third image", "the fourth image")
POINTS = ("Point A", "Point B", "Point C", "Point D")


def _fixture(root: Path) -> None:
    rng = np.random.default_rng(0)

    def image(h=64, w=96):
        return Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8))

    holed = np.asarray(image()).copy()
    holed[40:, 60:] = 0
    corr = ("Which point on the second image corresponds to the point in the first image?", POINTS, "A", 2)
    questions = {
        "Art_Style": ("Which image shares the same style as the first image?", FOUR[1:3], "A", 3),
        "Counting": ("How many dogs are there?", ("0", "1", "2", "3"), "B", 1),
        "Forensic_Detection": ("Which image is most likely to be a real photograph?", FOUR, "C", 4),
        "Functional_Correspondence": corr,
        "IQ_Test": ("Which image should come next?", ("A", "B", "C", "D"), "D", 1),
        "Jigsaw": ("Given the first image with the lower right corner missing, can you tell which one of the second "
                   "image or the third image is the missing part?", FOUR[1:3], "A", 3),
        "Multi-view_Reasoning": ("Is the camera moving left or right?", ("left", "right"), "A", 2),
        "Object_Localization": ("Which bounding box more accurately localizes and encloses the dog?",
                                ("Box A", "Box B"), "A", 1),
        "Relative_Depth": ("Which point is closer to the camera?", ("A is closer", "B is closer"), "A", 1),
        "Relative_Reflectance": ("Which point has darker surface color, or the colors is about the same?",
                                 ("A is darker", "B is darker", "About the same"), "C", 1),
        "Semantic_Correspondence": corr,
        "Spatial_Relation": ("Is the cat on the left of the dog?", ("yes", "no"), "A", 1),
        "Visual_Correspondence": corr,
        "Visual_Similarity": ("Which one of the latter two images is most similar to the first one?", FOUR[1:3], "B", 3),
    }
    assert set(questions) == {t.name for t in BLINK_TASKS}
    rows, markers = [], []
    for task, (text, choices, answer, n_images) in questions.items():
        images = [image() for _ in range(n_images)]
        if task == "Jigsaw":
            images = [Image.fromarray(holed), image(24, 36), image(24, 36)]
        rows.append(BlinkRow(task, 1, text, choices, answer, images))
        found: dict = {}
        if task.endswith("Correspondence"):
            found = {"image_1": {"REF": {"xy": [30, 30]}},
                     "image_2": {k: {"xy": [15 + 20 * i, 32]} for i, k in enumerate("ABCD")}}
        elif task in ("Relative_Depth", "Relative_Reflectance"):
            found = {"image_1": {"A": {"xy": [20, 20]}, "B": {"xy": [70, 45]}}}
        elif task == "Object_Localization":
            found = {"image_1": {"A": {"box": [5, 5, 40, 40]}, "B": {"box": [50, 10, 90, 60]}}}
        markers.append({"idx": f"val_{task}_1", "task": task, "status": "ok", "error": None, "markers": found})
    write_blink_folder(root, rows)
    (root / "markers.jsonl").write_text("".join(json.dumps(m) + "\n" for m in markers))


def test_every_task_runs_with_tiny_random_weights_and_no_failure(tmp_path):
    _fixture(tmp_path / "blink")
    done = subprocess.run(
        [sys.executable, "-m", "specialists", "run", "--benchmark", "blink", "--blink-root", str(tmp_path / "blink"),
         "--checkpoint", "tiny-random", "--markers", str(tmp_path / "blink" / "markers.jsonl"),
         "--output-dir", str(tmp_path / "out"), "--no-progress"],
        env={**os.environ, "PYTHONPATH": str(REPO), "SPECIALISTS_HOME": str(tmp_path / "home")},
        capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    tasks = json.loads((tmp_path / "out" / "results.json").read_text())["tasks"]
    assert len(tasks) == 14
    assert {t: v["errors"] for t, v in tasks.items() if v["errors"]} == {}
    by_task = {t: v["specialist"] for t, v in tasks.items()}
    assert [t for t, name in by_task.items() if name == "random"] == []
    assert by_task["IQ_Test"] == "avr_rules"  # a noise image has no panels: it abstains, no error
