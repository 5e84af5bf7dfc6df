"""Extraction throughput: the naive reference-style loop against the engine, in the same run.

    python -m benchmarks.extract [--case NAME ...] [--quick] [--device cpu|cuda] [--dtype fp32|bf16|fp16]
                                 [--compile] [--batch-size N]

One JSON line per case: case, device, dtype, batch_size, naive_img_s (per-image fp32 loop: PIL
decode + the reference transforms, as the published scripts do), engine_img_s (the engine from
the same encoded bytes), speedup, gflop_per_img (torch.utils.flop_counter.FlopCounterMode on one
engine batch), gflops (achieved by the engine), peak_gflops (measured matmul of the engine's dtype
on this machine), roofline_fraction, peak_mem_mb (CUDA: max allocated; CPU: process max RSS).
engine_img_s and the matmul peak are each the best of several interleaved passes (the CPU may be
shared with other work: a roofline_fraction above 1 means the peak was sampled under more load).
Every model has its real architecture and random weights: nothing is downloaded.

Case `cache_relative_depth` is a cold and a warm `specialists run --cache read` of one task
through the real solver (synthetic Relative_Depth questions -> marker inpainting -> Depth
Anything ViT-S on the engine with the feature cache -> the disparity rule), each from a freshly
built solver as two runs would be: naive_img_s is the cold run, engine_img_s the warm one
(images the model would see, per second of `decide_batch`); no FLOPs are counted for it.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch
from PIL import Image

from specialists.engine import DTYPES, Engine, ImageRequest, ModelSpec, Preprocess, encode_image
from specialists.precision import bf16_is_fast


@dataclass
class Case:
    """spec: what the engine runs; naive: one encoded image -> output, reference style (fp32);
    images: encoded inputs; n_naive / n_engine: images timed for each."""

    spec: ModelSpec
    naive: Callable[[bytes], torch.Tensor]
    images: list[bytes]
    n_naive: int
    n_engine: int
    source: str
    extra: dict = field(default_factory=dict)


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work, so that a timer read after it counts that work."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def make_images(n: int, height: int, width: int, fmt: str, seed: int = 0) -> list[bytes]:
    """Smooth random pictures (noise would make JPEG decode unrealistically slow), encoded."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        small = rng.integers(0, 255, (height // 16 + 1, width // 16 + 1, 3), dtype=np.uint8)
        img = np.asarray(Image.fromarray(small).resize((width, height), Image.BICUBIC))
        grain = rng.integers(-8, 8, img.shape)
        out.append(encode_image(np.clip(img + grain, 0, 255).astype(np.uint8), fmt))
    return out


def peak_matmul_gflops(device: torch.device, dtype: torch.dtype) -> float:
    """Best of several timed square matmuls of `dtype` (best-of: the CPU here is shared)."""
    n = 8192 if device.type == "cuda" else 1024
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    reps = 10 if device.type == "cuda" else 2
    for _ in range(3):
        a @ b
    best = 0.0
    for _ in range(5):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(reps):
            a @ b
        synchronize(device)
        best = max(best, 2 * n**3 * reps / (time.perf_counter() - start) / 1e9)
    return best


def flops_per_image(spec: ModelSpec, device: torch.device, dtype: torch.dtype, image: bytes) -> float:
    """FLOPs of the engine's forward on one image (FlopCounterMode counts 2 per multiply-add)."""
    from torch.utils.flop_counter import FlopCounterMode

    engine = Engine([ModelSpec(**{**vars(spec), "compile": False, "batch_size": 1})], device=device,
                    precision=[k for k, v in DTYPES.items() if v == dtype][0])
    counter = FlopCounterMode(display=False)
    with counter:
        engine.run([ImageRequest(0, spec.name, image)])
    return float(counter.get_total_flops())


# -- cases ------------------------------------------------------------------------------------


