"""What a weight file or folder is, read from its first bytes, and what each weight format takes.

A path given as weights is checked here before it is hashed or loaded, so that a text file, an
empty file or a folder of something else is refused with one line naming the path, what it
holds and what was expected: torch.load's unpickler, handed text, fails with KeyError or
IndexError, and a hash of an arbitrary file would land in the hash cache.

    check_fits(path, ["loftr-lightning"])   # WeightFormatError unless path could be one
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

# The fix every message ends with: the same whether the path came from `run --checkpoint` or
# `checkpoints import NAME FILE`.
FIX = "give the weight file or folder itself (`specialists checkpoints ls` lists the checkpoint names and their files)"


class StateDictError(ValueError):
    """A weight file whose layout is not the official one the converter expects."""


class WeightFormatError(StateDictError):
    """A path that is not weights of the expected kind at all (text, empty, another container)."""


@dataclass(frozen=True)
class Format:
    """kind "file": `containers` are the encodings accepted ("torch": torch.save's zip or pickle,
    "safetensors"); kind "folder": `markers` are files of which at least one must be in it."""

    kind: str
    description: str
    containers: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()


_TORCH = ("torch",)
FORMATS: dict[str, Format] = {
    "diffusers": Format("folder", "a diffusers pipeline folder (model_index.json, unet/, vae/, text_encoder/, "
                                  "tokenizer/, scheduler/)", markers=("model_index.json",)),
    "transformers": Format("folder", "a transformers model folder (config.json beside model.safetensors, as "
                                     "save_pretrained writes it)", markers=("config.json",)),
    "timm": Format("file", "timm weights (a safetensors file, or a PyTorch state-dict file)", ("safetensors", "torch")),
    "torchvision-state-dict": Format("file", "a PyTorch state-dict file (.pth)", _TORCH),
    "timm-state-dict": Format("file", "a PyTorch state-dict file (.pth)", _TORCH),
    "depth-anything-pth": Format("file", "an official Depth Anything state dict (a PyTorch file named as released: "
                                         "depth_anything_vitl14.pth or depth_anything_v2_vitl.pth)", _TORCH),
    "loftr-lightning": Format("file", "a LoFTR Lightning checkpoint (a PyTorch file such as loftr_outdoor.ckpt)", _TORCH),
    "peft-lora": Format("folder", "a peft LoRA adapter folder (adapter_config.json, adapter_model.safetensors)",
                        markers=("adapter_config.json",)),
    "torchvision-vgg19": Format("file", "torchvision's VGG-19 weights (a PyTorch file, vgg19-dcbb9e9d.pth)", _TORCH),
    "dire-resnet50": Format("file", "a DIRE ResNet-50 classifier (a PyTorch file such as imagenet_adm.pth)", _TORCH),
    "adm": Format("file", "an ADM guided-diffusion UNet (a PyTorch file such as 256x256_diffusion_uncond.pt)", _TORCH),
    "ordinal-shading-v1": Format("file", "ordinal-shading v1 weights (the PyTorch file final_weights.pt)", _TORCH),
    "ordinal-shading-stages": Format("folder", "a folder of ordinal-shading stage files (stage_0.pt ... stage_4.pt, "
                                               "or stage_0_v21.pt ...)", markers=("stage_0.pt", "stage_0_v21.pt")),
}
# Formats one loader reads in place of each other (the ordinal-shading specialist takes v1's
# file or a v2 folder of stages).
INTERCHANGEABLE = {"ordinal-shading-v1": ("ordinal-shading-stages",), "ordinal-shading-stages": ("ordinal-shading-v1",)}
ANY_WEIGHTS = "a weight file (safetensors or PyTorch) or a model folder"


def container(path: Path) -> str:
    """What a file is by its first bytes: "safetensors", "zip" (torch.save, .npz), "pickle"
    (torch.save's legacy format), "empty", "text" or "binary" (none of these)."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if not head:
        return "empty"
    if head[:4] == b"PK\x03\x04":
        return "zip"
    if head[0] == 0x80 and len(head) > 1 and 2 <= head[1] <= 5:  # pickle PROTO opcode, protocols 2-5
        return "pickle"
    header_size = int.from_bytes(head[:8], "little") if len(head) >= 8 else 0
    if 2 <= header_size < 100_000_000 and head[8:9] == b"{":  # safetensors: u64 size, then a JSON header
        return "safetensors"
    if b"\0" not in head:
        try:
            head.decode("utf-8")
            return "text"
        except UnicodeDecodeError as err:
            if err.start >= len(head) - 3:  # a character cut by the 4 KB read
                return "text"
    return "binary"


def _fits_container(kind: str, accepted: tuple[str, ...]) -> bool:
    if "torch" in accepted and kind in ("zip", "pickle"):
        return True
    return kind in accepted


def describe(path: Path) -> str:
    """What `path` holds, as the middle of a sentence: "is a text file (it starts 'hello')"."""
    if not path.exists():
        return "does not exist"
    if path.is_dir():
        names = sorted(p.name for p in path.iterdir())[:4]
        return f"is a folder (holding {', '.join(names)}{', ...' if len(names) == 4 else ''})" if names \
            else "is an empty folder"
    kind = container(path)
    if kind == "text":
        start = path.read_bytes()[:200].decode("utf-8", "replace").strip().splitlines()
        return f"is a text file (it starts {json.dumps(start[0][:40] if start else '')})"
    return {"empty": "is an empty file", "zip": "is a zip archive", "pickle": "is a Python pickle",
            "safetensors": "is a safetensors file",
            "binary": "holds bytes of no weight format (random or damaged data)"}[kind]


def fits(path: Path, fmt: str) -> bool:
    """Whether `path` could hold weights of format `fmt` (by its container only: a cheap check)."""
    spec = FORMATS[fmt]
    if spec.kind == "folder":
        return path.is_dir() and any((path / marker).is_file() for marker in spec.markers)
    if fmt == "timm" and path.suffix == ".npz":
        return path.is_file() and container(path) == "zip"
    return path.is_file() and _fits_container(container(path), spec.containers)


def expected_of(formats: list[str] | tuple[str, ...]) -> str:
    """The formats' descriptions joined for a message, each once."""
    return " or ".join(dict.fromkeys(FORMATS[f].description for f in formats))


def wrong_format(path: Path, expected: str) -> WeightFormatError:
    return WeightFormatError(f"{path} {describe(path)}, not {expected}; {FIX}")


def check_fits(path: str | Path, formats: list[str] | tuple[str, ...] | None = None) -> None:
    """WeightFormatError unless `path` fits one of `formats` (default: any weight format)."""
    path = Path(path)
    formats = list(formats) if formats else list(FORMATS)
    if not any(fits(path, fmt) for fmt in formats):
        raise wrong_format(path, expected_of(formats) if len(formats) < len(FORMATS) else ANY_WEIGHTS)


def check_torch_file(path: str | Path, expected: str = "a PyTorch weight file") -> None:
    """WeightFormatError unless `path` is a file torch.save could have written."""
    path = Path(path)
    if not (path.is_file() and container(path) in ("zip", "pickle")):
        raise wrong_format(path, expected)
    if container(path) == "zip" and not zipfile.is_zipfile(path):
        raise WeightFormatError(f"{path} is a damaged zip archive (cut off?), not {expected}; download it again, "
                                f"or {FIX}")
