"""Random scenes with BLINK-style markers: the backgrounds, positions and JPEG round trip shared by
the accuracy benchmark (benchmarks/markers_accuracy.py) and the patch reader's training data
(train/markers_reader.py).

    background(rng, h, w, photos) -> (image, kind)     procedural texture, noise, gradient or photo crop
    random_points(rng, labels, h, w) -> {label: (x, y)}
    jpeg(image, quality) -> image
    training_scene(rng, fonts, photos=()) -> TrainingScene   markers plus unlabelled decoys, for the reader
    random_boxes(rng, labels, h, w) -> {label: (x0, y0, x1, y1)}
    box_training_scene(rng, fonts, photos=()) -> TrainingScene    labelled boxes plus decoys, for the corner finder
    benchmark_case(rng, labels, photos, h, w, fonts, boxes) -> (image, truth, style, kind)   for the benchmarks
    blink_style_case(rng, photos, family) -> (image, points, style)   BLINK's own drawing, for its benchmark
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np
from PIL import Image

from adapters.markers.blink.draw import BlinkStyle, blink_jpeg, draw_blink_points
from adapters.markers.draw.fonts import font_by_name, text_mask
from adapters.markers.draw.render import MarkerStyle, draw_boxes, draw_points, draw_points_layout
from adapters.markers.draw.textures import procedural_texture
from adapters.markers.draw.training_photos import tinted
from adapters.markers.labels import FAR_CORNER, REF

PHOTOS = Path(__file__).resolve().parents[4] / "shared" / "data" / "images"


def load_photos(folder: Path = PHOTOS) -> list[np.ndarray]:
    """The (H, W, 3) uint8 RGB photographs in `folder` (none when it is missing)."""
    photos = []
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                photos.append(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
    return photos


def photos_warning(photos: list[np.ndarray], folder: Path = PHOTOS) -> str | None:
    """What to tell a benchmark's user when no photograph was found: the backgrounds then come
    from fewer kinds, so the random draws, the images and the figures all differ from the
    README's (which were measured with the photographs beside the repository)."""
    if photos:
        return None
    return (f"no photographs in {folder}: backgrounds are procedural only, so this sample differs from "
            "the README's; put the repository beside ../shared (or link it there) to measure the same one")


def background(rng: np.random.Generator, height: int, width: int, photos: list[np.ndarray],
               photo_only: bool = False) -> tuple[np.ndarray, str]:
    """A natural-looking (H, W, 3) uint8 background and its kind (a photo crop only, with
    `photo_only` and photos given)."""
    kinds = ["photo"] if photo_only and photos else ["texture", "noise", "gradient"] + (["photo", "photo"] if photos else [])
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "texture":
        return procedural_texture(rng, height, width), kind
    if kind == "noise":  # smooth coloured noise (a blurred random field), like foliage or gravel
        field = rng.normal(0, 1, (height // 4 + 1, width // 4 + 1, 3)).astype(np.float32)
        field = cv2.resize(field, (width, height), interpolation=cv2.INTER_CUBIC)[:height, :width]
        image = 128 + 45 * field + rng.normal(0, 6, (height, width, 3))
        return np.clip(image, 0, 255).astype(np.uint8), kind
    if kind == "gradient":
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        a, b = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
        t = (np.cos(rng.uniform(0, np.pi)) * xx / width + np.sin(rng.uniform(0, np.pi)) * yy / height)
        t = (t - t.min()) / max(np.ptp(t), 1e-6)
        image = a + (b - a) * t[..., None] + rng.normal(0, 3, (height, width, 3))
        return np.clip(image, 0, 255).astype(np.uint8), kind
    photo = photos[int(rng.integers(len(photos)))]
    scale = rng.uniform(0.25, 0.8) * min(photo.shape[0] / height, photo.shape[1] / width)
    h, w = int(height * scale), int(width * scale)
    y, x = int(rng.integers(0, photo.shape[0] - h + 1)), int(rng.integers(0, photo.shape[1] - w + 1))
    return cv2.resize(photo[y:y + h, x:x + w], (width, height), interpolation=cv2.INTER_AREA), kind


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=quality)
    return np.asarray(Image.open(buffer).convert("RGB"))


def random_points(rng: np.random.Generator, labels: list[str], height: int, width: int, margin: int = 20,
                  spacing: float = 55.0) -> dict[str, tuple[float, float]]:
    """Sub-pixel positions at least `spacing` px apart (so labels belong clearly to one circle)."""
    points: dict[str, tuple[float, float]] = {}
    while len(points) < len(labels):
        p = (float(rng.uniform(margin, width - margin)), float(rng.uniform(margin, height - margin)))
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) >= spacing for q in points.values()):
            points[labels[len(points)]] = p
    return points