def _timm_case(name: str, arch: str, fmt: str, device, quick: bool, batch_size: int) -> Case:
    import timm
    from timm.data import create_transform, resolve_data_config

    torch.manual_seed(0)
    model = timm.create_model(arch, pretrained=False, num_classes=1000).eval()
    config = resolve_data_config({}, model=model)
    reference_transform = create_transform(**config)  # timm's eval transform: what reference scripts use
    side = config["input_size"][-1]
    preprocess = Preprocess(size=int(side / config["crop_pct"]), crop=side, mean=tuple(config["mean"]),
                            std=tuple(config["std"]), interpolation=config["interpolation"])
    naive_model = timm.create_model(arch, pretrained=False, num_classes=1000).eval().to(device)
    naive_model.load_state_dict(model.state_dict())

    def naive(data: bytes) -> torch.Tensor:
        img = Image.open(io.BytesIO(data)).convert("RGB")
        x = reference_transform(img).unsqueeze(0).to(device)
        return naive_model(x)[0].cpu()

    cuda = device.type == "cuda"
    n_images = 2048 if cuda else (32 if quick else 128)
    images = make_images(min(n_images, 512), 240, 320, fmt)
    spec = ModelSpec(name, model, preprocess, batch_size=batch_size, channels_last=arch.startswith("resnet"),
                     checkpoint_sha256=f"random:{arch}", layer="logits")
    return Case(spec, naive, images, n_naive=32 if cuda else (4 if quick else 16),
                n_engine=(8192 if not quick else 2048) if cuda else n_images, source=f"{fmt} 320x240")


def _vits_depth_anything():
    """Depth Anything small's architecture (ViT-S/14 DINOv2, DPT head), random weights, and its
    processor: (config, model, processor)."""
    from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config, DPTImageProcessor

    torch.manual_seed(0)
    backbone = Dinov2Config(  # ViT-S/14, as in depth-anything-small
        hidden_size=384, num_hidden_layers=12, num_attention_heads=6, intermediate_size=1536, patch_size=14,
        image_size=518, out_indices=[9, 10, 11, 12], reshape_hidden_states=False,
    )
    config = DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=384, patch_size=14,
                                 neck_hidden_sizes=[48, 96, 192, 384], fusion_hidden_size=64, head_hidden_size=32,
                                 depth_estimation_type="relative")
    model = DepthAnythingForDepthEstimation(config).eval()
    processor = DPTImageProcessor(do_resize=True, size={"height": 518, "width": 518}, keep_aspect_ratio=True,
                                  ensure_multiple_of=14, resample=Image.BICUBIC, do_normalize=True,
                                  image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225], do_pad=False)
    return config, model, processor


def _depth_anything_case(device, quick: bool, batch_size: int, precision: str) -> Case:
    from transformers import DepthAnythingForDepthEstimation

    from specialists.depth_anything import SPEC_NAME, DepthAnything

    config, model, processor = _vits_depth_anything()
    naive_model = DepthAnythingForDepthEstimation(config).eval().to(device)
    naive_model.load_state_dict(model.state_dict())

    def naive(data: bytes) -> torch.Tensor:
        img = Image.open(io.BytesIO(data)).convert("RGB")
        pixels = processor(images=img, return_tensors="pt")["pixel_values"].to(device)
        return naive_model(pixel_values=pixels).predicted_depth[0].cpu()

    cuda = device.type == "cuda"
    # the engine runs exactly what DepthAnything.__call__ runs (its processor as the engine's Preprocess)
    spec = DepthAnything(model, processor, str(device), precision, batch_size).engine.specs[SPEC_NAME]
    images = make_images(64 if cuda else 4, 480, 640, "JPEG")
    return Case(spec, naive, images, n_naive=16 if cuda else 2, n_engine=(512 if not quick else 128) if cuda else 4,
                source="JPEG 640x480")


