"""Whether a spatial relation holds between two boxes, from their geometry alone: left/right/above/
below by centres, on, inside, contains, touching, near/far by overlap and gap. Depth orders (in
front of, behind) are not geometry: None. Boxes are (x0, y0, x1, y1) in image pixels.

Shared by the detector's Spatial_Relation rule (BLINK) and CV-Bench's Relation rule.
"""

from __future__ import annotations


def centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _gap(a: list[float], b: list[float]) -> float:
    """Distance between two boxes (0 when they overlap)."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return (dx**2 + dy**2) ** 0.5


def _overlap_1d(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def relation_holds(relation: str, subject: list[float], obj: list[float]) -> float | None:
    """A signed score, > 0 when the relation holds between the two boxes (x0, y0, x1, y1), < 0
    when it does not; None when boxes cannot decide it (depth order)."""
    (sx, sy), (ox, oy) = centre(subject), centre(obj)
    s_w, s_h = subject[2] - subject[0], subject[3] - subject[1]
    o_w, o_h = obj[2] - obj[0], obj[3] - obj[1]
    scale = max(1.0, (s_w + s_h + o_w + o_h) / 4)
    if relation == "left":
        return (ox - sx) / scale
    if relation == "right":
        return (sx - ox) / scale
    if relation == "above":
        return (oy - sy) / scale
    if relation == "below":
        return (sy - oy) / scale
    if relation == "on":
        # above the object's centre, resting within its extent, overlapping it horizontally
        shared = _overlap_1d(subject[0], subject[2], obj[0], obj[2]) / max(1.0, min(s_w, o_w))
        rests = subject[3] >= obj[1] - 0.1 * o_h and sy < oy
        return shared - 0.3 if rests else -1.0
    if relation == "contains":  # the object inside the subject
        return relation_holds("inside", obj, subject)
    if relation == "inside":
        area = max(1.0, s_w * s_h)
        inter = _overlap_1d(subject[0], subject[2], obj[0], obj[2]) * _overlap_1d(subject[1], subject[3], obj[1], obj[3])
        return inter / area - 0.7
    if relation == "touching":
        return 0.05 - _gap(subject, obj) / scale
    if relation == "near":
        return 0.75 - _gap(subject, obj) / scale
    if relation == "far":
        return _gap(subject, obj) / scale - 0.75
    return None  # in front of / behind: occlusion order, not geometry
