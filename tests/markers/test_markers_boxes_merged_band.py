"""boxes.merged_band.refit_merged: a side another line of its colour touches is placed by its free edge."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from adapters.markers.colour import to_lab
from adapters.markers.general.boxes.merged_band import refit_merged
from adapters.markers.general.boxes.outline import Outline

RED = (230, 20, 20)
TRUTH = (42.5, 52.5, 200.5, 152.5)  # centre lines of the 6 px strokes drawn below


def box_with_a_line_beside(side: str, touching: bool = True, seed: int = 0) -> np.ndarray:
    """A box of 6 px red strokes on a grey noisy scene, with another red line 6 px wide along most
    of one side (`side`: "right" or "bottom"), touching it (no scene between) or 2 px off it."""
    image = np.clip(np.random.default_rng(seed).normal(128, 20, (220, 280, 3)), 0, 255).astype(np.uint8)
    for rows, cols in ((slice(50, 56), slice(40, 204)), (slice(150, 156), slice(40, 204)),
                       (slice(50, 156), slice(40, 46)), (slice(50, 156), slice(198, 204))):
        image[rows, cols] = RED
    gap = 0 if touching else 2
    if side == "right":
        image[60:150, 204 + gap:210 + gap] = RED
    else:
        image[156 + gap:162 + gap, 50:190] = RED
    return image


def fitted(image: np.ndarray, **moved) -> Outline:
    """The Outline a fit on the merged band gives: TRUTH with the sides in `moved` off, merged."""
    lab = to_lab(image)
    colour = tuple(float(v) for v in np.median(lab[50:56, 60:180].reshape(-1, 3), axis=0))
    box = dict(zip(("x0", "y0", "x1", "y1"), TRUTH), **moved)
    return Outline(**box, width=6.0, lab=colour, contrast=60.0, coverage=1.0, sides_seen=4, merged=True)


@pytest.mark.parametrize("side, moved", [("right", {"x1": 202.6}), ("right", {"x1": 199.0}),
                                         ("bottom", {"y1": 154.5}), ("bottom", {"y1": 151.6})])
def test_a_merged_side_is_placed_by_its_free_edge(side, moved):
    """Fitted on the band with the other line, the side lands up to 2 px towards it (or short of
    it); its free edge, as far from its centre as the other sides' edges are from theirs, puts it
    back within 0.5 px, and the other sides stay where they were."""
    image = box_with_a_line_beside(side)
    outline = fitted(image, **moved)
    refit = refit_merged(to_lab(image), outline)
    assert refit is not None and not refit.merged
    assert max(abs(np.subtract(refit.box, TRUTH))) <= 0.5
    untouched = [k for k, name in enumerate(("x0", "y0", "x1", "y1")) if name not in moved]
    assert [refit.box[k] for k in untouched] == [outline.box[k] for k in untouched]


def test_a_narrow_side_beside_another_line_is_not_refitted():
    """A right side drawn 3 px wide (the box's others 6 px) with a line touching it 2 px past it:
    its ends do not lie where the box's edges do, so where it lies cannot be told, and the refit
    declines (read_boxes then leaves the label unplaced, test_markers_boxes_fit)."""
    image = box_with_a_line_beside("right", touching=False)
    image[50:156, 198:201] = image[50:156, 230:233]  # the side's first 3 px back to the scene
    assert refit_merged(to_lab(image), fitted(image, x1=202.0)) is None


@pytest.mark.parametrize("x1, width", [(202.0, 6.0), (198.9, 8.0)])
def test_a_side_fitted_off_its_own_stroke_beside_another_line_moves_onto_the_stroke(x1, width):
    """Another line 1 px past the right side (not merged: scene between them), and the side fitted
    1.5 px off its stroke (towards the line, or short of the stroke with the stroke measured wider
    than drawn, as on seed 9 image 175): its run of ink is as wide as the other sides' runs, so it
    is the side's own stroke, and the side moves to the run's centre. Not on a second opinion."""
    image = box_with_a_line_beside("right", touching=False)
    image[60:150, 205] = RED  # the other line one column nearer: 205-210
    image[60:150, 211] = image[60:150, 230]
    lab = to_lab(image)
    outline = dataclasses.replace(fitted(image, x1=x1), width=width)
    refit = refit_merged(lab, outline)
    assert refit is not None and max(abs(np.subtract(refit.box, TRUTH))) <= 0.5
    assert refit_merged(lab, dataclasses.replace(outline, merged=False), second_opinion=True) is None


def test_a_refit_further_than_max_shift_or_without_a_merged_side_is_declined(monkeypatch):
    image = box_with_a_line_beside("right")
    lab = to_lab(image)
    assert refit_merged(lab, fitted(image, x1=202.6)) is not None
    monkeypatch.setattr("adapters.markers.general.boxes.merged_band.MAX_SHIFT", 1.5)  # the refit moves it 2.1 px
    assert refit_merged(lab, fitted(image, x1=202.6)) is None
    monkeypatch.undo()
    for apart in (False, True):  # the other line gone, or 2 px of scene between: nothing merged
        plain = box_with_a_line_beside("right", touching=False)
        if not apart:
            plain[60:150, 206:212] = plain[60:150, 220:226]
        assert refit_merged(to_lab(plain), fitted(plain)) is None  # the fit's flag stands


def unflagged(image: np.ndarray, x1: float = TRUTH[2], **fields) -> Outline:
    """As `fitted` (right side at `x1`, other Outline `fields` changed), but the fit did not flag
    the side as merged (the fit saw no narrower side)."""
    return dataclasses.replace(fitted(image, x1=x1), merged=False, **fields)


def test_a_second_opinion_moves_an_unflagged_side_fitted_on_a_bands_fringe():
    """An unflagged side fitted 1 px onto the other line is moved back like a flagged one."""
    image = box_with_a_line_beside("right")
    refit = refit_merged(to_lab(image), unflagged(image, x1=201.5), second_opinion=True)
    assert refit is not None and max(abs(np.subtract(refit.box, TRUTH))) <= 0.5


@pytest.mark.parametrize("why", ["thin", "faint", "ends_close", "unsteady"])
def test_a_second_opinion_declines_where_the_free_edge_is_not_clear(why):
    """A second opinion overrides a fit nobody doubted, so it needs clearer evidence than the refit
    of a flagged side: a stroke thicker than MIN_WIDTH, contrast above MIN_CONTRAST, the two ends
    CLEAR_ENDS apart and a free edge that lies in one place (STEADY)."""
    image = box_with_a_line_beside("right")
    x1 = 201.5
    changes = {}
    if why == "thin":
        changes["width"] = 2.0
    elif why == "faint":
        changes["contrast"] = 10.0
    elif why == "ends_close":
        x1 = 202.6  # 2.1 px into the band: the free end reaches 2.1 px past, the other line's end 3.9 px
    else:
        for top in range(60, 150, 8):  # scene of the stroke's colour against its free (inner) edge, every other 4 rows
            image[top:top + 4, 192:198] = RED
    lab = to_lab(image)
    assert refit_merged(lab, unflagged(image, x1=x1, **changes), second_opinion=True) is None
    if why == "ends_close":  # the refit of a flagged side still places it (ends UNCLEAR_ENDS apart)
        refit = refit_merged(lab, fitted(image, x1=x1))
        assert refit is not None and max(abs(np.subtract(refit.box, TRUTH))) <= 0.5


def test_settled_refits_a_flagged_side_and_moves_an_unflagged_one_only_on_a_clear_second_opinion():
    """boxes.geometry.settled_outline, which read_boxes, the naming and elimination place every outline
    through: a flagged outline is refitted (None, left unplaced, when that cannot be told); an
    unflagged one is moved where a second opinion is clear, else placed as fitted."""
    from adapters.markers.general.boxes.geometry import settled_outline

    image = box_with_a_line_beside("right")
    lab = to_lab(image)
    for outline in (fitted(image, x1=202.6), unflagged(image, x1=201.5)):
        assert max(abs(np.subtract(settled_outline(lab, outline).box, TRUTH))) <= 0.5
    assert settled_outline(lab, fitted(image, x1=203.5)) is None  # mid-band: either end may be free
    as_fitted = unflagged(image, x1=202.6)  # a second opinion not clear enough (ends 1.8 px apart)
    assert settled_outline(lab, as_fitted) is as_fitted
    clean = box_with_a_line_beside("right", touching=False)
    clean[60:150, 206:212] = clean[60:150, 220:226]
    plain = unflagged(clean)
    assert settled_outline(to_lab(clean), plain) is plain


def test_a_flagged_side_blurred_alike_on_both_edges_stays_where_it_was_fitted():
    """A right side 1 px wider on both edges (no other line touching it): its median run is wider
    than the others', but both ends reach past alike and by at most EVEN_PAST, so it keeps its
    place; 3 px past on both (the middle of a band of two lines) is still refused."""
    image = box_with_a_line_beside("right", touching=False)
    image[60:150, 206:212] = image[60:150, 220:226]  # the other line gone
    image[50:156, 197] = RED
    image[50:156, 204] = RED
    refit = refit_merged(to_lab(image), fitted(image))
    assert refit is not None and max(abs(np.subtract(refit.box, TRUTH))) <= 0.5
    image[50:156, 195:197] = RED
    image[50:156, 205:207] = RED
    assert refit_merged(to_lab(image), fitted(image)) is None
