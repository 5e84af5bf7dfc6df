"""The ComBo reader: an image folder described by a manifest CSV.

Columns: `path` (relative to the folder, or absolute), then either `object_id` or all the
factor columns (FACTOR_NAMES), and `view` (an integer, e.g. 0..19 for ComBo's 20 views).
Every problem is a `ComboManifestError` naming the file, the row and what to do: unknown
object ids or factor combinations, missing image files, duplicate (object, view) rows or paths.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from adapters.datasets.combo.factors import FACTOR_NAMES, FactorTable, UnknownObjectError


class ComboManifestError(ValueError):
    """A manifest CSV or the folder it describes is wrong; the message names file and row."""


@dataclass(frozen=True)
class ComboImage:
    """One image of a real ComBo folder: its file, object id and view number."""

    path: Path
    object_id: int
    view: int


class ComboManifest:
    """The images of a ComBo folder, grouped by object: `views(object_id)` -> list of ComboImage."""

    def __init__(self, images: list[ComboImage], table: FactorTable, source: str) -> None:
        self.images = images
        self.table = table
        self.source = source
        by_object: dict[int, list[ComboImage]] = defaultdict(list)
        for image in images:
            by_object[image.object_id].append(image)
        self._by_object = {k: sorted(v, key=lambda im: im.view) for k, v in by_object.items()}

    @property
    def object_ids(self) -> list[int]:
        return sorted(self._by_object)

    def views(self, object_id: int) -> list[ComboImage]:
        if object_id not in self._by_object:
            raise ComboManifestError(f"{self.source} has no image of object {object_id}")
        return self._by_object[object_id]

    def load(self, image: ComboImage) -> np.ndarray:
        """Decode one image -> (H, W, 3) uint8 RGB."""
        import cv2

        bgr = cv2.imread(str(image.path), cv2.IMREAD_COLOR)
        if bgr is None:
            raise ComboManifestError(f"{image.path} (object {image.object_id}, view {image.view}) "
                                     "could not be decoded; the file is damaged or not an image")
        return np.ascontiguousarray(bgr[:, :, ::-1])


def read_manifest(manifest: str | Path, table: FactorTable | None = None, root: str | Path | None = None,
                  check_files: bool = True) -> ComboManifest:
    """Read and validate a manifest CSV (image paths resolve against `root`, default its folder)."""
    manifest = Path(manifest)
    table = table or FactorTable.load()
    if not manifest.is_file():
        raise ComboManifestError(f"manifest {manifest} not found; a ComBo folder needs a CSV with columns "
                                 "path, object_id (or the factor columns) and view")
    root = Path(root) if root is not None else manifest.parent
    with manifest.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        columns = set(reader.fieldnames or [])
        by_factors = not ("object_id" in columns) and set(FACTOR_NAMES) <= columns
        needed = {"path", "view"}
        if not needed <= columns or not ("object_id" in columns or by_factors):
            raise ComboManifestError(
                f"{manifest}: columns {sorted(columns)}; need path, view and either object_id or all of "
                f"{', '.join(FACTOR_NAMES)}")
        images: list[ComboImage] = []
        seen_key: dict[tuple[int, int], int] = {}
        seen_path: dict[Path, int] = {}
        for row_number, row in enumerate(reader, start=2):  # row 1 is the header
            where = f"{manifest} row {row_number}"
            try:
                view = int(row["view"])
            except (TypeError, ValueError):
                raise ComboManifestError(f"{where}: view {row['view']!r} is not an integer") from None
            try:
                if by_factors:
                    object_id = table.object_id(**{name: row[name] for name in FACTOR_NAMES})
                else:
                    try:
                        object_id = int(row["object_id"])
                    except (TypeError, ValueError):
                        raise ComboManifestError(f"{where}: object_id {row['object_id']!r} is not an integer") from None
                    table.object(object_id)
            except UnknownObjectError as exc:
                raise ComboManifestError(f"{where}: {exc}; fix the row or pass the factor table "
                                         "the folder was made with") from None
            path = Path(row["path"])
            path = path if path.is_absolute() else root / path
            if (object_id, view) in seen_key:
                raise ComboManifestError(f"{where}: object {object_id} view {view} is already listed in row "
                                         f"{seen_key[(object_id, view)]}; remove the duplicate row")
            if path in seen_path:
                raise ComboManifestError(f"{where}: image {path} is already listed in row {seen_path[path]}; "
                                         "remove the duplicate row")
            if check_files and not path.is_file():
                raise ComboManifestError(f"{where}: image file {path} does not exist; fix the path or the "
                                         "folder (paths are relative to the manifest's folder)")
            seen_key[(object_id, view)] = row_number
            seen_path[path] = row_number
            images.append(ComboImage(path, object_id, view))
    if not images:
        raise ComboManifestError(f"{manifest} lists no images")
    return ComboManifest(images, table, str(manifest))
