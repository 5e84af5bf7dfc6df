"""Test helper for the report page: a small BLINK-format folder whose images have texture (SIFT
finds matches, Retinex edges), a markers file giving every point but those of one question (an
error), hostile text in a prompt, and MLLM prediction files (one answering in raw text with
markup in it)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from adapters.datasets.blink.writer import BlinkRow, write_blink_folder

HOSTILE = "<script>document.title='pwned'</script>"
DEPTH_QUESTION = f"Which point is closer to the camera? {HOSTILE}"


def textured(rng: np.random.Generator, height: int = 120, width: int = 160) -> np.ndarray:
    """Blocks of random colour, smoothed: corners and edges at many scales."""
    base = rng.integers(0, 256, (height // 10, width // 10, 3)).astype(np.uint8)
    return cv2.resize(base, (width, height), interpolation=cv2.INTER_CUBIC)


def make_page_fixture(root: Path) -> dict:
    """Writes root/blink (3 tasks), root/markers.json and two MLLM files; returns their paths,
    the gold answers and the markers."""
    rng = np.random.default_rng(7)
    rows, markers, gold = [], {}, {}
    for number, answer in ((1, "A"), (2, "B"), (3, "A")):
        scene = textured(rng)
        rows.append(BlinkRow("Relative_Depth", number, DEPTH_QUESTION, ("A is closer", "B is closer"), answer,
                             [Image.fromarray(scene)]))
        near, far = (40.0, 100.0), (120.0, 30.0)
        markers[f"val_Relative_Depth_{number}"] = {"image_1": {"A": near if answer == "A" else far,
                                                               "B": far if answer == "A" else near}}
    # a question the markers file leaves out: its drawing is read, finds no markers, and the
    # question is an error with its reason
    rows.append(BlinkRow("Relative_Depth", 4, DEPTH_QUESTION, ("A is closer", "B is closer"), "B",
                         [Image.fromarray(textured(rng))]))
    for number, answer in ((1, "C"), (2, "A")):
        scene = textured(rng)
        shifted = np.roll(scene, (6, 9), axis=(0, 1))  # the same scene moved: REF (60, 50) lands on (69, 56)
        rows.append(BlinkRow("Visual_Correspondence", number, "Which point corresponds to the reference point?",
                             ("Point A", "Point B", "Point C", "Point D"), answer,
                             [Image.fromarray(scene), Image.fromarray(shifted)]))
        spots = [(20.0, 20.0), (140.0, 100.0), (100.0, 30.0), (30.0, 100.0)]
        spots["ABCD".index(answer)] = (69.0, 56.0)
        markers[f"val_Visual_Correspondence_{number}"] = {"image_1": {"REF": (60.0, 50.0)},
                                                          "image_2": dict(zip("ABCD", spots))}
    for number, answer in ((1, "A"), (2, "C")):
        scene = np.full((120, 160, 3), 200, np.uint8)
        scene[:, :80] = 60 if answer == "A" else 200
        rows.append(BlinkRow("Relative_Reflectance", number, "Which point has darker surface color?",
                             ("A is darker", "B is darker", "About the same"), answer, [Image.fromarray(scene)]))
        markers[f"val_Relative_Reflectance_{number}"] = {"image_1": {"A": (40.0, 60.0), "B": (120.0, 60.0)}}
    for row in rows:
        gold[f"val_{row.task}_{row.number}"] = row.answer
    write_blink_folder(root / "blink", rows)
    (root / "markers.json").write_text(json.dumps(markers))
    # an MLLM right everywhere but on Relative_Depth; another answering in prose with markup
    exact = {idx: f"({'B' if letter == 'A' else 'A'})" if "Depth" in idx else f"({letter})"
             for idx, letter in gold.items()}
    (root / "exact.json").write_text(json.dumps(exact))
    with open(root / "chatty.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["idx", "prediction"])
        for idx, letter in gold.items():
            writer.writerow([idx, f"{HOSTILE} The answer is ({letter})" if idx.endswith("_1") else "Z."])
    return {"blink": root / "blink", "markers": root / "markers.json", "exact": root / "exact.json",
            "chatty": root / "chatty.csv", "gold": gold, "coordinates": markers}
