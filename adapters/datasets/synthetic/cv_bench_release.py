"""A small CV-Bench in its release's layouts, with answers known by construction: the fixture the
reader, the metrics, the rules, `run` and `compare` are tested on, and what `specialists synth
--benchmark cv-bench` writes (no download).

    write_cv_bench_release(root, n=8, seed=0, layout="parquet" | "jsonl") -> [rows with "truth"]

Scenes are drawn, not photographed: a floor under a grey sky seen by a pinhole camera (horizontal
field of view FOV_DEGREES, principal point at the image centre, CAMERA_HEIGHT above the floor,
looking level), upright boxes standing on it, each drawn as its projection and painted far to
near. Per task (n questions each):
- Count (2D; sources ADE20K and COCO in turn): k shapes of one kind among shapes of others;
- Relation (2D): two shapes apart along x or y, outlined red (subject) and blue (reference); the
  rows carry no bbox, as the card says 2D rows do not;
- Depth (3D, Omni3D): two objects at different distances, outlined red and blue; bbox given;
- Distance (3D, Omni3D): an anchor (red) and two options (blue, green); the nearer in 3D, by at
  least a quarter, is the answer; bbox given.
Each row's "truth" (not written into the release files; TRUTH_FILE beside them holds it)
has the facts behind its answer, and for 3D rows the true disparity map (1 / depth) as an array,
an oracle for the depth rules. The question wording follows CV-Bench's (Cambrian-1); the pictures
are only this fixture's.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from adapters.core.questions import option_lines

WIDTH, HEIGHT = 192, 144
FOV_DEGREES = 60.0
CAMERA_HEIGHT = 1.5
FOCAL = (WIDTH / 2) / math.tan(math.radians(FOV_DEGREES) / 2)
OUTLINE = {"red": (255, 0, 0), "blue": (0, 0, 255), "green": (0, 200, 0)}
SHAPES = ("circle", "square", "triangle")
OBJECTS = ("cabinet", "chair", "table", "lamp", "sofa", "box", "bin", "shelf")
SKY_DISPARITY = 1e-3  # far beyond every object
TRUTH_FILE = "cv_bench_truth.json"


def _png(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


def _background(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A low-saturation sky above a floor, with noise: (H, W, 3) uint8 and its disparity (H, W)."""
    image = np.zeros((HEIGHT, WIDTH, 3), np.float32)
    rows = np.arange(HEIGHT, dtype=np.float32)[:, None]
    horizon = HEIGHT / 2
    sky = np.array([175, 180, 188], np.float32)
    floor = np.array([128, 112, 96], np.float32) * (0.7 + 0.3 * np.clip((rows - horizon) / horizon, 0, 1))[..., None]
    image[:] = np.where((rows < horizon)[..., None], sky, floor)
    image += rng.normal(0, 6, image.shape)
    # the floor at row y lies at depth FOCAL * CAMERA_HEIGHT / (y - horizon)
    below = np.maximum(rows + 0.5 - horizon, 1e-6)
    disparity = np.where(rows + 0.5 > horizon, below / (FOCAL * CAMERA_HEIGHT), SKY_DISPARITY)
    return np.clip(image, 0, 255).astype(np.uint8), np.broadcast_to(disparity, (HEIGHT, WIDTH)).astype(np.float32).copy()


def _project(x: float, z: float, width: float, height: float) -> list[float]:
    """The image box (x0, y0, x1, y1) of an upright box of `width` x `height` standing at (x, z)."""
    cx, horizon = WIDTH / 2, HEIGHT / 2
    return [cx + FOCAL * (x - width / 2) / z, horizon + FOCAL * (CAMERA_HEIGHT - height) / z,
            cx + FOCAL * (x + width / 2) / z, horizon + FOCAL * CAMERA_HEIGHT / z]


def _muted(rng: np.random.Generator) -> tuple[int, int, int]:
    """An object colour the outline finder must pass over: saturation under its threshold."""
    base = rng.integers(60, 200)
    return tuple(int(np.clip(base + d, 0, 255)) for d in rng.integers(-25, 26, 3))


def _shape(image: np.ndarray, kind: str, cx: int, cy: int, r: int, colour) -> None:
    if kind == "circle":
        cv2.circle(image, (cx, cy), r, colour, -1)
    elif kind == "square":
        cv2.rectangle(image, (cx - r, cy - r), (cx + r, cy + r), colour, -1)
    else:
        cv2.fillPoly(image, [np.array([[cx, cy - r], [cx - r, cy + r], [cx + r, cy + r]], np.int32)], colour)


