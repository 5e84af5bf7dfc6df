"""One generator per BLINK task: images, where the markers go, and the answer known by construction.

Each generator returns a `Draft`; `build.py` draws the markers and writes BLINK's format. Prompts
and choice texts follow BLINK's wording. Points are (x, y) pixel coordinates of the image they are
drawn on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from adapters.datasets.synthetic.scene3d import look_at, random_scene, render
from adapters.markers.blink.draw import blink_jpeg
from adapters.markers.draw.textures import TextureSource

WIDTH, HEIGHT = 320, 240
MARGIN = 24  # markers and their labels stay this far from the border
IIW_DELTA = 0.10

POINTS_LEAD = "Two points are circled on the image, labeled by A and B beside each circle."


@dataclass
class Draft:
    """A question before its markers are drawn. points: image index -> {label: (x, y)}."""

    images: list[np.ndarray]
    points: dict[int, dict[str, tuple[float, float]]]
    lead: str
    question: str
    choices: tuple[str, ...]
    answer: str
    truth: dict = field(default_factory=dict)  # the measured facts behind the answer (JSON-able)


def _textured_points(image: np.ndarray, rng: np.random.Generator, n: int, margin: int = MARGIN) -> np.ndarray:
    """n (x, y) points at well-textured pixels (strong corners), away from the border."""
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    corners = cv2.goodFeaturesToTrack(gray, maxCorners=400, qualityLevel=0.01, minDistance=6)
    pts = corners.reshape(-1, 2) if corners is not None else np.zeros((0, 2))
    h, w = gray.shape
    inside = (pts[:, 0] > margin) & (pts[:, 0] < w - margin) & (pts[:, 1] > margin) & (pts[:, 1] < h - margin)
    pts = pts[inside]
    if len(pts) < n:
        extra = np.stack([rng.uniform(margin, w - margin, n), rng.uniform(margin, h - margin, n)], 1)
        pts = np.concatenate([pts, extra])
    return pts[rng.permutation(len(pts))[:n]] if n <= len(pts) else pts


def visual_correspondence(rng: np.random.Generator, textures: TextureSource) -> Draft:
    """Image 2 = image 1 seen through a random plausible homography, with a photometric change.

    REF is a textured point of image 1; the true match is its image under the homography; three
    distractors are textured points of image 2 at least 20 px from the match and from each other.
    """
    big = textures.sample(HEIGHT * 2, WIDTH * 2)
    x0, y0 = WIDTH // 2, HEIGHT // 2
    image1 = big[y0 : y0 + HEIGHT, x0 : x0 + WIDTH].copy()
    corners = np.float32([[0, 0], [WIDTH, 0], [WIDTH, HEIGHT], [0, HEIGHT]])
    angle = np.deg2rad(rng.uniform(-15, 15))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = np.float32([WIDTH / 2, HEIGHT / 2])
    moved = (corners - centre) @ rot.T * rng.uniform(0.85, 1.15) + centre + rng.uniform(-30, 30, (4, 2))
    H12 = cv2.getPerspectiveTransform(corners, moved.astype(np.float32))  # image 1 -> image 2
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    image2 = cv2.warpPerspective(big, H12 @ shift, (WIDTH, HEIGHT), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    gain, gamma = rng.uniform(0.7, 1.3, 3), rng.uniform(0.8, 1.25)
    image2 = np.clip(255 * ((image2 / 255.0) ** gamma) * gain + rng.normal(0, 3, image2.shape), 0, 255).astype(np.uint8)

    for _ in range(50):
        ref = _textured_points(image1, rng, 1)[0]
        match = cv2.perspectiveTransform(ref.reshape(1, 1, 2).astype(np.float64), H12).reshape(2)
        if MARGIN < match[0] < WIDTH - MARGIN and MARGIN < match[1] < HEIGHT - MARGIN:
            break
    else:
        raise RuntimeError("no REF point whose match stays inside image 2")
    candidates = [match]
    for point in _textured_points(image2, rng, 200):
        if all(np.linalg.norm(point - c) >= 20 for c in candidates):
            candidates.append(point)
        if len(candidates) == 4:
            break
    while len(candidates) < 4:  # flat image: fall back to uniform positions
        point = rng.uniform([MARGIN, MARGIN], [WIDTH - MARGIN, HEIGHT - MARGIN])
        if all(np.linalg.norm(point - c) >= 20 for c in candidates):
            candidates.append(point)
    order = rng.permutation(4)
    labels = "ABCD"
    points2 = {labels[i]: tuple(map(float, candidates[k])) for i, k in enumerate(order)}
    answer = labels[int(np.where(order == 0)[0][0])]
    return Draft(
        images=[image1, image2],
        points={0: {"REF": tuple(map(float, ref))}, 1: points2},
        lead="A point is circled on the first image, labeled with REF. We change the camera position or lighting "
        "and shoot the second image. You are given multiple red-circled points on the second image, choices of "
        '"A, B, C, D" are drawn beside each circle.',
        question="Which point on the second image corresponds to the point in the first image?",
        choices=("Point A", "Point B", "Point C", "Point D"),
        answer=answer,
        truth={"homography": H12.tolist(), "true_match": [float(v) for v in match]},
    )


def _orbit_camera(azimuth: float, radius: float, height: float, focal: float):
    centre = np.array([radius * np.sin(azimuth), height, -radius * np.cos(azimuth)])
    return look_at(centre, np.array([0.0, 0.4, 0.0]), focal, WIDTH, HEIGHT)


def multi_view(rng: np.random.Generator, textures: TextureSource) -> Draft:
    """Two views of one scene from a camera orbiting its centre by 8-25 degrees.

    "left" means the second camera centre lies to the FIRST camera's left (its -x axis); BLINK's
    prompt calls that moving clockwise (left).
    """
    scene = random_scene(rng, textures.sample)
    radius, height = rng.uniform(6.0, 8.0), rng.uniform(1.5, 3.0)
    focal = rng.uniform(0.8, 1.2) * max(WIDTH, HEIGHT)
    azimuth = rng.uniform(-np.pi, np.pi)
    step = np.deg2rad(rng.uniform(8, 25)) * rng.choice([-1, 1])
    cam1 = _orbit_camera(azimuth, radius, height, focal)
    cam2 = _orbit_camera(azimuth + step, radius, height, focal)
    image1, _ = render(scene, cam1)
    image2, _ = render(scene, cam2)
    sideways = float((cam2.centre - cam1.centre) @ cam1.right)
    return Draft(
        images=[image1, image2],
        points={},
        lead="The images are frames from a video. The video is shooting a static scene. The camera is either moving "
        "clockwise (left) or counter-clockwise (right) around the object.",
        question="The first image is from the beginning of the video and the second image is from the end. "
        "Is the camera moving left or right when shooting the video?",
        choices=("left", "right"),
        answer="A" if sideways < 0 else "B",
        truth={"orbit_degrees": float(np.rad2deg(step)), "sideways_in_camera1": sideways, "focal": focal},
    )


def _flat_depth(depth: np.ndarray, x: int, y: int, r: int = 4) -> bool:
    """True if depth is smooth around (x, y): no occlusion edge under the marker's disc."""
    window = depth[y - r : y + r + 1, x - r : x + r + 1]
    return bool(np.isfinite(window).all() and window.max() / window.min() < 1.05)


