"""The types of a fitted box and the style comparisons they share.

Side is one side's stroke as the fit finds it; Outline a verified drawn box (or a rectangle only
the outline verifier accepted); SideMeasures and OutlineMeasures what measure.measure_outline
measures of a candidate rectangle, for the rules and the verifier to judge; Verifier a second
opinion on a rectangle the rules rejected. _alike, same_style and tolerance say how far a stroke's
colour and width may differ and still be the box's; _visible whether a side lies inside the image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from adapters.markers.general.thresholds import COLOUR_SPREAD, COLOUR_SPREAD_THIN, MIN_REACH, THIN, WIDTH_SPREAD

# A box's sides as indices into its coordinates (x0, y0, x1, y1)
SIDE_NAMES = ("top", "bottom", "left", "right")  # a box's sides in measure.side_line's order (0-3)
SIDE_AT = (2, 0, 3, 1)  # box coordinate x0, y0, x1, y1 -> the side it places (0 top, 1 bottom, 2 left, 3 right)
# per side: (its name, the box coordinate it lies at across, the two box coordinates its span runs between)
SIDES = (("top", 1, 0, 2), ("bottom", 3, 0, 2), ("left", 0, 1, 3), ("right", 2, 1, 3))


WIDTHS = tuple(range(1, 9))  # stroke widths tried, px


@dataclass(frozen=True)
class Side:
    """One side's stroke: `pos` its centre line across (y of a horizontal side, x of a vertical
    one), `width` px, Lab colour on its centre line and contrast (Lab units to the scene on both
    sides of it)."""

    pos: float
    width: float
    lab: tuple[float, float, float]
    contrast: float
    banded: bool = False  # in, or at the edge of, a window two touching strokes wide (band_edge_for_fringe, in_band)
    one_sided: bool = False  # against the image's border: its contrast measured to the scene on one side only


@dataclass(frozen=True)
class Outline:
    """A verified drawn box: (x0, y0, x1, y1) of its strokes' centre lines (as draw.render.draw_boxes and
    cv2.rectangle take them), stroke width px, colour (Lab), contrast (Lab units), coverage (the
    least drawn fraction of a visible side) and how many sides were seen (inside the image).
    merged: a side measured narrower than the others has another line of its colour touching it
    along much of its length (see thin_line.Line.alongside): the outline is drawn, but where that side
    lies is unclear, so it is no box to place (it still counts as one starting at its corner).
    tees: at how many of its unlabelled corners a side lies on another box's line that goes on
    past the corner (a T, see measure.rejection): a box's own corners seldom are; a rectangle borrowing
    another box's lines for some of its sides mostly is. learned: the hand rules turned it away
    and a Verifier (outline_verifier) accepted it. banded: its sides ("top", "bottom", "left",
    "right") taken at one edge of a stroke window too wide to be one stroke
    (strokes.band_edge_for_fringe) or lying inside one (strokes.in_band): the other stroke in that
    window is another box's side. measures: what measure.measure_outline measured of it (None for
    an outline made otherwise), for the outline verifier to weigh again
    (outlines_at_corner._the_one_drawn); not compared."""

    x0: float
    y0: float
    x1: float
    y1: float
    width: float
    lab: tuple[float, float, float]
    contrast: float
    coverage: float
    sides_seen: int
    merged: bool = False
    tees: int = 0
    learned: bool = False
    banded: tuple[str, ...] = ()
    measures: OutlineMeasures | None = field(default=None, compare=False, repr=False)

    @property
    def box(self) -> tuple[float, float, float, float]:
        return (self.x0, self.y0, self.x1, self.y1)


def _alike(a, b, width: float) -> bool:
    spread = COLOUR_SPREAD_THIN if width <= THIN else COLOUR_SPREAD
    return float(np.linalg.norm(np.subtract(a, b))) <= spread


def _visible(across: float, width: float, limit: int) -> bool:
    """Whether a side at `across` (with its stroke) lies inside an image `limit` px across."""
    return width / 2 + 1 <= across <= limit - 2 - width / 2


def tolerance(width: float, contrast: float) -> float:
    """Lab units a stroke's pixel may differ from the box's colour and still be its ink: a thin
    anti-aliased line is seen blended with whatever lies behind it, so its colour varies more."""
    return float(np.clip(0.7 * contrast, 12.0, 45.0) if width <= THIN else np.clip(0.45 * contrast, 8.0, 35.0))


def same_style(a: Outline, b: Outline) -> bool:
    """Whether two outlines are drawn alike (colour within COLOUR_SPREAD, or COLOUR_SPREAD_THIN
    for thin strokes; widths within WIDTH_SPREAD), as one question's boxes are."""
    return _alike(a.lab, b.lab, min(a.width, b.width)) and abs(a.width - b.width) <= WIDTH_SPREAD


