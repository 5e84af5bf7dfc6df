"""The identity of the weights behind one specialist's answers, as recorded in every result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CheckpointRef:
    """name: manifest name (or the file name of an explicit path); sha256: hash of the bytes
    loaded, None only when nothing was loaded; tiny_random: a random-weight test instance whose
    accuracy means nothing."""

    name: str
    sha256: str | None = None
    path: str | None = None
    tiny_random: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "sha256": self.sha256, "path": self.path, "tiny_random": self.tiny_random}
