"""Every threshold of the general marker parser, in one place to read and tune them.

The general parser finds the points (a ring with a label word beside it: points/) and
the boxes (a rectangle with its label at the top-left corner: boxes/) drawn into an image in any
style, with the networks in nets/ as second opinions. Each value below carries its reason on its
own line, said in the terms of the drawing (what a ring, a label, a stroke, a side or a corner is,
and why this value tells it), with its unit: px, Lab units (L 0-100 for lightness alone), a
fraction, a probability or a network's score in [0, 1]. How a value was measured belongs to the
commit that set it, not here.

The BLINK-style pass (adapters/markers/blink/) reads BLINK's own drawing, whose geometry it
knows exactly, and keeps those constants in its own modules.
"""

from __future__ import annotations

# --- Rings and words (points) ---
RING_MIN_CONTRAST = 14.0  # Lab units a drawn ring (and its label's ink) must differ from the scene around it
MAX_CANDIDATES = 60  # ring-filter peaks verified: more than any question's rings plus the scene's ring-like blobs
FAINT_CONTRAST = 9.0  # Lab units: rings this faint (1 px on noise) are still candidates the patch reader judges
FAINT_LIMIT = 120  # ring-filter peaks verified at FAINT_CONTRAST, where many more of the scene's pass
RING_MARGIN = 1.5  # px past a ring's outer edge dropped before reading words: its anti-aliased rim would join the label
# (low, high, join) text-likeness passes: loose, 1 px gaps bridged; strict, cut from blobs at a glyph; bold cores
INK_LEVELS = ((0.28, 0.62, True), (0.5, 0.8, False), (0.4, 0.7, "cores"))
BOX_DARK = 38.0  # L below which a pixel is a label's dark box: drawn boxes have L <= ~20, their light text L >= ~85
BOX_LEVELS = (22.0, 70.0)  # L over which a pixel in a label's dark box goes from box (0) to light text (1)
BOX_TOLERANCE = 12.0  # L units a label box's pixels stay within of its median lightness (JPEG noise)

# --- Which word labels which ring ---
MIN_WORD_HEIGHT = 7  # px: a word read from fewer rows is a scene speck (labels are >= 8 px tall; REF needs 8)
# px past the ring's measured edge where a label's near edge lies: drawn 1-4 px out, an anti-aliased edge lost or gained
GAP_RANGE = (-1.5, 5.0)
MAX_PLACEMENT_ERROR = 3.0  # px a label may sit off a drawn placement by its ring (rounding, anti-aliased edges lost)
BORDER_TOUCH = 6  # px: a label this near the image's border may have been pushed inside by it ...
PUSHED_MAX = 40.0  # ... by up to this many px (a label's width and its reach from the ring)
STYLE_RADIUS = 3.0  # px one question's rings differ at most in radius: one style draws them alike
STYLE_COLOUR = 30.0  # Lab units one question's rings differ at most in colour (JPEG shifts colours a little)
THIN_RING = 3.0  # px: a ring measured at most this wide is seen blended with the scene behind it ...
STYLE_COLOUR_THIN = 65.0  # ... so its colour varies with that scene by up to this many Lab units
STYLE_HEIGHT = 1.5  # factor one question's label words differ at most in height: one font size
PLACEMENT_WEIGHT = 2.0  # cost per px a label sits off its drawn placement
DOUBT_WEIGHT = 10.0  # cost per unit of (1 - similarity) of a label's reading
SIDE_WEIGHT = 6.0  # cost per unit of (1 - cos) between a label's side and the labels' mean side: one style, one side
# cost per label found in the minority polarity: one style writes all alike, but a scene can cut or fake a label's box
POLARITY_WEIGHT = 1.0
# (reading, ring) options kept per label, cheapest by placement and doubt: a clear reading a px off beats vaguer nearer
MAX_OPTIONS = 5
AMBIGUITY = 3.0  # cost within which another assignment that moves a label leaves that label ambiguous
LONE_MIN_COVERAGE = 0.75  # angular coverage a lone marker's ring needs: drawn rings are whole, texture hides a fifth
LONE_MIN_SIMILARITY = 0.85  # similarity a lone marker's label reading needs: no other marker's style backs it

