"""Offline resolution: a checkpoint name or path -> the local bytes and their verified identity.

Order: an explicit path, then SPECIALISTS_HOME/<name>/, then the Hugging Face cache (every hub
id the entry lists), then the torch hub cache. Nothing is downloaded here, ever. A missing
weight raises `MissingCheckpointError` naming the checkpoint, every place looked in and the
command that fixes it.

    resolve("loftr-outdoor") -> ResolvedCheckpoint(path=.../loftr_outdoor.ckpt, ref=CheckpointRef(...))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from checkpoints.formats import INTERCHANGEABLE, check_fits
from checkpoints.hashing import HashCache
from checkpoints.locations import hf_hub_cache, specialists_home, torch_hub_checkpoints
from checkpoints.lock import LockFile
from checkpoints.manifest import CheckpointEntry, Manifest, is_plain_name, load_manifest
from checkpoints.ref import CheckpointRef

# What a model folder's identity is made of; everything else in it (READMEs, images) is left out.
MODEL_FOLDER_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".npz", ".json", ".txt", ".model")


class MissingCheckpointError(ValueError):
    """A known checkpoint whose weights are in none of the places searched."""


@dataclass(frozen=True)
class Location:
    """One place a checkpoint may lie. path: the file (kind=file) or the folder (kind=folder)."""

    label: str
    path: Path


@dataclass(frozen=True)
class ResolvedCheckpoint:
    """path: the weight file, or the folder holding the entry's files; ref: name + sha256 + path;
    entry: the manifest entry (None for a path the manifest does not know); location: which
    place it was found in; verified: how the hash was decided (manifest / lock / pinned / unknown)."""

    path: Path
    ref: CheckpointRef
    entry: CheckpointEntry | None
    location: str
    verified: str


def _hf_snapshot(repo_id: str, revision: str) -> tuple[Path, Path | None]:
    """(the repo's cache folder, the snapshot folder `revision` points to or None)."""
    repo_dir = hf_hub_cache() / f"models--{repo_id.replace('/', '--')}"
    ref_file = repo_dir / "refs" / revision
    commit = ref_file.read_text().strip() if ref_file.is_file() else revision
    snapshot = repo_dir / "snapshots" / commit
    return repo_dir, snapshot if snapshot.is_dir() else None


def candidate_locations(entry: CheckpointEntry, home: Path | None = None) -> list[Location]:
    """Every place searched for `entry`, in resolution order (whether or not it exists)."""
    home = home or specialists_home()
    places: list[Location] = []
    own = home / entry.name
    places.append(Location("SPECIALISTS_HOME", own / entry.files[0] if entry.kind == "file" else own))
    for repo_id in entry.hub:
        repo_dir, snapshot = _hf_snapshot(repo_id, entry.revision)
        folder = snapshot or repo_dir / "snapshots" / f"<{entry.revision}>"
        places.append(Location(f"Hugging Face cache ({repo_id}@{entry.revision})",
                               folder / entry.files[0] if entry.kind == "file" else folder))
    hub_dir = torch_hub_checkpoints()
    places.append(Location("torch hub cache", hub_dir / Path(entry.files[0]).name if entry.kind == "file" else hub_dir))
    return places


def _present(entry: CheckpointEntry, location: Location) -> bool:
    if entry.kind == "file":
        return location.path.is_file()
    if location.label == "torch hub cache":  # torch.hub keeps files flat, by base name
        return all((location.path / Path(f).name).is_file() for f in entry.files)
    return all((location.path / f).is_file() for f in entry.files)


def entry_files(entry: CheckpointEntry, location: Location) -> list[str]:
    """The entry's files relative to a folder location (flattened in the torch hub cache)."""
    if location.label == "torch hub cache":
        return [Path(f).name for f in entry.files]
    return list(entry.files)


def locate(entry: CheckpointEntry, home: Path | None = None) -> Location | None:
    """The first place that holds every file of `entry`, or None."""
    return next((loc for loc in candidate_locations(entry, home) if _present(entry, loc)), None)


def missing_error(entry: CheckpointEntry, home: Path | None = None) -> MissingCheckpointError:
    looked = "\n".join(f"  - {loc.path}  ({loc.label})" for loc in candidate_locations(entry, home))
    what = "file" if entry.kind == "file" else f"folder with {', '.join(entry.files)}"
    lines = [f"checkpoint {entry.name!r} ({entry.specialist}, {what}) is not on this machine. Looked in:", looked]
    if entry.downloadable:
        lines.append(f"Fix, on a machine with internet: specialists checkpoints fetch {entry.name}")
        target = "FILE" if entry.kind == "file" else "FOLDER"
        lines.append(f"Or, if you already have it: specialists checkpoints import {entry.name} {target}")
    if entry.manual:
        lines.append(f"It has no public download: {entry.manual}")
    return MissingCheckpointError("\n".join(lines))


def hash_location(entry: CheckpointEntry, location: Location, cache: HashCache, use_cache: bool = True) -> str:
    if entry.kind == "file":
        return cache.sha256(location.path, use_cache)
    return cache.folder_sha256(location.path, entry_files(entry, location), use_cache)


def model_folder_files(folder: Path) -> list[str]:
    """The files of a model folder that make its identity: weights and the configs, tokenizer
    and processor files beside them (a README, an image or a hidden file is no part of it)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and p.suffix in MODEL_FOLDER_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


def family_formats(manifest: Manifest, expect: str | None) -> list[str] | None:
    """The weight formats that may take the place of checkpoint `expect` (None: any)."""
    entry = manifest.find(expect) if expect else None
    if entry is None:
        return None
    return [entry.format, *INTERCHANGEABLE.get(entry.format, ())]


def _explicit(path: Path, manifest: Manifest, cache: HashCache, lock: LockFile,
              formats: list[str] | None) -> ResolvedCheckpoint:
    """A path given by the user: checked to be weights (of `formats` when given) before anything
    is hashed, so the hash cache only ever holds weight files; then hashed and named after the
    manifest entry whose bytes it holds."""
    check_fits(path, formats)
    if path.is_dir():
        files = model_folder_files(path)
        if not files:
            raise MissingCheckpointError(f"{path} holds no weight or config files ({', '.join(MODEL_FOLDER_SUFFIXES)})")
        sha = cache.folder_sha256(path, files)
    else:
        sha = cache.sha256(path)
    name, verified = path.name, "unknown"
    for entry in manifest.entries:
        expected = lock.expected(entry).sha256
        if expected == sha:
            name, verified = entry.name, lock.expected(entry).origin
            break
    entry = manifest.find(name)
    return ResolvedCheckpoint(path, CheckpointRef(name, sha, str(path)), entry, "explicit path", verified)


def resolve(name_or_path: str | Path, *, home: Path | None = None, manifest: Manifest | None = None,
            expect: str | None = None) -> ResolvedCheckpoint:
    """A manifest name or a path -> local weights, hashed (cached by file identity) and verified.

    A name is checked against the manifest's sha256 or the lock's pin (pinned on first sight);
    a mismatch raises HashMismatchError, a missing weight MissingCheckpointError, an unknown
    name UnknownCheckpointError (all ValueErrors with the fix in their message). `expect`: the
    checkpoint whose place a path takes (a specialist's default); a path in none of the formats
    that specialist loads raises WeightFormatError before it is hashed.
    """
    manifest = manifest or load_manifest()
    cache, lock = HashCache(home), LockFile(home)
    key = str(name_or_path)
    entry = manifest.find(key)
    if entry is None:
        path = Path(key).expanduser()
        if path.exists():
            return _explicit(path.resolve(), manifest, cache, lock, family_formats(manifest, expect))
        if not is_plain_name(key):
            raise MissingCheckpointError(f"{path}: no such file or folder; give the path of a weight file or model "
                                         "folder, or a checkpoint name (`specialists checkpoints ls`)")
        manifest.get(key)  # raises UnknownCheckpointError with a did-you-mean
    location = locate(entry, home)
    if location is None:
        raise missing_error(entry, home)
    sha = hash_location(entry, location, cache)
    verified = lock.check(entry, sha, str(location.path))
    ref = CheckpointRef(entry.name, sha, str(location.path))
    return ResolvedCheckpoint(location.path, ref, entry, location.label, verified)