# Label sets of the training scenes: BLINK's (two to four letters, or REF alone) and five letters.
TRAINING_LABEL_SETS = (("A", "B"), ("A", "B", "C"), ("A", "B", "C", "D"), ("A", "B", "C", "D", "E"), (REF,))


DECOY_TEXT = tuple("FGHJKLMNPQSTUVWXYZ0123456789")


@dataclass(frozen=True)
class TrainingScene:
    """A rendered scene and where to look in it: points [(x, y, class)], class a label of labels.LABELS or
    None (no marker centred there: a decoy ring, a decoy letter's ring, a label glyph, plain scene);
    for box scenes, every rectangle drawn (x0, y0, x1, y1), labelled or decoy."""

    image: np.ndarray
    points: list[tuple[float, float, str | None]]
    style: MarkerStyle
    rectangles: list[tuple[float, float, float, float]] = field(default_factory=list)


def _decoys(rng: np.random.Generator, image: np.ndarray, fonts: list[str], avoid: list[tuple[float, float]]
            ) -> list[tuple[float, float]]:
    """Draw unlabelled rings, rings with a non-label character beside them, stray characters and
    blobs in random colours (what a scene or its text offers a ring detector); returns the decoy
    rings' centres."""
    h, w = image.shape[:2]
    centres = []
    for _ in range(int(rng.integers(0, 5))):
        x, y = float(rng.uniform(5, w - 5)), float(rng.uniform(5, h - 5))
        if any(np.hypot(x - ax, y - ay) < 30 for ax, ay in avoid):
            continue
        kind = rng.choice(["ring", "ring+char", "char", "blob"])
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        if kind in ("ring", "ring+char"):
            style = MarkerStyle.random(rng, fonts=fonts, colour=colour)
            if kind == "ring":
                cv2.circle(image, (int(round(x * 16)), int(round(y * 16))), int(round(style.radius * 16)), colour,
                           style.ring_width, cv2.LINE_AA, 4)
            else:
                image[:] = draw_points_layout(image, {str(rng.choice(DECOY_TEXT)): (x, y)}, style)[0]
            centres.append((x, y))
        elif kind == "char":
            text = str(rng.choice(DECOY_TEXT)) * int(rng.integers(1, 3))
            mask = text_mask(text, font_by_name(str(rng.choice(fonts))), float(rng.uniform(8, 18)))
            y0, x0 = int(y) - mask.shape[0] // 2, int(x) - mask.shape[1] // 2
            ys, xs = slice(max(0, y0), min(h, y0 + mask.shape[0])), slice(max(0, x0), min(w, x0 + mask.shape[1]))
            alpha = mask[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0, None]
            image[ys, xs] = np.round(image[ys, xs] * (1 - alpha) + np.float32(colour) * alpha).astype(np.uint8)
        else:
            axes = (int(rng.integers(2, 12)), int(rng.integers(2, 12)))
            cv2.ellipse(image, (int(x), int(y)), axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
    return centres


def training_scene(rng: np.random.Generator, fonts: list[str], height: int = 240, width: int = 320,
                   photos: Sequence[np.ndarray] = (), **style_fixed) -> TrainingScene:
    """One scene for the patch reader: markers in a random style (only `fonts`), decoys, JPEG.

    Backgrounds are procedural (texture, noise, gradient), or 2 in 5 a tinted crop of one of
    `photos` when given (training_photos.training_photos(): never the benchmark's photographs).
    style_fixed: MarkerStyle fields the markers' style takes rather than random ones.
    """
    labels = list(TRAINING_LABEL_SETS[int(rng.integers(len(TRAINING_LABEL_SETS)))])
    image, kind = background(rng, height, width, list(photos))
    if kind == "photo":
        image = tinted(rng, image)
    style = MarkerStyle.random(rng, fonts=fonts, **style_fixed)
    points = random_points(rng, labels, height, width, spacing=float(rng.uniform(35, 70)))
    image = np.ascontiguousarray(image)
    decoys = _decoys(rng, image, fonts, list(points.values()))
    image, drawn = draw_points_layout(image, points, style)
    if rng.uniform() < 0.75:
        image = jpeg(image, int(rng.integers(60, 97)))
    out: list[tuple[float, float, str | None]] = [(x, y, label) for label, (x, y) in points.items()]
    out += [(x, y, None) for x, y in decoys]
    for d in drawn:  # a letter's bowl (B, D, R) looks like a small ring to the detector
        x0, y0, x1, y1 = d.rect
        out.append(((x0 + x1) / 2, (y0 + y1) / 2, None))
    for _ in range(2):  # plain scene, away from every marker
        x, y = float(rng.uniform(0, width)), float(rng.uniform(0, height))
        if all(np.hypot(x - px, y - py) > 8 for px, py in points.values()):
            out.append((x, y, None))
    return TrainingScene(image, out, style)


MIN_BOX = 30  # px: the smallest side of a random box


BOX_LABEL_SETS = (("A", "B"), ("A", "B"), ("A", "B", "C"), ("A", "B", "C", "D"))


# every label BOX_LABEL_SETS draws; any_box_labels draws from them so that each is as common
ANY_BOX_LABELS = tuple(sorted({label for labels in BOX_LABEL_SETS for label in labels}))




# px: a crossing this near a box's labelled corner is that corner to the corner reader (patches are
# cropped up to 1 px off, and fitted corners lie about a px off), so it is not taught as "none"
CROSSING_AT_LABEL = 4.0


def any_box_labels(rng: np.random.Generator) -> list[str]:
    """As many labels as a BOX_LABEL_SETS entry names, drawn from ANY_BOX_LABELS, sorted: each label
    as common. BOX_LABEL_SETS draws D in 1 scene in 4 and C in 2, A and B in all, as the benchmark
    asks them; box networks fitted on those shares see D too seldom and read it far worse at true
    corners than the other labels."""
    k = len(BOX_LABEL_SETS[int(rng.integers(len(BOX_LABEL_SETS)))])
    return sorted(rng.choice(ANY_BOX_LABELS, k, replace=False).tolist())


def random_boxes(rng: np.random.Generator, labels: list[str], height: int, width: int
                 ) -> dict[str, tuple[float, float, float, float]]:
    """Boxes (x0, y0, x1, y1), sub-pixel, inside the image, like Object_Localization's: each is
    either a box of its own or an earlier one with every side moved 6-40 px (a near miss), and
    no two boxes' matching sides are closer than 5 px or top-left corners closer than 25 px
    (nearer than that, two strokes merge into one and the labels collide)."""
    def fresh() -> tuple[float, ...]:
        w, h = rng.uniform(40, 0.7 * width), rng.uniform(40, 0.7 * height)
        x0, y0 = rng.uniform(3, width - w - 3), rng.uniform(3, height - h - 3)
        return (x0, y0, x0 + w, y0 + h)

    boxes: dict[str, tuple[float, ...]] = {}
    while len(boxes) < len(labels):
        if boxes and rng.uniform() < 0.5:
            base = list(boxes.values())[int(rng.integers(len(boxes)))]
            moved = np.add(base, rng.uniform(6, 40, 4) * rng.choice([-1, 1], 4))
            box = tuple(float(v) for v in np.clip(moved, 3, [width - 3, height - 3, width - 3, height - 3]))
        else:
            box = fresh()
        if (box[2] - box[0] >= MIN_BOX and box[3] - box[1] >= MIN_BOX
                and all(min(abs(box[i] - b[i]) for i in range(4)) >= 5 and np.hypot(box[0] - b[0], box[1] - b[1]) >= 25
                        for b in boxes.values())):
            boxes[labels[len(boxes)]] = box
    return boxes


def box_training_scene(rng: np.random.Generator, fonts: list[str], height: int = 240, width: int = 320,
                       photos: Sequence[np.ndarray] = (), labels: Sequence[str] | None = None,
                       **style_fixed) -> TrainingScene:
    """One scene for the corner finder: labelled boxes in a random style (only `fonts`), decoy
    rectangles (unlabelled, or with a non-label character at their corner), the point decoys, JPEG.
    Backgrounds are procedural, or 2 in 5 a tinted crop of one of `photos` when given (as
    training_scene's). labels: the boxes' labels (default: one of BOX_LABEL_SETS, as the box
    benchmark and BLINK ask them); style_fixed: MarkerStyle fields the boxes' style takes rather
    than random ones.

    points: each box's top-left corner with its label, every drawn rectangle's bottom-right
    corner as FAR_CORNER (whether it has a label is not visible there), and as None (no label's
    corner, for the corner reader) each decoy rectangle's top-left corner and every point where
    two boxes' lines cross (the corners of the rectangle between two overlapping boxes), but for
    a crossing within CROSSING_AT_LABEL px of a labelled corner: a box whose corner lies on another
    box's line has the crossing next to its label, and teaching it as "none" would teach the
    reader to read "none" at labelled corners that lie on another box's line."""
    labels = list(BOX_LABEL_SETS[int(rng.integers(len(BOX_LABEL_SETS)))] if labels is None else labels)
    image, kind = background(rng, height, width, list(photos))
    if kind == "photo":
        image = tinted(rng, image)
    image = np.ascontiguousarray(image)
    style = MarkerStyle.random(rng, fonts=fonts, **style_fixed)
    boxes = random_boxes(rng, labels, height, width)
    _decoys(rng, image, fonts, [(b[0], b[1]) for b in boxes.values()])
    out: list[tuple[float, float, str | None]] = []
    rectangles = list(boxes.values())
    for _ in range(int(rng.integers(0, 3))):
        decoy = random_boxes(rng, ["decoy"], height, width)["decoy"]
        if any(np.hypot(decoy[0] - b[0], decoy[1] - b[1]) < 25 for b in boxes.values()):
            continue
        decoy_style = MarkerStyle.random(rng, fonts=fonts, colour=tuple(int(c) for c in rng.integers(0, 256, 3)))
        if rng.uniform() < 0.5:
            image = draw_boxes(image, {str(rng.choice(DECOY_TEXT)): decoy}, decoy_style)
        else:
            x0, y0, x1, y1 = (int(round(v * 16)) for v in decoy)
            cv2.rectangle(image, (x0, y0), (x1, y1), decoy_style.colour, decoy_style.ring_width, cv2.LINE_AA, 4)
        out += [(decoy[2], decoy[3], FAR_CORNER), (decoy[0], decoy[1], None)]
        rectangles.append(decoy)
    image = draw_boxes(image, boxes, style)
    if rng.uniform() < 0.75:
        image = jpeg(image, int(rng.integers(60, 97)))
    for label, (x0, y0, x1, y1) in boxes.items():
        out += [(x0, y0, label), (x1, y1, FAR_CORNER)]
    out += [(x, y, None) for x, y in _crossings(list(boxes.values()))
            if min(np.hypot(x - b[0], y - b[1]) for b in boxes.values()) > CROSSING_AT_LABEL]
    return TrainingScene(image, out, style, rectangles)


def _crossings(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float]]:
    """Every point where a horizontal side of one box crosses a vertical side of another."""
    points = []
    for a in boxes:
        for b in boxes:
            if a is b:
                continue
            for y in (a[1], a[3]):
                for x in (b[0], b[2]):
                    if a[0] < x < a[2] and b[1] < y < b[3]:
                        points.append((x, y))
    return points


