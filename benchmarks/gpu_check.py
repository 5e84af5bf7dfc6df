"""One prepared check of the performance core on a GPU: everything docs/speed.md reports, in one call.

    python -m benchmarks.gpu_check [--quick] [--out FILE] [--budget-s S] [--device D]

Sections, in this order (each recorded in the JSON with its seconds and peak GPU memory; a
section that fails records its error and the check goes on). The check ends by `--budget-s`
(default 450 s, so one call fits in 8 minutes with the interpreter's start): a section starts
only while the budget holds what it is expected to need, a section still running at the end is
cut ("interrupted", with what it had measured) and the rest are recorded as skipped, never left
out silently; `--only NAME ...` runs chosen sections in a second call.

- environment: device, torch / CUDA / cuDNN versions, GPU memory.
- matmul_peak: the best measured dense matmul rate in bf16 and fp32, GFLOP/s: the roofline every
  engine figure is a fraction of.
- nvjpeg: JPEG decoding, torchvision.io.decode_jpeg of a batch on the GPU (nvJPEG) against the
  engine's CPU decoder (kornia-rs / libjpeg-turbo), images/s and megapixels/s.
- engine: the batched engine (bf16, eager) against the naive per-image fp32 loop, from encoded
  JPEG bytes: ResNet-50, ViT-B/16, Depth Anything ViT-L at 518, DIFT on SD-2.1 at 768 with 8
  noise draws; images/s, speedup, GFLOP per image, achieved GFLOP/s, roofline fraction, peak memory.
- compiled: the same cases with torch.compile (compile seconds apart from throughput); each
  case starts from a reset compiler, as a fresh process would.
- pipeline: the Table-2 pipeline (`specialists run` with DIFT, Depth Anything, LoFTR, ordinal
  shading and the seam rule) end to end on a BLINK-sized synthetic set (1,901 questions;
  benchmarks/blink_sized.py), once cold and once from the feature cache it filled.

Every network is its real architecture with random weights, built without any download.
`--quick` runs the same code on a CPU with tiny widths and a handful of images in about a minute
(a test runs it); its figures say nothing about a GPU. The JSON is written after every section,
so a check stopped early keeps what it measured.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import torch
from PIL import Image

from benchmarks import gpu_models
from benchmarks.extract import Case, flops_per_image, make_images, naive_rate, peak_matmul_gflops, synchronize
from specialists.engine import DTYPES, Engine, ImageRequest, Preprocess

SCHEMA = 1
CASES = ("resnet50", "vit_b16", "depth_anything_vitl", "dift_sd21")
PRECISION = "bf16"
# seconds a section is expected to need on one H100 (full) / a 2-core CPU (quick): it starts only
# while that much of the budget is left. Guesses until a GPU run replaces them.
NEEDS = {"environment": (0, 0), "matmul_peak": (10, 5), "nvjpeg": (10, 5), "engine": (90, 30),
         "compiled:resnet50": (60, 25), "compiled:vit_b16": (60, 25), "pipeline": (120, 30),
         "compiled:depth_anything_vitl": (90, 30), "compiled:dift_sd21": (150, 30)}
SECTIONS = list(NEEDS)
QUICK_COMPILED = ("resnet50",)  # --quick compiles one case: the compiled path is the same code for all


class TimeLimit(BaseException):
    """The check's budget ran out inside a section (a BaseException: no per-question handler
    swallows it, and the runner records the run as interrupted)."""


def _peak_mem_mb(device: torch.device) -> float | None:
    return round(torch.cuda.max_memory_allocated(device) / 2**20, 1) if device.type == "cuda" else None


# -- cases --------------------------------------------------------------------------------------


def _timm_case(name: str, quick: bool, device: torch.device) -> Case:
    from timm.data import create_transform

    arch = {"resnet50": "resnet18" if quick else "resnet50",
            "vit_b16": "vit_tiny_patch16_224" if quick else "vit_base_patch16_224"}[name]
    side = 64 if quick else None
    model, config = gpu_models.timm_classifier(arch, side=side)
    naive_model = gpu_models.timm_classifier(arch, side=side)[0].to(device)
    reference = create_transform(**config)  # timm's eval transform, as reference scripts run it
    side = config["input_size"][-1]
    preprocess = Preprocess(size=int(side / config["crop_pct"]), crop=side, mean=tuple(config["mean"]),
                            std=tuple(config["std"]), interpolation=config["interpolation"])

    def naive(data: bytes) -> torch.Tensor:
        return naive_model(reference(Image.open(io.BytesIO(data)).convert("RGB")).unsqueeze(0).to(device))[0].cpu()

    from specialists.engine import ModelSpec

    spec = ModelSpec(name, model, preprocess, batch_size=8 if quick else 256, channels_last=arch.startswith("resnet"),
                     checkpoint_sha256=f"random:{arch}", layer="logits")
    h, w = (120, 160) if quick else (375, 500)
    return Case(spec, naive, make_images(8 if quick else 256, h, w, "JPEG"), n_naive=4 if quick else 64,
                n_engine=16 if quick else 2048, source=f"JPEG {w}x{h}", extra={"architecture": arch})


def _depth_case(quick: bool, device: torch.device) -> Case:
    from specialists.depth_anything import SPEC_NAME, DepthAnything

    model, processor = gpu_models.depth_anything_vitl(quick)
    naive_model = gpu_models.depth_anything_vitl(quick)[0].to(device)

    def naive(data: bytes) -> torch.Tensor:
        pixels = processor(images=Image.open(io.BytesIO(data)).convert("RGB"), return_tensors="pt")["pixel_values"]
        return naive_model(pixel_values=pixels.to(device)).predicted_depth[0].cpu()

    spec = DepthAnything(model, processor, str(device), PRECISION, 4 if quick else 32).engine.specs[SPEC_NAME]
    h, w = (120, 160) if quick else (480, 640)
    return Case(spec, naive, make_images(4 if quick else 64, h, w, "JPEG"), n_naive=2 if quick else 16,
                n_engine=8 if quick else 256, source=f"JPEG {w}x{h}",
                extra={"architecture": "Depth Anything v1 ViT-S-tiny" if quick else "Depth Anything v1 ViT-L/14",
                       "input_side": 56 if quick else 518})


def _dift_case(quick: bool, device: torch.device) -> Case:
    dift, reference = gpu_models.dift_pair(quick, str(device), PRECISION, 2 if quick else 4)
    preset = gpu_models.dift_preset(quick)
    naive = gpu_models.naive_dift(reference, preset, device)
    size = preset.image_size
    h, w = (120, 160) if quick else (480, 640)
    return Case(dift.engine_spec(preset, "", seed=0), naive, make_images(4 if quick else 16, h, w, "JPEG"),
                n_naive=2 if quick else 4, n_engine=4 if quick else 32, source=f"JPEG {w}x{h}",
                extra={"architecture": "SD-2.1 UNet+VAE (narrow)" if quick else "SD-2.1 UNet+VAE",
                       "image_size": size, "ensemble": preset.ensemble, "t": preset.t, "up_ft_index": preset.up_ft_index})


def build_case(name: str, quick: bool, device: torch.device) -> Case:
    if name in ("resnet50", "vit_b16"):
        return _timm_case(name, quick, device)
    return _depth_case(quick, device) if name == "depth_anything_vitl" else _dift_case(quick, device)


# -- measurements --------------------------------------------------------------------------------


def engine_rate(case: Case, device: torch.device, compile_: bool, passes: int) -> dict:
    """The engine on the case's encoded images: warm-up (and compile) seconds, best images/s."""
    spec = replace(case.spec, compile=compile_)
    if compile_:
        torch._dynamo.reset()  # no graphs or recompile counts carried over from an earlier case
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    engine = Engine([spec], device=device, precision=PRECISION)
    requests = [ImageRequest(f"r{i}", spec.name, case.images[i % len(case.images)]) for i in range(case.n_engine)]
    synchronize(device)
    start = time.perf_counter()
    engine.run(requests[: spec.batch_size])  # warm-up: cudnn autotune, compile
    synchronize(device)
    warmup = time.perf_counter() - start
    best = 0.0
    for _ in range(passes):
        synchronize(device)
        start = time.perf_counter()
        engine.run(requests)
        synchronize(device)
        best = max(best, len(requests) / (time.perf_counter() - start))
    return {"engine_img_s": round(best, 2), "warmup_s": round(warmup, 2), "batch_size": spec.batch_size,
            "n_engine": case.n_engine, "oom_backoffs": len(engine.stats.oom_backoffs), "peak_mem_mb": _peak_mem_mb(device)}