def relative_depth(rng: np.random.Generator, textures: TextureSource) -> Draft:
    """A rendered scene and two points on surfaces whose depths differ by at least 30%.

    Half the questions put the closer point HIGHER in the image (an object's top against the
    ground in front of it), so the "lower is closer" prior cannot solve the task.
    """
    closer_is_higher = bool(rng.random() < 0.5)
    for _ in range(40):
        scene = random_scene(rng, textures.sample)
        azimuth = rng.uniform(-np.pi, np.pi)
        camera = _orbit_camera(azimuth, rng.uniform(5.0, 8.0), rng.uniform(1.2, 3.0), rng.uniform(0.8, 1.2) * WIDTH)
        image, depth = render(scene, camera)
        for _ in range(400):
            (xa, ya), (xb, yb) = rng.integers([MARGIN, MARGIN], [WIDTH - MARGIN, HEIGHT - MARGIN], size=(2, 2))
            if np.hypot(xa - xb, ya - yb) < 40 or not (_flat_depth(depth, xa, ya) and _flat_depth(depth, xb, yb)):
                continue
            da, db = float(depth[ya, xa]), float(depth[yb, xb])
            closer_row, farther_row = (ya, yb) if da < db else (yb, ya)
            if (closer_row < farther_row) != closer_is_higher:
                continue
            if max(da, db) / min(da, db) >= 1.3:
                return Draft(
                    images=[image],
                    points={0: {"A": (float(xa), float(ya)), "B": (float(xb), float(yb))}},
                    lead=POINTS_LEAD,
                    question="Which point is closer to the camera?",
                    choices=("A is closer", "B is closer"),
                    answer="A" if da < db else "B",
                    truth={"depth_A": da, "depth_B": db},
                )
    raise RuntimeError("no point pair with clearly different depths found")


