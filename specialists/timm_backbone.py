"""timm feature extractors for prototype retrieval, and the export format of a fine-tuned one.

An export is a folder with `model.safetensors` (the backbone's state dict, classifier removed)
and `config.json` (format, timm architecture, the kwargs it was built with, input size and
normalisation, embedding width, and what it was trained on). `train/` writes it; `load_backbone`
reads it back. Where a backbone can come from (`spec`):

- "tiny-random": resnet18 with random weights at 64 px (test instance; accuracy meaningless);
- "timm:NAME": the timm architecture NAME with random weights (no download);
  both initialised from torch seed 0, so the same spec is the same network everywhere;
- an export folder or its config.json;
- a checkpoint-manifest name of a timm model (`resnet50.tv_in1k`, ...): its weights resolved
  locally and hash-checked by `checkpoints.resolve` (fetch or import them first);
- a weight file (.safetensors/.pth/.bin) of timm model `architecture`, loaded offline through
  timm's pretrained_cfg_overlay.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from checkpoints import CheckpointRef

EXPORT_FORMAT = "blink-specialists/combo-backbone/1"
WEIGHTS_FILE = "model.safetensors"
CONFIG_FILE = "config.json"
TINY_RANDOM = "tiny-random"


class BackboneLoadError(ValueError):
    """A backbone spec that cannot be loaded; the message says what was looked at and why."""


@dataclass(frozen=True)
class BackboneConfig:
    """What is needed to rebuild and feed a backbone: timm `architecture` built with
    `model_kwargs`, square input `image_size`, normalisation `mean`/`std` (RGB, 0-1 scale),
    output width `num_features`, and free-form provenance in `trained`."""

    architecture: str
    image_size: int
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    num_features: int
    model_kwargs: dict[str, Any] = field(default_factory=dict)
    trained: dict[str, Any] = field(default_factory=dict)
    format: str = EXPORT_FORMAT

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str) -> "BackboneConfig":
        if data.get("format") != EXPORT_FORMAT:
            raise BackboneLoadError(f"{where}: format {data.get('format')!r} is not {EXPORT_FORMAT!r}; "
                                    "this is not a backbone export of this suite")
        try:
            return cls(architecture=data["architecture"], image_size=int(data["image_size"]),
                       mean=tuple(data["mean"]), std=tuple(data["std"]), num_features=int(data["num_features"]),
                       model_kwargs=dict(data.get("model_kwargs", {})), trained=dict(data.get("trained", {})))
        except KeyError as exc:
            raise BackboneLoadError(f"{where}: missing key {exc.args[0]!r}") from None


def create_timm(architecture: str, model_kwargs: dict[str, Any] | None = None, **extra: Any) -> torch.nn.Module:
    """timm.create_model with a clear error for unknown names (never downloads unless asked)."""
    import timm

    _known_architecture(architecture)
    return timm.create_model(architecture, **(model_kwargs or {}), **extra)


def _known_architecture(architecture: str) -> None:
    """BackboneLoadError, with similar names, unless timm knows `architecture`."""
    import timm

    if not timm.is_model(architecture):
        close = timm.list_models(f"*{architecture.split('.')[0][:6]}*")[:5]
        raise BackboneLoadError(f"unknown timm architecture {architecture!r}; similar: {', '.join(close) or 'none'}")


def timm_config(model: torch.nn.Module, architecture: str, image_size: int,
                model_kwargs: dict[str, Any] | None = None, trained: dict[str, Any] | None = None) -> BackboneConfig:
    """The BackboneConfig of a built timm model (normalisation from its pretrained_cfg)."""
    cfg = getattr(model, "pretrained_cfg", {}) or {}
    return BackboneConfig(architecture=architecture, image_size=image_size,
                          mean=tuple(float(v) for v in cfg.get("mean", (0.485, 0.456, 0.406))),
                          std=tuple(float(v) for v in cfg.get("std", (0.229, 0.224, 0.225))),
                          num_features=int(model.num_features), model_kwargs=dict(model_kwargs or {}),
                          trained=dict(trained or {}))


def save_export(backbone: torch.nn.Module, config: BackboneConfig, folder: str | Path) -> Path:
    """Write `folder/model.safetensors` (+ config.json). `backbone` must have no classifier
    (timm: reset_classifier(0)); its state dict is saved contiguous on the CPU."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu").contiguous() for k, v in backbone.state_dict().items()}
    save_file(state, str(folder / WEIGHTS_FILE), metadata={"format": EXPORT_FORMAT})
    (folder / CONFIG_FILE).write_text(json.dumps(config.to_json(), indent=2) + "\n", encoding="utf-8")
    return folder


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_backbone(spec: str, architecture: str | None = None,
                  image_size: int | None = None) -> tuple[torch.nn.Module, BackboneConfig, CheckpointRef]:
    """spec (see module docstring) -> (backbone in eval mode with no classifier, its config, ref)."""
    if spec == TINY_RANDOM or spec.startswith("timm:"):
        arch = "resnet18" if spec == TINY_RANDOM else spec[len("timm:"):]
        size = image_size or (64 if spec == TINY_RANDOM else 224)
        kwargs = {"img_size": size} if "vit" in arch or "deit" in arch else {}
        # Seeded initialisation: the same spec is the same random backbone in every run and
        # process (otherwise a random-weight row would change from one run to the next).
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            model = create_timm(arch, kwargs, pretrained=False, num_classes=0)
        config = timm_config(model, arch, size, kwargs, {"weights": "random"})
        return model.eval(), config, CheckpointRef(spec, None, None, tiny_random=True)
    from checkpoints.manifest import load_manifest

    entry = load_manifest().find(spec)
    if entry is not None:
        if entry.specialist != "timm":
            raise BackboneLoadError(f"checkpoint {spec!r} is a {entry.specialist} checkpoint, not a timm backbone; "
                                    "prototype retrieval takes the timm entries of `specialists checkpoints ls`")
        from checkpoints import resolve

        resolved = resolve(spec)  # MissingCheckpointError says how to fetch or import it
        weights = resolved.path / entry.files[0] if resolved.path.is_dir() else resolved.path
        model, config = _timm_from_file(weights, architecture or entry.name, image_size)
        return model, config, resolved.ref
    path = Path(spec)
    if path.is_dir() or path.name == CONFIG_FILE:
        folder = path if path.is_dir() else path.parent
        config_path, weights = folder / CONFIG_FILE, folder / WEIGHTS_FILE
        if not config_path.is_file() or not weights.is_file():
            raise BackboneLoadError(f"{folder} is not a backbone export: it needs {CONFIG_FILE} and {WEIGHTS_FILE} "
                                    "(written by `specialists train combo`)")
        config = BackboneConfig.from_json(json.loads(config_path.read_text(encoding="utf-8")), str(config_path))
        from safetensors.torch import load_file

        model = create_timm(config.architecture, config.model_kwargs, pretrained=False, num_classes=0)
        missing, unexpected = model.load_state_dict(load_file(str(weights)), strict=False)
        if missing or unexpected:
            raise BackboneLoadError(f"{weights} does not fit {config.architecture}: missing {missing[:5]}, "
                                    f"unexpected {unexpected[:5]}")
        return model.eval(), config, CheckpointRef(folder.name, _sha256(weights), str(weights))
    if path.is_file():
        if architecture is None:
            raise BackboneLoadError(f"{path} is a weight file; name its timm architecture (e.g. resnet50.tv_in1k)")
        model, config = _timm_from_file(path, architecture, image_size)
        return model, config, CheckpointRef(path.name, _sha256(path), str(path))
    raise BackboneLoadError(f"backbone {spec!r} not found: give {TINY_RANDOM}, timm:NAME, an export folder "
                            "(from `specialists train combo`) or a weight file with its architecture")


