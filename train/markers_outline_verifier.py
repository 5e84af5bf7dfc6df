"""Train the outline verifier (adapters/markers/boxes/outline_verifier.py) on the rectangles the box
outlines' hand rules (boxes.measure) turn away, on a CPU.

Renders box scenes (draw.scenes.box_training_scene: labelled boxes in the training fonts only, decoy
rectangles, JPEG; procedural backgrounds, or with --photos 2 in 5 a tinted crop of scikit-image's
sample photographs as the corner finder and reader saw (draw/training_photos.py; never the
benchmark's; the shipped verifier saw none)), reads each with boxes.read.read_boxes
and the shipped corner finder, corner reader and glyph classifier, with a recorder
(boxes.measure.Rejections) in the verifier's place: it is asked exactly what the verifier is asked
at run time (every rectangle the hand rules rejected, from a candidate corner that starts no
outline by them), and accepts none; the rectangles rejected for an overrulable reason are kept. A rectangle is drawn when each of its coordinates lies within TOLERANCE
px of a rectangle the scene drew (a labelled box or a decoy): the box parser's benchmark's bar.

Scene i is rendered from seed [seed, i]: scenes 0..scenes-1 fit the network, the next
`validation` ones choose its threshold, the least probability above every false rectangle's
there (none of them accepted), and say how many drawn ones it accepts. Writes the weights with
a JSON record (counts, threshold, validation figures, the other networks' sha256, versions) that
OutlineVerifier.load returns with the file's sha256. About 0.2 s per scene per worker (12,000 +
4,000 scenes: 30 minutes with 2 workers; the same fit on the first 6,000 scenes, 2,000 for the
threshold, read 13 fewer boxes on the benchmark). The rows depend on the other networks and the
hand rules, so a verifier is fitted again whenever either changes; --rows FILE keeps the read
rows (.npz) and, when FILE exists and was read the same way (scenes, seed, photographs, networks,
the parser's source: reading_key), fits on it without reading a scene (another --width in seconds).

    python -m train.markers_outline_verifier [--output adapters/markers/nets/weights/outline_verifier.safetensors]
        [--scenes 12000] [--validation 4000] [--workers 2] [--seed 0] [--width 16] [--photos]
        [--rows FILE.npz]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import platform
import time
from pathlib import Path

import numpy as np
import torch

from adapters.markers.draw.scenes import TrainingScene, box_training_scene
from adapters.markers.draw.training_photos import photos_record, training_photos
from adapters.markers.general.boxes import fit as fit_outline_module
from adapters.markers.general.boxes.measure import Rejections
from adapters.markers.general.boxes.outline import OutlineMeasures
from adapters.markers.general.boxes.outline_verifier import (
    FEATURES,
    OVERRULABLE,
    WEIGHTS,
    OutlineVerifier,
    OutlineVerifierNet,
    features,
)
from adapters.markers.general.boxes.read import read_boxes
from adapters.markers.general.nets.corner_finder import BOX_LABELS, default_corner_finder
from adapters.markers.general.nets.corner_reader import default_corner_reader
from train.rendered_fit import training_fonts

TOLERANCE = 2.0  # px each coordinate of a drawn rectangle may be off
STEPS = 1000  # full-batch AdamW steps (the rows fit in memory: several thousand)
WEIGHT_DECAY = 0.1  # (with 3000 plain Adam steps it learned the fitting rows by heart)


def scene_labels(scene: TrainingScene) -> list[str]:
    """The box labels a training scene draws (what read_boxes is asked for)."""
    return sorted({label for _, _, label in scene.points if label in BOX_LABELS})


def asked_rectangles(scene: TrainingScene) -> list[tuple[OutlineMeasures, bool]]:
    """The distinct rectangles the verifier would be asked about in `scene` (those the hand rules
    rejected for an overrulable reason), each with whether the scene drew it (TOLERANCE)."""
    asked = Rejections()  # in the verifier's place: keeps what it is asked, accepts nothing
    read_boxes(scene.image, scene_labels(scene), default_corner_finder(), verifier=asked)
    out, seen = [], set()
    for measures, reason in asked.rejected:
        key = tuple(round(v) for v in measures.box)
        if reason not in OVERRULABLE or key in seen:
            continue
        seen.add(key)
        out.append((measures, any(max(abs(np.subtract(measures.box, r))) <= TOLERANCE for r in scene.rectangles)))
    return out


def harvest_scene(seed: int, index: int, photos: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(rows (n, FEATURES), drawn (n,) bool) of the distinct rectangles the verifier would be asked
    about in scene [seed, index] (2 in 5 scenes on a training photograph when `photos`)."""
    torch.set_num_threads(1)
    backgrounds = training_photos() if photos else ()
    asked = asked_rectangles(box_training_scene(np.random.default_rng([seed, index]), training_fonts(), photos=backgrounds))
    if not asked:
        return np.zeros((0, FEATURES), np.float32), np.zeros(0, bool)
    return np.stack([features(measures) for measures, _ in asked]), np.array([drawn for _, drawn in asked], bool)


def _harvest(args: tuple[int, int, bool]) -> tuple[np.ndarray, np.ndarray]:
    return harvest_scene(*args)