def _spots(rng: np.random.Generator, k: int, r: int) -> list[tuple[int, int]]:
    """k centres at least 2.6 r apart inside the image."""
    spots: list[tuple[int, int]] = []
    while len(spots) < k:
        x, y = int(rng.integers(r + 2, WIDTH - r - 2)), int(rng.integers(r + 2, HEIGHT - r - 2))
        if all((x - a) ** 2 + (y - b) ** 2 >= (2.6 * r) ** 2 for a, b in spots):
            spots.append((x, y))
    return spots


def _outline(image: np.ndarray, box: list[float], colour: str) -> None:
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    cv2.rectangle(image, (x0, y0), (x1 - 1, y1 - 1), OUTLINE[colour], 2)


def _count(rng: np.random.Generator) -> dict[str, Any]:
    image, _ = _background(rng)
    kind = SHAPES[int(rng.integers(len(SHAPES)))]
    k = int(rng.integers(1, 6))
    others = int(rng.integers(0, 3))
    spots = _spots(rng, k + others, 9)
    distractors = [s for s in SHAPES if s != kind]
    for i, (x, y) in enumerate(spots):
        shape = kind if i < k else distractors[int(rng.integers(len(distractors)))]
        _shape(image, shape, x, y, 9, _muted(rng))
    options = sorted({k, *rng.choice([n for n in range(0, 7) if n != k], 3, replace=False).tolist()})
    return {"image": image, "question": f"How many {kind}s are in the image?",
            "choices": [str(n) for n in options], "gold": options.index(k), "truth": {"count": k, "shape": kind}}


def _relation(rng: np.random.Generator) -> dict[str, Any]:
    image, _ = _background(rng)
    subject, reference = rng.choice(SHAPES, 2, replace=False).tolist()
    horizontal = bool(rng.integers(2))
    if horizontal:  # apart along x at one height
        y = int(rng.integers(30, HEIGHT - 30))
        spots = [(int(rng.integers(25, 80)), y), (int(rng.integers(112, WIDTH - 25)), y)]
    else:  # apart along y at one column
        x = int(rng.integers(30, WIDTH - 30))
        spots = [(x, int(rng.integers(20, 50))), (x, int(rng.integers(92, HEIGHT - 20)))]
    if rng.integers(2):
        spots.reverse()
    boxes = []
    for (x, y), kind in zip(spots, (subject, reference)):
        _shape(image, kind, x, y, 11, _muted(rng))
        boxes.append([x - 13.0, y - 13.0, x + 14.0, y + 14.0])
    for box, colour in zip(boxes, ("red", "blue")):
        _outline(image, box, colour)
    if horizontal:
        choices, holds = ["left", "right"], spots[0][0] < spots[1][0]
    else:
        choices, holds = ["above", "below"], spots[0][1] < spots[1][1]
    marked = (f"the {subject} (annotated by the red box)", f"the {reference} (annotated by the blue box)")
    question = (f"Considering the relative positions of {marked[0]} and {marked[1]} in the image provided, "
                f"where is {marked[0]} located with respect to {marked[1]}?")
    return {"image": image, "question": question, "choices": choices, "gold": 0 if holds else 1,
            "truth": {"subject_box": boxes[0], "reference_box": boxes[1]}}


def _placed(rng: np.random.Generator, k: int) -> list[dict[str, Any]]:
    """k objects on the floor (name, x, z, width, height, image box), each inside the image and
    none hiding another's middle (their image boxes overlap by under a third of the narrower)."""
    names = rng.choice(OBJECTS, k, replace=False).tolist()
    while True:
        objects = []
        for name in names:
            x, z = float(rng.uniform(-1.4, 1.4)), float(rng.uniform(3.6, 8.0))
            width, height = float(rng.uniform(0.6, 1.0)), float(rng.uniform(0.6, 1.1))
            objects.append({"name": name, "x": x, "z": z, "width": width, "height": height,
                            "box": _project(x, z, width, height)})
        inside = all(o["box"][0] >= 2 and o["box"][2] <= WIDTH - 2 and o["box"][3] <= HEIGHT - 2 for o in objects)
        apart = all(min(a["box"][2], b["box"][2]) - max(a["box"][0], b["box"][0])
                    < min(a["box"][2] - a["box"][0], b["box"][2] - b["box"][0]) / 3
                    for i, a in enumerate(objects) for b in objects[i + 1:])
        if inside and apart:
            return objects


def _centre_3d(obj: dict[str, Any]) -> tuple[float, float, float]:
    """The object's centre in the camera frame (x right, y down, z ahead)."""
    return obj["x"], CAMERA_HEIGHT - obj["height"] / 2, obj["z"]


