"""What every family's parity check shares: importing a user's checkout of the official code,
recording each run-time patch it needs, and measuring how far two dense outputs are apart."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import torch


@dataclass
class Patches:
    """Run-time patches of the official code (device, hub or distributed set-up), each listed in
    the parity line so a reader sees exactly where the official path was touched."""

    applied: list[str] = field(default_factory=list)

    @contextlib.contextmanager
    def attribute(self, owner: Any, name: str, value: Any, why: str) -> Iterator[None]:
        """Set owner.name = value while the block runs, then restore it; `why` goes in the line."""
        label = f"{getattr(owner, '__name__', type(owner).__name__)}.{name}"
        old = getattr(owner, name)
        setattr(owner, name, value)
        self.applied.append(f"{label}: {why}")
        try:
            yield
        finally:
            setattr(owner, name, old)

    @contextlib.contextmanager
    def module(self, name: str, module: Any, why: str) -> Iterator[None]:
        """Make `import name` give `module` while the block runs: official code importing from a
        path its library has since moved, or a package this machine lacks (mpi4py) stood in for;
        `why` goes in the line."""
        old = sys.modules.get(name)
        sys.modules[name] = module
        self.applied.append(f"import {name}: {why}")
        try:
            yield
        finally:
            if old is None:
                del sys.modules[name]
            else:
                sys.modules[name] = old


@contextlib.contextmanager
def official_code(checkout: Path, *top_level: str) -> Iterator[None]:
    """Import from the user's checkout while the block runs. The official repositories use
    generic top-level names (`models`, `utils`, `src`): `top_level` names those the checkout
    brings, which are dropped from sys.modules before and after, so neither side sees the
    other's modules of the same name."""
    checkout = Path(checkout).resolve()
    if not checkout.is_dir():
        raise FileNotFoundError(f"{checkout}: no such folder; give a checkout of the official repository")

    def forget() -> None:
        for name in list(sys.modules):
            if name.split(".")[0] in top_level:
                del sys.modules[name]

    forget()
    sys.path.insert(0, str(checkout))
    try:
        yield
    finally:
        sys.path.remove(str(checkout))
        forget()


@contextlib.contextmanager
def specialists_home(home: Path) -> Iterator[None]:
    """Resolve checkpoints from `home` (where the release-format file was imported) while the
    block runs, so the check never reads or writes the user's own store."""
    old = os.environ.get("SPECIALISTS_HOME")
    os.environ["SPECIALISTS_HOME"] = str(home)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SPECIALISTS_HOME", None)
        else:
            os.environ["SPECIALISTS_HOME"] = old


def checkout_commit(checkout: Path) -> str | None:
    """The commit of a git checkout (None for a plain folder): the snapshot a parity line is of."""
    try:
        done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def dense_errors(ours: torch.Tensor | np.ndarray, official: torch.Tensor | np.ndarray) -> dict[str, float]:
    """How far two dense outputs of one image are apart: the largest absolute difference, and
    that difference relative to the official output's largest magnitude (a scale-free figure a
    reader can hold against float32 noise, about 1e-6)."""
    a = torch.as_tensor(np.asarray(ours, dtype=np.float64))
    b = torch.as_tensor(np.asarray(official, dtype=np.float64))
    if a.shape != b.shape:
        raise ValueError(f"dense outputs differ in shape: ours {tuple(a.shape)}, official {tuple(b.shape)}")
    diff = (a - b).abs()
    scale = float(b.abs().max()) or 1.0
    return {"max_abs": float(diff.max()), "max_rel": float(diff.max()) / scale,
            "median_rel": float(diff.median()) / scale}


def worst(per_image: list[dict[str, float]]) -> dict[str, float]:
    """The family's figure: the worst image's, per measure."""
    return {key: max(errors[key] for errors in per_image) for key in per_image[0]} if per_image else {}


def _identity(entry: dict) -> tuple:
    """What one per-image entry measured (image, size, preset, steps...): its text, whole-number
    and flag fields; its figures are floats and dicts."""
    return tuple(sorted((k, v) for k, v in entry.items() if isinstance(v, (str, int, bool)) and not isinstance(v, float)))


def _union(old: list, new: list) -> list:
    return old + [item for item in new if item not in old]


def _fold(old: Any, new: Any) -> Any:
    """Settings and sizes of two runs: dicts fold key by key, lists join, a single record meeting
    a list joins it, equal values stay, and differing values are both kept (old first), so no
    earlier run's setting is overwritten by a later one's."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **{k: _fold(old[k], v) if k in old else v for k, v in new.items()}}
    if isinstance(old, list) or isinstance(new, list):
        return _union(old if isinstance(old, list) else [old], new if isinstance(new, list) else [new])
    return old if old == new else [old, new]


def _merged_decisions(old: dict | None, new: dict | None) -> dict | None:
    """Counts over both runs' questions; question lists joined; otherwise the earlier run's notes."""
    if not new or not new.get("n"):
        return old
    if not old or not old.get("n"):
        return new
    merged = {**new, **old}
    for key in set(old) & set(new):
        if isinstance(old[key], list) and isinstance(new[key], list):
            merged[key] = old[key] + new[key]
    merged["n"], merged["agree"] = old["n"] + new["n"], old["agree"] + new["agree"]
    merged["agreement"] = merged["agree"] / merged["n"]
    return merged


RUN_FIELDS = ("recorded", "seconds", "scope", "official_commit", "torch", "python")


def merge_lines(old: dict, new: dict, dense_of: Callable[[list[dict]], dict]) -> dict:
    """A later run of a family folded into its recorded line, keeping the earlier per-image
    figures: a new per-image entry replaces an old one only where both measured the same thing
    (same image, size, preset, steps); `dense` is the family's summary (`dense_of`) over all
    entries; decisions count both runs' questions; `runs` lists each run's date, seconds, scope
    and versions."""
    if old.get("family") != new.get("family"):
        raise ValueError(f"cannot merge a {new.get('family')} line into a {old.get('family')} line")
    for line in (old, new):
        if not isinstance(line.get("per_image"), list):
            raise ValueError(f"{line.get('family')}: per_image must be a list of entries to merge runs")
    replaced = {_identity(entry) for entry in new["per_image"]}
    per_image = [e for e in old["per_image"] if _identity(e) not in replaced] + new["per_image"]
    runs = old.get("runs") or [{k: old[k] for k in RUN_FIELDS if k in old}]
    runs = runs + [{k: new[k] for k in RUN_FIELDS if k in new}]
    merged = dict(old)
    for key, value in new.items():
        if key in ("per_image", "dense", "decisions", "runs", "scope") or key not in old:
            merged[key] = value
        elif key in ("images", "patches"):
            merged[key] = _union(old[key], value)
        elif key in ("recorded", "seconds"):
            merged[key] = value
        else:
            merged[key] = _fold(old[key], value)
    merged["per_image"] = per_image
    merged["dense"] = dense_of(per_image)
    merged["decisions"] = _merged_decisions(old.get("decisions"), new.get("decisions"))
    merged["runs"] = runs
    merged["seconds"] = round(sum(run.get("seconds", 0) for run in runs), 1)
    merged.pop("scope", None)
    return merged
