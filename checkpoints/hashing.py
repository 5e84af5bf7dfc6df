"""sha256 of weight files and folders, with a file-identity -> sha256 cache.

Weight files run to gigabytes, so a run must not re-hash them every time: the cache under
SPECIALISTS_HOME remembers the hash of each absolute path together with the file's size, mtime,
inode and ctime (ns), and hashes again when any of them changed. Size and mtime alone miss a
file rewritten in place and `touch`ed back to its old mtime; ctime cannot be set back by a user
(every write, utime and chmod moves it to now), so together with the inode it catches that
rewrite at the cost of one stat. `verify` bypasses the cache.

The cache and the lock file are written owner-only (group too in a group-writable, shared
store): they list every weight path of the machine with its hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat as stat_module
import tempfile
from pathlib import Path

from checkpoints.locations import specialists_home

CHUNK = 1 << 20
CACHE_NAME = "hash-cache.json"


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def copy_hashing(src: str | Path, dest: str | Path) -> str:
    """Copy `src` to `dest` (mode and times kept) and return the sha256 of the bytes written."""
    digest = hashlib.sha256()
    with open(src, "rb") as source, open(dest, "wb") as target:
        while block := source.read(CHUNK):
            digest.update(block)
            target.write(block)
    shutil.copystat(src, dest)
    return digest.hexdigest()


def tree_sha256(file_hashes: dict[str, str]) -> str:
    """Identity of a folder: sha256 over its files' relative POSIX paths and hashes, sorted."""
    lines = "".join(f"{rel}\0{sha}\n" for rel, sha in sorted(file_hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def private_mode(folder: Path) -> int:
    """Owner read/write; group too where the folder is group-writable (a store shared on purpose)."""
    try:
        shared = folder.stat().st_mode & stat_module.S_IWGRP
    except FileNotFoundError:
        shared = 0
    return 0o660 if shared else 0o600


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON so that a reader never sees half a file (temp file + rename), readable only by
    the owner (`private_mode`): the file is created that way, never world-readable for a moment."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # 0o600, O_EXCL
    try:
        os.fchmod(fd, private_mode(path.parent))
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _identity(stat: os.stat_result) -> dict[str, int]:
    """What must be unchanged for a remembered hash to still be the file's."""
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "inode": stat.st_ino, "ctime_ns": stat.st_ctime_ns}


def _matches(hit: dict | None, stat: os.stat_result) -> bool:
    return bool(hit) and all(hit.get(k) == v for k, v in _identity(stat).items())


class HashCache:
    """The file identity -> sha256 memory, one JSON file; `home` defaults to SPECIALISTS_HOME."""

    def __init__(self, home: Path | None = None) -> None:
        self.path = (home or specialists_home()) / CACHE_NAME

    def _load(self) -> dict:
        try:
            return json.loads(self.path.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def _store(self, real: Path, stat: os.stat_result, sha: str) -> None:
        entries = self._load()  # re-read: another process may have added entries meanwhile
        entries[str(real)] = {**_identity(stat), "sha256": sha}
        write_json_atomic(self.path, entries)

    def sha256(self, path: str | Path, use_cache: bool = True) -> str:
        """The file's sha256; from the cache when the file is the one it was when hashed."""
        real = Path(path).resolve()
        stat = real.stat()  # before reading: a change while hashing then shows as a new identity
        hit = self._load().get(str(real)) if use_cache else None
        if _matches(hit, stat):
            return hit["sha256"]
        sha = sha256_file(real)
        self._store(real, stat, sha)
        return sha

    def remember(self, path: str | Path, sha: str) -> None:
        """Record `sha` for a file this process has just written with exactly those bytes."""
        real = Path(path).resolve()
        self._store(real, real.stat(), sha)

    def carry_over(self, old: str | Path, new: str | Path) -> None:
        """After a folder holding `old` was renamed: remember `new` under the hash of `old` when
        it is the same file (same inode and ctime: renaming a folder leaves its files untouched)."""
        hit = self._load().get(str(Path(old).resolve()))  # resolves even after the rename
        real = Path(new).resolve()
        stat = real.stat()
        if _matches(hit, stat):
            self._store(real, stat, hit["sha256"])

    def cached(self, path: str | Path) -> str | None:
        """The remembered sha256 if the file is unchanged since, else None (never hashes)."""
        real = Path(path).resolve()
        try:
            stat = real.stat()
        except FileNotFoundError:
            return None
        hit = self._load().get(str(real))
        return hit["sha256"] if _matches(hit, stat) else None

    def folder_sha256(self, folder: Path, files: list[str], use_cache: bool = True) -> str:
        return tree_sha256({rel: self.sha256(folder / rel, use_cache) for rel in files})

    def folder_cached(self, folder: Path, files: list[str]) -> str | None:
        hashes = {rel: self.cached(folder / rel) for rel in files}
        if any(h is None for h in hashes.values()):
            return None
        return tree_sha256(hashes)  # type: ignore[arg-type]
