"""Feature cache: hits, misses, each key part, modes, LRU eviction, unseeded refusal, torn writes."""

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from specialists.feature_cache import CacheKey, FeatureCache, UnseededOutputError

KEY = CacheKey("a" * 64, "Preprocess(size=224)", "layer4", "b" * 64)


def test_miss_then_hit_for_tensors_and_dicts(tmp_path):
    cache = FeatureCache(tmp_path)
    assert cache.get(KEY) is None
    value = torch.randn(4, 3, 2).to(torch.bfloat16)
    cache.put(KEY, value)
    got = cache.get(KEY)
    assert got.dtype == torch.bfloat16 and torch.equal(got, value)
    other = replace(KEY, layer="dict")
    cache.put(other, {"features": torch.ones(2, 2), "pooled": torch.zeros(3)})
    got = FeatureCache(tmp_path).get(other)  # a new process sees it
    assert set(got) == {"features", "pooled"} and torch.equal(got["features"], torch.ones(2, 2))


@pytest.mark.parametrize("part", ["checkpoint_sha256", "preprocessing", "layer", "image_sha256", "precision"])
def test_every_key_part_matters(tmp_path, part):
    cache = FeatureCache(tmp_path)
    cache.put(KEY, torch.ones(3))
    changed = replace(KEY, **{part: getattr(KEY, part) + "x"})
    assert cache.get(changed) is None and cache.get(KEY) is not None


def test_modes(tmp_path):
    FeatureCache(tmp_path).put(KEY, torch.ones(3))
    off = FeatureCache(tmp_path, mode="off")
    assert off.get(KEY) is None
    off.put(replace(KEY, layer="other"), torch.ones(3))
    assert len(FeatureCache(tmp_path)) == 1  # off writes nothing
    refresh = FeatureCache(tmp_path, mode="refresh")
    assert refresh.get(KEY) is None  # recompute everything
    refresh.put(KEY, torch.full((3,), 7.0))
    assert torch.equal(FeatureCache(tmp_path).get(KEY), torch.full((3,), 7.0))  # and overwrite
    with pytest.raises(ValueError, match="cache mode 'sometimes'"):
        FeatureCache(tmp_path, mode="sometimes")


def test_least_recently_used_entries_are_evicted(tmp_path):
    keys = [replace(KEY, image_sha256=str(i)) for i in range(3)]
    probe = FeatureCache(tmp_path / "probe")
    probe.put(keys[0], torch.zeros(1000))
    entry = probe.total_bytes
    cache = FeatureCache(tmp_path / "c", max_bytes=int(2.5 * entry))
    cache.put(keys[0], torch.zeros(1000))
    cache.put(keys[1], torch.zeros(1000))
    assert cache.get(keys[0]) is not None  # key 0 is now more recent than key 1
    cache.put(keys[2], torch.zeros(1000))
    assert cache.evictions == 1 and cache.total_bytes <= cache.max_bytes
    assert cache.get(keys[1]) is None and cache.get(keys[0]) is not None and cache.get(keys[2]) is not None
    assert len(list((tmp_path / "c").glob("*/*.safetensors"))) == 2


def test_unseeded_outputs_are_refused(tmp_path):
    cache = FeatureCache(tmp_path)
    with pytest.raises(UnseededOutputError, match="unseeded random draw"):
        cache.put(KEY, torch.ones(3), unseeded_random=True)
    assert len(cache) == 0


def test_unreadable_entry_is_a_miss_and_stray_temporaries_are_cleared(tmp_path):
    cache = FeatureCache(tmp_path)
    cache.put(KEY, torch.ones(3))
    path = cache.path(KEY)
    path.write_bytes(path.read_bytes()[:20])  # torn by something other than us
    (path.parent / ".tmp-leftover").write_bytes(b"partial")
    fresh = FeatureCache(tmp_path)
    assert not (path.parent / ".tmp-leftover").exists()
    assert fresh.get(KEY) is None and not path.exists()


_WRITER = """
import sys, torch
from specialists.feature_cache import CacheKey, FeatureCache
cache = FeatureCache(sys.argv[1], max_bytes=1 << 40)
i = 0
while True:
    cache.put(CacheKey("c", "p", "l", str(i % 50)), torch.full((256, 256), float(i % 50)))
    i += 1
"""


def test_entries_survive_a_killed_writer(tmp_path):
    root = tmp_path / "cache"
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(root)], cwd=repo,
                            env={**os.environ, "PYTHONPATH": str(repo)})
    try:
        deadline = time.monotonic() + 60
        while len(list(root.glob("*/*.safetensors"))) < 50 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.3)  # let it overwrite entries for a while, then kill it mid-write
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    files = list(root.glob("*/*.safetensors"))
    assert len(files) == 50
    for f in files:
        tensors = load_file(f)  # every entry is whole
        assert tensors["__output__"].shape == (256, 256)
    cache = FeatureCache(root)
    assert not list(root.glob("*/.tmp-*"))
    for i in range(50):
        assert torch.equal(cache.get(CacheKey("c", "p", "l", str(i))), torch.full((256, 256), float(i)))


def test_weights_fingerprint_follows_the_weights_not_the_object():
    from specialists.feature_cache import weights_fingerprint

    def net(seed, width=4):
        torch.manual_seed(seed)
        return torch.nn.Sequential(torch.nn.Conv2d(3, width, 3), torch.nn.BatchNorm2d(width))

    same = weights_fingerprint(net(0))
    assert len(same) == 64 and weights_fingerprint(net(0)) == same  # rebuilt from the same seed: same key
    assert weights_fingerprint(net(1)) != same  # another seed
    assert weights_fingerprint(net(0, width=5)) != same  # another architecture
    assert weights_fingerprint(net(0).to(torch.bfloat16)) != same  # another dtype
    changed = net(0)
    with torch.no_grad():
        changed[1].running_mean[0] += 1  # buffers count too
    assert weights_fingerprint(changed) != same
