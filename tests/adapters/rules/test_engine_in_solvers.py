"""The neural solvers on the batched engine with the feature cache (`specialists run --cache`).

Tiny random-weight Depth Anything and DIFT answer synthetic BLINK questions with the cache off,
read (cold, then warm), and refresh: the decisions must not change, a warm run must read every
feature and never run the model, and any key part changing (precision, weights) must miss.
"""

import json

import pytest
import torch
from safetensors import safe_open

from adapters.core.registry import get
from adapters.core.solver import SolverOptions
from adapters.datasets.blink.reader import BlinkReader
from adapters.datasets.synthetic import write_synthetic
from adapters.markers.sidecar import apply_markers, load_markers
from adapters.rules.model_solver import open_feature_cache
from adapters.run.runner import RunConfig, run

TASK_OF = {"depth_anything": "Relative_Depth", "depth_anything_raw": "Relative_Depth",
           "dift": "Visual_Correspondence"}
IMAGES_PER_QUESTION = {"depth_anything": 1, "depth_anything_raw": 1, "dift": 2}
N = 3  # questions per task


@pytest.fixture(scope="module")
def questions(tmp_path_factory):
    """{task: [MCQuestion]} with the generator's marker coordinates, N per task."""
    root = tmp_path_factory.mktemp("synthetic")
    tasks = sorted(set(TASK_OF.values()))
    write_synthetic(root, tasks, n=N, seed=0)
    reader = BlinkReader(root, "val", tasks)
    coordinates = load_markers(root / "markers.jsonl")
    return {task: list(apply_markers(reader.questions(task), coordinates)) for task in tasks}


def _solve(name: str, questions, cache="off", cache_dir=None, **options):
    """(solver, [(pred, scores)]) for the class's task, every question answered in one batch."""
    solver = get(name).build(SolverOptions(checkpoint="tiny-random", batch_size=N, cache=cache,
                               cache_dir=None if cache_dir is None else str(cache_dir), **options))
    outcomes = solver.decide_batch(questions[TASK_OF[name]])
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    return solver, [(o.pred, dict(o.scores)) for o in outcomes]


def _count_model_calls(solver, monkeypatch):
    """A list that grows by one per forward of the solver's network."""
    calls = []
    module = solver.model.model if hasattr(solver.model, "model") else solver.model.unet
    forward = module.forward
    monkeypatch.setattr(module, "forward", lambda *a, **kw: calls.append(1) or forward(*a, **kw))
    return calls


@pytest.mark.parametrize("name", ["depth_anything", "depth_anything_raw", "dift"])
def test_same_decisions_with_cache_off_cold_warm_and_refresh(name, questions, tmp_path, monkeypatch):
    n_images = N * IMAGES_PER_QUESTION[name]
    _, off = _solve(name, questions)

    cold_solver, cold = _solve(name, questions, "read", tmp_path)
    stats = cold_solver.engine.stats
    assert (stats.cache_hits, stats.cache_misses, stats.images) == (0, n_images, n_images)
    assert len(open_feature_cache(cold_solver.options)) == n_images  # one entry per image the model saw

    warm_solver = get(name).build(SolverOptions(checkpoint="tiny-random", batch_size=N, cache="read", cache_dir=str(tmp_path)))
    calls = _count_model_calls(warm_solver, monkeypatch)
    warm = [(o.pred, dict(o.scores)) for o in warm_solver.decide_batch(questions[TASK_OF[name]])]
    stats = warm_solver.engine.stats
    assert (stats.cache_hits, stats.cache_misses, stats.images, stats.batches) == (n_images, 0, 0, 0)
    assert calls == []  # the network never ran

    refresh_solver, refreshed = _solve(name, questions, "refresh", tmp_path)
    stats = refresh_solver.engine.stats
    assert (stats.cache_hits, stats.images) == (0, n_images)

    # bit-identical: features are stored exactly and the same engine path runs in every mode
    assert off == cold == warm == refreshed
    assert len({pred for pred, _ in off}) >= 1 and all(pred is not None for pred, _ in off)


def test_cache_off_writes_nothing(questions, tmp_path, monkeypatch):
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    solver, _ = _solve("depth_anything", questions)
    assert solver.feature_cache is None and solver.engine.cache is None
    assert not (tmp_path / "home").exists()


