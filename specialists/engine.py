"""The batched extraction engine: requests in, one result per request out.

Adapters hand the engine `ImageRequest`s (a key, the specialist's name, an image as encoded
bytes, a uint8 tensor or a PIL image). For each specialist (`ModelSpec`) the engine

1. asks the feature cache first (when one is given) and keeps only the misses;
2. decodes with torchvision.io (libjpeg-turbo / libpng on the CPU; JPEGs in one batched nvJPEG
   call on the GPU when the engine runs on CUDA);
3. buckets the images by the size preprocessing gives them, so a batch is never padded;
4. resizes + normalises a whole batch at once on the device (torchvision's tensor resize);
5. runs the model under bf16/fp16 autocast, channels_last for convolutional nets, optionally
   torch.compile'd; inputs go host -> device from pinned memory with non-blocking copies;
6. on out-of-memory halves the batch, retries, and records the back-off in `stats`.

Results come back as a dict keyed by request key, so they do not depend on batch order, bucket
or batch size (beyond the dtype's rounding).
"""

from __future__ import annotations

import hashlib
import io
import math
import time
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Literal, Mapping, Sequence

import numpy as np
import torch
import torchvision.io as tvio
import torchvision.transforms.v2.functional as TF
from PIL import Image

from specialists.feature_cache import CacheKey, FeatureCache
from specialists.precision import DTYPES

ImageInput = bytes | torch.Tensor | Image.Image
Output = torch.Tensor | dict[str, torch.Tensor]


class EngineInputError(ValueError):
    """A request the engine cannot run: unknown specialist, undecodable image, bad tensor."""


@dataclass(frozen=True)
class ImageRequest:
    """key: the caller's id, under which the result comes back (unique per specialist);
    model: the `ModelSpec.name` to run; image: encoded JPEG/PNG bytes, a uint8 (3, H, W) tensor
    or a PIL image."""

    key: Hashable
    model: str
    image: ImageInput


MAX_LOWER_BOUND_RATIO = 8  # "lower_bound" refuses images it would blow past 8x its size on the long side


@dataclass(frozen=True)
class Preprocess:
    """How an image becomes the model's input; `describe()` is its identity in the cache key.

    mode "short_side": the shorter side becomes `size` and the longer `int(size * long / short)`
    (truncated, as torchvision's Resize(int), timm's eval transform and transformers' shortest_edge
    processors size it), then sides rounded to a multiple of `multiple_of`; "fit": DPT's keep_aspect_ratio rule (Depth Anything's processor):
    of the two scales that would make each side `size`, take the one closer to 1 (scale as
    little as possible), then round both sides to a multiple of `multiple_of`; "lower_bound": the
    official Depth Anything v1 rule: the larger of the two scales (both sides at least `size`),
    sides rounded to the nearest multiple, or up where rounding would fall below `size`;
    "square": resize to size x size (DIFT). `crop`: centre crop side after resizing (timm's eval transform), or
    None. mean/std apply to [0, 1] pixels.
    """

    size: int
    mode: Literal["short_side", "fit", "lower_bound", "square"] = "short_side"
    crop: int | None = None
    multiple_of: int = 1
    mean: tuple[float, float, float] = (0.485, 0.456, 0.406)
    std: tuple[float, float, float] = (0.229, 0.224, 0.225)
    interpolation: Literal["bilinear", "bicubic"] = "bilinear"

    def resized_size(self, height: int, width: int) -> tuple[int, int]:
        if self.mode == "square":
            return self.size, self.size
        m = self.multiple_of
        if self.mode == "lower_bound":
            scale = max(self.size / height, self.size / width)
            if max(height, width) * scale > MAX_LOWER_BOUND_RATIO * self.size:
                raise EngineInputError(
                    f"a {width}x{height} image is too thin for the lower-bound resize (its short side to {self.size} "
                    f"would make the long side {round(max(height, width) * scale)} px); for Depth Anything use "
                    "--set depth_anything.resize=transformers, or crop the image")

            def side(x: float) -> int:
                rounded = round(x / m) * m
                return rounded if rounded >= self.size else math.ceil(x / m) * m

            return side(height * scale), side(width * scale)
        if self.mode == "fit":
            scale_h, scale_w = self.size / height, self.size / width
            scale = scale_w if abs(1 - scale_w) < abs(1 - scale_h) else scale_h
            return max(m, round(height * scale / m) * m), max(m, round(width * scale / m) * m)
        # short_side: rounding the long side to nearest put it a pixel past the published
        # processors' on some images (1024x731 at 256: 359 against their 358)
        long_side = int(self.size * max(height, width) / min(height, width))
        h, w = (self.size, long_side) if height <= width else (long_side, self.size)
        return max(m, round(h / m) * m), max(m, round(w / m) * m)

    def output_size(self, height: int, width: int) -> tuple[int, int]:
        """(H, W) of the model input for an image of (height, width): the bucket key."""
        if self.crop is not None:
            return self.crop, self.crop
        return self.resized_size(height, width)

    def __call__(self, images: torch.Tensor) -> torch.Tensor:
        """uint8 (B, 3, H, W), all one size, on any device -> float32 (B, 3, h, w) normalised."""
        h, w = self.resized_size(*images.shape[-2:])
        x = TF.resize(images, [h, w], interpolation=TF.InterpolationMode(self.interpolation), antialias=True)
        if self.crop is not None:
            x = TF.center_crop(x, [self.crop, self.crop])
        x = x.float().div_(255.0)
        return TF.normalize(x, list(self.mean), list(self.std), inplace=True)

    def describe(self) -> str:
        # short_side's long side was rounded before it was truncated: features cached then are
        # not those of today's input, so the rule is part of the cache key
        return repr(self) + (" long-side=truncated" if self.mode == "short_side" else "")