class Verifier(Protocol):
    """A second opinion on a rectangle the hand rules rejected for `reason` (see measure.rejection):
    outline_verifier.OutlineVerifier, or measure.Rejections (keeps what it is asked; also how the
    verifier is trained)."""

    def accepts(self, measures: OutlineMeasures, reason: str) -> bool: ...


@dataclass(frozen=True)
class SideMeasures:
    """What measure.measure_outline measures along one side inside the image (positions `along` it, its corners'
    ends left out): the fraction drawn (`coverage`, not counting what labels' dark boxes hide;
    `inked`: by single pixels only), hidden by other labels' boxes and by its own label, drawn
    within REACH px of each end (`reach`: as coverage counts; `inked_reach`: single pixels),
    whether it reaches both corners (measure._reaches_corners) and runs into the border where the box is
    cut off, how far it goes on past each corner (run_on), the share of it with another line of
    its colour alongside (0 unless measured narrower), and its median colour (Lab)."""

    length: int
    coverage: float
    inked: float
    hidden: float
    own_hidden: float
    reach: tuple[float, float]
    inked_reach: tuple[float, float]
    reaches_corners: bool
    into_border: bool
    run_on: tuple[float, float]
    alongside: float
    colour: tuple[float, float, float]


# a side outside the image: goes on past no corner and is drawn up to none
_UNSEEN = SideMeasures(0, 0.0, 0.0, 0.0, 0.0, (0.0, 0.0), (0.0, 0.0), False, True, (0.0, 0.0), 0.0, (0.0, 0.0, 0.0))


@dataclass(frozen=True)
class OutlineMeasures:
    """A candidate rectangle as measure.measure_outline measured it: box (x0, y0, x1, y1), stroke width px, colour
    (Lab), contrast, tolerance (tau), whether a ThinLineColour judged its thin sides, and per side
    (top, bottom, left, right) its SideMeasures, or None for a side not inside the image."""

    box: tuple[float, float, float, float]
    width: float
    colour: tuple[float, float, float]
    contrast: float
    tau: float
    thin_model: bool
    sides: tuple[SideMeasures | None, SideMeasures | None, SideMeasures | None, SideMeasures | None]

    def corners(self) -> tuple[tuple[float, float, bool], ...]:
        """Per unlabelled corner (top-right, bottom-left, bottom-right): how far each of its two
        sides goes on past it, and whether both are drawn up to it (inked_reach >= MIN_REACH; a
        side not seen goes on nowhere and is not drawn up to it)."""
        top, bottom, left, right = (s or _UNSEEN for s in self.sides)

        def up_to(side: SideMeasures, end: int) -> bool:
            return side.inked_reach[end] >= MIN_REACH

        return ((top.run_on[1], right.run_on[0], up_to(top, 1) and up_to(right, 0)),
                (bottom.run_on[0], left.run_on[1], up_to(bottom, 0) and up_to(left, 1)),
                (bottom.run_on[1], right.run_on[1], up_to(bottom, 1) and up_to(right, 1)))

    def measured_colour(self) -> np.ndarray:
        """(3,) the median of the seen sides' colours."""
        return np.median(np.array([s.colour for s in self.sides if s is not None]), axis=0)
