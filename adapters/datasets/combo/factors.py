"""ComBo's factor space as data: a table of shapes, anchors, pivots and appearances, and the
bijection between object ids (0 .. n_objects-1) and factor tuples.

The default table (adapters/datasets/combo/data/combo_factors.toml) gives ComBo's 9,504 objects; its anchor
counts are our derivation (the file says how). Any table with the same schema works: the
classifier head, the renderer and the question generator all size themselves from it.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Sequence

DEFAULT_FACTOR_FILE = Path(__file__).resolve().parent / "data" / "combo_factors.toml"

# The factor names of an object, in the order of `ComboObject` fields (and manifest columns).
FACTOR_NAMES = (
    "primary_shape", "anchor", "secondary_shape", "pivot",
    "primary_material", "primary_colour", "secondary_material", "secondary_colour",
)


class FactorTableError(ValueError):
    """A factor table file is malformed; the message names the file and the entry."""


class UnknownObjectError(ValueError):
    """An object id or factor tuple that is not in the factor table."""


@dataclass(frozen=True)
class Attachment:
    """An anchor (on a primary) or pivot (on a secondary): a surface point and its outward
    normal, both (3,) in the shape's own frame."""

    shape: str
    name: str
    point: tuple[float, float, float]
    normal: tuple[float, float, float]


@dataclass(frozen=True)
class Appearance:
    """Material and colour of one primitive; rgb (0-255) is the renderer's base colour."""

    material: str
    colour: str
    rgb: tuple[int, int, int]


@dataclass(frozen=True)
class ComboObject:
    """One ComBo object: its id and its factor values (names as in FACTOR_NAMES)."""

    object_id: int
    primary_shape: str
    anchor: str
    secondary_shape: str
    pivot: str
    primary_material: str
    primary_colour: str
    secondary_material: str
    secondary_colour: str

    def factors(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in FACTOR_NAMES}


def _vec3(value: Any, where: str) -> tuple[float, float, float]:
    if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, (int, float)) for v in value)):
        raise FactorTableError(f"{where}: expected a list of 3 numbers, got {value!r}")
    return (float(value[0]), float(value[1]), float(value[2]))