def _albedo_layout(rng: np.random.Generator, textures: TextureSource) -> tuple[np.ndarray, np.ndarray]:
    """Piecewise-constant linear albedo (H, W, 3) and its region map (H, W) int: a Mondrian."""
    regions = np.zeros((HEIGHT, WIDTH), np.int32)
    n = int(rng.integers(8, 14))
    for k in range(1, n):
        x0, y0 = rng.integers(0, WIDTH - 40), rng.integers(0, HEIGHT - 40)
        regions[y0 : y0 + rng.integers(40, 140), x0 : x0 + rng.integers(40, 180)] = k
    # colours: photo pixels when photos are given (their palette), else random; linear light
    palette = textures.sample(16, 16).reshape(-1, 3) / 255.0
    colours = np.empty((n, 3))
    for k in range(n):
        base = palette[int(rng.integers(len(palette)))] if rng.random() < 0.5 else rng.uniform(0.05, 1.0, 3)
        colours[k] = np.clip(base, 0.03, 1.0) ** 2.2 * rng.uniform(0.5, 1.0)
    # some regions share an albedo on purpose, so "about the same" questions exist
    for k in range(1, n, 3):
        colours[k] = colours[int(rng.integers(0, k))]
    return colours[regions], regions


def _smooth_shading(rng: np.random.Generator) -> np.ndarray:
    """Smooth illumination (H, W) in [0.15, 1]: a ramp plus broad blobs, maybe a soft cast shadow."""
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)
    gx, gy = rng.uniform(-1, 1, 2)
    shading = 0.6 + 0.35 * (gx * (xx / WIDTH - 0.5) + gy * (yy / HEIGHT - 0.5))
    for _ in range(3):
        cx, cy, s = rng.uniform(0, WIDTH), rng.uniform(0, HEIGHT), rng.uniform(40, 120)
        shading += rng.uniform(-0.3, 0.3) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
    if rng.random() < 0.5:
        shadow = np.zeros((HEIGHT, WIDTH), np.float32)
        pts = rng.integers([0, 0], [WIDTH, HEIGHT], size=(4, 2)).astype(np.int32)
        cv2.fillConvexPoly(shadow, cv2.convexHull(pts), 1.0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 6)
        shading *= 1 - rng.uniform(0.3, 0.5) * shadow
    return np.clip(shading, 0.15, 1.0)


def _luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb @ np.array([0.2126, 0.7152, 0.0722])


