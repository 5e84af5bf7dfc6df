"""The checkpoint manifest (manifest.toml) as typed, validated entries.

`load_manifest()` reads the packaged manifest once per call (it is small); `Manifest.get(name)`
raises `UnknownCheckpointError` with a did-you-mean when a name is not listed.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST_PATH = Path(__file__).with_name("manifest.toml")
KINDS = ("file", "folder")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_HEX = re.compile(r"^[0-9a-f]+$")


class ManifestError(ValueError):
    """The manifest file itself is malformed (a bug in the suite, not in the user's input)."""


class UnknownCheckpointError(ValueError):
    """A checkpoint name that the manifest does not list."""


def is_plain_name(name: str) -> bool:
    """Whether `name` could be a checkpoint name: no path separator, no '..', not empty."""
    return bool(name) and "/" not in name and "\\" not in name and ".." not in name


@dataclass(frozen=True)
class CheckpointEntry:
    """One manifest entry. kind "file": `files` holds one file name; kind "folder": the paths,
    relative to the folder, that the loader needs (the folder's identity is a hash over them)."""

    name: str
    specialist: str
    kind: str
    format: str
    files: tuple[str, ...]
    licence: str
    preprocessing: str = ""
    hub: tuple[str, ...] = ()
    revision: str = "main"
    urls: tuple[str, ...] = ()
    manual: str | None = None
    sha256: str | None = None
    sha256_prefix: str | None = None
    size: int | None = None

    @property
    def filename(self) -> str:
        """The single file of a kind="file" entry."""
        if self.kind != "file":
            raise ValueError(f"checkpoint {self.name!r} is a folder of {len(self.files)} files, not one file")
        return self.files[0]

    def file_urls(self, file: str) -> list[str]:
        """HTTP mirrors for one of this entry's files, in order."""
        if self.kind == "file":
            return list(self.urls)
        return [base + file for base in self.urls]

    @property
    def downloadable(self) -> bool:
        return bool(self.hub or self.urls)

    def fix_command(self) -> str:
        """The exact command that puts this checkpoint in place."""
        if self.downloadable:
            return f"specialists checkpoints fetch {self.name}"
        target = "FILE" if self.kind == "file" else "FOLDER"
        return f"specialists checkpoints import {self.name} {target}"


def _entry(raw: dict, where: str) -> CheckpointEntry:
    known = set(CheckpointEntry.__dataclass_fields__)
    unknown = set(raw) - known
    if unknown:
        raise ManifestError(f"{where}: unknown keys {sorted(unknown)}; allowed: {sorted(known)}")
    for key in ("name", "specialist", "kind", "format", "files", "licence"):
        if key not in raw:
            raise ManifestError(f"{where}: missing {key!r}")
    values = dict(raw)
    for key in ("files", "hub", "urls"):
        values[key] = tuple(values.get(key, ()))
    entry = CheckpointEntry(**values)
    if entry.kind not in KINDS:
        raise ManifestError(f"{where}: kind {entry.kind!r} is not one of {KINDS}")
    if not entry.files or (entry.kind == "file" and len(entry.files) != 1):
        raise ManifestError(f"{where}: kind={entry.kind} needs {'exactly one' if entry.kind == 'file' else 'at least one'} file")
    if entry.kind == "folder" and any(not url.endswith("/") for url in entry.urls):
        raise ManifestError(f"{where}: a folder's urls are base URLs and must end with '/'")
    if entry.sha256 is not None and not _SHA256.match(entry.sha256):
        raise ManifestError(f"{where}: sha256 must be 64 lowercase hex digits")
    if entry.sha256_prefix is not None and not _HEX.match(entry.sha256_prefix):
        raise ManifestError(f"{where}: sha256_prefix must be lowercase hex")
    if not (entry.downloadable or entry.manual):
        raise ManifestError(f"{where}: no source (hub, urls or manual)")
    return entry


@dataclass(frozen=True)
class Manifest:
    entries: tuple[CheckpointEntry, ...]

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def find(self, name: str) -> CheckpointEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    def get(self, name: str) -> CheckpointEntry:
        """The entry called `name`; UnknownCheckpointError (with near names) otherwise, and for
        anything shaped like a path: a name never leads outside the checkpoint store."""
        entry = self.find(name)
        if entry is not None:
            return entry
        close = self.near_names(name)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        if not is_plain_name(name):
            raise UnknownCheckpointError(
                f"{name!r} is not a checkpoint name: names hold no '/', '\\' or '..'.{hint} Names: `specialists "
                "checkpoints ls`; a weight file of your own goes to `checkpoints import NAME FILE` or `run --checkpoint PATH`"
            )
        raise UnknownCheckpointError(
            f"unknown checkpoint {name!r}.{hint} Known: see `specialists checkpoints ls`; "
            "or pass the path of a weight file or folder instead of a name."
        )

    def near_names(self, name: str) -> list[str]:
        """Up to three names close to `name` (or to its last path part, for a path)."""
        tail = re.split(r"[/\\]", name.rstrip("/\\"))[-1]
        return difflib.get_close_matches(tail or name, self.names, n=3, cutoff=0.5)


def load_manifest(path: str | Path = MANIFEST_PATH) -> Manifest:
    path = Path(path)
    with path.open("rb") as f:
        data = tomllib.load(f)
    raws = data.get("checkpoint", [])
    entries = tuple(_entry(raw, f"{path.name} entry {i} ({raw.get('name', '?')})") for i, raw in enumerate(raws))
    names = [e.name for e in entries]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ManifestError(f"{path}: duplicate names {duplicates}")
    return Manifest(entries)
