"""sha256 of weight files and folders, with a (size, mtime) -> sha256 cache.

Weight files run to gigabytes, so a run must not re-hash them every time: the cache under
SPECIALISTS_HOME remembers the hash of each absolute path together with its size and mtime
(ns), and hashes again only when either changed. `verify` bypasses the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .locations import specialists_home

CHUNK = 1 << 20
CACHE_NAME = "hash-cache.json"


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def tree_sha256(file_hashes: dict[str, str]) -> str:
    """Identity of a folder: sha256 over its files' relative POSIX paths and hashes, sorted."""
    lines = "".join(f"{rel}\0{sha}\n" for rel, sha in sorted(file_hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON so that a reader never sees half a file (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


class HashCache:
    """The (size, mtime_ns) -> sha256 memory, one JSON file; `home` defaults to SPECIALISTS_HOME."""

    def __init__(self, home: Path | None = None) -> None:
        self.path = (home or specialists_home()) / CACHE_NAME

    def _load(self) -> dict:
        try:
            return json.loads(self.path.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def sha256(self, path: str | Path, use_cache: bool = True) -> str:
        """The file's sha256; from the cache when its size and mtime are unchanged."""
        real = Path(path).resolve()
        stat = real.stat()
        key = str(real)
        entries = self._load()
        hit = entries.get(key)
        if use_cache and hit and hit["size"] == stat.st_size and hit["mtime_ns"] == stat.st_mtime_ns:
            return hit["sha256"]
        sha = sha256_file(real)
        entries = self._load()  # re-read: another process may have added entries meanwhile
        entries[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha}
        write_json_atomic(self.path, entries)
        return sha

    def carry_over(self, old: str | Path, new: str | Path) -> None:
        """After a rename: remember `new` under the hash of `old` (same size and mtime)."""
        entries = self._load()
        hit = entries.get(str(Path(old).resolve()))  # resolves even after the rename
        real = Path(new).resolve()
        stat = real.stat()
        if hit and hit["size"] == stat.st_size and hit["mtime_ns"] == stat.st_mtime_ns:
            entries[str(real)] = hit
            write_json_atomic(self.path, entries)

    def cached(self, path: str | Path) -> str | None:
        """The remembered sha256 if the file is unchanged since, else None (never hashes)."""
        real = Path(path).resolve()
        try:
            stat = real.stat()
        except FileNotFoundError:
            return None
        hit = self._load().get(str(real))
        if hit and hit["size"] == stat.st_size and hit["mtime_ns"] == stat.st_mtime_ns:
            return hit["sha256"]
        return None

    def folder_sha256(self, folder: Path, files: list[str], use_cache: bool = True) -> str:
        return tree_sha256({rel: self.sha256(folder / rel, use_cache) for rel in files})

    def folder_cached(self, folder: Path, files: list[str]) -> str | None:
        hashes = {rel: self.cached(folder / rel) for rel in files}
        if any(h is None for h in hashes.values()):
            return None
        return tree_sha256(hashes)  # type: ignore[arg-type]
