"""`specialists checkpoints import NAME FILE [--link]`: register weights a user already has.

The file (or folder) is checked first: against the manifest's sha256 or the lock's pin when
one exists; otherwise its format is read by the entry's converter (so a wrong file is refused
before it is pinned) and its hash is pinned. Then it is copied (temp file + atomic rename) or
symlinked into SPECIALISTS_HOME/<name>/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from checkpoints.convert import validate
from checkpoints.formats import check_fits, describe
from checkpoints.hashing import HashCache, copy_hashing
from checkpoints.locations import specialists_home
from checkpoints.lock import LockFile
from checkpoints.manifest import Manifest, load_manifest
from checkpoints.resolve import Location, ResolvedCheckpoint, hash_location, resolve


class ImportSourceError(ValueError):
    """The file or folder given to `import` is missing or has the wrong shape."""


def _source_location(entry, source: Path) -> Location:
    if not source.exists():
        raise ImportSourceError(f"import {entry.name}: {source} does not exist")
    if entry.kind == "file":
        if source.is_dir():  # a folder holding the published file name is fine too
            source = source / entry.filename
            if not source.is_file():
                raise ImportSourceError(f"import {entry.name}: {source.parent} is a folder without {entry.filename}; "
                                        "pass the weight file itself")
        return Location("import", source)
    if not source.is_dir():
        raise ImportSourceError(f"import {entry.name}: needs a folder holding {', '.join(entry.files)}; "
                                f"{source} {describe(source)}")
    missing = [f for f in entry.files if not (source / f).is_file()]
    if missing:
        raise ImportSourceError(f"import {entry.name}: {source} lacks {', '.join(missing)}")
    return Location("import", source)


def _copy_atomic(src: Path, dest: Path, expected_sha: str, cache: HashCache) -> None:
    """Copy through a temp file and an atomic rename, hashing the bytes written: the cache then
    records the copy's own hash, and a source that changed since it was checked is refused."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        sha = copy_hashing(src, tmp)
        if sha != expected_sha:
            raise ImportSourceError(f"{src} changed while it was being imported (sha256 {expected_sha} when checked, "
                                    f"{sha} when copied); import it again once nothing writes to it")
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    cache.remember(dest, sha)


def import_checkpoint(name: str, source: str | Path, *, link: bool = False, repin: bool = False,
                      home: Path | None = None, manifest: Manifest | None = None) -> ResolvedCheckpoint:
    """Check `source` and put it in place as checkpoint `name`; returns it resolved from there."""
    manifest = manifest or load_manifest()
    entry = manifest.get(name)
    home = home or specialists_home()
    lock, cache = LockFile(home), HashCache(home)
    if repin and not entry.sha256:
        lock.forget(entry.name)
    where = _source_location(entry, Path(source).expanduser().resolve())
    check_fits(where.path, [entry.format])  # a text or empty file is refused before it is hashed
    sha = hash_location(entry, where, cache)
    if lock.check(entry, sha, str(where.path), pin_unknown=False) == "unpinned":
        validate(entry.format, where.path, entry.files, entry.name)  # raises with what is wrong in the file
    target = home / entry.name
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    if entry.kind == "file":
        dest = target / entry.filename
        if link:
            target.mkdir(parents=True)
            dest.symlink_to(where.path)
        else:
            _copy_atomic(where.path, dest, cache.sha256(where.path), cache)
    elif link:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(where.path, target_is_directory=True)
    else:
        for rel in entry.files:
            _copy_atomic(where.path / rel, target / rel, cache.sha256(where.path / rel), cache)
    return resolve(entry.name, home=home, manifest=manifest)  # verifies in place, pins the hash
