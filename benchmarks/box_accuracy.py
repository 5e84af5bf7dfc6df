"""How often drawn boxes (Object_Localization) are read back with the right label and place (prints one JSON line).

Renders 2-4 labelled boxes per image in random styles (stroke 1-4 px, any colour, label above the
top-left corner or inside it, coloured text or light text on a dark box) on random backgrounds
(procedural textures, noise, gradients, crops of ../shared/data/images when present), some of them
near misses of another box (every side moved 6-40 px), JPEG-compresses 70% of them, reads them
back with boxes.read.read_boxes and the shipped corner finder, corner reader and outline verifier, and counts boxes
found with the right label and every coordinate within 2 px (and, apart, how often the corner
reader alone reads the right label at each box's true top-left corner). A wrong silent answer is
a box returned at the wrong place; an image is answered when every box on it is placed. Boxes in
the held-out fonts (nets.glyphs.HELD_OUT_FONTS, never used to train the corner finder, reader or outline verifier) and
on photographs (never used to train them either) are reported apart, as are images by how many
boxes they hold (BLINK's Object_Localization draws two), alone and in the held-out fonts, and boxes placed on an outline only the
outline verifier accepted (placed_on_learned_outlines: its "boxes" are those placed).

    .venv/bin/python benchmarks/box_accuracy.py [--n 200] [--seed 0] [--size 320x240]
        [--misses FILE]   (one JSON line per box not found right: where it was placed, or why not)
        [--weights FILE] [--reader-weights FILE] [--verifier-weights FILE]
                          (other corner finder / corner reader / outline verifier weights)
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.markers.draw.fonts import available_fonts  # noqa: E402
from adapters.markers.draw.scenes import BOX_LABEL_SETS, benchmark_case, load_photos, photos_warning  # noqa: E402
from adapters.markers.general.boxes.outline_verifier import OutlineVerifier, default_outline_verifier  # noqa: E402
from adapters.markers.general.boxes.read import read_boxes  # noqa: E402
from adapters.markers.general.nets.corner_finder import CornerFinder, default_corner_finder  # noqa: E402
from adapters.markers.general.nets.corner_reader import CLASSES as READER_CLASSES  # noqa: E402
from adapters.markers.general.nets.corner_reader import CornerReader, default_corner_reader
from adapters.markers.general.nets.glyphs import HELD_OUT_FONTS  # noqa: E402

TOLERANCE = 2.0  # px every coordinate of a found box may be off


def evaluate(n: int = 200, seed: int = 0, height: int = 240, width: int = 320, photos=None,
             finder: CornerFinder | None = None, reader: CornerReader | None = None,
             verifier: OutlineVerifier | None = None, misses: list[dict] | None = None,
             fonts: list[str] | None = None, parse=read_boxes) -> dict:
    """Read `n` rendered images back; figures overall, per stroke width, held-out fonts and photos.
    `finder`, `reader`, `verifier`: networks to read with (default: the shipped ones). `misses`: when given, gets
    one record per box not found right (image index, its label and the image's labels, the drawn
    box, the box placed or None, the parser's reason when it placed none, whether the image was
    answered), the list to look through when a change moves the figures. `photos` (default: those
    of ../shared/data/images) and `fonts` (default: every font on this machine) decide the sample:
    pass [] and draw.fonts.BUILT_IN_FONTS for one that is the same on every machine. `parse`: the box
    parser measured, called as read_boxes is (default: read_boxes)."""
    photos = load_photos() if photos is None else photos
    finder = finder or default_corner_finder()
    reader = reader or default_corner_reader()
    verifier = verifier or default_outline_verifier()
    if finder is None:
        raise SystemExit("no corner finder weights: make them with `python -m train.markers_corners`")
    fonts = list(fonts) if fonts is not None else [f.name for f in available_fonts()]
    rng = np.random.default_rng(seed)
    groups = collections.defaultdict(lambda: collections.Counter())  # group -> right, wrong, boxes
    images = collections.Counter()
    reasons = collections.Counter()
    reader_read = collections.defaultdict(lambda: collections.Counter())  # group -> right, corners
    wrong_boxes = []  # each wrong silent box, to look at (`draw.scenes.benchmark_case` renders image i again)
    seconds = 0.0
    for i in range(n):
        labels = list(BOX_LABEL_SETS[int(rng.integers(len(BOX_LABEL_SETS)))])
        drawn, boxes, style, kind = benchmark_case(rng, labels, photos, height, width, fonts, boxes=True)
        start = time.perf_counter()
        markers, missing, outlines = parse(drawn, labels, finder, reader=reader, verifier=verifier)
        learned = {o.box for o in outlines if o.learned}
        seconds += time.perf_counter() - start
        wrong_here = 0
        for label, truth in boxes.items():
            marker = markers.get(label)
            right = marker is not None and max(abs(np.subtract(marker.box, truth))) <= TOLERANCE
            wrong = marker is not None and not right
            wrong_here += int(wrong)
            if wrong:
                wrong_boxes.append({"image": i, "label": label, "truth": [round(float(v), 1) for v in truth],
                                    "found": [round(float(v), 1) for v in marker.box], "answered": not missing})
            if label in missing:
                reasons[missing[label].split(" (")[0].split(":")[0]] += 1
            if misses is not None and not right:
                misses.append({"image": i, "label": label, "labels": labels,
                               "truth": [round(float(v), 1) for v in truth],
                               "found": [round(float(v), 1) for v in marker.box] if marker is not None else None,
                               "why": missing.get(label), "answered": not missing})
            if marker is not None and marker.box in learned:  # its outline the verifier accepted
                groups["placed_on_learned_outlines"].update(right=int(right), wrong=int(wrong), boxes=1)
            held_out = style.font in HELD_OUT_FONTS
            for group in ("all", f"stroke_{style.ring_width}px", "held_out_fonts" if held_out else "training_fonts",
                          "photo" if kind == "photo" else "procedural", f"{len(labels)}_boxes_per_image",
                          # a style never trained on, in BLINK's layout too (2 boxes)
                          f"held_out_fonts_{len(labels)}_boxes_per_image" if held_out else None):
                if group is not None:
                    groups[group].update(right=int(right), wrong=int(wrong), boxes=1)
        if reader is not None:  # the reader alone, at the true corners (read_boxes reads fitted ones)
            read = reader.probabilities(drawn, [truth[:2] for truth in boxes.values()]).argmax(axis=1)
            for label, k in zip(boxes, read):
                for group in ("all", "held_out_fonts" if style.font in HELD_OUT_FONTS else "training_fonts",
                              "photo" if kind == "photo" else "procedural"):
                    reader_read[group].update(right=int(READER_CLASSES[k] == label), corners=1)
        images["images"] += 1
        images["answered"] += not missing
        images["answered_wrong"] += (not missing) and wrong_here > 0
    figures = {group: {"right": int(c["right"]), "wrong_silent": int(c["wrong"]), "boxes": c["boxes"],
                       "rate": round(c["right"] / max(c["boxes"], 1), 4)} for group, c in sorted(groups.items())}
    return {"n_images": n, "seed": seed, "size": f"{width}x{height}", "tolerance_px": TOLERANCE,
            "photos": len(photos),  # photographs the backgrounds drew on (none: a different sample)
            "fonts": fonts,  # the label fonts drawn from (they too decide the sample)
            "corner_finder_sha256": finder.record.get("sha256"),
            "corner_reader_sha256": reader.record.get("sha256") if reader else None,
            "outline_verifier_sha256": verifier.record.get("sha256") if verifier else None,
            "outline_verifier_threshold": verifier.threshold if verifier else None, **figures,
            "corner_reader_at_true_corners": {group: {"right": int(c["right"]), "corners": c["corners"],
                                                      "rate": round(c["right"] / c["corners"], 4)}
                                              for group, c in sorted(reader_read.items())},
            "images_answered": int(images["answered"]), "images_answered_wrong": int(images["answered_wrong"]),
            "why_missing": dict(reasons.most_common()), "wrong_boxes": wrong_boxes[:20],
            "seconds_per_image": round(seconds / n, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", default="320x240", help="WIDTHxHEIGHT of the rendered images")
    parser.add_argument("--weights", type=Path, help="corner finder weights (default: the shipped file)")
    parser.add_argument("--reader-weights", type=Path, help="corner reader weights (default: the shipped file)")
    parser.add_argument("--verifier-weights", type=Path, help="outline verifier weights (default: the shipped file)")
    parser.add_argument("--misses", type=Path, help="write one JSON line per box not found right here")
    args = parser.parse_args()
    photos = load_photos()  # read once: the warning and the run use the same ones
    if (warning := photos_warning(photos)) is not None:
        print(f"warning: {warning}", file=sys.stderr)
    width, height = (int(v) for v in args.size.lower().split("x"))
    finder = CornerFinder.load(args.weights) if args.weights else None
    reader = CornerReader.load(args.reader_weights) if args.reader_weights else None
    verifier = OutlineVerifier.load(args.verifier_weights) if args.verifier_weights else None
    misses: list[dict] | None = [] if args.misses else None
    print(json.dumps(evaluate(args.n, args.seed, height, width, photos=photos, finder=finder, reader=reader,
                              verifier=verifier, misses=misses)))
    if args.misses:
        args.misses.write_text("".join(json.dumps(m) + "\n" for m in misses))


if __name__ == "__main__":
    main()
