"""How the outline verifier's second opinion sorts the rectangles of its own validation scenes, at
several acceptances, with and without the box reader's LEARNED_FIT guard (prints one JSON line).

The verifier's record chose its threshold on these scenes without the guard (the least at which no
false rectangle passes); the box reader (boxes.outlines_at_corner) accepts its outlines at ACCEPTANCE
and only within LEARNED_FIT px of the corner finder's two corners. This measures what that rule
passes where the truth is known: the rectangles the training script's harvest asks about
(train.markers_outline_verifier.asked_rectangles: drawn when every coordinate lies within 2 px of a
labelled box or a decoy), each judged by the guard against every candidate corner and far corner the
box reader takes from the finder's proposals in its scene (candidate_corners, far_corners; the box
reader judges a rectangle against the corner and far corner that started it: the same or stricter,
so the false counts are an upper bound).

    .venv/bin/python benchmarks/outline_verifier_validation.py [--start 12000] [--scenes 4000] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.markers.draw.scenes import box_training_scene  # noqa: E402
from adapters.markers.general.boxes.outline_verifier import ACCEPTANCE, default_outline_verifier, features  # noqa: E402
from adapters.markers.general.boxes.outlines_at_corner import candidate_corners, far_corners  # noqa: E402
from adapters.markers.general.nets.corner_finder import default_corner_finder  # noqa: E402
from adapters.markers.general.thresholds import BORDER_NEAR, LEARNED_FIT  # noqa: E402
from train.markers_outline_verifier import asked_rectangles, scene_labels  # noqa: E402
from train.rendered_fit import training_fonts  # noqa: E402

ACCEPTANCES = (0.9, 0.95, ACCEPTANCE, 0.98, 0.99)


def guarded_rows(seed: int, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features (n, FEATURES), drawn (n,), within the guard (n,)) of scene [seed, index]'s asked rectangles."""
    torch.set_num_threads(1)
    scene = box_training_scene(np.random.default_rng([seed, index]), training_fonts())
    asked = asked_rectangles(scene)
    if not asked:
        return np.zeros((0, 0), np.float32), np.zeros(0, bool), np.zeros(0, bool)
    H, W = scene.image.shape[:2]
    labels = scene_labels(scene)
    proposals = default_corner_finder().find(scene.image)
    corners = [(p.x, p.y) for p in candidate_corners(proposals, labels)]
    fars = [(p.x, p.y) for p in far_corners(proposals)]
    # boxes.outlines_at_corner also tries a far corner near the border on the border, and the image's corner
    fars += [(W - 1.0, y) for x, y in fars if x >= W - 1 - BORDER_NEAR]
    fars += [(x, H - 1.0) for x, y in fars if y >= H - 1 - BORDER_NEAR] + [(W - 1.0, H - 1.0)]

    def near(xy, points) -> bool:
        return any(max(abs(xy[0] - x), abs(xy[1] - y)) <= LEARNED_FIT for x, y in points)

    guard = [near(m.box[:2], corners) and near(m.box[2:], fars) for m, _ in asked]
    return (np.stack([features(m) for m, _ in asked]), np.array([drawn for _, drawn in asked], bool),
            np.array(guard, bool))


def _rows(job: tuple[int, int]):
    return guarded_rows(*job)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="the training script's --seed")
    parser.add_argument("--start", type=int, default=12000, help="first scene (the shipped run's validation: 12000-15999)")
    parser.add_argument("--scenes", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    verifier = default_outline_verifier()
    if verifier is None or default_corner_finder() is None:
        raise SystemExit("the corner finder's and outline verifier's weights are needed (see adapters/markers/README.md)")
    started = time.perf_counter()
    jobs = [(args.seed, i) for i in range(args.start, args.start + args.scenes)]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        parts = [p for p in pool.map(_rows, jobs, chunksize=8) if len(p[1])]
    if not parts:
        raise SystemExit(f"no rectangle was asked about in scenes {args.start}-{args.start + args.scenes - 1}: "
                         "give more --scenes")
    rows = np.concatenate([p[0] for p in parts])
    drawn, guard = np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
    probabilities = verifier.probabilities(rows)

    def tally(kept: np.ndarray) -> dict:
        out = {"drawn": int((kept & drawn).sum()), "false": int((kept & ~drawn).sum())}
        for t in sorted({*ACCEPTANCES, verifier.threshold, verifier.record["threshold"]}):
            passed = kept & (probabilities >= t)
            out[f"at_{t:.4g}"] = {"drawn": int((passed & drawn).sum()), "false": int((passed & ~drawn).sum())}
        return out

    print(json.dumps({
        "seed": args.seed, "scenes": [args.start, args.start + args.scenes], "acceptance": ACCEPTANCE,
        "record_threshold": verifier.record["threshold"], "learned_fit_px": LEARNED_FIT,
        "outline_verifier_sha256": verifier.record["sha256"],
        "corner_finder_sha256": default_corner_finder().record["sha256"],
        "asked": tally(np.ones_like(drawn)), "within_guard": tally(guard),
        "seconds": round(time.perf_counter() - started, 1),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
