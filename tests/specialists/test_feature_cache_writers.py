"""The feature cache with several writers: a starting process removes only the temporary files
whose writer is gone, never a neighbour's write in flight."""

import os
import socket
import subprocess
import sys
import time

import torch

from specialists.feature_cache import CacheKey, FeatureCache


def _stray(folder, pid: int, host: str):
    path = folder / f".tmp-{pid}@{host}~abc123"
    path.write_bytes(b"partial")
    return path


def test_only_strays_of_gone_writers_are_removed(tmp_path):
    cache = FeatureCache(tmp_path)
    cache.put(CacheKey("c", "p", "l", "img"), torch.ones(2))
    folder = next(p for p in tmp_path.iterdir() if p.is_dir())
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = socket.gethostname()
    in_flight = _stray(folder, os.getpid(), host)  # this process is alive: its write is in flight
    orphan = _stray(folder, int(dead.stdout), host)  # that process has exited
    neighbour = _stray(folder, 1, "another-node")  # another node's, fresh: it may still be writing
    stale = _stray(folder, 1, "another-node-2")
    old = time.time() - 2 * 24 * 3600
    os.utime(stale, (old, old))
    FeatureCache(tmp_path)
    assert in_flight.exists() and neighbour.exists()
    assert not orphan.exists() and not stale.exists()
    assert FeatureCache(tmp_path).get(CacheKey("c", "p", "l", "img")) is not None


def test_an_entry_evicted_by_another_process_is_a_miss_not_an_error(tmp_path):
    reader = FeatureCache(tmp_path)
    writer = FeatureCache(tmp_path)
    key = CacheKey("c", "p", "l", "img")
    writer.put(key, torch.ones(3))
    reader.path(key).unlink()  # another process's eviction
    assert reader.get(key) is None
    writer.put(key, torch.zeros(3))  # and written again while the first process still knows the old one
    assert torch.equal(reader.get(key), torch.zeros(3))