def benchmark_case(rng: np.random.Generator, labels: list[str], photos: list[np.ndarray], height: int, width: int,
                   fonts: list[str], boxes: bool = False):
    """One rendered benchmark image: `labels` drawn as points (random_points) or boxes
    (random_boxes) in a random style on a background of any kind (photos too), JPEG at 70-95 for
    70% of them. Returns (image, {label: truth}, style, background kind)."""
    image, kind = background(rng, height, width, photos)
    style = MarkerStyle.random(rng, fonts=fonts)
    truth = random_boxes(rng, labels, height, width) if boxes else random_points(rng, labels, height, width)
    drawn = (draw_boxes if boxes else draw_points)(image, truth, style)
    if rng.uniform() < 0.7:
        drawn = jpeg(drawn, int(rng.integers(70, 96)))
    return drawn, truth, style, kind


# BLINK-style question families: (ring colour, labels per image, size range) as BLINK draws them
BLINK_FAMILIES = {
    "depth": ((255, 0, 0), (("A", "B"),)),  # Relative_Depth: 500 px, the measured geometry
    "reflectance": ((255, 255, 255), (("A", "B"),)),  # Relative_Reflectance: white rings
    "correspondence": ((255, 0, 0), (("REF",), ("A", "B", "C", "D"))),  # larger images, scaled markers
}