def relative_reflectance(rng: np.random.Generator, textures: TextureSource) -> Draft:
    """image = albedo x shading (sRGB-encoded); A/B labelled by the IIW rule on the TRUE albedo.

    Pairs whose albedo ratio falls near the threshold (1.03 to 1.25) are skipped so every answer
    is clear-cut; the three answers are drawn equally often.
    """
    target = ("A", "B", "C")[int(rng.integers(3))]
    for _ in range(50):
        albedo, regions = _albedo_layout(rng, textures)
        shading = _smooth_shading(rng)
        # interior pixels: at least 8 px from a region boundary
        interior = np.zeros_like(regions, bool)
        for k in np.unique(regions):
            mask = (regions == k).astype(np.uint8)
            interior |= cv2.erode(mask, np.ones((17, 17), np.uint8)).astype(bool)
        interior[:MARGIN], interior[-MARGIN:], interior[:, :MARGIN], interior[:, -MARGIN:] = False, False, False, False
        ys, xs = np.nonzero(interior)
        if len(xs) < 2:
            continue
        lum = _luminance(albedo)
        for _ in range(300):
            i, j = rng.integers(len(xs), size=2)
            (xa, ya), (xb, yb) = (xs[i], ys[i]), (xs[j], ys[j])
            if np.hypot(xa - xb, ya - yb) < 40:
                continue
            la, lb = float(lum[ya, xa]), float(lum[yb, xb])
            ratio = lb / la
            answer = "A" if ratio > 1 + IIW_DELTA else "B" if 1 / ratio > 1 + IIW_DELTA else "C"
            if answer != target or 1.03 < max(ratio, 1 / ratio) < 1.25:
                continue
            image = np.clip((albedo * shading[..., None]) ** (1 / 2.2), 0, 1)
            return Draft(
                images=[(image * 255).astype(np.uint8)],
                points={0: {"A": (float(xa), float(ya)), "B": (float(xb), float(yb))}},
                lead=POINTS_LEAD,
                question="Which point has darker surface color, or the colors is about the same?",
                choices=("A is darker", "B is darker", "About the same"),
                answer=answer,
                truth={"albedo_luminance_A": la, "albedo_luminance_B": lb, "delta": IIW_DELTA},
            )
    raise RuntimeError(f"no point pair with answer {target} found")


JIGSAW_QUESTION = ("Given the first image with the lower right corner missing, can you tell which one of the second "
                   "image or the third image is the missing part? Imagine which image would be more appropriate to "
                   "place in the missing spot. You can also carefully observe and compare the edges of the images.")


def jigsaw(rng: np.random.Generator, textures: TextureSource) -> Draft:
    """A picture with its lower-right corner blacked out; the cut corner and a wrong piece of
    the same size, either from elsewhere in the same picture (half the time: the harder kind,
    same colours and textures) or from another picture. Every image goes through BLINK's JPEG.

    The hole covers 30-50% of each side. The wrong piece from the same picture is taken at
    least a third of a piece away from the corner, so it is not a shifted copy of the answer.
    """
    hole_h, hole_w = int(HEIGHT * rng.uniform(0.3, 0.5)), int(WIDTH * rng.uniform(0.3, 0.5))
    same_picture = bool(rng.random() < 0.5)
    # a wider canvas when the wrong piece comes from the same picture: room for it to the left
    canvas = textures.sample(HEIGHT, WIDTH + (hole_w if same_picture else 0))
    picture = canvas[:, canvas.shape[1] - WIDTH:]
    piece = picture[HEIGHT - hole_h:, WIDTH - hole_w:].copy()
    if same_picture:
        y = int(rng.integers(0, HEIGHT - hole_h + 1))
        x = int(rng.integers(0, canvas.shape[1] - hole_w + 1))
        while abs(y - (HEIGHT - hole_h)) < hole_h // 3 and abs(x - (canvas.shape[1] - hole_w)) < hole_w // 3:
            y, x = int(rng.integers(0, HEIGHT - hole_h + 1)), int(rng.integers(0, canvas.shape[1] - hole_w + 1))
        wrong = canvas[y : y + hole_h, x : x + hole_w].copy()
    else:
        wrong = textures.sample(hole_h, hole_w)
    holed = picture.copy()
    holed[HEIGHT - hole_h:, WIDTH - hole_w:] = 0
    answer = "AB"[int(rng.integers(2))]
    candidates = [piece, wrong] if answer == "A" else [wrong, piece]
    return Draft(
        images=[blink_jpeg(holed), *(blink_jpeg(c) for c in candidates)],
        points={},
        lead="",
        question=JIGSAW_QUESTION,
        choices=("the second image", "the third image"),
        answer=answer,
        truth={"hole": [int(WIDTH - hole_w), int(HEIGHT - hole_h), int(hole_w), int(hole_h)],
               "wrong_piece": "same picture" if same_picture else "another picture"},
    )


GENERATORS: dict[str, Callable[[np.random.Generator, TextureSource], Draft]] = {
    "Visual_Correspondence": visual_correspondence,
    "Multi-view_Reasoning": multi_view,
    "Relative_Depth": relative_depth,
    "Relative_Reflectance": relative_reflectance,
    "Jigsaw": jigsaw,  # last: each task's questions are seeded by its position, so the others stay as they were
}
