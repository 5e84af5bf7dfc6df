"""A small ray-casting renderer: textured ground, boxes and spheres inside a textured backdrop.

Written by hand (numpy + cv2.remap) because the suite only needs exact depth and exact camera
motion for a handful of primitives, and no dependency of ours renders with a depth buffer on a
CPU without a display. World frame: X, Z on the ground, Y up. Cameras follow OpenCV: x right,
y down, z forward, X_cam = R (X_world - C).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

BACKDROP_RADIUS = 25.0
_MISS = np.inf


@dataclass(frozen=True)
class Camera:
    """Pinhole camera. K: (3, 3) intrinsics; R: (3, 3) world->camera rotation; centre: (3,) world position."""

    K: np.ndarray
    R: np.ndarray
    centre: np.ndarray
    width: int
    height: int

    @property
    def right(self) -> np.ndarray:
        """The camera's +x axis in world coordinates."""
        return self.R[0]

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> pixel (x, y) (N, 2)."""
        cam = (points - self.centre) @ self.R.T
        pix = cam @ self.K.T
        return pix[:, :2] / pix[:, 2:3]


def look_at(centre: np.ndarray, target: np.ndarray, focal: float, width: int, height: int) -> Camera:
    """A camera at `centre` looking at `target` with the world's Y up appearing up in the image."""
    z = target - centre
    z = z / np.linalg.norm(z)
    x = np.cross(z, [0.0, 1.0, 0.0])
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)
    K = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]], dtype=np.float64)
    return Camera(K, np.stack([x, y, z]), np.asarray(centre, np.float64), width, height)


@dataclass
class Scene:
    """Primitives with their textures ((h, w, 3) uint8). Boxes: (min corner, max corner); spheres: (centre, radius)."""

    ground: np.ndarray
    backdrop: np.ndarray
    boxes: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    spheres: list[tuple[np.ndarray, float, np.ndarray]] = field(default_factory=list)
    light: np.ndarray = field(default_factory=lambda: np.array([0.4, 0.8, -0.3]))


def random_scene(rng: np.random.Generator, texture, n_objects: tuple[int, int] = (3, 6)) -> Scene:
    """Objects on the ground within ~2.5 units of the origin; `texture(h, w)` supplies textures."""
    scene = Scene(ground=texture(256, 256), backdrop=texture(256, 1024))
    light = np.array([rng.uniform(-0.6, 0.6), 1.0, rng.uniform(-0.6, 0.6)])
    scene.light = light / np.linalg.norm(light)
    for _ in range(int(rng.integers(*n_objects))):
        cx, cz = rng.uniform(-2.5, 2.5, 2)
        if rng.random() < 0.6:
            half = rng.uniform(0.25, 0.7, 3)
            lo = np.array([cx - half[0], 0.0, cz - half[2]])
            hi = np.array([cx + half[0], 2 * half[1], cz + half[2]])
            scene.boxes.append((lo, hi, texture(128, 128)))
        else:
            radius = rng.uniform(0.3, 0.8)
            scene.spheres.append((np.array([cx, radius, cz]), radius, texture(128, 256)))
    return scene