# --- Elimination: labels no word was read as (points) ---
ELIMINATION_CONFIDENCE = 0.5  # confidence factor of a marker placed by elimination: no reading backs it
ELIMINATION_SIDE_COS = 0.7  # cosine its word's side must reach with the placed labels' mean side: one style, one side
ELIMINATION_RADIUS = 1.5  # px its ring may lie off the placed rings' median radius (one style's agree within ~0.5)
ELIMINATION_MAX_ASPECT = 1.4  # width / height its word may reach when the labels are letters (A-E: at most 1.12)
CONSTRAINED_MIN_SIMILARITY = 0.6  # similarity each unread label needs to its word, read against the unread ones only
CONSTRAINED_MARGIN = 0.1  # summed similarity by which the best matching of unread labels to rings beats every other

# --- The patch reader's and the centre finder's opinions ---
# patch reader's probability that places a label on a free ring; its top class, the markers' style and no rival guard it
PATCH_MIN_PROBABILITY = 0.45
PATCH_RIVAL = 0.2  # probability at which another ring reading as the label is a rival: which one is then unclear
PATCH_LONE_PROBABILITY = 0.9  # ... for a lone label (REF alone), which has no placed rings to be like
PATCH_MARGIN = 0.1  # lead over the ring's next asked label below which the centre finder must agree (as FINDER_MARGIN)
# probability on labels not asked above which a ring is another drawing's (a lettered scene circle), not a misread one
UNASKED_MAX = 0.7
PATCH_VETO = 0.9  # probability of another asked label or no marker at which a word-placed marker is taken back
ELIMINATION_VETO = 0.75  # ... for a marker placed by elimination, which no reading backs
SWAP_NONE = 0.5  # "no marker" probability that takes back a marker whose ring and label look swapped (_swapped)
SAME_CENTRE = 3.0  # px: candidate rings this close are one (one patch; a thick ring found at two radii)
# px off a candidate that a ring in the markers' style may stand for it: the reader is trained on centres that far off
REFIT_OFF = 1.5
PATCH_MATCH_RATIO = 10.0  # times likelier the reader's best matching of labels to rings must be than any other
PATCH_MATCH_MIN = 0.3  # probability each label of that matching needs at its ring
# times likelier another matching of labels to rings must read to the patch reader to undo the words' elimination
WORDS_MATCHING_OVERRULED = 2.0
FINDER_MIN_SCORE = 0.3  # centre finder's score at which a proposal names a label (and its centre counts)
FINDER_LONE_SCORE = 0.6  # ... for a lone label
AGREED_PROBABILITY = 0.5  # reader's probability that, with that finder score, places a label: two ways of looking agree
AGREED_LONE_PROBABILITY = 0.8  # ... for a lone label
# a weaker finder score suffices where the reader is sure: the finder misses a 1 px ring over a blob of its colour ...
SURE_FINDER_SCORE = 0.15
SURE_PROBABILITY = 0.95  # ... which the reader, seeing the label beside it, reads this surely
SURE_LONE_FINDER_SCORE = 0.4  # ... and for a lone label, this finder score ...
SURE_LONE_PROBABILITY = 0.97  # ... with the reader this sure
FINDER_RIVAL = 0.15  # finder score at another place that, with PATCH_RIVAL there too, makes it a rival place
FINDER_MARGIN = 0.1  # lead of the finder's likeliest asked label over the next: unsure of A or C, it reads neither
AGREED_CENTRE = 2.0  # px: a proposal this close to a ring's centre is that ring's (farther: a place of its own)
# px: a proposal within this of a ring or marker is its; 2-5 px off, the ring is fitted off-centre or a scene ring in it
FINDER_NEAR = 5.0
# finder score at another place that, with the reader's PATCH_VETO there, takes back a marker not read at its centre
FINDER_CONTRADICTS = 0.5
# finder score at a marker's centre that keeps it against the patch reader, which misses 1 px rings over photographs
FINDER_CONFIRMS = 0.5
ODD_RADIUS = 1.0  # px off the other placed rings' median radius: fitted off, as one style draws its rings alike
ODD_PAIR = 1.5  # px two placed rings' radii may differ before either may be the one fitted off