def environment(device: torch.device) -> dict:
    from adapters.run.provenance import environment as provenance

    info = {"device": str(device), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
            "cpu_threads": torch.get_num_threads(), "provenance": provenance(str(device))}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(gpu=props.name, gpu_memory_gb=round(props.total_memory / 2**30, 1),
                    capability=f"{props.major}.{props.minor}", multiprocessors=props.multi_processor_count)
    return info


def matmul_peak(device: torch.device) -> dict:
    return {"bf16_gflops": round(peak_matmul_gflops(device, torch.bfloat16), 1),
            "fp32_gflops": round(peak_matmul_gflops(device, torch.float32), 1),
            "tf32_matmul_allowed": torch.backends.cuda.matmul.allow_tf32}


def nvjpeg(device: torch.device, quick: bool) -> dict:
    """Batched decode_jpeg on `device` against the engine's per-image CPU decoder."""
    import warnings

    import torchvision.io as tvio

    from specialists.engine import _decode_on_cpu

    h, w = (120, 160) if quick else (1080, 1440)
    images = make_images(8 if quick else 128, h, w, "JPEG")
    data = [torch.frombuffer(bytearray(b), dtype=torch.uint8) for b in images]
    out = {"images": len(images), "size": f"{w}x{h}", "mb_per_image": round(sum(map(len, images)) / len(images) / 2**20, 3)}
    with warnings.catch_warnings():  # torchvision 0.29 deprecates its codecs in favour of torchcodec
        warnings.simplefilter("ignore", DeprecationWarning)
        for label, run in (("batched_decode_jpeg_" + device.type, lambda: tvio.decode_jpeg(data, device=device)),
                           ("engine_cpu_decoder", lambda: [_decode_on_cpu(b) for b in images])):
            run()  # warm-up (nvJPEG handle, libjpeg tables)
            best = 0.0
            for _ in range(3):
                synchronize(device)
                start = time.perf_counter()
                run()
                synchronize(device)
                best = max(best, len(images) / (time.perf_counter() - start))
            out[label] = {"img_s": round(best, 1), "megapixels_s": round(best * h * w / 1e6, 1)}
    return out


