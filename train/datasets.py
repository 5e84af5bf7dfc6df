"""Training images for the 9,504-way task: ComBo-lite renders (generated on the fly, so any
DataLoader worker can make them) or a real ComBo folder (manifest). Both yield
(image (3, S, S) float in 0-1, object_id); normalisation belongs to the model."""

from __future__ import annotations

import torch
from torch.utils.data import Dataset

from adapters.datasets.combo.factors import FactorTable
from adapters.datasets.combo.manifest import ComboManifest
from adapters.datasets.combo.render import ComboLiteRenderer


class ComboLiteDataset(Dataset):
    """len = n_objects x views_per_object; item i is object i % n_objects seen from view
    i // n_objects (view seeds offset by `view_offset`, so train and validation views differ)."""

    def __init__(self, table: FactorTable, image_size: int, views_per_object: int = 20, seed: int = 0,
                 view_offset: int = 0) -> None:
        self.table = table
        self.image_size = image_size
        self.views_per_object = views_per_object
        self.view_offset = view_offset
        self.seed = seed
        self._renderer: ComboLiteRenderer | None = None  # built lazily: one per worker process

    def __len__(self) -> int:
        return self.table.n_objects * self.views_per_object

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        if self._renderer is None:
            self._renderer = ComboLiteRenderer(self.table, self.image_size, seed=self.seed)
        view, object_id = divmod(index, self.table.n_objects)
        image = self._renderer.render(object_id, view + self.view_offset)
        return torch.from_numpy(image).permute(2, 0, 1).float() / 255.0, object_id


class ManifestDataset(Dataset):
    """Every image a manifest lists, decoded with torchvision.io and resized to (S, S)."""

    def __init__(self, manifest: ComboManifest, image_size: int) -> None:
        self.images = manifest.images
        self.image_size = image_size

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        from torchvision.io import ImageReadMode, decode_image, read_file
        from torchvision.transforms.v2.functional import resize

        item = self.images[index]
        image = decode_image(read_file(str(item.path)), mode=ImageReadMode.RGB)
        image = resize(image, [self.image_size, self.image_size], antialias=True)
        return image.float() / 255.0, item.object_id