# --- A box's outline: a side's stroke ---
MIN_SIDE = 14  # px: the shortest box side sought (shorter: a label's box, a glyph); half of it, the least judged
SEARCH = 4  # px either side of where the corner finder put a side searched for its stroke: its corners lie that near
END_TRIM = 4  # px at each end of a side left out of its profile: the corners, where the label and the other sides lie
MIN_STROKE_CONTRAST = 6.0  # Lab units a side's stroke must differ from the scene on both sides of its median profile
THIN = 4.0  # px measured: a stroke drawn 1-2 px wide, which anti-aliasing and JPEG spread over 2-4 rows
COLOUR_SPREAD = 30.0  # Lab units one box's sides may differ in colour (JPEG)
COLOUR_SPREAD_THIN = 65.0  # ... when its strokes are THIN, each seen blended with the scene behind it
WIDTH_SPREAD = 3.0  # px one box's sides' measured widths may differ: a label beside a side blurs its profile
STRONG = 0.6  # of the strongest alike stroke's contrast: weaker ones (fringes, faint scene edges) do not compete
# px from the finder's guess: two strong strokes of the box's look this near make the side ambiguous ...
NEIGHBOUR = 3.0
SEPARATE = 2.0  # ... when at least this far apart (nearer: one stroke and a piece of its anti-aliased fringe)
NEAR_GUESS = 2.0  # px from the finder's guess where a stroke is where it put the side
BAND_GAP = 4  # px at most between two strokes that merge into one band on a side's profile
BAND_EXCESS = 2.0  # px wider than the box's stroke at which a chosen window may be two touching strokes
BAND_EDGE_MARGIN = 2.0  # px a band's edge taken for a side must be nearer the guess than its other edge
# px a window may reach past its band's edge and be a stroke (further: it sits on the band's fading fringe)
FRINGE = 1.0
OWN_STROKE_WIDER = 1.0  # px wider than the box's stroke a stroke of its own colour may be (wider: two thin ones merged)
OWN_STROKE_COVERAGE = 0.95  # of a side such a stroke must be drawn along: the box's own, not a line crossing part of it
# px narrower than the box's median stroke: a side measured so may be fitted on part of a band two lines make
NARROWER = 2.0

# --- A box's outline: is each side drawn, and do its lines stop at the corners ---
BESIDE = 2  # px past the stroke's 3-row band where the scene beside it is sampled, clear of its anti-aliased edge
RELATIVE_INK = 0.5  # a pixel this much nearer (ratio of distances) the box's colour than the scene beside it is ink ...
BLEND_MIN = 0.5  # ... as is one holding this share of the box's colour blended with the scene (a thin line on texture)
BLEND_CONTRAST = 35.0  # Lab units the scene must differ from the box's colour for such a blend to be told
SEGMENT = 8  # px stretches whose per-row medians judge a thin side: they show a line too faint in single pixels
ALPHA_RANGE = (0.25, 1.2)  # share of its drawn colour a thin line's fitted blend (ThinLineColour) holds to be a line
MODEL_CONTRAST = 20.0  # Lab units a thin line's modelled look must differ from the scene to be judged there by it
MIN_COVERAGE = 0.65  # of a visible side's length that must be drawn (labels' dark boxes not counted): scenes hide some
MAX_HIDDEN = 0.4  # the most of a side other labels' dark boxes may hide (more only where one label's box does)
LABEL_BOX_MAX = 30  # px: the longest stretch of a side one label's dark box covers (labels 8-18 px tall, padded)
LABEL_BOX_MARGIN = 2  # px past the stroke on both sides that a label's box covering it is dark too ...
LABEL_BOX_DARK = 0.6  # ... in at least this share of those rows (its light text crosses some)
OWN_LABEL_START = 5  # px from the left side's start within which its own label's box begins, written inside the box
OWN_LABEL_DARKER = 10.0  # L units that label's box is darker than the stroke at least
REACH = 8  # px next to each corner (past half the stroke) where a side must be drawn: a box's sides meet there ...
MIN_REACH = 0.6  # ... along at least this share
INTO_BORDER = 0.85  # ... and this share where the side runs into the image's border, its box cut off there
# px past a corner (beyond half the stroke) where a box's side must not go on, as a box's lines stop at its corners ...
RUN_ON = (3, 10)
MAX_RUN_ON = 0.5  # ... along more than this share of that stretch (more: a line going on)
# ... nor the other side more than this at a T, where one line goes on: a side of this box on another box's line
T_STUB = 0.2
CROSSING_BESIDE = 3  # px past half the stroke where ink across every row is a line crossing, not this one going on
ALONGSIDE = 2  # px past a stroke's edge where another line of its colour touching it is looked for ...
MAX_ALONGSIDE = 0.3  # ... along at most this share of a side measured NARROWER (more: merged, where it lies unclear)

