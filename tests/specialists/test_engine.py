"""The batched engine on a tiny conv net: batching, buckets, order, decoding, OOM back-off, cache."""

import random

import numpy as np
import pytest
import torch
from PIL import Image

from specialists.engine import Engine, EngineInputError, ImageRequest, ModelSpec, Preprocess, encode_image
from specialists.feature_cache import FeatureCache


def _net(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 4, 3, stride=2, padding=1), torch.nn.ReLU(),
    ).eval()


def _pixels(i, size=(40, 56)):
    rng = np.random.default_rng(i)
    # smooth content, so JPEG/PNG encode meaningful images rather than noise
    base = rng.integers(0, 255, (size[0] // 8 + 1, size[1] // 8 + 1, 3), dtype=np.uint8)
    return np.asarray(Image.fromarray(base).resize((size[1], size[0]), Image.BILINEAR))


def _requests(model="net", n=8):
    """Every input kind, two aspect ratios."""
    out = []
    for i in range(n):
        pixels = _pixels(i, (40, 56) if i % 2 else (48, 32))
        image = [encode_image(pixels, "JPEG"), encode_image(pixels, "PNG"), Image.fromarray(pixels),
                 torch.from_numpy(pixels.copy()).permute(2, 0, 1).contiguous()][i % 4]
        out.append(ImageRequest(key=f"img{i}", model=model, image=image))
    return out


def _spec(batch_size=8, preprocess=None, **kwargs):
    return ModelSpec("net", _net(), preprocess or Preprocess(size=24, mode="short_side", multiple_of=8),
                     batch_size=batch_size, channels_last=True, **kwargs)


def test_batched_equals_one_at_a_time_and_buckets_by_size():
    requests = _requests()
    batched = Engine([_spec(batch_size=8)])
    single = Engine([_spec(batch_size=1)])
    a, b = batched.run(requests), single.run(requests)
    assert set(a) == {r.key for r in requests}
    for key in a:
        torch.testing.assert_close(a[key], b[key], atol=1e-5, rtol=1e-5)
    # two aspect ratios -> two buckets -> two batches of 4 (no padding), outputs keep their shapes
    assert batched.stats.batches == 2 and single.stats.batches == 8
    assert a["img0"].shape == (4, 16, 12) and a["img1"].shape == (4, 12, 16)


def test_results_do_not_depend_on_request_order():
    requests = _requests()
    shuffled = requests[:]
    random.Random(3).shuffle(shuffled)
    a = Engine([_spec(batch_size=3)]).run(requests)
    b = Engine([_spec(batch_size=3)]).run(shuffled)
    for key in a:
        torch.testing.assert_close(a[key], b[key], atol=1e-5, rtol=1e-5)


def test_preprocessing_matches_a_by_hand_resize_crop_normalise():
    pixels = _pixels(0, (40, 60))
    prep = Preprocess(size=20, crop=16)
    seen = {}

    def forward(module, x):
        seen["x"] = x
        return x.mean((2, 3))

    Engine([ModelSpec("net", torch.nn.Identity(), prep, forward=forward)]).run(
        [ImageRequest(0, "net", torch.from_numpy(pixels.copy()).permute(2, 0, 1).contiguous())])
    x = seen["x"][0]
    assert x.shape == (3, 16, 16)
    by_hand = torch.from_numpy(np.array(Image.fromarray(pixels).resize((30, 20), Image.BILINEAR))).permute(2, 0, 1)
    by_hand = (by_hand[:, 2:18, 7:23].float() / 255 - torch.tensor(prep.mean).view(3, 1, 1)) / torch.tensor(prep.std).view(3, 1, 1)
    assert (x - by_hand).abs().mean() < 0.05  # PIL and torchvision antialiased bilinear agree closely


def test_dict_outputs_and_bf16_autocast_stay_close_to_fp32():
    def forward(module, x):
        y = module(x)
        return {"features": y, "pooled": y.mean((2, 3))}

    requests = _requests(n=4)
    fp32 = Engine([_spec(forward=forward)]).run(requests)
    bf16 = Engine([_spec(forward=forward)], precision="bf16").run(requests)
    for key in fp32:
        assert set(bf16[key]) == {"features", "pooled"}
        torch.testing.assert_close(bf16[key]["pooled"].float(), fp32[key]["pooled"], atol=5e-2, rtol=5e-2)


class _OomAbove(torch.nn.Module):
    """Raises torch.OutOfMemoryError on batches larger than `limit`, like a GPU that is full."""

    def __init__(self, limit):
        super().__init__()
        self.limit, self.net, self.sizes = limit, _net(), []

    def forward(self, x):
        self.sizes.append(x.shape[0])
        if x.shape[0] > self.limit:
            raise torch.OutOfMemoryError("simulated: batch too large")
        return self.net(x)


def test_out_of_memory_halves_the_batch_retries_and_records_it():
    model = _OomAbove(limit=2)
    prep = Preprocess(size=16, crop=16)
    engine = Engine([ModelSpec("net", model, prep, batch_size=16)])
    requests = _requests(n=7)
    out = engine.run(requests)
    reference = Engine([ModelSpec("net", _net(), prep, batch_size=1)]).run(requests)
    for key in reference:
        torch.testing.assert_close(out[key], reference[key], atol=1e-5, rtol=1e-5)
    assert [(b.from_batch, b.to_batch) for b in engine.stats.oom_backoffs] == [(16, 8), (8, 4), (4, 2)]
    assert engine.batch_size("net") == 2 and max(model.sizes[3:]) == 2  # the smaller batch is kept


def test_out_of_memory_at_batch_one_is_raised():
    engine = Engine([ModelSpec("net", _OomAbove(limit=0), Preprocess(size=16, crop=16), batch_size=4)])
    with pytest.raises(torch.OutOfMemoryError):
        engine.run(_requests(n=2))
    assert len(engine.stats.oom_backoffs) == 2


def test_clear_errors_for_bad_requests():
    engine = Engine([_spec()])
    with pytest.raises(EngineInputError, match="names specialist 'nope'"):
        engine.run([ImageRequest("a", "nope", b"")])
    with pytest.raises(EngineInputError, match="request 'bad': cannot decode"):
        engine.run([ImageRequest("bad", "net", b"not an image")])
    with pytest.raises(EngineInputError, match="uint8"):
        engine.run([ImageRequest("f", "net", torch.zeros(3, 8, 8))])
    with pytest.raises(EngineInputError, match="not unique"):
        engine.run([ImageRequest("a", "net", Image.new("RGB", (8, 8)))] * 2)


class _Counting(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net, self.images = _net(), 0

    def forward(self, x):
        self.images += x.shape[0]
        return self.net(x)


def test_cache_in_front_of_the_model(tmp_path):
    model = _Counting()
    spec = ModelSpec("net", model, Preprocess(size=16, crop=16), checkpoint_sha256="abc", layer="last")
    requests = _requests(n=5)
    cold = Engine([spec], cache=FeatureCache(tmp_path)).run(requests)
    warm_engine = Engine([spec], cache=FeatureCache(tmp_path))
    warm = warm_engine.run(requests)
    assert model.images == 5  # the second run never called the model
    assert warm_engine.stats.cache_hits == 5 and warm_engine.stats.cache_misses == 0
    for key in cold:
        assert torch.equal(cold[key], warm[key])
    refresh = Engine([spec], cache=FeatureCache(tmp_path, mode="refresh"))
    refresh.run(requests)
    assert model.images == 10 and refresh.stats.cache_hits == 0


def test_unseeded_outputs_bypass_the_cache(tmp_path):
    model = _Counting()
    spec = ModelSpec("net", model, Preprocess(size=16, crop=16), random_draw="unseeded")
    cache = FeatureCache(tmp_path)
    for _ in range(2):
        engine = Engine([spec], cache=cache)
        engine.run(_requests(n=3))
    assert model.images == 6 and len(cache) == 0 and engine.stats.cache_refused == 3


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_gpu_decode_matches_cpu_engine():
    requests = _requests(n=8)
    cpu = Engine([_spec()]).run(requests)
    gpu_engine = Engine([_spec()], device="cuda")
    gpu = gpu_engine.run(requests)
    for key in cpu:
        assert gpu[key].device.type == "cpu"
        # nvJPEG and libjpeg-turbo round differently: compare means, not bits
        assert (gpu[key] - cpu[key]).abs().mean() < 2e-2
    bf16 = Engine([_spec()], device="cuda", precision="bf16").run(requests)
    for key in cpu:
        assert (bf16[key].float() - cpu[key]).abs().mean() < 5e-2


def test_compiled_engine_matches_eager_including_a_padded_last_batch():
    """compile=True (on a CPU: inductor with frozen weights) gives the eager outputs; 5 images of
    one size at batch 4 end in a batch of 1 padded to the compiled shape. Freezing really happened:
    the convolutions' weights were packed for oneDNN (inductor counts each packed conv)."""
    from torch._dynamo.utils import counters

    requests = [ImageRequest(key=f"img{i}", model="net", image=encode_image(_pixels(i), "PNG")) for i in range(5)]
    eager = Engine([_spec(batch_size=4)]).run(requests)
    counters.clear()
    torch._dynamo.reset()  # compile afresh, not from an earlier test's graph
    compiled_engine = Engine([_spec(batch_size=4, compile=True)])
    compiled = compiled_engine.run(requests)
    assert compiled_engine.stats.batches == 2
    # both convs of _net packed, in one graph: the padded batch kept the compiled strides
    assert counters["inductor"]["mkldnn_conv_weight_pack_matcher_count"] == 2
    assert counters["stats"]["unique_graphs"] == 1
    for key in eager:
        torch.testing.assert_close(compiled[key], eager[key], atol=1e-4, rtol=1e-4)


# --- --device: checked once, before any question runs --------------------------------------------
@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


@pytest.fixture
def one_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=0: "a stand-in GPU")


@pytest.mark.parametrize("device, says", [
    ("gpu", "--device gpu: not a device name; did you mean cuda? use cpu, cuda, cuda:N or mps"),
    ("GPU:1", "--device GPU:1: not a device name; did you mean cuda:1? use cpu, cuda, cuda:N or mps"),
    ("CPU", "--device CPU: not a device name; did you mean cpu? use cpu, cuda, cuda:N or mps"),
    ("cdua", "did you mean cuda?"),
    ("banana", "--device banana: not a device name; use cpu, cuda, cuda:N or mps"),
    ("cuda:x", "--device cuda:x: not a device name"),
    ("cuda", "--device cuda: no CUDA device is visible here (torch.cuda.is_available() is False); use --device cpu"),
    ("cuda:1", "--device cuda:1: no CUDA device is visible here"),
    ("mps", "--device mps: no MPS (Apple GPU) device is visible here"),
])
def test_a_device_that_is_not_here_is_refused_with_the_fix(no_gpu, device, says):
    from specialists.precision import DeviceError, check_device

    with pytest.raises(DeviceError) as err:
        check_device(device)
    assert says in str(err.value) and "\n" not in str(err.value)
    assert check_device("cpu") == torch.device("cpu")


def test_a_cuda_index_past_the_visible_devices_is_refused(one_gpu):
    from specialists.precision import DeviceError, check_device

    assert check_device("cuda") == torch.device("cuda") and check_device("cuda:0") == torch.device("cuda:0")
    with pytest.raises(DeviceError, match=r"--device cuda:2: this machine shows 1 CUDA device\(s\), cuda:0 to cuda:0"):
        check_device("cuda:2")


def _run_argv(tmp_path, device, *more):
    return ["run", "--benchmark", "synthetic", "--synthetic-n", "1", "--tasks", "Relative_Depth", "--device", device,
            "--output-dir", str(tmp_path / "run"), "--no-progress", *more]


@pytest.mark.parametrize("device", ["cuda", "gpu"])
def test_run_with_a_gpu_that_is_not_here_stops_before_any_question(tmp_path, monkeypatch, capsys, no_gpu, device):
    """A neural specialist on --device cuda|gpu without a GPU: one line, no run folder, instead of
    a traceback out of torch's CUDA initialisation (cuda) or its device parser (gpu)."""
    from adapters.cli.main import main

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    argv = _run_argv(tmp_path, device, "--specialist", "depth_anything", "--checkpoint", "tiny-random")
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: --device {device}: ") and "\n" not in err
    assert not (tmp_path / "run").exists()


def test_weight_free_specialists_on_a_gpu_run_on_the_cpu_and_say_so(tmp_path, monkeypatch, capsys, one_gpu):
    from adapters.cli.main import main
    from adapters.core.registry import assign, device_note

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    assert main(_run_argv(tmp_path, "cuda", "--specialist", "lower_is_closer")) == 0
    assert ("warning: --device cuda: lower_is_closer load no model and run on the CPU; --device moves only neural "
            "specialists") in capsys.readouterr().err
    assert device_note("cuda", assign(["Relative_Depth"], ["depth_anything"])) is None
    assert device_note("cpu", assign(["Relative_Depth"], ["lower_is_closer"])) is None


def test_combo_eval_with_a_gpu_that_is_not_here_stops_before_any_backbone(capsys, no_gpu):
    from adapters.cli.main import main

    assert main(["combo", "eval", "--device", "cuda", "--combo-n", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --device cuda: no CUDA device is visible here") and "\n" not in err
