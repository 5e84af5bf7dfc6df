"""What every family's parity check shares: importing a user's checkout of the official code,
recording each run-time patch it needs, and measuring how far two dense outputs are apart."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

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
