"""The feature cache: one safetensors file per (checkpoint, preprocessing, layer, image) output.

Key parts: checkpoint sha256, the preprocessing's description, the layer or preset, the image's
content hash and the precision the model ran in; any part changing gives a new entry. Random-weight
test models have no checkpoint file: `weights_fingerprint` hashes their weights and configuration
instead, so the same seed and architecture hit and anything else misses. Files are written to a temporary name
and renamed into place (`os.replace` is atomic on POSIX), so a killed process leaves either the
old entry, the new one, or a stray temporary file that the next start removes: never a torn
entry. A file that fails to load anyway is dropped and counted as a miss.

Several processes may share one cache (the ranks of a `--devices N` run, two runs at once): the
same key written twice holds the same output, so whichever rename lands last is right. A
temporary file is named after its writer (pid@host), and a starting process removes only those
whose writer is gone (a dead pid on this host, or older than a day from another host), never a
neighbour's write in flight. An entry another process evicted between a lookup and its read is
a miss. Each process bounds the cache by what it sees (entries there at its start, and its own).

Modes (`--cache`): "off" (neither read nor written), "read" (hits are read, misses written),
"refresh" (everything recomputed and rewritten). The cache holds at most `max_bytes`; beyond
that the least recently used entries (file mtime, touched on every hit) are evicted.
Outputs that depend on an unseeded random draw are refused: they are not a function of the key.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

CacheMode = Literal["off", "read", "refresh"]
MODES = ("off", "read", "refresh")
_SINGLE = "__output__"  # the tensor name when an output is one tensor rather than a dict
_TMP = re.compile(r"\.tmp-(\d+)@([^~]*)~")  # .tmp-{pid}@{host}~{random}: who is writing it
_FOREIGN_STRAY_SECONDS = 24 * 3600  # another host's temporary file older than this is a leftover


class UnseededOutputError(ValueError):
    """An output drawn from unseeded noise was offered to the cache."""


@dataclass(frozen=True)
class CacheKey:
    """checkpoint_sha256: the weights' hash; preprocessing: how pixels became the input;
    layer: layer / preset name; image_sha256: the image's content hash; precision: fp32 | bf16 |
    fp16, the dtype the model ran in (bf16 features are not fp32 features)."""

    checkpoint_sha256: str
    preprocessing: str
    layer: str
    image_sha256: str
    precision: str = "fp32"

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()


def weights_fingerprint(*modules: torch.nn.Module) -> str:
    """sha256 over the modules' classes, configurations (when they carry one, as transformers and
    diffusers models do) and every state-dict tensor's name, dtype, shape and bytes: the cache
    identity of weights that came from no file (`--checkpoint tiny-random`). Hashing the weights
    themselves rather than the seed means a change of seed, architecture or torch's RNG all miss."""
    digest = hashlib.sha256()
    for module in modules:
        digest.update(type(module).__qualname__.encode())
        config = getattr(module, "config", None)
        if config is not None:
            digest.update(repr(sorted(dict(config).items()) if isinstance(config, dict) else config.to_json_string()).encode())
        for name, tensor in module.state_dict().items():
            t = tensor.detach().to("cpu").contiguous()
            digest.update(f"{name}:{t.dtype}:{tuple(t.shape)}".encode())
            digest.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