# --- A side merged with another line of its colour ---
MERGED_WIDER = 1.5  # px a side's run of ink is wider than the narrowest side's when another line merges with it
MIN_CALIBRATION = 2  # unmerged sides needed to say how far a stroke's edges lie from its centre
EDGE_REACH = 3  # px past the stroke's half width and ALONGSIDE searched for its edges
UNCLEAR_ENDS = 1.0  # px a merged side's two ends must differ in reach past the box's edges to tell the free one
EVEN_PAST = 1.5  # px both ends may reach past alike: a blurred side with no other line, left where fitted
RUN_ALIKE = 1.0  # px (whole pixels) a side's run of ink may differ from the other sides' and be one stroke
MAX_SHIFT = 3.0  # px: a refit moving a side further than this is no refit of the same side
CLEAR_ENDS = 2.0  # px the other line's end must outreach the free end before an unflagged side is moved
STEADY = 0.75  # share of positions whose free end lies within 1 px of its median before an unflagged side is moved
MIN_WIDTH = 2.5  # px: a thinner stroke's edges, measured at whole pixels, are as coarse as the shift sought
EDGE_MIN_CONTRAST = 15.0  # Lab units: a fainter stroke's ink is not told from the scene well enough to place its edges

# --- A far corner traced along a box's top and left sides ---
START = 16  # px from a top-left corner along which its two sides are found before they are followed
AT_CORNER = 1.5  # px from the corner within which both sides' strokes lie where they meet at it, as a box's do
END_GAP = 3  # px not inked in a row where a side's ink stops (fewer: JPEG, a busy scene)
BAND_SLACK = 2.0  # px the far side's ink inside the box may be wider than a stroke (blur) and be one stroke

# --- Labels at box corners ---
LABEL_REACH = 34  # px around the corner searched for its word: a label up to 18 px tall, its box's padding and gap
STROKE_MARGIN = 1.5  # px past a side's stroke dropped before the word search: its anti-aliased rim, as for rings
MIN_HEIGHT = 7  # px: shorter words at a corner are specks (labels are >= 8 px tall)
# px right of the left stroke's outer edge where a label's word starts: its box's padding (<= 5 px) and a side bearing
LEFT_SLACK = (-3.0, 9.0)
# px between the top stroke and the word (or its dark box): draw_boxes leaves a 1-4 px gap, 2 px more for anti-aliasing
GAP_SLACK = (-1.0, 6.0)
# similarity a clear reading leads the label (contradicts) or every other asked (confirms) by: like letters lie nearer
CLEAR_MARGIN = 0.15
LABEL_ZONE = (22, 14)  # px (tall, wide) where a label starts at a corner: up to 18 px tall, a 1-4 px gap
ZONE_GAP = 4  # px: the most draw_boxes leaves between a label and the top side
MIN_LABEL_INK = 10  # px of the box's colour in that zone: something is written there (a letter 8 px tall has more)
MIN_LABEL_DARK = 0.3  # ... or this share of the zone darker than BOX_DARK (a label's dark box)

# --- Outlines from a corner: far corners and how near the fit must lie ---
FAR_MIN_SCORE = 0.1  # finder score at which a bottom-right corner is tried: the rules judge what it ends
FAR_SEEN = 0.5  # finder score at which it sees a corner: likelier than not
# px a fitted outline's corner may lie from the proposed one (or a proposal from a corner it reads) and be that corner
CORNER_FIT = 4.0
SAME_BOX = 2.0  # px: outlines whose coordinates all differ by less are one box
BORDER_NEAR = 5.0  # px: a far corner proposed this near the border may stand for one on or past it (a box cut off)
BORDER_CORNER_COVERAGE = 0.9  # drawn share of both seen sides of an outline to the image's corner: two stand for four
# drawn share of every side of a traced outline the verifier weighs: a trace stopped early has the scene's far sides
TRACED_COVERAGE = 0.5
ON_STROKE = 1.0  # px a side's run of ink may be centred off its line and the side be on its stroke
# px a verifier-only outline may lie off the finder's corners: the verifier weighs if it is drawn, not where sides lie
LEARNED_FIT = 2.0
# px ... where each side further off is centred on its ink and the finder's line is not: the finder's corner is off
STROKE_FIT = 3.0