def _timm_from_file(path: Path, architecture: str, image_size: int | None) -> tuple[torch.nn.Module, BackboneConfig]:
    """timm `architecture` with the weights of one local file (offline; every tensor checked by
    checkpoints' create_timm_model)."""
    from checkpoints.convert.common import StateDictError
    from checkpoints.convert.timm_weights import create_timm_model

    _known_architecture(architecture)
    try:
        model = create_timm_model(architecture, path, num_classes=0)
    except StateDictError as err:
        raise BackboneLoadError(str(err)) from None
    size = image_size or int(model.pretrained_cfg.get("input_size", (3, 224, 224))[-1])
    return model.eval(), timm_config(model, architecture, size, {}, {"weights": str(path)})


class Embedder:
    """Images -> (N, num_features) float32 embeddings, preprocessing attached: resize to the
    config's square size (area interpolation), scale to 0-1, normalise with mean/std."""

    def __init__(self, model: torch.nn.Module, config: BackboneConfig, device: str = "cpu",
                 batch_size: int = 64) -> None:
        self.model = model.to(device).eval()
        self.config = config
        self.device = device
        self.batch_size = batch_size
        self._mean = torch.tensor(config.mean, device=device).view(1, 3, 1, 1)
        self._std = torch.tensor(config.std, device=device).view(1, 3, 1, 1)

    def preprocess(self, images: Sequence[Any]) -> torch.Tensor:
        """PIL or (H, W, 3) uint8 images -> (N, 3, S, S) normalised float tensor."""
        size = self.config.image_size
        arrays = [cv2.resize(np.asarray(im.convert("RGB") if hasattr(im, "convert") else im), (size, size),
                             interpolation=cv2.INTER_AREA) for im in images]
        batch = torch.from_numpy(np.stack(arrays)).to(self.device).permute(0, 3, 1, 2).float() / 255.0
        return (batch - self._mean) / self._std

    @torch.inference_mode()
    def __call__(self, images: Sequence[Any]) -> torch.Tensor:
        outputs = [self.model(self.preprocess(images[i:i + self.batch_size])).float()
                   for i in range(0, len(images), self.batch_size)]
        return torch.cat(outputs).cpu() if outputs else torch.empty(0, self.config.num_features)

    def features(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """numpy view for the difficulty code: (N, D) float64, L2-normalised."""
        return F.normalize(self(images), dim=1).double().numpy()