@dataclass(frozen=True)
class PilSquareResize(Preprocess):
    """The published square resize of DIFT (`img.resize((size, size))`) and DreamSim
    (torchvision's Resize((size, size)) on the PIL image): PIL's BICUBIC on the 8-bit image, then
    pixels / 255 normalised. PIL's bicubic differs from torchvision's antialiased tensor bicubic by
    a grey level on many pixels, which moves features well past float noise; so the resize runs
    in PIL, on the CPU, image by image."""

    def __call__(self, images: torch.Tensor) -> torch.Tensor:
        resized = [
            torch.from_numpy(np.asarray(Image.fromarray(img.permute(1, 2, 0).cpu().numpy()).resize(
                (self.size, self.size), Image.BICUBIC)).copy()).permute(2, 0, 1)
            for img in images
        ]
        x = torch.stack(resized).to(images.device).float().div_(255.0)
        return TF.normalize(x, list(self.mean), list(self.std), inplace=True)


@dataclass
class ModelSpec:
    """One specialist as the engine runs it.

    module: the network (moved to the engine's device; switched to channels_last when
    `channels_last`). forward: (module, (B, 3, h, w) float batch) -> (B, ...) tensor or a dict of
    such tensors; defaults to `module(batch)`. checkpoint_sha256 / layer: the cache key's
    checkpoint and layer/preset parts. random_draw: "none", "seeded" (the output depends on
    noise drawn from a fixed seed: cacheable) or "unseeded" (never cached).
    """

    name: str
    module: torch.nn.Module
    preprocess: Preprocess
    forward: Callable[[torch.nn.Module, torch.Tensor], Output] | None = None
    batch_size: int = 32
    channels_last: bool = False
    compile: bool = False
    checkpoint_sha256: str = "unknown"
    layer: str = ""
    random_draw: Literal["none", "seeded", "unseeded"] = "none"


@dataclass
class OomBackoff:
    model: str
    from_batch: int
    to_batch: int


@dataclass
class EngineStats:
    images: int = 0
    batches: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    cache_refused: int = 0
    oom_backoffs: list[OomBackoff] = field(default_factory=list)
    seconds: float = 0.0