def test_default_cache_dir_is_under_specialists_home(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    cache = open_feature_cache(SolverOptions(cache="read"))
    assert cache.root == tmp_path / "home" / "features" and cache.mode == "read"


@pytest.mark.parametrize("name", ["depth_anything", "dift"])
def test_precision_or_weights_changing_is_a_miss(name, questions, tmp_path):
    n_images = N * IMAGES_PER_QUESTION[name]
    _solve(name, questions, "read", tmp_path)  # fills the cache: fp32, tiny seed 0
    bf16, _ = _solve(name, questions, "read", tmp_path, precision="bf16")
    assert (bf16.engine.stats.cache_hits, bf16.engine.stats.cache_misses) == (0, n_images)
    other_weights, _ = _solve(name, questions, "read", tmp_path, seed=1)  # tiny-random seed 1: other weights
    assert (other_weights.engine.stats.cache_hits, other_weights.engine.stats.cache_misses) == (0, n_images)
    again, _ = _solve(name, questions, "read", tmp_path)  # the first settings still hit
    assert (again.engine.stats.cache_hits, again.engine.stats.cache_misses) == (n_images, 0)


def test_real_checkpoint_is_keyed_by_its_sha256(questions, tmp_path, monkeypatch):
    """A checkpoint from the registry keys the cache by the sha256 of its files, not a fingerprint."""
    from checkpoints.install import import_checkpoint
    from specialists.depth_anything import DepthAnything

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    tiny = DepthAnything.tiny(seed=4)
    tiny.model.save_pretrained(tmp_path / "da")
    tiny.processor.save_pretrained(tmp_path / "da")
    import_checkpoint("depth-anything-v1-large", tmp_path / "da")
    options = SolverOptions(cache="read", cache_dir=str(tmp_path / "features"))
    solver = get("depth_anything").build(options)
    sha = solver.checkpoint.sha256
    assert len(sha) == 64 and solver.engine.specs["depth_anything"].checkpoint_sha256 == sha
    solver.decide_batch(questions["Relative_Depth"])
    stored = [safe_open(path, "pt").metadata() for path in (tmp_path / "features").glob("*/*.safetensors")]
    assert len(stored) == N and all(m["checkpoint_sha256"] == sha and m["precision"] == "fp32" for m in stored)


def test_corrupted_cache_files_are_misses_not_crashes(questions, tmp_path):
    name = "dift"
    n_images = N * IMAGES_PER_QUESTION[name]
    _, cold = _solve(name, questions, "read", tmp_path)
    files = sorted(tmp_path.glob("*/*.safetensors"))
    assert len(files) == n_images
    files[0].write_bytes(b"\x00" * 3)  # truncated below the header length
    files[1].write_bytes(files[1].read_bytes()[:40])  # torn inside the header
    files[2].write_bytes(b"\xff" * 8 + b"{not json" + b"\x00" * 64)  # absurd header length
    solver, after = _solve(name, questions, "read", tmp_path)
    stats = solver.engine.stats
    assert (stats.cache_hits, stats.cache_misses, stats.images) == (n_images - 3, 3, 3)
    # the 3 recomputed images ran as a batch of 3, not 6: same answers, scores equal to rounding
    assert [pred for pred, _ in after] == [pred for pred, _ in cold]
    for (_, a), (_, b) in zip(after, cold):
        assert a == pytest.approx(b, rel=1e-5, abs=1e-6)
    rerun, _ = _solve(name, questions, "read", tmp_path)  # the bad entries were rewritten
    assert (rerun.engine.stats.cache_hits, rerun.engine.stats.cache_misses) == (n_images, 0)


def test_unseeded_dift_is_never_cached(tmp_path):
    import numpy as np
    from PIL import Image

    from specialists.dift import DiftFeaturizer, DiftPreset
    from specialists.feature_cache import FeatureCache

    dift = DiftFeaturizer.tiny(seed=0)
    dift.use_cache(FeatureCache(tmp_path))
    image = Image.fromarray(np.random.default_rng(0).integers(0, 255, (40, 56, 3), dtype=np.uint8))
    preset = DiftPreset(64, 261, 1, 2)
    a = dift([image, image], preset, seed=None)
    assert dift.engine.stats.cache_refused == 2 and len(FeatureCache(tmp_path)) == 0
    # two unseeded draws differ, which is why they may not be cached
    assert not torch.equal(a[0].features, a[1].features)
    dift([image], preset, seed=5)
    assert len(FeatureCache(tmp_path)) == 1


def test_runner_decisions_do_not_depend_on_the_cache_mode(tmp_path, monkeypatch):
    """`specialists run --cache off|read|read|refresh` through the resumable runner: same samples."""
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))

    def decisions(name, mode):
        run(RunConfig(str(tmp_path / name), benchmark="synthetic", synthetic_n=N, tasks=["Relative_Depth"],
                      specialist=["depth_anything"], checkpoint="tiny-random", batch_size=2, cache=mode,
                      cache_dir=str(tmp_path / "features"), progress=False))
        samples = [json.loads(line) for line in (tmp_path / name / "samples.jsonl").read_text().splitlines()]
        return {s["idx"]: (s["decision"]["pred"], s["decision"]["scores"]) for s in samples}

    off = decisions("off", "off")
    assert not (tmp_path / "features").exists()
    cold = decisions("cold", "read")
    assert len(list((tmp_path / "features").glob("*/*.safetensors"))) == N
    assert off == cold == decisions("warm", "read") == decisions("refresh", "refresh")