def _scene(rng: np.random.Generator, objects: list[dict[str, Any]], colours: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The objects painted far to near and outlined: image (H, W, 3) and its disparity (H, W)."""
    image, disparity = _background(rng)
    for obj in sorted(objects, key=lambda o: -o["z"]):
        x0, y0, x1, y1 = (int(round(v)) for v in obj["box"])
        cv2.rectangle(image, (x0, y0), (x1 - 1, y1 - 1), _muted(rng), -1)
        disparity[max(y0, 0):y1, max(x0, 0):x1] = 1.0 / obj["z"]
    for obj, colour in zip(objects, colours):
        _outline(image, obj["box"], colour)
    return image, disparity


def _depth(rng: np.random.Generator) -> dict[str, Any]:
    while True:
        objects = _placed(rng, 2)
        if max(o["z"] for o in objects) >= 1.3 * min(o["z"] for o in objects):
            break
    image, disparity = _scene(rng, objects, ("red", "blue"))
    a, b = objects
    question = (f"Which object is closer to the camera taking this photo, the {a['name']} (highlighted by a red box) "
                f"or the {b['name']} (highlighted by a blue box)?")
    return {"image": image, "question": question, "choices": [a["name"], b["name"]], "gold": 0 if a["z"] < b["z"] else 1,
            "bbox": [o["box"] for o in objects], "truth": {"objects": objects, "disparity": disparity}}


def _distance(rng: np.random.Generator) -> dict[str, Any]:
    while True:
        objects = _placed(rng, 3)
        d1, d2 = (math.dist(_centre_3d(objects[0]), _centre_3d(o)) for o in objects[1:])
        if max(d1, d2) >= 1.25 * min(d1, d2):
            break
    image, disparity = _scene(rng, objects, ("red", "blue", "green"))
    anchor, a, b = objects
    question = (f"Which object is closer to the {anchor['name']} (highlighted by a red box), the {a['name']} "
                f"(highlighted by a blue box) or the {b['name']} (highlighted by a green box)?")
    return {"image": image, "question": question, "choices": [a["name"], b["name"]], "gold": 0 if d1 < d2 else 1,
            "bbox": [o["box"] for o in objects], "truth": {"objects": objects, "disparity": disparity,
                                                           "distances": [d1, d2]}}


TASKS = {"Count": ("2D", _count), "Relation": ("2D", _relation), "Depth": ("3D", _depth), "Distance": ("3D", _distance)}


def write_cv_bench_release(root: str | Path, n: int = 8, seed: int = 0, layout: str = "parquet") -> list[dict[str, Any]]:
    """n questions per task under `root` in the hub's parquet layout (test_2d.parquet,
    test_3d.parquet) or as JSON Lines with img/ (test_2d.jsonl, test_3d.jsonl); the rows, each
    with its "truth" and decoded "pixels" (H, W, 3)."""
    if layout not in ("parquet", "jsonl"):
        raise ValueError(f"layout is 'parquet' or 'jsonl', not {layout!r}")
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for task, (kind, make) in TASKS.items():
        for i in range(n):
            made = make(rng)
            idx = len(rows)
            source = "Omni3D" if kind == "3D" else ("ADE20K", "COCO")[i % 2]
            choices = made["choices"]
            answer = f"({'ABCDEFG'[made['gold']]})"
            filename = f"img/{kind}/{task.lower()}/{source.lower()}_{idx}.png"
            rows.append({
                "idx": idx, "type": kind, "task": task, "question": made["question"], "choices": choices,
                "answer": answer, "prompt": f"{made['question']} Select from the following choices.\n{option_lines(choices)}",
                "filename": filename, "source": source, "source_dataset": f"synthetic ({source}-like)",
                "source_filename": f"synthetic_{idx}.png",
                "target_class": made["truth"].get("shape") if source == "COCO" else None,
                "target_size": None, "bbox": made.get("bbox"),
                "truth": made["truth"], "pixels": made["image"], "png": _png(made["image"]),
            })
    for kind in ("2D", "3D"):
        part = [r for r in rows if r["type"] == kind]
        if layout == "parquet":
            table = [{**release(r), "image": {"bytes": r["png"], "path": Path(r["filename"]).name}} for r in part]
            pq.write_table(pa.Table.from_pylist(table), root / f"test_{kind.lower()}.parquet")
        else:
            for r in part:
                (root / r["filename"]).parent.mkdir(parents=True, exist_ok=True)
                (root / r["filename"]).write_bytes(r["png"])
            (root / f"test_{kind.lower()}.jsonl").write_text("".join(json.dumps(release(r)) + "\n" for r in part),
                                                              encoding="utf-8")
    facts = [{"idx": r["idx"], "task": r["task"], **{k: v for k, v in r["truth"].items() if k != "disparity"}}
             for r in rows]
    # JSON, not JSON Lines: the reader looks at every .jsonl file of the folder for questions
    (root / TRUTH_FILE).write_text(json.dumps(facts, indent=1), encoding="utf-8")
    return rows


def release(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the release holds it (without the fixture's truth and pixels)."""
    return {k: v for k, v in row.items() if k not in ("truth", "pixels", "png")}
