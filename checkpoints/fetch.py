"""`specialists checkpoints fetch`: download a checkpoint into SPECIALISTS_HOME/<name>/.

Only this module (and only when a user runs `fetch`) touches the network. Hub entries go
through huggingface_hub; URL mirrors through `download_url`, which resumes a cut-off download
with an HTTP Range request, checks the sha256 and renames into place atomically. Files are
gathered in SPECIALISTS_HOME/.staging/<name>/ and moved into place only after the whole
checkpoint has been hashed and accepted, so a refused download leaves nothing in place.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

from tqdm import tqdm

from checkpoints.hashing import CHUNK, HashCache
from checkpoints.locations import specialists_home
from checkpoints.lock import HashMismatchError, LockFile
from checkpoints.manifest import CheckpointEntry, Manifest, load_manifest
from checkpoints.resolve import Location, ResolvedCheckpoint, hash_location, locate, resolve

STAGING = ".staging"


class FetchError(ValueError):
    """A download that could not be completed; the message says what to do."""


def _sha256_prefix_of(path: Path):
    """A running sha256 already fed with the bytes of a partial download."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest


def download_url(url: str, dest: str | Path, sha256: str | None = None, timeout: float = 60.0) -> str:
    """Download `url` to `dest`; returns the sha256 of the bytes.

    Written by hand because neither torch.hub (no resume, random temp name) nor huggingface_hub
    (hub URLs only) resumes an arbitrary HTTP mirror. The bytes go to `dest`.part; a rerun after
    a cut-off asks for the rest with `Range: bytes=N-` (a server that answers 200 instead is
    read from the start). With `sha256`, a mismatch deletes the partial file and raises
    HashMismatchError; `dest` is only ever created by an atomic rename of a complete file.
    """
    dest = Path(dest)
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": "blink-specialists"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and have:  # our partial file is not a prefix the server recognises
            part.unlink()
            return download_url(url, dest, sha256, timeout)
        raise FetchError(f"{url}: HTTP {err.code} {err.reason}; the file is not available at this address") from None
    except (urllib.error.URLError, OSError) as err:
        raise FetchError(f"{url}: cannot connect ({getattr(err, 'reason', err)}); check the network and retry") from None
    with response:
        if response.status == 206 and have:
            digest, mode, received = _sha256_prefix_of(part), "ab", have
        else:  # full body: start over
            digest, mode, received = hashlib.sha256(), "wb", 0
        total = response.headers.get("Content-Length")
        total = int(total) + received if total is not None else None
        # a byte-count bar on a terminal only (disable=None), so logs and CI output stay clean
        bar = tqdm(total=total, initial=received, unit="B", unit_scale=True, unit_divisor=1024,
                   desc=dest.name, disable=None, leave=False)
        try:
            with open(part, mode) as f, bar:
                while block := response.read(CHUNK):
                    f.write(block)
                    digest.update(block)
                    received += len(block)
                    bar.update(len(block))
        except (http.client.IncompleteRead, ConnectionError, TimeoutError, OSError) as err:
            raise FetchError(f"{url}: download interrupted after {received} bytes ({type(err).__name__}); "
                             f"run the same command again to resume from {part}") from None
    if total is not None and received < total:
        raise FetchError(f"{url}: connection closed after {received} of {total} bytes; "
                         f"run the same command again to resume from {part}")
    got = digest.hexdigest()
    if sha256 is not None and got != sha256:
        part.unlink()
        raise HashMismatchError(f"{url}: downloaded bytes have sha256 {got}, expected {sha256}; "
                                "refused and deleted (the mirror serves different bytes)")
    os.replace(part, dest)
    return got


def _from_hub(entry: CheckpointEntry, staging: Path, errors: list[str]) -> bool:
    """Every file of the entry from the first hub repo that has them all, into `staging`."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    for repo_id in entry.hub:
        try:
            snapshot_download(repo_id, revision=entry.revision, allow_patterns=list(entry.files), local_dir=staging)
        except (HfHubHTTPError, LocalEntryNotFoundError, OSError) as err:
            errors.append(f"hub {repo_id}@{entry.revision}: {type(err).__name__}: {str(err).splitlines()[0]}")
            continue
        missing = [f for f in entry.files if not (staging / f).is_file()]
        if not missing:
            return True
        errors.append(f"hub {repo_id}@{entry.revision}: lacks {', '.join(missing)}")
    return False


def _from_urls(entry: CheckpointEntry, staging: Path, lock: LockFile, errors: list[str]) -> bool:
    expected = lock.expected(entry).sha256 if entry.kind == "file" else None
    for file in entry.files:
        if (staging / file).is_file():
            continue
        for url in entry.file_urls(file):
            try:
                download_url(url, staging / file, expected)
                break
            except (FetchError, HashMismatchError) as err:  # try the next mirror; report all at the end
                errors.append(str(err))
        else:
            return False
    return True


def _move_into_place(staging: Path, final: Path, entry: CheckpointEntry) -> Path:
    if final.exists() or final.is_symlink():
        old = final.with_name(final.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
        os.replace(staging, final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging, final)
    return final / entry.files[0] if entry.kind == "file" else final


def fetch(name: str, *, home: Path | None = None, manifest: Manifest | None = None, repin: bool = False) -> ResolvedCheckpoint:
    """Download checkpoint `name` unless it is already present and verifies; returns it resolved."""
    manifest = manifest or load_manifest()
    entry = manifest.get(name)
    home = home or specialists_home()
    lock = LockFile(home)
    if repin and not entry.sha256:
        lock.forget(entry.name)
    if locate(entry, home) is not None:
        return resolve(entry.name, home=home, manifest=manifest)  # verifies (or pins) what is there
    if not entry.downloadable:
        raise FetchError(f"checkpoint {entry.name!r} has no public download. {entry.manual}")
    staging = home / STAGING / entry.name
    staging.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    if not (entry.hub and _from_hub(entry, staging, errors)) and not (entry.urls and _from_urls(entry, staging, lock, errors)):
        raise FetchError(f"could not fetch {entry.name!r}; every source failed:\n" + "\n".join(f"  - {e}" for e in errors))
    # Accept the whole checkpoint (hash against manifest / lock, or pin) before it goes in place.
    cache = HashCache(home)
    where = Location("staging", staging / entry.files[0] if entry.kind == "file" else staging)
    sha = hash_location(entry, where, cache)
    try:
        lock.check(entry, sha, f"{entry.name} (fetched)", pin_unknown=False)
    except HashMismatchError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    placed = _move_into_place(staging, home / entry.name, entry)
    files = [placed] if entry.kind == "file" else [placed / f for f in entry.files]
    for file in files:  # a rename keeps size and mtime: no need to hash gigabytes twice
        cache.carry_over(where.path if entry.kind == "file" else staging / file.relative_to(placed), file)
    return resolve(entry.name, home=home, manifest=manifest)  # verified at the final path, pinned