def engine_case(name: str, device: torch.device, quick: bool, compile_: bool, peaks: dict) -> dict:
    case = build_case(name, quick, device)
    row = {"source": case.source, "dtype": PRECISION, "compile": compile_, **case.extra}
    if not compile_:
        row["naive_img_s"] = round(naive_rate(case, device), 2)
        row["n_naive"] = case.n_naive
    row.update(engine_rate(case, device, compile_, passes=2))
    flops = flops_per_image(case.spec, device, DTYPES[PRECISION], case.images[0])
    achieved = flops * row["engine_img_s"] / 1e9
    row.update(gflop_per_img=round(flops / 1e9, 3), gflops=round(achieved, 1))
    if peaks.get("bf16_gflops"):
        row["roofline_fraction"] = round(achieved / peaks["bf16_gflops"], 3)
    if "naive_img_s" in row:
        row["speedup"] = round(row["engine_img_s"] / row["naive_img_s"], 2)
    return row


def pipeline(device: torch.device, quick: bool, questions: int, workdir: Path) -> dict:
    """The Table-2 pipeline through `specialists run`, cold then from the feature cache."""
    from adapters.core import registry
    from adapters.run.runner import RunConfig, run
    from benchmarks.blink_sized import write_blink_sized

    gpu_models.QUICK = quick
    start = time.perf_counter()
    written = write_blink_sized(workdir / "blink_sized", total=questions, base=1 if quick else 6, scale=1 if quick else 2)
    built = time.perf_counter() - start
    names = {}
    for name, cls in gpu_models.FULL_SOLVERS.items():
        spec = registry.get(name)
        full = f"{name}_full"
        if full not in {s.name for s in registry.all_specs()}:
            registry.register(replace(spec, name=full, solver=f"benchmarks.gpu_models:{cls}"))
        names.update({task: full for task in spec.tasks})
    tasks = sorted(written["per_task"])
    specialists = [f"{task}={names.get(task, 'seam')}" for task in tasks]
    cache = workdir / "features"
    out = {"set": {**written, "build_s": round(built, 1)}, "specialists": specialists}
    for label in ("cold", "warm"):
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        folder = workdir / f"run-{label}"
        config = RunConfig(str(folder), benchmark="blink", blink_root=str(workdir / "blink_sized"), markers="file",
                           specialist=specialists, checkpoint="tiny-random", device=str(device), precision=PRECISION,
                           batch_size=4 if quick else 8, cache="read", cache_dir=str(cache), progress=False)
        start = time.perf_counter()
        try:
            run(config)
            stopped = False
        except TimeLimit:  # the budget ran out: what was answered until then is the finding
            stopped = True
        out[label] = _run_figures(folder, cache, time.perf_counter() - start, device)
        if stopped:
            out[label]["interrupted"] = True
            out["interrupted"] = True
            return out
    out["warm_speedup"] = round(out["cold"]["seconds"] / out["warm"]["seconds"], 2)
    return out


