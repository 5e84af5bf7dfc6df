"""ComBo-lite: procedural images of ComBo objects (two primitives joined at anchor/pivot, with
their materials and colours) under a random viewpoint and light, drawn with OpenCV + numpy.

Why by hand: no installed library rasterises a few shaded polygons this cheaply on a CPU (a 3D
renderer would be a heavy dependency); a flat-shaded mesh with the painter's algorithm is
~100 lines and renders a 64 px image in about a millisecond, so DataLoader workers can generate
training images on the fly and the whole ComBo path runs without the real dataset.

Conventions: world y is up, the camera looks along -z (orthographic), larger z is nearer.
Meshes are convex, so back-face culling plus a depth sort of the faces is exact within one
primitive and a good approximation between the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from adapters.datasets.combo.factors import Appearance, ComboObject, FactorTable

_SEGMENTS = 16  # around the axis of round shapes
_SPHERE_RINGS = 8


@dataclass(frozen=True)
class Mesh:
    """vertices (V, 3) float; faces (F, 4) int vertex indices (triangles repeat their last
    vertex); normals (F, 3) outward unit normals; all in the shape's own frame."""

    vertices: np.ndarray
    faces: np.ndarray
    normals: np.ndarray


def _outward_normals(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Unit normals of planar faces, flipped to point away from the origin (convex shapes
    centred at the origin, so 'away from the centre' is 'outward')."""
    p = vertices[faces]  # (F, 4, 3)
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    # Degenerate first corner (a cone's apex quad): use the other diagonal.
    small = np.linalg.norm(n, axis=1) < 1e-9
    n[small] = np.cross(p[small, 2] - p[small, 1], p[small, 3] - p[small, 1])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    centroid = p.mean(axis=1)
    flip = np.einsum("ij,ij->i", n, centroid) < 0
    n[flip] *= -1
    return n


def _lathe(r_bottom: float, r_top: float) -> tuple[np.ndarray, np.ndarray]:
    """Cylinder / cone / frustum of height 1 along z: side quads and triangle-fan caps."""
    angles = np.linspace(0, 2 * np.pi, _SEGMENTS, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    bottom = np.column_stack([ring * r_bottom, np.full(_SEGMENTS, -0.5)])
    top = np.column_stack([ring * r_top, np.full(_SEGMENTS, 0.5)])
    centres = np.array([[0, 0, -0.5], [0, 0, 0.5]])
    vertices = np.vstack([bottom, top, centres])
    cb, ct = 2 * _SEGMENTS, 2 * _SEGMENTS + 1
    faces = []
    for i in range(_SEGMENTS):
        j = (i + 1) % _SEGMENTS
        faces.append([i, j, _SEGMENTS + j, _SEGMENTS + i])
        faces.append([cb, j, i, i])
        if r_top > 0:
            faces.append([ct, _SEGMENTS + i, _SEGMENTS + j, _SEGMENTS + j])
    return vertices, np.array(faces)


def _sphere() -> tuple[np.ndarray, np.ndarray]:
    theta = np.linspace(0, np.pi, _SPHERE_RINGS + 1)  # from +z pole to -z pole
    phi = np.linspace(0, 2 * np.pi, _SEGMENTS, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    vertices = 0.5 * np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], axis=-1).reshape(-1, 3)
    faces = []
    for r in range(_SPHERE_RINGS):
        for s in range(_SEGMENTS):
            s2 = (s + 1) % _SEGMENTS
            a, b, c, d = r * _SEGMENTS + s, r * _SEGMENTS + s2, (r + 1) * _SEGMENTS + s2, (r + 1) * _SEGMENTS + s
            if r == 0:
                faces.append([a, c, d, d])  # pole row: the ring at the pole is one point
            elif r == _SPHERE_RINGS - 1:
                faces.append([a, b, c, c])
            else:
                faces.append([a, b, c, d])
    return vertices, np.array(faces)


def _cube() -> tuple[np.ndarray, np.ndarray]:
    corners = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    faces = np.array([[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]])
    return corners, faces


@lru_cache(maxsize=None)
def shape_mesh(shape: str) -> Mesh:
    """The mesh of one of ComBo's five shapes (UnknownShape -> ValueError naming the known ones)."""
    builders = {
        "cube": _cube,
        "sphere": _sphere,
        "cylinder": lambda: _lathe(0.5, 0.5),
        "cone": lambda: _lathe(0.5, 0.0),
        "conical_frustum": lambda: _lathe(0.5, 0.25),
    }
    if shape not in builders:
        raise ValueError(f"ComBo-lite cannot draw shape {shape!r}; it draws {', '.join(builders)} "
                         "(a custom factor table may only use these shapes with the renderer)")
    vertices, faces = builders[shape]()
    vertices = vertices.astype(np.float64)
    return Mesh(vertices, faces, _outward_normals(vertices, faces))


def _rotation_between(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(3, 3) rotation taking unit vector u onto unit vector v (Rodrigues)."""
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    c = float(np.dot(u, v))
    if c < -1 + 1e-9:  # opposite: half turn about any axis perpendicular to u
        axis = np.cross(u, [1.0, 0, 0] if abs(u[0]) < 0.9 else [0, 1.0, 0])
        axis /= np.linalg.norm(axis)
        return 2 * np.outer(axis, axis) - np.eye(3)
    k = np.cross(u, v)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + kx + kx @ kx / (1 + c)


def _euler(yaw: float, pitch: float, roll: float) -> np.ndarray:
    cy, sy, cp, sp, cr, sr = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    return rz @ rx @ ry


# The factor table's shapes stand on +z ("top_face", "base_cap"); the camera's up is +y. Objects
# are turned upright first, so yaw spins them about their own vertical axis and pitch is the
# camera's elevation, as for objects resting on a table: "top" and "side" anchors then look
# different (with the up axis lying sideways, yaw alone would turn a cube's top into its side).
_Z_UP_TO_Y_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])


@dataclass(frozen=True)
class View:
    """One random viewpoint and light: yaw about the object's vertical axis, camera pitch
    (elevation; positive looks down on the top) and roll, in radians; light direction (3,),
    zoom (fraction of the image the object spans), background grey level 0-255."""

    yaw: float
    pitch: float
    roll: float
    light: tuple[float, float, float]
    zoom: float
    background: int

    @classmethod
    def sample(cls, rng: np.random.Generator) -> "View":
        light = np.array([rng.uniform(-1, 1), rng.uniform(0.2, 1.2), rng.uniform(0.5, 1.5)])
        light /= np.linalg.norm(light)
        return cls(yaw=rng.uniform(0, 2 * np.pi), pitch=rng.uniform(-0.4, 1.0), roll=rng.uniform(-0.5, 0.5),
                   light=tuple(light), zoom=rng.uniform(0.65, 0.85), background=int(rng.integers(70, 200)))


class ComboLiteRenderer:
    """Draws object ids of a factor table: `render(object_id, view_seed)` -> (S, S, 3) uint8 RGB.

    The same (object_id, view_seed, seed) always gives the same image; `supersample` renders at
    that multiple of `image_size` and shrinks with area averaging (anti-aliasing).
    """

    def __init__(self, table: FactorTable | None = None, image_size: int = 64, seed: int = 0,
                 supersample: int = 2) -> None:
        if image_size < 8:
            raise ValueError(f"image_size {image_size} is too small to draw an object; use 8 or more")
        self.table = table or FactorTable.load()
        self.image_size = image_size
        self.seed = seed
        self.supersample = supersample

    def view(self, object_id: int, view_seed: int) -> View:
        return View.sample(np.random.default_rng([self.seed, object_id, view_seed]))

    def render(self, object_id: int, view_seed: int = 0) -> np.ndarray:
        obj = self.table.object(object_id)
        return self.render_object(obj, self.view(object_id, view_seed))

    def _parts(self, obj: ComboObject) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, Appearance]]:
        """Both primitives in the object's frame: (vertices, faces, normals, appearance) each."""
        t = self.table
        primary = shape_mesh(obj.primary_shape)
        secondary = shape_mesh(obj.secondary_shape)
        anchor, pivot = t.anchor(obj.primary_shape, obj.anchor), t.pivot(obj.secondary_shape, obj.pivot)
        # Attach: the pivot's normal turns to face against the anchor's, the pivot point sits on
        # the anchor point.
        rot = _rotation_between(np.array(pivot.normal), -np.array(anchor.normal))
        scale = t.secondary_scale
        shift = np.array(anchor.point) - scale * rot @ np.array(pivot.point)
        sec_vertices = scale * secondary.vertices @ rot.T + shift
        sec_normals = secondary.normals @ rot.T
        return [
            (primary.vertices, primary.faces, primary.normals,
             t.appearance(obj.primary_material, obj.primary_colour)),
            (sec_vertices, secondary.faces, sec_normals,
             t.appearance(obj.secondary_material, obj.secondary_colour)),
        ]

    def render_object(self, obj: ComboObject, view: View) -> np.ndarray:
        size = self.image_size * self.supersample
        parts = self._parts(obj)
        rot = _euler(view.yaw, view.pitch, view.roll) @ _Z_UP_TO_Y_UP
        all_vertices = np.vstack([p[0] for p in parts]) @ rot.T
        lo, hi = all_vertices[:, :2].min(0), all_vertices[:, :2].max(0)
        centre = (lo + hi) / 2
        pixels_per_unit = view.zoom * size / max(float((hi - lo).max()), 1e-6)
        light = np.array(view.light)
        half_vector = (light + [0, 0, 1]) / np.linalg.norm(light + [0, 0, 1])

        # Vertical gradient background (a hint of floor and sky, so glass has something to show).
        ramp = np.linspace(1.1, 0.85, size)[:, None, None]
        background = np.clip(view.background * ramp * np.ones((size, size, 3)), 0, 255)
        image = background.astype(np.uint8).copy()
        label = np.zeros((size, size), np.uint8)

        polygons = []  # (depth, points, colour, label)
        for part_index, (vertices, faces, normals, look) in enumerate(parts, start=1):
            v = vertices @ rot.T
            n = normals @ rot.T
            visible = n[:, 2] > 1e-6  # back-face culling: the camera looks along -z
            diffuse = np.clip(n @ light, 0, None)
            spec = np.clip(n @ half_vector, 0, None)
            base = np.array(look.rgb, np.float64)
            if look.material == "metal":
                # Dim diffuse, strong sharp highlight and a sky reflection from upward normals.
                shade = base[None] * (0.15 + 0.45 * diffuse[:, None] + 0.25 * np.clip(n[:, 1:2], 0, None))
                shade += 255 * 0.9 * spec[:, None] ** 40
            elif look.material == "glass":
                shade = base[None] * (0.35 + 0.45 * diffuse[:, None]) + 255 * 0.8 * spec[:, None] ** 60
            else:  # rubber, wood: matte
                shade = base[None] * (0.25 + 0.75 * diffuse[:, None]) + 255 * 0.08 * spec[:, None] ** 8
            xy = v[faces][..., :2]  # (F, 4, 2)
            px = np.empty_like(xy)
            px[..., 0] = size / 2 + (xy[..., 0] - centre[0]) * pixels_per_unit
            px[..., 1] = size / 2 - (xy[..., 1] - centre[1]) * pixels_per_unit
            depth = v[faces][..., 2].mean(axis=1)
            for f in np.flatnonzero(visible):
                polygons.append((depth[f], px[f], np.clip(shade[f], 0, 255), part_index))

        polygons.sort(key=lambda item: item[0])  # painter's algorithm: far faces first
        for _, points, colour, part_index in polygons:
            pts = np.round(points * 16).astype(np.int32)  # 4 fractional bits for sub-pixel edges
            cv2.fillConvexPoly(image, pts, colour.tolist(), lineType=cv2.LINE_8, shift=4)
            cv2.fillConvexPoly(label, pts, part_index, lineType=cv2.LINE_8, shift=4)

        image = self._materials(image, label, background, parts, rot, centre, pixels_per_unit)
        if self.supersample > 1:
            image = cv2.resize(image, (self.image_size, self.image_size), interpolation=cv2.INTER_AREA)
        return image

    @staticmethod
    def _materials(image: np.ndarray, label: np.ndarray, background: np.ndarray, parts, rot: np.ndarray,
                   centre: np.ndarray, pixels_per_unit: float) -> np.ndarray:
        """Per-pixel material effects: wood grain (stripes across the primitive's axis) and glass
        (partly transparent over the background)."""
        out = image.astype(np.float32)
        size = image.shape[0]
        for part_index, (vertices, _, _, look) in enumerate(parts, start=1):
            mask = label == part_index
            if not mask.any() or look.material not in ("wood", "glass"):
                continue
            if look.material == "wood":
                # Grain runs along an object-fixed direction (first to last mesh vertex) as seen on screen.
                axis = (rot @ (vertices[-1] - vertices[0]))[:2]
                axis = axis / (np.linalg.norm(axis) + 1e-9)
                ys, xs = np.nonzero(mask)
                across = (xs - size / 2) * -axis[1] + (ys - size / 2) * -axis[0]
                grain = 0.75 + 0.25 * np.sin(across * 2 * np.pi * 8 / pixels_per_unit)  # 8 stripes per unit
                out[ys, xs] *= grain[:, None]
            else:
                out[mask] = 0.55 * out[mask] + 0.45 * background[mask]
        return np.clip(out, 0, 255).astype(np.uint8)
