"""A box between two corners the networks see, where the rules turn its outline away.

A 1 px box over a busy scene is often drawn too faintly in places for the hand rules: near a
corner its line fades into a scene of its own colour, or JPEG halves it, and the rules reject the
rectangle for coverage. The outline verifier then gets its turn, but at ACCEPTANCE (0.96), chosen
for rectangles anywhere in the image, most of which are not drawn boxes. Here both ends are seen:
the corner reader reads the finder's likeliest label at the top-left corner at
parse_box.READER_SURE (0.95; it reads 99.8% of the benchmark's true corners right, and read
"none" above 0.1 at every one of 336 decoy rectangles' corners, parse_box.READER_WRITTEN), no
corner that starts an outline is read as that label more (parse_box._corners_read_surely), and
the finder sees a box's far corner at the other end (parse_box.FAR_SEEN, 0.5).
A rectangle between them is then taken at SEEN_ACCEPTANCE when:

- the rules rejected it only for a side drawn too little (coverage), with no line going on past
  a far corner as two boxes' lines crossing do;
- it lies near both corners as a verifier-only outline must (parse_box._near_the_finders_corners:
  within LEARNED_FIT px, or within STROKE_FIT px where each side further off is centred on its
  ink and the finder's line for it is not; a side fitted on a scene edge a few px off its own
  stroke passes the verifier too, and that guard turns it away). Both corners are seen here, so
  the allowance holds at either (box seed 154 image 134's A: a side on its stroke 2-3 px from the
  finder's line, which lies on no ink).

The same holds where a side's profile shows two strokes of the box's look a few px apart (a scene
edge beside a 1 px side) that the rules cannot tell apart and reject the rectangle on each for
coverage (box_outline._told_apart keeps them as Rejections.untold): the rectangle on one of them is
taken when it is the only one of them that passes the verifier at SEEN_ACCEPTANCE near both
corners (box seed 106 image 44's A: its bottom side and a scene edge 3.3 px
off, the rectangles on them at 0.99 and 0.83, the second 3.3 px from the finder's corner).

A rectangle the rules rejected for a crossing (a line going on past a far corner: another box's
line through it, or a side on another box's line) is taken at SEEN_CROSSING, near both corners
too, unless it ends where an outline from another corner ends: from a box's
corner the verifier finds the rectangle to another box's far corner drawn too, its sides run on
its own lines and end on that box's (box seed 62 image 107's C, to D's far corner: the last look
refused it, and C's own box, which last_box would have found, was lost with it). A rectangle on
one of a side's untold strokes that the rules rejected for coverage, with a line going on past a
far corner too, is weighed as such a crossing (box seeds 86/23 and 90/59: A's own, a scene line
running on past its bottom-right corner, found drawn at 0.99 and kept from SEEN_ACCEPTANCE by the
crossing); it is still taken only as the one untold rectangle drawn near both corners.

Such outlines go on to be read like any other (parse_box: one outline at a corner, its label
read there, its sides settled, the last look at every placed box), as those the verifier accepts
at ACCEPTANCE do (Outline.learned).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .box_outline import Outline, Rejections, lines_cross
from .centre_finder import Proposal
from .last_box import ProbabilityVerifier, likely_drawn
from .scenes import FAR_CORNER

# the verifier's probability at which a rectangle between two seen corners is drawn. On the box
# benchmark's 67 seeds, of the rectangles the rules rejected for coverage at missed boxes' corners
# read at READER_SURE and ending at a far corner seen at FAR_SEEN, 0.7 or more took 19 within 2 px
# of their box and 5 a side 2.7-4 px off, which the LEARNED_FIT guard turns away (but 2/68's A,
# whose far corner the finder put 1.8 px off)
SEEN_ACCEPTANCE = 0.7
# the verifier's probability at which a rectangle between two seen corners that the rules rejected
# for a crossing (a line going on past a far corner: another box's line through it, or a side on
# another box's line) is drawn. Of the 42 true boxes left missing for a crossing over the 67 seeds,
# 26 were found drawn at 0.7-0.96 (box seed 105 image 123's B: 0.956). At 0.9 the 67 seeds gained 15
# boxes, and refused 2 right ones beside boxes it placed (none placed wrong)
SEEN_CROSSING = 0.9


def between_seen_corners(corner: Proposal, fits: dict[tuple[float, float], tuple[bool, Rejections]],
                         fars: Sequence[Proposal], verifier: ProbabilityVerifier, far_seen: float,
                         near_corners: Callable[[Outline, tuple[float, float, float, float]], bool], same_box: float,
                         others: Sequence[Outline] = ()) -> list[Outline]:
    """The distinct outlines from `corner` (the corner reader is sure of its label:
    parse_box._corners_read_surely) to a far corner of `fars` the finder sees (`far_seen`), that
    the rules rejected only for coverage and the verifier finds drawn at SEEN_ACCEPTANCE, or for a
    crossing and found drawn at SEEN_CROSSING, not ending at the far corner of one of `others`
    (the outlines found from other corners) (module doc).

    fits: the rules' fit from `corner` to each far corner tried, (x1, y1) -> (whether an outline
    passed, what they rejected), as parse_box._outlines_from recorded it; near_corners(outline,
    (x0, y0, x1, y1)): whether an outline lies near enough the finder's two corners to be their box
    (parse_box._near_the_finders_corners, both corners seen); far_seen, same_box: parse_box's
    FAR_SEEN and SAME_BOX (px)."""
    found: list[Outline] = []
    for far in fars:
        if far.scores.get(FAR_CORNER, 0.0) < far_seen or (far.x, far.y) not in fits:
            continue
        passed, rejected = fits[(far.x, far.y)]
        if passed:
            continue
        corners = (corner.x, corner.y, far.x, far.y)

        def near(outline: Outline) -> bool:
            return near_corners(outline, corners)

        drawn = likely_drawn(rejected.rejected, verifier, SEEN_ACCEPTANCE, near)
        on_one_stroke = likely_drawn(rejected.untold, verifier, SEEN_ACCEPTANCE, near)
        if not any(max(abs(far.x - o.x1), abs(far.y - o.y1)) < same_box for o in others):  # no other box's end
            drawn += likely_drawn(rejected.rejected, verifier, SEEN_CROSSING, near, "crossing")
            # a rectangle on one of a side's strokes rejected for coverage, with a line going on past
            # a far corner too, is weighed as a crossing (the rules judge coverage first)
            crossing = [(measures, "crossing" if lines_cross(measures) else reason) for measures, reason in rejected.untold]
            on_one_stroke += likely_drawn(crossing, verifier, SEEN_CROSSING, near, "crossing")
        if len(on_one_stroke) == 1:  # which of a side's strokes is the side: where one is drawn near both corners
            drawn += on_one_stroke
        for outline in drawn:
            if not any(max(abs(np.subtract(outline.box, o.box))) < same_box for o in found):
                found.append(outline)
    return found
