"""Whether a placed box borrowed another placed box's line: part of the final checks on a question's boxes.

BLINK-style questions draw boxes that touch and share lines, so a side on another box's line is
no fault in itself: right boxes often share a side within a px. But a box fitted on another box's
line instead of its own shows it in two ways:

- its side lies on another box's line while the corner finder put that side's corner over
  MAX_FINDER_OFF px away (its own line, which the fit passed over: a box's top side taken on a
  neighbour's bottom side a few px off, where the finder's corner lies on its own); the other
  box's own corner of that kind, where it lies on the line too, is no sighting of this box's;
- it ends at another box's far corner: two boxes do not end at one point but by chance, and then
  the finder's corner cannot say which box borrowed it, so both are refused (unless the rules
  passed one with no line going on past its corners and the others with such T's:
  final_checks._owns_its_far_corner).

No library measures this: a comparison of a few coordinates.

    borrowed_side(box, others, proposals, height, width) -> side name | None
    shares_far_corner(box, others, height, width) -> bool
    shared_sides(box, others, height, width) -> side names
"""

from __future__ import annotations

from typing import Sequence

from adapters.markers.general.boxes.measure import side_line
from adapters.markers.general.boxes.outline import SIDE_NAMES
from adapters.markers.general.nets.centre_finder import Proposal
from adapters.markers.general.thresholds import ALONG, BORDER, MAX_FINDER_OFF, ON_ITS_STROKE, SAME_CORNER, SHARED_LINE

Box = tuple[float, float, float, float]


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
        sharing = _sharing(box, side, others, height, width, max(SHARED_LINE, ON_ITS_STROKE * stroke_width))
        if not sharing:
            continue
        across, _, _, vertical, _, _ = side_line(box, side, height, width)
        # the other box's own corner of this kind (its far corner, for a bottom or right side) says
        # where that box ends, not this one (a far corner the finder did not propose, traced onto
        # another box's line a few px along from that box's far corner, which it did propose)
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
             same_line: float = SHARED_LINE) -> list[Box]:
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
              same_line: float = SHARED_LINE) -> bool:
    """Whether two sides ((across, start, end, vertical), as measure.side_line gives them) lie
    on one line (within `same_line` px), side by side (ALONG)."""
    across, start, end, vertical = side
    other_across, other_start, other_end, other_vertical = other
    return (vertical == other_vertical and abs(across - other_across) <= same_line
            and min(end, other_end) - max(start, other_start) >= ALONG)


def _at_border(across: float, extent: int) -> bool:
    return across <= BORDER or across >= extent - 1 - BORDER
