"""Read a label (A-E or REF) from a binary glyph crop, in any font.

A nearest-neighbour classifier over prototypes the module renders itself: every training font
(draw.fonts.available_fonts() minus HELD_OUT_FONTS) at several sizes and stroke widths, as drawn and
thinned / fattened (as colour thresholds on a JPEG do). Capitals F-Z and digits are rendered
too as "not a label" classes, so a stray letter of scene text or a blob is rejected instead of
read as the nearest label. Training renders ~2.6k small masks (3 variants each): about a second, once per process.

Why by hand: no OCR library ships in our environment (tesseract is not a Python dependency and
needs system files), and six classes of clean rendered glyphs need nothing heavier than this.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass

import cv2
import numpy as np

from adapters.markers.draw.fonts import available_fonts, text_mask
from adapters.markers.labels import LABELS

# Never trained on: the parser's accuracy on these is the held-out figure (serif Hershey faces).
HELD_OUT_FONTS = ("hershey-complex", "hershey-triplex")


NEGATIVES = tuple(c for c in string.ascii_uppercase if c not in LABELS) + tuple(string.digits)


CAP_HEIGHTS = (7.0, 9.0, 12.0, 16.0, 22.0)


GRID = 16  # glyphs are compared as GRID x GRID images


ASPECT_WEIGHT = 0.6  # how much the log aspect ratio counts next to the unit-norm shape vector


MIN_SIMILARITY = 0.80  # below this, nothing is read


# Negative classes a label is easily taken for: labels are never digits, so an "8" this close
# to its nearest "B" (similarity gap <= CONFUSABLE_MARGIN) is read as the B it most likely is.
CONFUSABLE = {"8": "B"}


CONFUSABLE_MARGIN = 0.03


@dataclass(frozen=True)
class Reading:
    """label: one of LABELS, or None when rejected; similarity in [-1, 1] to the nearest prototype;
    margin: similarity gap to the nearest prototype of another class; nearest: that prototype's class."""

    label: str | None
    similarity: float
    margin: float
    nearest: str


def glyph_features(mask: np.ndarray) -> np.ndarray | None:
    """(h, w) text coverage in [0, 1] -> feature vector (GRID*GRID + 1,), or None for an empty mask.

    The coverage stays soft (faint anti-aliased or JPEG-washed strokes still count); the glyph's
    extent is where coverage > 0.3.
    """
    ys, xs = np.nonzero(mask > 0.3)
    if len(ys) < 3:
        return None
    crop = np.asarray(mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1], np.float32)
    h, w = crop.shape
    side = max(h, w)
    square = np.zeros((side, side), np.float32)
    square[(side - h) // 2:(side - h) // 2 + h, (side - w) // 2:(side - w) // 2 + w] = crop
    small = cv2.resize(square, (GRID, GRID), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0.8).ravel()
    small = small - small.mean()
    norm = np.linalg.norm(small)
    if norm < 1e-6:
        return None
    return np.concatenate([small / norm, [ASPECT_WEIGHT * np.log(w / h)]]).astype(np.float32)


class GlyphClassifier:
    """Nearest-prototype label reader. `read(mask)` -> Reading."""

    def __init__(self, fonts: tuple[str, ...] | None = None) -> None:
        chosen = [f for f in available_fonts() if (f.name in fonts if fonts else f.name not in HELD_OUT_FONTS)]
        if not chosen:
            raise ValueError(f"no training fonts: asked for {fonts}, have {[f.name for f in available_fonts()]}")
        self.fonts = tuple(f.name for f in chosen)
        vectors, classes = [], []
        for font in chosen:
            thicknesses = (1, 2)
            for text in (*LABELS, *NEGATIVES):
                for cap in CAP_HEIGHTS:
                    for thickness in thicknesses:
                        if thickness == 2 and font.kind != "hershey" and cap < 12:
                            continue  # draw.fonts.text_mask draws no bold below 12 px
                        mask = text_mask(text, font, cap, thickness)
                        # as drawn, thinned and fattened (a colour threshold on a JPEG does both)
                        for variant in (mask, mask ** 2, np.sqrt(mask)):
                            vec = glyph_features(variant)
                            if vec is not None:
                                vectors.append(vec)
                                classes.append(text)
        self.prototypes = np.stack(vectors)
        self.classes = np.array(classes)

    def read(self, mask: np.ndarray, allowed: tuple[str, ...] | None = None) -> Reading:
        """Classify one glyph/word mask. allowed: labels accepted (others are read as rejected)."""
        return self.read_many([mask], allowed)[0]

    def _similarities(self, masks: list[np.ndarray]) -> tuple[list[int], np.ndarray]:
        """(indices of the non-empty masks, (n_valid, n_prototypes) similarities): cosine
        similarity of the unit-norm shape part minus the aspect-ratio difference."""
        feats = [glyph_features(m) for m in masks]
        valid = [i for i, f in enumerate(feats) if f is not None]
        if not valid:
            return valid, np.zeros((0, len(self.classes)), np.float32)
        vecs = np.stack([feats[i] for i in valid])
        return valid, vecs[:, :-1] @ self.prototypes[:, :-1].T - np.abs(vecs[:, -1:] - self.prototypes[None, :, -1])

    def label_similarities(self, masks: list[np.ndarray], labels: tuple[str, ...]) -> np.ndarray:
        """(len(masks), len(labels)): each mask's similarity to its nearest prototype of each
        label, whatever class it is nearest to overall (-1 for an empty mask)."""
        out = np.full((len(masks), len(labels)), -1.0, np.float32)
        valid, sims = self._similarities(masks)
        if valid:
            for k, label in enumerate(labels):
                out[valid, k] = sims[:, self.classes == label].max(axis=1)
        return out

    def read_many(self, masks: list[np.ndarray], allowed: tuple[str, ...] | None = None) -> list[Reading]:
        """Classify many masks with one matrix product (the parser reads dozens per image)."""
        out = [Reading(None, -1.0, 0.0, "") for _ in masks]
        valid, sims = self._similarities(masks)
        for row, i in zip(sims, valid):
            best = int(np.argmax(row))
            nearest = str(self.classes[best])
            other = row[self.classes != nearest]
            similarity = float(row[best])
            margin = float(similarity - other.max()) if len(other) else 1.0
            label = nearest
            if nearest in CONFUSABLE:  # "8" that is nearly as much a "B": a label, read as B
                twin = CONFUSABLE[nearest]
                twin_sim = float(row[self.classes == twin].max())
                if similarity - twin_sim <= CONFUSABLE_MARGIN:
                    label, similarity = twin, twin_sim
            ok = label in LABELS and similarity >= MIN_SIMILARITY and (allowed is None or label in allowed)
            out[i] = Reading(label if ok else None, similarity, margin, nearest)
        return out


@functools.lru_cache(maxsize=4)
def default_classifier() -> GlyphClassifier:
    """The classifier trained on every font but HELD_OUT_FONTS (built once per process)."""
    return GlyphClassifier()
