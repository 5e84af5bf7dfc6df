"""The local lock file: the sha256 each checkpoint had when it was first fetched or imported.

The manifest carries a sha256 only where one was published. For every other entry the first
fetch/import (or first use of a file found in a cache) pins the hash it saw in
SPECIALISTS_HOME/checkpoints.lock.json; from then on any other bytes under that name are
refused, so a run can trust it used exactly the weights of earlier runs.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from checkpoints.hashing import write_json_atomic
from checkpoints.locations import specialists_home
from checkpoints.manifest import CheckpointEntry

LOCK_NAME = "checkpoints.lock.json"


class HashMismatchError(ValueError):
    """Bytes under a checkpoint's name differ from the hash it must have."""


@dataclass(frozen=True)
class Expected:
    sha256: str | None
    origin: str  # "manifest", "lock" or "none"
    prefix: str | None = None  # torch.hub file-name prefix, checked in addition


class LockFile:
    def __init__(self, home: Path | None = None) -> None:
        self.path = (home or specialists_home()) / LOCK_NAME

    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {"version": 1, "checkpoints": {}}
        except json.JSONDecodeError as err:
            raise ValueError(f"{self.path} is not valid JSON ({err}); fix or delete it (pins are re-made on next fetch)") from None
        data.setdefault("checkpoints", {})
        return data

    def pinned(self, name: str) -> str | None:
        record = self._load()["checkpoints"].get(name)
        return record["sha256"] if record else None

    def pin(self, name: str, sha256: str, source: str) -> None:
        data = self._load()
        data["checkpoints"][name] = {"sha256": sha256, "source": source,
                                     "pinned_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        write_json_atomic(self.path, data)

    def forget(self, name: str) -> bool:
        data = self._load()
        removed = data["checkpoints"].pop(name, None) is not None
        if removed:
            write_json_atomic(self.path, data)
        return removed

    def expected(self, entry: CheckpointEntry) -> Expected:
        if entry.sha256:
            return Expected(entry.sha256, "manifest", entry.sha256_prefix)
        pinned = self.pinned(entry.name)
        if pinned:
            return Expected(pinned, "lock", entry.sha256_prefix)
        return Expected(None, "none", entry.sha256_prefix)

    def check(self, entry: CheckpointEntry, sha256: str, where: str, pin_unknown: bool = True) -> str:
        """Compare `sha256` (of the bytes at `where`) with what the entry must have.

        Returns how it was decided: "manifest" / "lock" (matched), "pinned" (first sight,
        now pinned) or "unpinned" (first sight, pin_unknown=False). Raises HashMismatchError.
        """
        expected = self.expected(entry)
        if expected.prefix and not sha256.startswith(expected.prefix):
            raise HashMismatchError(
                f"checkpoint {entry.name!r} at {where}: sha256 {sha256} does not start with "
                f"{expected.prefix}, the prefix its published file name {entry.files[0]} carries. "
                f"The file is corrupt or not the published one: delete it and run "
                f"`specialists checkpoints fetch {entry.name}`."
            )
        if expected.sha256 is None:
            if pin_unknown:
                self.pin(entry.name, sha256, where)
                return "pinned"
            return "unpinned"
        if sha256 != expected.sha256:
            if expected.origin == "manifest":
                fix = f"delete it and run `specialists checkpoints fetch {entry.name}`"
            else:
                fix = (f"if these are the wrong bytes, delete them and run `{entry.fix_command()}`; if you "
                       f"replaced the weights on purpose, re-pin with `specialists checkpoints import "
                       f"{entry.name} {where} --repin`")
            raise HashMismatchError(
                f"checkpoint {entry.name!r} at {where}: sha256 {sha256} but the {expected.origin} "
                f"({self.path if expected.origin == 'lock' else 'manifest.toml'}) says {expected.sha256}; {fix}."
            )
        return expected.origin