class FeatureCache:
    """root: cache folder (created); max_bytes: size bound; mode: off | read | refresh."""

    def __init__(self, root: str | Path, max_bytes: int = 10 * 2**30, mode: CacheMode = "read") -> None:
        if mode not in MODES:
            raise ValueError(f"cache mode {mode!r} is not one of {', '.join(MODES)}")
        if max_bytes <= 0:
            raise ValueError(f"cache max_bytes must be positive, got {max_bytes}")
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_bytes = max_bytes
        self.mode: CacheMode = mode
        self.evictions = 0
        self._sizes: dict[Path, int] = {}
        self._last_used: dict[Path, int] = {}  # ns; from mtime at start, then kept in memory
        self._clock = 0
        for stray in self.root.glob("*/.tmp-*"):
            if _writer_gone(stray):
                stray.unlink(missing_ok=True)
        for path in self.root.glob("*/*.safetensors"):
            try:
                stat = path.stat()
            except FileNotFoundError:  # evicted by another process meanwhile
                continue
            self._sizes[path] = stat.st_size
            self._last_used[path] = stat.st_mtime_ns

    def path(self, key: CacheKey) -> Path:
        digest = key.digest()
        return self.root / digest[:2] / f"{digest}.safetensors"

    @property
    def total_bytes(self) -> int:
        return sum(self._sizes.values())

    def __len__(self) -> int:
        return len(self._sizes)

    def get(self, key: CacheKey) -> torch.Tensor | dict[str, torch.Tensor] | None:
        """The stored output, or None on a miss (and always in modes off / refresh)."""
        if self.mode != "read":
            return None
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            tensors = load_file(path)
        except (SafetensorError, OSError, ValueError):
            self._drop(path)  # unreadable: recompute rather than fail the run
            return None
        try:
            os.utime(path)  # recency for eviction, seen by the next process too
        except FileNotFoundError:  # another process evicted it after the read: the tensors are whole
            pass
        self._touch(path)
        if set(tensors) == {_SINGLE}:
            return tensors[_SINGLE]
        return tensors

    def put(self, key: CacheKey, output: torch.Tensor | dict[str, torch.Tensor], *, unseeded_random: bool = False) -> None:
        """Store `output` (a tensor or a dict of tensors) under `key` (no-op in mode off)."""
        if unseeded_random:
            raise UnseededOutputError(
                f"refusing to cache {key.layer or 'an output'} of checkpoint {key.checkpoint_sha256[:12]}: it depends on an "
                "unseeded random draw, so the same key would not give the same output; pass a seed"
            )
        if self.mode == "off":
            return
        tensors = {_SINGLE: output} if isinstance(output, torch.Tensor) else dict(output)
        tensors = {k: v.detach().to("cpu").contiguous().clone() for k, v in tensors.items()}
        path = self.path(key)
        path.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".tmp-{os.getpid()}@{socket.gethostname()}~", dir=path.parent)
        os.close(fd)
        try:
            save_file(tensors, tmp, metadata={k: str(v) for k, v in asdict(key).items()})
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            size = os.path.getsize(tmp)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        self._sizes[path] = size
        self._touch(path)
        self._evict()

    def _touch(self, path: Path) -> None:
        # strictly increasing even when the wall clock's resolution is coarse
        self._clock = max(time.time_ns(), self._clock + 1)
        self._last_used[path] = self._clock

    def _drop(self, path: Path) -> None:
        path.unlink(missing_ok=True)
        self._sizes.pop(path, None)
        self._last_used.pop(path, None)

    def _evict(self) -> None:
        """Remove least recently used entries until the cache fits in max_bytes."""
        total = self.total_bytes
        if total <= self.max_bytes:
            return
        for path in sorted(self._sizes, key=lambda p: self._last_used.get(p, 0)):
            if total <= self.max_bytes:
                break
            total -= self._sizes[path]
            self._drop(path)
            self.evictions += 1


def _writer_gone(stray: Path) -> bool:
    """Whether a temporary file's writer can no longer finish it: its pid is dead on this host,
    it comes from another host and is older than a day, or its name is none this module writes."""
    match = _TMP.match(stray.name)
    try:
        age = time.time() - stray.stat().st_mtime
    except FileNotFoundError:  # its writer renamed it into place meanwhile
        return False
    if match is None:
        return True  # not a name this module writes: nobody is finishing it
    pid, host = int(match.group(1)), match.group(2)
    if host != socket.gethostname():
        return age > _FOREIGN_STRAY_SECONDS
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False
