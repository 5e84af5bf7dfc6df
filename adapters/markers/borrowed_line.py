"""Whether a placed box borrowed another placed box's line: the last check on a question's boxes.

BLINK-style questions draw boxes that touch and share lines, so a side on another box's line is
no fault in itself: on the benchmark's 8 seeds, over 60 pairs of right boxes share a side within
0.6 px. But a box fitted on another box's line instead of its own shows it in two ways, and both
answered fresh images wrong (benchmark seeds 16, 20-30, never tuned on before):

- its side lies on another box's line while the corner finder put that side's corner over
  MAX_FINDER_OFF px away (its own line, which the fit passed over: seed 22 image 198's C took D's
  bottom side, 3.2 px below its own top side, the finder's corner 3.6 px from it); the other
  box's own corner of that kind, where it lies on the line too, is no sighting of this box's;
- it ends at another box's far corner (seed 21 image 125's B, and seed 28 image 71's: the right
  and bottom sides of A): two boxes do not end at one point but by chance, and then the finder's
  corner cannot say which box borrowed it, so both are refused (unless the rules passed one with
  no line going on past its corners and the others with such T's: parse_box._owns_its_far_corner).

On seeds 31-36, never run before this check was written, answered images with a box wrong went
from 6 of 1,132 to none of 1,126 (the 8 seeds read the same).

No library measures this: a comparison of a few coordinates.

    borrowed_side(box, others, proposals, height, width) -> side name | None
    shares_far_corner(box, others, height, width) -> bool
    shared_sides(box, others, height, width) -> side names
"""

from __future__ import annotations

from typing import Sequence

from .box_outline import side_line
from .centre_finder import Proposal

Box = tuple[float, float, float, float]

# px two parallel sides may differ across and be one line (right boxes sharing a line lie 0-0.6 px
# apart on the benchmark's seeds)
SAME_LINE = 0.6
# ... or, for borrowed_side, within this fraction of the box's stroke width: a side fitted that
# near another box's parallel side lies on the other's stroke (fresh seed 133 image 1: B's right
# side fitted 1.3 px from C's left side, on C's 6 px stroke, 6.6 px from its own, merged with it)
ON_ITS_STROKE = 0.25
ALONG = 10  # px two sides on one line run side by side at least, to share it
# px the corner finder's nearest corner may lie off a shared side, across it, and the side be the
# box's own: right boxes sharing a line on the 8 seeds were at most 1.7 px off; the boxes that
# took another's line, 2.4-6.8 px
MAX_FINDER_OFF = 2.0
SAME_CORNER = 1.5  # px (each coordinate) two far corners may differ and be one point
BORDER = 1.5  # px from the image's edge: a side there is cut off, not drawn, and shares nothing

SIDE_NAMES = ("top", "bottom", "left", "right")  # box_outline.side_line's order


def borrowed_side(box: Box, others: Sequence[Box], proposals: Sequence[Proposal], height: int,
                  width: int, stroke_width: float = 0.0) -> str | None:
    """The name of a side of `box` that lies on a parallel side of one of `others` (SAME_LINE, or
    ON_ITS_STROKE x `stroke_width`, the box's, where that is more; ALONG) while the finder's
    proposal nearest that side's corner (top-left for the top and left sides, bottom-right for the
    others), other than those boxes' own corners of that kind, lies
    over MAX_FINDER_OFF px from it across; else None (also with no proposals: nothing to tell a shared
    line from a borrowed one by)."""
    if not proposals:
        return None
    # per side (SIDE_NAMES): the corner it starts or ends at, as a slice of a box
    ends = (slice(0, 2), slice(2, 4), slice(0, 2), slice(2, 4))
    for side, name in enumerate(SIDE_NAMES):
        sharing = _sharing(box, side, others, height, width, max(SAME_LINE, ON_ITS_STROKE * stroke_width))
        if not sharing:
            continue
        across, _, _, vertical, _, _ = side_line(box, side, height, width)
        # the other box's own corner of this kind (its far corner, for a bottom or right side) says
        # where that box ends, not this one (fresh seed 37 image 99: B's far corner, not proposed,
        # was traced onto A's bottom line, 6 px along from A's far corner)
        own = [p for p in proposals if not any(_one_point((p.x, p.y), other[ends[side]]) for other in sharing)]
        if not own:
            return name
        cx, cy = box[ends[side]]
        nearest = min(own, key=lambda p: (p.x - cx) ** 2 + (p.y - cy) ** 2)
        if abs((nearest.x if vertical else nearest.y) - across) > MAX_FINDER_OFF:
            return name
    return None


def shared_sides(box: Box, others: Sequence[Box], height: int, width: int) -> list[str]:
    """The names of the sides of `box` that lie on a parallel side of one of `others` (SAME_LINE,
    ALONG), away from the image's border."""
    return [name for side, name in enumerate(SIDE_NAMES) if _sharing(box, side, others, height, width)]


def _sharing(box: Box, side: int, others: Sequence[Box], height: int, width: int,
             same_line: float = SAME_LINE) -> list[Box]:
    """The boxes of `others` with a parallel side on one line with side `side` of `box` (_one_line,
    within `same_line` px); none where that side lies at the image's border."""
    across, start, end, vertical, extent, _ = side_line(box, side, height, width)
    if _at_border(across, extent):
        return []
    return [other for other in others
            if any(_one_line((across, start, end, vertical), side_line(other, k, height, width)[:4], same_line)
                   for k in range(4))]


def _one_point(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether points `a` and `b` (x, y) differ by at most SAME_CORNER px in each coordinate."""
    return abs(a[0] - b[0]) <= SAME_CORNER and abs(a[1] - b[1]) <= SAME_CORNER


def shares_far_corner(box: Box, others: Sequence[Box], height: int, width: int) -> bool:
    """Whether `box` ends at the bottom-right corner of one of `others` (SAME_CORNER), away from
    the image's border (boxes cut off at one border end there alike)."""
    x1, y1 = box[2], box[3]
    if _at_border(x1, width) or _at_border(y1, height):
        return False
    return any(_one_point((x1, y1), o[2:]) for o in others)


def _one_line(side: tuple[float, float, float, bool], other: tuple[float, float, float, bool],
              same_line: float = SAME_LINE) -> bool:
    """Whether two sides ((across, start, end, vertical), as box_outline.side_line gives them) lie
    on one line (within `same_line` px), side by side (ALONG)."""
    across, start, end, vertical = side
    other_across, other_start, other_end, other_vertical = other
    return (vertical == other_vertical and abs(across - other_across) <= same_line
            and min(end, other_end) - max(start, other_start) >= ALONG)


def _at_border(across: float, extent: int) -> bool:
    return across <= BORDER or across >= extent - 1 - BORDER