def content_hash(image: ImageInput) -> str:
    """sha256 of what identifies an image: its encoded bytes, or its decoded pixels."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        return hashlib.sha256(image).hexdigest()
    if isinstance(image, Image.Image):
        pixels = np.ascontiguousarray(np.asarray(image.convert("RGB")))
        return hashlib.sha256(b"rgb%dx%d" % pixels.shape[:2] + pixels.tobytes()).hexdigest()
    t = image.detach().cpu().contiguous()
    return hashlib.sha256(str(tuple(t.shape)).encode() + t.numpy().tobytes()).hexdigest()


def _is_jpeg(data: bytes) -> bool:
    return data[:3] == b"\xff\xd8\xff"


def _decode_on_cpu(data: bytes) -> torch.Tensor:
    """Encoded bytes -> uint8 (3, H, W): JPEG through kornia-rs (libjpeg-turbo), anything else
    (PNG, ...) through torchvision.io."""
    if _is_jpeg(data):
        try:
            from kornia_rs.io import ImageDecoder
        except ImportError:  # kornia-rs absent (e.g. a bare GPU box): torchvision decodes JPEG too
            pass
        else:
            return torch.from_numpy(ImageDecoder().decode(data)).permute(2, 0, 1)
    with warnings.catch_warnings():  # torchvision 0.29 deprecates its codecs in favour of torchcodec
        warnings.simplefilter("ignore", DeprecationWarning)
        return tvio.decode_image(torch.frombuffer(bytearray(data), dtype=torch.uint8), mode=tvio.ImageReadMode.RGB)


class Engine:
    """Runs registered `ModelSpec`s over requests. device: "cpu", "cuda", "cuda:N";
    precision: fp32 | bf16 | fp16 (autocast); cache: a `FeatureCache` or None;
    output_device: where results are left ("cpu" by default, so callers can keep many)."""

    def __init__(
        self,
        specs: Iterable[ModelSpec],
        device: str | torch.device = "cpu",
        precision: str = "fp32",
        cache: FeatureCache | None = None,
        output_device: str | torch.device = "cpu",
        window: int = 2048,
    ) -> None:
        if precision not in DTYPES:
            raise EngineInputError(f"precision {precision!r} is not one of {sorted(DTYPES)}")
        self.device = torch.device(device)
        self.precision = precision
        self.dtype = DTYPES[precision]
        self.cache = cache
        self.output_device = torch.device(output_device)
        self.window = window  # requests decoded at once: bounds host/device memory on long runs
        self.stats = EngineStats()
        self.specs: dict[str, ModelSpec] = {}
        self._batch_size: dict[str, int] = {}
        self._callables: dict[str, Callable[[torch.Tensor], Output]] = {}
        for spec in specs:
            self.add(spec)

    def add(self, spec: ModelSpec) -> None:
        module = spec.module.to(self.device).eval()
        if spec.channels_last:
            module = module.to(memory_format=torch.channels_last)
        forward = spec.forward
        call: Callable[[torch.Tensor], Output] = (lambda x: forward(module, x)) if forward else module
        if spec.compile:
            compiled = torch.compile(call, dynamic=False)
            call = _with_frozen_weights(compiled) if self.device.type == "cpu" else compiled
        self.specs[spec.name] = spec
        self._batch_size[spec.name] = spec.batch_size
        self._callables[spec.name] = call

    def batch_size(self, model: str) -> int:
        """The batch size now in use for `model` (smaller than configured after an OOM back-off)."""
        return self._batch_size[model]

    # -- public entry point -------------------------------------------------------------

    @torch.no_grad()
    def run(self, requests: Sequence[ImageRequest]) -> dict[Hashable, Output]:
        """Every request's output, keyed by request key: a (...) tensor per image (the model's
        (B, ...) output split along B) or a dict of them."""
        start = time.perf_counter()
        by_model: dict[str, list[ImageRequest]] = defaultdict(list)
        for r in requests:
            if r.model not in self.specs:
                raise EngineInputError(f"request {r.key!r} names specialist {r.model!r}; known: {sorted(self.specs)}")
            by_model[r.model].append(r)
        results: dict[Hashable, Output] = {}
        for model, group in by_model.items():
            if len({r.key for r in group}) != len(group):
                raise EngineInputError(f"request keys for {model!r} are not unique")
            for begin in range(0, len(group), self.window):
                results.update(self._run_model(self.specs[model], group[begin : begin + self.window]))
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        self.stats.seconds += time.perf_counter() - start
        return results

    # -- steps ----------------------------------------------------------------------------

    def _cache_key(self, spec: ModelSpec, image: ImageInput) -> CacheKey:
        return CacheKey(spec.checkpoint_sha256, spec.preprocess.describe(), spec.layer, content_hash(image), self.precision)

    def _run_model(self, spec: ModelSpec, requests: list[ImageRequest]) -> dict[Hashable, Output]:
        results: dict[Hashable, Output] = {}
        keys: dict[Hashable, CacheKey] = {}
        todo = requests
        use_cache = self.cache is not None and self.cache.mode != "off"
        if use_cache and spec.random_draw == "unseeded":
            self.stats.cache_refused += len(requests)  # an unseeded draw is not reproducible
            use_cache = False
        if use_cache:
            todo = []
            for r in requests:
                keys[r.key] = self._cache_key(spec, r.image)
                hit = self.cache.get(keys[r.key])
                if hit is None:
                    todo.append(r)
                else:
                    results[r.key] = hit
            self.stats.cache_hits += len(requests) - len(todo)
            self.stats.cache_misses += len(todo)
        if not todo:
            return results
        images = self._decode([r.image for r in todo], [r.key for r in todo])
        buckets: dict[tuple[int, int], list[int]] = defaultdict(list)
        for i, img in enumerate(images):
            buckets[spec.preprocess.output_size(*img.shape[-2:])].append(i)
        for indices in buckets.values():
            for i, out in self._run_bucket(spec, [images[i] for i in indices]):
                results[todo[indices[i]].key] = out
        if use_cache:
            if self.device.type == "cuda":
                torch.cuda.synchronize(self.device)  # outputs were copied without blocking
            for r in todo:
                self.cache.put(keys[r.key], results[r.key])
        self.stats.images += len(todo)
        return results

    def _decode(self, images: list[ImageInput], keys: list[Hashable]) -> list[torch.Tensor]:
        """Each image as uint8 (3, H, W): on the GPU when the engine runs on CUDA."""
        out: list[torch.Tensor | None] = [None] * len(images)
        gpu_jpegs: list[int] = []
        for i, (img, key) in enumerate(zip(images, keys)):
            if isinstance(img, (bytes, bytearray, memoryview)):
                if self.device.type == "cuda" and _is_jpeg(bytes(img[:3])):
                    gpu_jpegs.append(i)
                    continue
                try:
                    out[i] = _decode_on_cpu(bytes(img))
                except Exception as error:  # each codec raises its own type
                    raise EngineInputError(f"request {key!r}: cannot decode the image bytes ({error})") from error
            elif isinstance(img, Image.Image):
                out[i] = torch.from_numpy(np.array(img.convert("RGB"))).permute(2, 0, 1)
            elif isinstance(img, torch.Tensor):
                if img.dtype != torch.uint8 or img.ndim != 3 or img.shape[0] != 3:
                    raise EngineInputError(f"request {key!r}: a tensor image must be uint8 (3, H, W), got {img.dtype} {tuple(img.shape)}")
                out[i] = img
            else:
                raise EngineInputError(f"request {key!r}: image must be bytes, a PIL image or a uint8 tensor, got {type(img).__name__}")
        if gpu_jpegs:
            # one batched nvJPEG call; the encoded bytes are tiny next to the pixels
            data = [torch.frombuffer(bytearray(images[i]), dtype=torch.uint8) for i in gpu_jpegs]
            try:
                with warnings.catch_warnings():  # torchvision 0.29 deprecates its codecs; nvJPEG here is still the fast path
                    warnings.simplefilter("ignore", DeprecationWarning)
                    decoded = tvio.decode_jpeg(data, mode=tvio.ImageReadMode.RGB, device=self.device)
            except RuntimeError as error:
                raise EngineInputError(f"a JPEG among requests {[keys[i] for i in gpu_jpegs][:5]}... does not decode ({error})") from error
            for i, img in zip(gpu_jpegs, decoded):
                out[i] = img
        return out  # type: ignore[return-value]

    def _to_device(self, images: list[torch.Tensor]) -> list[torch.Tensor]:
        if self.device.type != "cuda":
            return [img.to(self.device) for img in images]
        moved = []
        for img in images:
            if img.device.type == "cpu":
                img = img.contiguous().pin_memory().to(self.device, non_blocking=True)
            moved.append(img.to(self.device))
        return moved

    def _prepare(self, spec: ModelSpec, images: list[torch.Tensor]) -> torch.Tensor:
        """uint8 images of one bucket -> the model's (B, 3, h, w) input; images of the same
        original size are resized together in one call."""
        images = self._to_device(images)
        by_size: dict[tuple[int, int], list[int]] = defaultdict(list)
        for i, img in enumerate(images):
            by_size[tuple(img.shape[-2:])].append(i)
        batch: list[torch.Tensor | None] = [None] * len(images)
        for indices in by_size.values():
            prepared = spec.preprocess(torch.stack([images[i] for i in indices]))
            for j, i in enumerate(indices):
                batch[i] = prepared[j]
        x = torch.stack(batch)  # type: ignore[arg-type]
        if spec.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        return x

    def _forward(self, spec: ModelSpec, x: torch.Tensor) -> Output:
        call = self._callables[spec.name]
        n = x.shape[0]
        full = self._batch_size[spec.name]
        if spec.compile and n < full:
            # pad the last batch: a compiled graph keeps one static shape (and its strides: a
            # contiguous pad of a channels_last batch would recompile the whole graph)
            x = torch.cat([x, x[-1:].expand(full - n, *x.shape[1:])])
            if spec.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
        with torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype != torch.float32):
            out = call(x)
        if isinstance(out, Mapping):
            return {k: v[:n] for k, v in out.items()}
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"{spec.name}: forward must return a tensor or a dict of tensors, got {type(out).__name__}")
        return out[:n]

    def _run_bucket(self, spec: ModelSpec, images: list[torch.Tensor]):
        """Yield (index in `images`, output) for one bucket, batch by batch, halving the batch
        on out-of-memory until one image does not fit."""
        begin = 0
        while begin < len(images):
            size = self._batch_size[spec.name]
            chunk = images[begin : begin + size]
            try:
                out = self._forward(spec, self._prepare(spec, chunk))
            except torch.OutOfMemoryError:
                if size == 1:
                    raise
                self._batch_size[spec.name] = size // 2
                self.stats.oom_backoffs.append(OomBackoff(spec.name, size, size // 2))
                if self.device.type == "cuda":
                    torch.cuda.empty_cache()
                continue
            out = _move(out, self.output_device)
            self.stats.batches += 1
            for j in range(len(chunk)):
                yield begin + j, _select(out, j)
            begin += len(chunk)


def _with_frozen_weights(compiled: Callable[[torch.Tensor], Output]) -> Callable[[torch.Tensor], Output]:
    """Compile (and any recompile) under inductor's freezing: the weights become constants, so
    on a CPU oneDNN gets them pre-packed (and pre-cast to bf16) once, with BatchNorm folded into
    the convolutions and ReLU/residual adds fused into them, instead of re-laying them out per
    call. ResNet-50 bf16 forward on 2 cores: ~80 -> ~92 img/s. Inference only, as the engine is.

    torch 2.14 ignores `torch.compile(options={"freezing": True})` (no weight is packed; checked
    by tests/specialists/test_engine.py), so the config is patched around each call instead; the patch only
    matters while a graph compiles."""
    import torch._inductor.config as inductor_config

    def call(x: torch.Tensor) -> Output:
        with inductor_config.patch(freezing=True):
            return compiled(x)

    return call


def _move(out: Output, device: torch.device) -> Output:
    """Copy to `device`; GPU -> CPU copies go into pinned memory without blocking, so the GPU
    keeps working on the next batch (`Engine.run` synchronises before returning)."""

    def one(v: torch.Tensor) -> torch.Tensor:
        if v.device.type == "cuda" and device.type == "cpu":
            host = torch.empty(v.shape, dtype=v.dtype, pin_memory=True)
            return host.copy_(v, non_blocking=True)
        return v.to(device)

    return {k: one(v) for k, v in out.items()} if isinstance(out, dict) else one(out)


def _select(out: Output, j: int) -> Output:
    if isinstance(out, dict):
        return {k: v[j] for k, v in out.items()}
    return out[j]


def encode_image(image: Image.Image | np.ndarray | bytes, fmt: str = "JPEG", quality: int = 90) -> bytes:
    """PIL image or (H, W, 3) uint8 array -> encoded bytes; bytes pass through as they are.

    A PNG keeps the image's mode (a BLINK-format writer stores what it is given); JPEG has no
    alpha or palette, so it is written from RGB."""
    if isinstance(image, bytes):
        return image
    if isinstance(image, np.ndarray):
        image = Image.fromarray(image)
    buffer = io.BytesIO()
    if fmt == "JPEG":
        image.convert("RGB").save(buffer, format=fmt, quality=quality)
    else:
        image.save(buffer, format=fmt)
    return buffer.getvalue()


def describe(stats: EngineStats) -> dict[str, Any]:
    """Stats as a JSON-able dict."""
    return {
        "images": stats.images, "batches": stats.batches, "cache_hits": stats.cache_hits,
        "cache_misses": stats.cache_misses, "cache_refused": stats.cache_refused,
        "oom_backoffs": [vars(b) for b in stats.oom_backoffs], "seconds": round(stats.seconds, 4),
    }