class FactorTable:
    """The factor space: primary options (shape, anchor), secondary options (shape, pivot) and
    appearances; object ids enumerate their product in mixed radix (last factor fastest)."""

    def __init__(self, primary_options: list[Attachment], secondary_options: list[Attachment],
                 appearances: list[Appearance], secondary_scale: float = 0.6, source: str = "<memory>") -> None:
        if not primary_options or not secondary_options or not appearances:
            raise FactorTableError(f"{source}: needs at least one anchor, one pivot and one appearance")
        for kind, items in (("anchor", primary_options), ("pivot", secondary_options)):
            keys = [(a.shape, a.name) for a in items]
            if len(set(keys)) != len(keys):
                raise FactorTableError(f"{source}: a {kind} is listed twice for one shape: {keys}")
        keys = [(a.material, a.colour) for a in appearances]
        if len(set(keys)) != len(keys):
            raise FactorTableError(f"{source}: an appearance (material, colour) is listed twice")
        self.primary_options = tuple(primary_options)
        self.secondary_options = tuple(secondary_options)
        self.appearances = tuple(appearances)
        self.secondary_scale = float(secondary_scale)
        self.source = source

    # ---------------------------------------------------------------- loading
    @classmethod
    def load(cls, path: str | Path | None = None) -> "FactorTable":
        """Read a factor table TOML file (default: the packaged 9,504-object table)."""
        path = Path(path) if path is not None else DEFAULT_FACTOR_FILE
        if not path.is_file():
            raise FactorTableError(f"factor table {path} not found; pass an existing TOML file "
                                   f"(the default one is {DEFAULT_FACTOR_FILE})")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise FactorTableError(f"factor table {path} is not valid TOML: {exc}") from exc
        table = cls.from_dict(data, source=str(path))
        table._sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
        return table

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<memory>") -> "FactorTable":
        shapes = data.get("shapes")
        appearances = data.get("appearances")
        if not isinstance(shapes, list) or not isinstance(appearances, list):
            raise FactorTableError(f"{source}: needs [[shapes]] and [[appearances]] arrays of tables")
        primary: list[Attachment] = []
        secondary: list[Attachment] = []
        for i, shape in enumerate(shapes):
            name = shape.get("name")
            if not isinstance(name, str):
                raise FactorTableError(f"{source}: shapes[{i}] has no name")
            for key, out in (("anchors", primary), ("pivots", secondary)):
                for j, entry in enumerate(shape.get(key, [])):
                    where = f"{source}: shape {name!r} {key}[{j}]"
                    if "name" not in entry:
                        raise FactorTableError(f"{where} has no name")
                    out.append(Attachment(name, str(entry["name"]), _vec3(entry.get("point"), where + ".point"),
                                          _vec3(entry.get("normal"), where + ".normal")))
        looks = []
        for i, entry in enumerate(appearances):
            where = f"{source}: appearances[{i}]"
            if "material" not in entry or "colour" not in entry:
                raise FactorTableError(f"{where} needs material and colour")
            rgb = entry.get("rgb", [128, 128, 128])
            if not (isinstance(rgb, list) and len(rgb) == 3):
                raise FactorTableError(f"{where}.rgb: expected 3 integers 0-255, got {rgb!r}")
            looks.append(Appearance(str(entry["material"]), str(entry["colour"]), tuple(int(v) for v in rgb)))
        return cls(primary, secondary, looks, float(data.get("secondary_scale", 0.6)), source)

    @property
    def sha256(self) -> str | None:
        """Hash of the table file's bytes (None for a table built in memory)."""
        return getattr(self, "_sha256", None)

    # ---------------------------------------------------------------- sizes
    @property
    def n_appearances(self) -> int:
        return len(self.appearances)

    @property
    def n_objects(self) -> int:
        return len(self.primary_options) * len(self.secondary_options) * self.n_appearances ** 2

    def __len__(self) -> int:
        return self.n_objects

    @cached_property
    def shapes(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for a in self.primary_options + self.secondary_options:
            seen.setdefault(a.shape, None)
        return tuple(seen)

    def values(self, factor: str) -> tuple[str, ...]:
        """The distinct values one factor takes, in table order."""
        if factor not in FACTOR_NAMES:
            raise UnknownObjectError(f"unknown factor {factor!r}; factors are {', '.join(FACTOR_NAMES)}")
        seen: dict[str, None] = {}
        for obj in self.all_objects:
            seen.setdefault(getattr(obj, factor), None)
        return tuple(seen)

    # ---------------------------------------------------------------- the bijection
    def object(self, object_id: int) -> ComboObject:
        """Object id -> its factors; UnknownObjectError outside 0 .. n_objects-1."""
        if isinstance(object_id, bool) or not isinstance(object_id, int) or not 0 <= object_id < self.n_objects:
            raise UnknownObjectError(f"object id {object_id!r} is not in the factor table "
                                     f"({self.source}: ids 0..{self.n_objects - 1})")
        primary_option, secondary_option, primary_look, secondary_look = self.parts_of(object_id)
        p, s = self.primary_options[primary_option], self.secondary_options[secondary_option]
        pa, sa = self.appearances[primary_look], self.appearances[secondary_look]
        return ComboObject(object_id, p.shape, p.name, s.shape, s.name, pa.material, pa.colour, sa.material, sa.colour)

    def object_id(self, **factors: str) -> int:
        """Factor values (all of FACTOR_NAMES, by keyword) -> object id."""
        missing = [f for f in FACTOR_NAMES if f not in factors]
        extra = [f for f in factors if f not in FACTOR_NAMES]
        if missing or extra:
            raise UnknownObjectError(f"object_id needs exactly the factors {', '.join(FACTOR_NAMES)}; "
                                     f"missing {missing}, unexpected {extra}")
        index = self._indices
        try:
            p = index["primary"][(factors["primary_shape"], factors["anchor"])]
            s = index["secondary"][(factors["secondary_shape"], factors["pivot"])]
            pa = index["appearance"][(factors["primary_material"], factors["primary_colour"])]
            sa = index["appearance"][(factors["secondary_material"], factors["secondary_colour"])]
        except KeyError as exc:
            raise UnknownObjectError(f"no object with factors {factors} in {self.source}: "
                                     f"{exc.args[0]} is not a known combination") from None
        return self.object_of_parts((p, s, pa, sa))

    # The four parts of an object (PARTS: primary shape+anchor option, secondary shape+pivot
    # option, primary look, secondary look) are the digits of its id in mixed radix PART_SIZES.
    PARTS = ("primary", "secondary", "primary_look", "secondary_look")

    @property
    def part_sizes(self) -> tuple[int, int, int, int]:
        """How many values each of PARTS takes (11, 6, 12, 12 for the default table)."""
        return len(self.primary_options), len(self.secondary_options), self.n_appearances, self.n_appearances

    def parts_of(self, object_id: int) -> tuple[int, int, int, int]:
        """Object id -> its index in each of PARTS (last part fastest)."""
        digits = []
        for size in reversed(self.part_sizes):
            object_id, digit = divmod(object_id, size)
            digits.append(digit)
        return tuple(reversed(digits))  # type: ignore[return-value]

    def object_of_parts(self, parts: Sequence[int]) -> int:
        """Inverse of parts_of."""
        object_id = 0
        for digit, size in zip(parts, self.part_sizes):
            object_id = object_id * size + digit
        return object_id

    @cached_property
    def _indices(self) -> dict[str, dict[tuple[str, str], int]]:
        return {
            "primary": {(a.shape, a.name): i for i, a in enumerate(self.primary_options)},
            "secondary": {(a.shape, a.name): i for i, a in enumerate(self.secondary_options)},
            "appearance": {(a.material, a.colour): i for i, a in enumerate(self.appearances)},
        }

    def objects(self) -> Iterator[ComboObject]:
        """Every object, in id order."""
        for object_id in range(self.n_objects):
            yield self.object(object_id)

    @cached_property
    def all_objects(self) -> tuple[ComboObject, ...]:
        """Every object, in id order (built once; ~10k small records for the default table)."""
        return tuple(self.objects())

    # ---------------------------------------------------------------- lookups for the renderer
    def anchor(self, shape: str, name: str) -> Attachment:
        return self.primary_options[self._indices["primary"][(shape, name)]]

    def pivot(self, shape: str, name: str) -> Attachment:
        return self.secondary_options[self._indices["secondary"][(shape, name)]]

    def appearance(self, material: str, colour: str) -> Appearance:
        return self.appearances[self._indices["appearance"][(material, colour)]]