def _sample(texture: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Bilinear texture lookup at (u, v) texel coordinates, wrapping around -> (N, 3) float32."""
    h, w = texture.shape[:2]
    u0, v0 = np.floor(u), np.floor(v)
    fu, fv = (u - u0)[:, None], (v - v0)[:, None]
    x0, y0 = np.mod(u0, w).astype(np.intp), np.mod(v0, h).astype(np.intp)
    x1, y1 = (x0 + 1) % w, (y0 + 1) % h
    tex = texture.astype(np.float32)
    top = tex[y0, x0] * (1 - fu) + tex[y0, x1] * fu
    bottom = tex[y1, x0] * (1 - fu) + tex[y1, x1] * fu
    return top * (1 - fv) + bottom * fv


def render(scene: Scene, camera: Camera, supersample: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Render -> (image (H, W, 3) uint8, depth (H, W) float: z in the camera frame)."""
    s = supersample
    W, H = camera.width * s, camera.height * s
    K = camera.K.copy()
    K[:2] *= s
    K[:2, 2] = [W / 2, H / 2]
    u, v = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    rays_cam = np.stack([u.ravel(), v.ravel(), np.ones(u.size)], axis=1) @ np.linalg.inv(K).T
    # unnormalised directions with z_cam = 1: the ray parameter t IS the camera depth
    dirs = rays_cam @ camera.R
    origin = camera.centre
    n = dirs.shape[0]
    depth = np.full(n, _MISS)
    colour = np.zeros((n, 3), np.float32)
    normal = np.zeros((n, 3))
    shaded = np.ones(n, bool)

    def take(t: np.ndarray, valid: np.ndarray) -> np.ndarray:
        hit = valid & (t > 1e-6) & (t < depth)
        depth[hit] = t[hit]
        return hit

    # backdrop: inside of a vertical cylinder around the origin (always hit from inside)
    a = dirs[:, 0] ** 2 + dirs[:, 2] ** 2
    b = 2 * (origin[0] * dirs[:, 0] + origin[2] * dirs[:, 2])
    c = origin[0] ** 2 + origin[2] ** 2 - BACKDROP_RADIUS**2
    t_back = (-b + np.sqrt(np.maximum(b * b - 4 * a * c, 0))) / (2 * a)
    hit = take(t_back, np.ones(n, bool))
    p = origin + dirs[hit] * t_back[hit, None]
    bw = scene.backdrop.shape[1]
    colour[hit] = _sample(scene.backdrop, (np.arctan2(p[:, 2], p[:, 0]) + np.pi) / (2 * np.pi) * bw * 2, -p[:, 1] * 40)
    shaded[hit] = False

    # ground plane Y = 0
    t_ground = np.where(dirs[:, 1] < -1e-9, -origin[1] / np.where(dirs[:, 1] == 0, 1, dirs[:, 1]), _MISS)
    hit = take(t_ground, np.ones(n, bool))
    p = origin + dirs[hit] * t_ground[hit, None]
    colour[hit] = _sample(scene.ground, p[:, 0] * 48, p[:, 2] * 48)
    normal[hit] = [0, 1, 0]
    shaded[hit] = True

    for lo, hi, texture in scene.boxes:  # slab method
        with np.errstate(divide="ignore", invalid="ignore"):
            t0 = (lo - origin) / dirs
            t1 = (hi - origin) / dirs
        t_near = np.nanmax(np.minimum(t0, t1), axis=1)
        t_far = np.nanmin(np.maximum(t0, t1), axis=1)
        hit = take(t_near, t_near <= t_far)
        p = origin + dirs[hit] * t_near[hit, None]
        centre, half = (lo + hi) / 2, (hi - lo) / 2
        local = (p - centre) / half
        axis = np.argmax(np.abs(local), axis=1)
        face_normal = np.zeros_like(p)
        face_normal[np.arange(len(p)), axis] = np.sign(local[np.arange(len(p)), axis])
        # texture coordinates: the two coordinates other than the face's axis
        other = np.array([[1, 2], [0, 2], [0, 1]])[axis]
        uv = np.take_along_axis(p - lo, other, axis=1) * 90
        colour[hit] = _sample(texture, uv[:, 0] + axis * 37, uv[:, 1])
        normal[hit] = face_normal
        shaded[hit] = True

    for centre, radius, texture in scene.spheres:
        oc = origin - centre
        a = (dirs**2).sum(1)
        b = 2 * (dirs @ oc)
        c = oc @ oc - radius**2
        disc = b * b - 4 * a * c
        t_sphere = np.where(disc >= 0, (-b - np.sqrt(np.maximum(disc, 0))) / (2 * a), _MISS)
        hit = take(t_sphere, disc >= 0)
        p = origin + dirs[hit] * t_sphere[hit, None]
        nrm = (p - centre) / radius
        th, tw = texture.shape[:2]
        colour[hit] = _sample(texture, (np.arctan2(nrm[:, 2], nrm[:, 0]) + np.pi) / (2 * np.pi) * tw,
                              np.arccos(np.clip(nrm[:, 1], -1, 1)) / np.pi * th)
        normal[hit] = nrm
        shaded[hit] = True

    light = np.clip(normal @ scene.light, 0, 1)
    factor = np.where(shaded, 0.45 + 0.55 * light, 1.0).astype(np.float32)
    image = np.clip(colour * factor[:, None], 0, 255).reshape(H, W, 3).astype(np.uint8)
    depth_img = depth.reshape(H, W)
    if s > 1:
        image = cv2.resize(image, (camera.width, camera.height), interpolation=cv2.INTER_AREA)
        depth_img = depth_img[s // 2 :: s, s // 2 :: s]
    return image, depth_img