# --- Naming boxes ---
MIN_EVIDENCE = 0.15  # finder score for some asked label at which a proposal is a candidate top-left corner
MAX_CORNERS = 7  # the most candidate corners weighed (the strongest): the assignment tries every choice
UNPLACED = 0.2  # what leaving a label without a corner weighs: a lone reading must reach DECISIVE x this
DECISIVE = 3.0  # factor by which the best assignment must beat every one that places a label elsewhere
WORD_CONFIRMS = 0.65  # a label's score at a corner whose word clearly reads as it (beats UNPLACED decisively)
# the networks' mean reading that outweighs a word the glyph classifier reads otherwise (it cuts glyphs out by colour)
WORD_OVERRULED = 0.8
WORD_ELSEWHERE = 0.25  # factor on a label's score at other corners once one corner's word reads as it: written once
WORD_OWNER = 2.0  # times more the networks must read a label at one corner to own a word found at several
# corner reader's "none" at or below which a label is written at a corner showing no ink (a small label on a thick side)
READER_WRITTEN = 0.1
READER_SURE = 0.95  # corner reader's reading at which it settles a label the finder reads faintly, but there most
READER_READS = 0.5  # corner reader's reading at which a corner where lines cross or a side merges may be that label's
# summed asked-label finder scores at a corner elimination or naming may name: labels written inside their box read low
ELIMINATION_EVIDENCE = 0.35
BOX_ELIMINATION_CONFIDENCE = 0.5  # confidence of a box placed by elimination or naming (as ELIMINATION_CONFIDENCE)

# --- Outlines the networks see: verifier acceptances ---
# verifier probability for an unfitted rectangle whose lines go on past a far corner: as high as anywhere (ACCEPTANCE)
CROSSING_ACCEPTANCE = 0.96
# verifier probability at which a rectangle is the last label's box: likelier than not, the question saying one is drawn
LAST_ACCEPTANCE = 0.5
LAST_FAR = 0.5  # finder's far-corner score that rectangle's other end needs: a corner it sees, likelier than not
# verifier probability for a rectangle rejected for coverage between corners both networks see (reader sure, far seen)
SEEN_ACCEPTANCE = 0.7
# ... and for one rejected for a crossing: another box's line through a far corner makes false rectangles likelier there
SEEN_CROSSING = 0.9

# --- Last checks on placed boxes ---
ON_ANOTHER_SIDE = 0.5  # of two strokes' mean width: parallel sides of two boxes nearer merge into one band ...
SAME_LINE = 1.0  # px: ... unless within this (one box drawn on the other's line)
ALONG_ANOTHER = 0.25  # ... and running side by side along this share of the side at least
SHARED_LINE = 0.6  # px across which two boxes' parallel sides lie on one line they share (fits of one line differ less)
ON_ITS_STROKE = 0.25  # ... or within this share of the box's stroke width: a side that near lies on the other's stroke
ALONG = 10  # px two sides on one line run side by side at least, to share it
BORDER = 1.5  # px from the image's edge: a side there is cut off, not drawn, and shares nothing
# px the finder's nearest corner may lie across a shared side for the line to be the box's own (farther: it saw another)
MAX_FINDER_OFF = 2.0
SAME_CORNER = 1.5  # px (each coordinate) two far corners may differ and be one point
# drawn share by which a box's least drawn side beats every box ending at its far corner: a borrower runs on undrawn
COVERAGE_LEAD = 0.1

# --- Sides on their strokes: the band of ink across each side ---
STROKE_REACH = 4  # px past half the stroke searched across a side for its band of ink
BAND_SHARE = 3  # a row inked along 1/BAND_SHARE of the best row's share is still in the band (labels' boxes hide some)
# share of the side its best row must ink for a band to say where the stroke is: a 1 px line blended away inks faintly
MIN_INKED = 0.35
WIDER_BAND = 1  # px (whole rows) a band may be wider than the box's narrowest and be one stroke, not a merged pair
MAX_OFF_BAND = 1.5  # px a side may lie off the middle of its band and be on its stroke
# px the most a side off its band moves onto its middle: a fit on JPEG's fringe or a scene edge (farther: another line)
MAX_MOVE = 2.5
CORE_SHARE = 0.8  # of the best row's share: a band's core rows, the stroke itself inside a fainter widening
ON_CORE = 1.0  # px a side's line may lie from its core's middle and be on its stroke, however wide the band
# px from a side's line to a band's near edge past which the side lies off that band: one on its stroke lies within a px
OFF_GAP = 1.0
BESIDE_GAP = 3.0  # px: bands within this on both sides of a side put it between two lines, either maybe its own
# px: a side off all ink lies beside a band that cannot place its stroke only this near (farther: its own faint line)
BLIND_GAP = 2.0