def _cpu_dift_parts():
    """(vae, unet, scheduler, text_encoder, tokenizer): SD-2.1's classes at small widths (256 px),
    sized for 2 CPU cores."""
    from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    from specialists.dift import byte_level_clip_tokenizer

    torch.manual_seed(0)
    unet = UNet2DConditionModel(sample_size=32, block_out_channels=(64, 128, 256, 256), layers_per_block=1,
                                attention_head_dim=8, cross_attention_dim=256)
    vae = AutoencoderKL(block_out_channels=(32, 64, 128, 128), down_block_types=("DownEncoderBlock2D",) * 4,
                        up_block_types=("UpDecoderBlock2D",) * 4, layers_per_block=1, latent_channels=4,
                        sample_size=256)
    scheduler = DDIMScheduler(num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")
    text_encoder = CLIPTextModel(CLIPTextConfig(  # one small layer: the prompt is encoded once, outside the timing
        vocab_size=514, hidden_size=256, intermediate_size=512, num_hidden_layers=1, num_attention_heads=8,
        max_position_embeddings=77, bos_token_id=512, eos_token_id=513, pad_token_id=513))
    return vae, unet, scheduler, text_encoder, byte_level_clip_tokenizer()


def _dift_case(device, quick: bool, batch_size: int, precision: str) -> Case:
    from benchmarks.gpu_models import dift_parts, naive_dift
    from specialists.dift import DiftFeaturizer, DiftPreset

    cuda = device.type == "cuda"
    if cuda:  # Stable Diffusion 2.1's UNet and VAE shapes, random weights
        (vae, unet, scheduler, text_encoder, tokenizer), size = dift_parts(False, str(device)), 768
    else:
        (vae, unet, scheduler, text_encoder, tokenizer), size = _cpu_dift_parts(), 256
    preset = DiftPreset(image_size=size, t=261, up_ft_index=1, ensemble=8)
    # the naive loop keeps an fp32 copy: a featurizer casts its own parts to its dtype
    reference = DiftFeaturizer(copy.deepcopy(vae), copy.deepcopy(unet), scheduler, text_encoder, tokenizer, str(device))
    dift = DiftFeaturizer(vae, unet, scheduler, text_encoder, tokenizer, str(device), precision, batch_size)
    naive = naive_dift(reference, preset, device)

    # the engine runs exactly what DiftFeaturizer.__call__ runs: one VAE encoding per image,
    # 8 posterior draws, per-image seeded noise, the UNet stopped after up-block 1
    spec = dift.engine_spec(preset, "", seed=0)
    images = make_images(16 if cuda else 4, 480, 640, "JPEG")
    return Case(spec, naive, images, n_naive=4 if cuda else 2, n_engine=(64 if not quick else 16) if cuda else 4,
                source="JPEG 640x480", extra={"image_size": size, "ensemble": preset.ensemble})



DEFAULT_BATCH = {  # (cpu, cuda)
    "resnet50": (8, 256), "vit_b16": (16, 256), "depth_anything_vits": (2, 32), "dift_ensemble8": (2, 4),
    "cache_relative_depth": (4, 32),
}
CASES = list(DEFAULT_BATCH)


def build(case: str, device, quick: bool, batch_size: int, precision: str) -> Case:
    if case == "resnet50":
        return _timm_case(case, "resnet50", "JPEG", device, quick, batch_size)
    if case == "vit_b16":
        return _timm_case(case, "vit_base_patch16_224", "PNG", device, quick, batch_size)
    if case == "depth_anything_vits":
        return _depth_anything_case(device, quick, batch_size, precision)
    if case == "dift_ensemble8":
        return _dift_case(device, quick, batch_size, precision)
    raise ValueError(f"unknown case {case!r}; choose from {', '.join(CASES)}")


def _requests(case: Case, n: int, tag: str) -> list[ImageRequest]:
    return [ImageRequest(f"{tag}{i}", case.spec.name, case.images[i % len(case.images)]) for i in range(n)]


def _peak_mem_mb(device: torch.device) -> float:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_cached_task(device: torch.device, precision: str, quick: bool, batch_size: int) -> dict:
    """Cold then warm `--cache read` run of Relative_Depth through DepthAnythingDepth (see the module doc)."""
    from adapters.core.registry import get
    from adapters.core.solver import SolverOptions
    from adapters.datasets.blink.reader import BlinkReader
    from adapters.datasets.synthetic import write_synthetic
    from adapters.markers.sidecar import apply_markers, load_markers
    from adapters.rules.depth import DepthAnythingDepth
    from specialists.depth_anything import DepthAnything

    class VitsDepth(DepthAnythingDepth):
        """The real solver; `tiny-random` builds the full-size ViT-S architecture instead of the tiny one."""

        def build_tiny(self):
            o = self.options
            _, model, processor = _vits_depth_anything()
            return DepthAnything(model, processor, o.device, o.precision, o.batch_size)

    n = (64 if quick else 256) if device.type == "cuda" else (8 if quick else 32)
    with tempfile.TemporaryDirectory() as tmp:
        write_synthetic(f"{tmp}/data", ["Relative_Depth"], n=n, seed=0)
        reader = BlinkReader(f"{tmp}/data", "val", ["Relative_Depth"])
        questions = list(apply_markers(reader.questions("Relative_Depth"), load_markers(f"{tmp}/data/markers.jsonl")))
        source = "synthetic Relative_Depth %dx%d" % questions[0].images[0].size
        options = SolverOptions(device=str(device), batch_size=batch_size, precision=precision, seed=0,
                                checkpoint="tiny-random", cache="read", cache_dir=f"{tmp}/features")
        seconds, solvers = [], []
        for _ in ("cold", "warm"):
            solver = VitsDepth(options, get("depth_anything"))  # a fresh process's solver: nothing remembered but the cache folder
            synchronize(device)
            start = time.perf_counter()
            for begin in range(0, n, batch_size):
                outcomes = solver.decide_batch(questions[begin : begin + batch_size])
                assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
            synchronize(device)
            seconds.append(time.perf_counter() - start)
            solvers.append(solver)
    cold, warm = (n / s for s in seconds)  # one image per Relative_Depth question
    return {
        "case": "cache_relative_depth",
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else f"cpu x{torch.get_num_threads()}",
        "dtype": precision, "batch_size": batch_size, "source": source, "questions": n,
        "naive_img_s": round(cold, 2), "engine_img_s": round(warm, 2), "speedup": round(warm / cold, 2),
        "gflops": None, "peak_gflops": None, "roofline_fraction": None,
        "peak_mem_mb": round(_peak_mem_mb(device), 1),
        "cold_cache_misses": solvers[0].engine.stats.cache_misses, "warm_cache_hits": solvers[1].engine.stats.cache_hits,
        "warm_model_images": solvers[1].engine.stats.images,
    }


ENGINE_PASSES = 3


def default_precision(device: torch.device) -> str:
    """bf16 where it is fast (CUDA GPUs with bf16, CPUs with AVX512-BF16 or AMX), else fp32."""
    return "bf16" if bf16_is_fast(device) else "fp32"


def naive_rate(case: Case, device: torch.device) -> float:
    """Images/s of the case's per-image fp32 loop (PIL decode, the reference transform, batch of
    one), after one warm-up image."""
    with torch.no_grad():
        case.naive(case.images[0])
        synchronize(device)
        start = time.perf_counter()
        for i in range(case.n_naive):
            case.naive(case.images[i % len(case.images)])
        synchronize(device)
    return case.n_naive / (time.perf_counter() - start)


def run_case(name: str, device: torch.device, precision: str, quick: bool, compile_: bool, batch_size: int | None) -> dict:
    bs = batch_size or DEFAULT_BATCH[name][device.type == "cuda"]
    if name == "cache_relative_depth":
        return run_cached_task(device, precision, quick, bs)
    case = build(name, device, quick, bs, precision)
    case.spec.compile = compile_
    dtype = DTYPES[precision]
    naive_img_s = naive_rate(case, device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    row = {"case": name, "device": torch.cuda.get_device_name(device) if device.type == "cuda" else f"cpu x{torch.get_num_threads()}",
           "dtype": precision, "batch_size": bs, "source": case.source, **case.extra}
    engine = Engine([case.spec], device=device, precision=precision)
    engine.run(_requests(case, min(bs, case.n_engine), "w"))  # warm-up (and compile)
    requests = _requests(case, case.n_engine, "r")
    engine_img_s = peak = 0.0
    for _ in range(ENGINE_PASSES):
        # best of N, interleaved with the matmul peak so both sample the same load (the CPU may be shared)
        synchronize(device)
        start = time.perf_counter()
        engine.run(requests)
        synchronize(device)
        engine_img_s = max(engine_img_s, len(requests) / (time.perf_counter() - start))
        peak = max(peak, peak_matmul_gflops(device, dtype))
    peak_mem = _peak_mem_mb(device)
    flops = flops_per_image(case.spec, device, dtype, case.images[0])
    achieved = flops * engine_img_s / 1e9
    row.update(naive_img_s=round(naive_img_s, 2), engine_img_s=round(engine_img_s, 2),
               speedup=round(engine_img_s / naive_img_s, 2), gflop_per_img=round(flops / 1e9, 3),
               gflops=round(achieved, 1), peak_gflops=round(peak, 1), roofline_fraction=round(achieved / peak, 3),
               peak_mem_mb=round(peak_mem, 1), n_naive=case.n_naive, n_engine=case.n_engine,
               oom_backoffs=len(engine.stats.oom_backoffs), compile=compile_)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.extract", description=__doc__.split("\n")[0])
    parser.add_argument("--case", nargs="+", choices=CASES, default=CASES)
    parser.add_argument("--quick", action="store_true", help="fewer images: each CPU case within a minute")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", choices=sorted(DTYPES), default=None,
                        help="engine precision (default: bf16 on CUDA GPUs with bf16 and on CPUs with "
                             "AVX512-BF16 or AMX, else fp32)")
    parser.add_argument("--compile", action="store_true", help="torch.compile the engine's model")
    parser.add_argument("--batch-size", type=int, default=None)
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    precision = args.dtype or default_precision(device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    for name in args.case:
        print(json.dumps(run_case(name, device, precision, args.quick, args.compile, args.batch_size)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