def _run_figures(folder: Path, cache: Path, seconds: float, device: torch.device) -> dict:
    """Seconds, questions/s and per-task answering time of one run folder (finished or not)."""
    path = folder / "samples.jsonl"
    samples = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    per_task: dict[str, dict] = {}
    for sample in samples:
        task = per_task.setdefault(sample["task"], {"questions": 0, "errors": 0, "specialist": sample["specialist"],
                                                    "answer_seconds": 0.0})
        task["questions"] += 1
        task["errors"] += sample["status"] == "error"
        task["answer_seconds"] = round(task["answer_seconds"] + sample["seconds"], 3)
    entries = list(cache.glob("*/*.safetensors"))
    return {"seconds": round(seconds, 1), "questions": len(samples), "questions_s": round(len(samples) / seconds, 2),
            "per_task": per_task, "cache_entries": len(entries),
            "cache_gb": round(sum(e.stat().st_size for e in entries) / 2**30, 2), "peak_mem_mb": _peak_mem_mb(device)}


# -- the check ------------------------------------------------------------------------------------


def engine_all(device: torch.device, quick: bool, peaks: dict) -> dict:
    """Every case without compile; those measured stay when the budget cuts the section."""
    out: dict = {}
    try:
        for name in CASES:
            out[name] = _kept(lambda: engine_case(name, device, quick, False, peaks))
    except TimeLimit:
        out["interrupted"] = True
    return out


def _kept(fn: Callable[[], dict]) -> dict:
    """fn's figures, or its error: one case failing leaves the section's other cases standing."""
    try:
        return fn()
    except Exception as error:  # recorded, not raised: the check reports every case it could run
        return {"status": "error", "error": f"{type(error).__name__}: {error}"}