def harvest(seed: int, indices: range, workers: int, photos: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Every scene's rows and labels, concatenated in scene order (the same for any `workers`)."""
    if photos:
        training_photos()  # loaded once here, before the workers fork, and a missing package said once
    jobs = [(seed, i, photos) for i in indices]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_harvest, jobs, chunksize=8)
    else:
        parts = [_harvest(job) for job in jobs]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def fit_network(rows: np.ndarray, drawn: np.ndarray, seed: int, width: int, steps: int = STEPS) -> OutlineVerifierNet:
    """A network fitted full-batch (AdamW, binary cross-entropy with the drawn rectangles weighed
    up to as much as the false ones in all)."""
    torch.manual_seed(seed)
    net = OutlineVerifierNet(width)
    x, y = torch.as_tensor(rows), torch.as_tensor(drawn, dtype=torch.float32)
    weight = torch.tensor(max((~drawn).sum(), 1) / max(drawn.sum(), 1), dtype=torch.float32)
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=weight)
    optimiser = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=WEIGHT_DECAY)
    for _ in range(steps):
        optimiser.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        optimiser.step()
    # as the weights file stores them (float16), so the threshold is chosen on what ships
    net.load_state_dict({k: v.half().float() for k, v in net.state_dict().items()})
    return net.eval()


def strict_threshold(probabilities: np.ndarray, drawn: np.ndarray) -> float:
    """The least probability above every false rectangle's (1.0 when none is drawn above them)."""
    false = probabilities[~drawn]
    return float(np.nextafter(np.float32(false.max() if len(false) else 0.5), np.float32(1.0)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=WEIGHTS)
    parser.add_argument("--scenes", type=int, default=12000, help="scenes to fit on")
    parser.add_argument("--validation", type=int, default=4000, help="scenes to choose the threshold on")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--photos", action="store_true", help="2 in 5 scenes on the training photographs")
    parser.add_argument("--rows", type=Path, help="keep the read rows in this .npz, or fit on it when it "
                        "holds rows read the same way (scenes, seed, photos, networks, parser source)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if default_corner_finder() is None:
        raise SystemExit("no corner finder weights: make them with `python -m train.markers_corners`")
    rows, drawn, held_rows, held_drawn = read_rows(args)
    record = train(rows, drawn, held_rows, held_drawn, args, started)
    print(json.dumps(record))
    return 0


def reading_key(args: argparse.Namespace) -> dict:
    """What the read rows depend on: the scenes, the networks that read them and the parser's source."""
    reader = default_corner_reader()
    source = hashlib.sha256()
    for path in sorted(Path(fit_outline_module.__file__).parents[1].glob("**/*.py")):
        source.update(path.read_bytes())
    return {"seed": args.seed, "scenes": args.scenes, "validation_scenes": args.validation,
            "photos": args.photos, "corner_finder_sha256": default_corner_finder().record.get("sha256"),
            "corner_reader_sha256": reader.record.get("sha256") if reader else None,
            "parser_source_sha256": source.hexdigest()}


def read_rows(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rows, drawn, held_rows, held_drawn): read from the scenes, or from args.rows when it holds
    rows read the same way (reading_key); a fresh reading is written to args.rows when given."""
    key = reading_key(args)
    if args.rows is not None and args.rows.is_file():
        kept = np.load(args.rows)
        if json.loads(str(kept["key"])) == key:
            return kept["rows"], kept["drawn"], kept["held_rows"], kept["held_drawn"]
        print(f"{args.rows} holds rows read another way (other scenes, networks or parser): reading the scenes again")
    rows, drawn = harvest(args.seed, range(args.scenes), args.workers, args.photos)
    held_rows, held_drawn = harvest(args.seed, range(args.scenes, args.scenes + args.validation), args.workers,
                                    args.photos)
    if args.rows is not None:
        np.savez_compressed(args.rows, rows=rows, drawn=drawn, held_rows=held_rows, held_drawn=held_drawn,
                            key=json.dumps(key))
    return rows, drawn, held_rows, held_drawn


def train(rows: np.ndarray, drawn: np.ndarray, held_rows: np.ndarray, held_drawn: np.ndarray,
          args: argparse.Namespace, started: float) -> dict:
    """Fit on (rows, drawn), choose the threshold on the held-out (validation) rows, write
    args.output; returns the record."""
    finder, reader = default_corner_finder(), default_corner_reader()
    net = fit_network(rows, drawn, args.seed, args.width)
    verifier = OutlineVerifier(net)
    fitted = verifier.probabilities(rows)
    held = verifier.probabilities(held_rows)
    threshold = strict_threshold(held, held_drawn)
    record = {
        "seed": args.seed, "scenes": args.scenes, "validation_scenes": args.validation, "width": args.width,
        "steps": STEPS, "weight_decay": WEIGHT_DECAY, "tolerance_px": TOLERANCE, "overrulable": list(OVERRULABLE), "threshold": threshold,
        "fit": {"rectangles": int(len(drawn)), "drawn": int(drawn.sum()),
                "drawn_accepted": int((fitted[drawn] >= threshold).sum()),
                "false_accepted": int((fitted[~drawn] >= threshold).sum())},
        "validation": {"rectangles": int(len(held_drawn)), "drawn": int(held_drawn.sum()),
                       "drawn_accepted": int((held[held_drawn] >= threshold).sum()),
                       "false_accepted": int((held[~held_drawn] >= threshold).sum())},
        "fonts": training_fonts(), "photos": photos_record() if args.photos else None,
        "corner_finder_sha256": finder.record.get("sha256"),
        "corner_reader_sha256": reader.record.get("sha256") if reader else None,
        "torch": torch.__version__, "numpy": np.__version__, "python": platform.python_version(),
        "seconds": round(time.perf_counter() - started, 1),
    }
    verifier.record = record
    verifier.save(args.output)
    return record


if __name__ == "__main__":
    raise SystemExit(main())
