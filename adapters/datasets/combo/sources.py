"""Where ComBo images come from when building questions: rendered on demand (ComBo-lite) or
read from a real ComBo folder (manifest). Both answer the same two questions: which objects do
you have, and give me one random view of this object."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from adapters.datasets.combo.manifest import ComboManifest
from adapters.datasets.combo.render import ComboLiteRenderer


class ImageSource(Protocol):
    name: str

    def has(self, object_id: int) -> bool: ...

    def sample_image(self, object_id: int, rng: np.random.Generator) -> np.ndarray:
        """One random view of the object: (H, W, 3) uint8 RGB."""
        ...


class ComboLiteSource:
    """Every object of the renderer's table, each with unlimited random views."""

    name = "combo-lite"

    def __init__(self, renderer: ComboLiteRenderer) -> None:
        self.renderer = renderer

    def has(self, object_id: int) -> bool:
        return 0 <= object_id < self.renderer.table.n_objects

    def sample_image(self, object_id: int, rng: np.random.Generator) -> np.ndarray:
        return self.renderer.render(object_id, int(rng.integers(0, 2**31 - 1)))


class ManifestSource:
    """The objects a ComBo folder's manifest lists, each with the views it has."""

    name = "combo"

    def __init__(self, manifest: ComboManifest) -> None:
        self.manifest = manifest
        self._ids = set(manifest.object_ids)

    def has(self, object_id: int) -> bool:
        return object_id in self._ids

    def sample_image(self, object_id: int, rng: np.random.Generator) -> np.ndarray:
        views = self.manifest.views(object_id)
        return self.manifest.load(views[int(rng.integers(len(views)))])