class Check:
    """Runs sections within a time budget and rewrites the JSON report after each."""

    def __init__(self, report: dict, out: Path | None, budget_s: float, quick: bool, only: list[str] | None) -> None:
        self.report, self.out, self.budget_s, self.quick, self.only = report, out, budget_s, quick, only
        self.start = time.perf_counter()

    def left(self) -> float:
        return self.budget_s - (time.perf_counter() - self.start)

    def _skip_reason(self, name: str) -> str | None:
        always = ("environment", "matmul_peak")  # the roofline every figure needs
        if self.only and name not in always and name not in self.only and name.partition(":")[0] not in self.only:
            return "not asked for (--only)"
        if self.quick and name.startswith("compiled:") and name.partition(":")[2] not in QUICK_COMPILED:
            return f"--quick compiles {', '.join(QUICK_COMPILED)} only (the compiled path is the same for every case)"
        need = NEEDS[name][self.quick]
        if self.left() < need:
            return f"{self.left():.0f} s of the budget left, the section needs ~{need} s"
        return None

    def section(self, name: str, fn: Callable[[], dict], device: torch.device) -> dict | None:
        if reason := self._skip_reason(name):
            entry = {"status": "skipped", "reason": reason}
        else:
            if device.type == "cuda":
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats(device)
            start = time.perf_counter()
            previous = signal.signal(signal.SIGALRM, _time_limit)
            signal.setitimer(signal.ITIMER_REAL, max(self.left(), 1.0))  # the section ends with the budget
            try:
                entry = {"status": "ok", **fn()}
                if entry.pop("interrupted", False):
                    entry["status"] = "interrupted"
            except TimeLimit:
                entry = {"status": "interrupted", "reason": "the budget ran out inside the section"}
            except Exception as error:  # a failed section is a finding; the others still run
                entry = {"status": "error", "error": f"{type(error).__name__}: {error}"}
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
            entry["seconds"] = round(time.perf_counter() - start, 1)
            entry.setdefault("peak_mem_mb", _peak_mem_mb(device))
        group, _, key = name.partition(":")
        (self.report["sections"].setdefault(group, {}) if key else self.report["sections"])[key or name] = entry
        self.save()
        print(json.dumps({name: entry}), file=sys.stderr, flush=True)
        return entry if entry["status"] == "ok" else None

    def save(self) -> None:
        self.report["elapsed_s"] = round(time.perf_counter() - self.start, 1)
        if self.out is not None:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.out.with_suffix(self.out.suffix + ".tmp")
            tmp.write_text(json.dumps(self.report, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, self.out)


def _time_limit(signum, frame) -> None:
    raise TimeLimit()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_check", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny widths and counts on the CPU: the same code in a minute")
    parser.add_argument("--out", type=Path, help="write the JSON report here (rewritten after every section)")
    parser.add_argument("--device", help="default: cuda when present (cpu with --quick)")
    parser.add_argument("--budget-s", type=float, help="the check ends within this many seconds (default 450; quick 240)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS + ["compiled"], metavar="SECTION",
                        help=f"run only these sections ({', '.join(SECTIONS)}, or compiled for all four)")
    parser.add_argument("--pipeline-questions", type=int, help="questions of the pipeline's set (default 1901; quick 10)")
    args = parser.parse_args(argv)
    device = torch.device(args.device or ("cpu" if args.quick or not torch.cuda.is_available() else "cuda"))
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    report = {"schema": SCHEMA, "check": "benchmarks.gpu_check", "quick": args.quick, "precision": PRECISION,
              "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "sections": {}}
    check = Check(report, args.out, args.budget_s or (240 if args.quick else 450), args.quick, args.only)
    report["budget_s"] = check.budget_s
    check.section("environment", lambda: environment(device), device)
    peaks = check.section("matmul_peak", lambda: matmul_peak(device), device) or {}
    check.section("nvjpeg", lambda: nvjpeg(device, args.quick), device)
    check.section("engine", lambda: engine_all(device, args.quick, peaks), device)
    for name in CASES[:2]:
        check.section(f"compiled:{name}", lambda: engine_case(name, device, args.quick, True, peaks), device)
    questions = args.pipeline_questions or (10 if args.quick else 1901)
    with tempfile.TemporaryDirectory(prefix="gpu_check-") as workdir:
        check.section("pipeline", lambda: pipeline(device, args.quick, questions, Path(workdir)), device)
    for name in CASES[2:]:
        check.section(f"compiled:{name}", lambda: engine_case(name, device, args.quick, True, peaks), device)
    check.save()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