def blink_style_case(rng: np.random.Generator, photos: list[np.ndarray], family: str):
    """One image of a BLINK-style question (draw.blink) over a crop of a photograph (procedural
    backgrounds when none is given), a quarter
    of its markers near an edge (labels cut by the top edge, shifted at the sides), JPEG as BLINK
    stores it (4:2:0, quality 70-90). Depth and reflectance are 500 px (a fifth of them portrait)
    at the measured scale; correspondence images 600-1400 px with the markers' scale drawn from
    0.85-1.15 times long side / 500 (that family's geometry is inferred, so read as a range).
    Returns (image, {label: (x, y)} as drawn, style)."""
    colour, label_sets = BLINK_FAMILIES[family]
    if family == "correspondence":
        width = int(rng.integers(600, 1400))
        height = int(width * rng.uniform(0.6, 0.9))
        style = BlinkStyle.scaled(max(1.0, max(width, height) / 500 * rng.uniform(0.85, 1.15)), colour)
    else:
        width, height = (500, 375) if rng.uniform() < 0.6 else (500, 333)
        if rng.uniform() < 0.2:
            width, height = height, width
        style = BlinkStyle(colour=colour)
    labels = label_sets[int(rng.integers(len(label_sets)))]
    image, _ = background(rng, height, width, photos, photo_only=True)
    spacing = 40 * style.radius / 5
    points: dict[str, tuple[int, int]] = {}
    for label in labels:
        for _ in range(200):
            if rng.uniform() < 0.25:  # near an edge: the top (labels cut or under the ring) or a side
                if rng.uniform() < 0.5:
                    xy = (int(rng.integers(0, width)), int(rng.integers(0, int(2.2 * style.offset))))
                else:
                    x = int(rng.integers(0, 12))
                    xy = (x if rng.uniform() < 0.5 else width - 1 - x, int(rng.integers(0, height)))
            else:
                xy = (int(rng.integers(0, width)), int(rng.integers(0, height)))
            if all(np.hypot(xy[0] - q[0], xy[1] - q[1]) > spacing for q in points.values()):
                points[label] = xy
                break
    drawn, _ = draw_blink_points(image, points, style)
    return blink_jpeg(drawn, int(rng.integers(70, 91))), points, style
