"""DreamSim (Visual_Similarity, single-branch DINO ViT-B/16) beside the dreamsim package.

Reference: `dreamsim.dreamsim(pretrained=True, dreamsim_type="dino_vitb16", cache_dir=DIR,
device="cpu")` from PyPI (`pip install dreamsim`; importing it downloads nothing; the call
downloads only when DIR lacks the checkpoint files), then `model.embed(preprocess(image))`, the
package's own preprocessing (PIL bicubic 224 x 224, ToTensor) and embedding (block 11's CLS,
centred and unit). PATH (`--official dreamsim=PATH`) is a checkout of facebookresearch/dino,
which the package loads through torch.hub ('facebookresearch/dino:main', pointed at PATH).

The files, seeded random, each as the release has it: DINO's backbone weights (what
torch.hub's `dino_vitb16` downloads, dino_vitbase16_pretrain.pth: a plain state dict; the patch
hands it over in place of the download), the DINO training checkpoint dino_vitb16_pretrain.pth
the package reads its projection head from, and the LoRA adapter folder
dino_vitb16_single_lora written by peft itself (r 16, alpha 32 on every block's attn.qkv, both
halves of each pair random). Ours imports the backbone tensors as timm's
`vit_base_patch16_224.dino` (model.safetensors: DINO's key names are timm's) and the adapter
folder as `dreamsim-dino-vitb16`, and runs the `dreamsim` solver. Decisions: BLINK-layout
Visual_Similarity questions, our distance rule on each side's embeddings.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

import numpy as np
import torch

from benchmarks.parity.common import Patches, checkout_commit, dense_errors, official_code, worst
from benchmarks.parity.published_pipelines import (
    agreement,
    import_checkpoint,
    load_images,
    our_solver,
    package_version,
    similarity_questions,
)

SEED = 0
WEIGHT_NOISE = 0.02  # on every backbone tensor, so norms and biases are not at their init constants
LORA = dict(r=16, lora_alpha=32, lora_dropout=0.0, bias="none", target_modules=["qkv"])


def reference_version() -> str:
    return package_version("dreamsim")


def _backbone_state(dino: Path) -> dict[str, torch.Tensor]:
    """DINO's ViT-B/16 from the checkout's own constructor, seeded, plus noise."""
    with official_code(dino, "vision_transformer", "hubconf", "utils"):
        import vision_transformer as vits

        torch.manual_seed(SEED)
        model = vits.vit_base(patch_size=16, num_classes=0)
    generator = torch.Generator().manual_seed(SEED + 3)
    with torch.no_grad():
        for tensor in model.state_dict().values():
            if tensor.is_floating_point():
                tensor.add_(torch.randn(tensor.shape, generator=generator) * WEIGHT_NOISE)
    return {k: v.clone() for k, v in model.state_dict().items()}


def _training_checkpoint(path: Path) -> None:
    """dino_vitb16_pretrain.pth as DINO's trainer saves it; the package reads the student's head."""
    generator = torch.Generator().manual_seed(SEED + 1)
    shapes = {"mlp.0.weight": (2048, 768), "mlp.0.bias": (2048,), "mlp.2.weight": (2048, 2048), "mlp.2.bias": (2048,),
              "mlp.4.weight": (256, 2048), "mlp.4.bias": (256,), "last_layer.weight": (65536, 256)}
    head = {f"module.head.{k}": torch.randn(s, generator=generator) * 0.02 for k, s in shapes.items()}
    torch.save({"student": head, "teacher": {}, "epoch": 0}, path)


@contextlib.contextmanager
def _hub_from_checkout(dino: Path, backbone: dict, patches: Patches) -> Iterator[None]:
    real_load = torch.hub.load

    def local_hub(repo, model, *args, **kwargs):
        if not repo.startswith("facebookresearch/dino"):
            raise RuntimeError(f"torch.hub.load({repo!r}): parity runs offline")
        kwargs.pop("source", None)
        return real_load(str(dino), model, *args, source="local", **kwargs)

    def stand_in(url, *args, **kwargs):
        if "dino_vitbase16_pretrain" not in url:
            raise RuntimeError(f"parity runs offline; the package asked for {url}")
        return {k: v.clone() for k, v in backbone.items()}

    with patches.attribute(torch.hub, "load", local_hub, "facebookresearch/dino:main from the local checkout"), \
            patches.attribute(torch.hub, "load_state_dict_from_url", stand_in,
                              "dino_vitb16's backbone download -> the seeded random stand-in (same layout)"), \
            patches.attribute(torch.hub, "set_dir", lambda path: None, "the package's hub cache dir left alone"):
        yield


def _write_adapter(cache: Path) -> None:
    """The LoRA folder as peft saves DreamSim's: built on the package's own PerceptualModel."""
    from dreamsim.config import dreamsim_args
    from dreamsim.model import PerceptualModel
    from peft import LoraConfig, get_peft_model

    model = PerceptualModel(**dreamsim_args["model_config"]["dino_vitb16"], device="cpu", load_dir=str(cache),
                            normalize_embeds=True)
    peft_model = get_peft_model(model, LoraConfig(**LORA))
    generator = torch.Generator().manual_seed(SEED + 2)
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_" in name:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.02)
    peft_model.save_pretrained(str(cache / "dino_vitb16_single_lora"))


def dense_of(per_image: list[dict]) -> dict:
    return {key: worst([e[key] for e in per_image]) for key in ("embedding", "input")}


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    import dreamsim
    from safetensors.torch import save_file

    dino = Path(official).resolve()
    if not (dino / "hubconf.py").is_file():
        raise FileNotFoundError(f"{dino}: no hubconf.py; give a checkout of facebookresearch/dino")
    patches = Patches()
    cache = workdir / "models"
    cache.mkdir()
    backbone = _backbone_state(dino)
    _training_checkpoint(cache / "dino_vitb16_pretrain.pth")
    pictures = load_images(images)
    with _hub_from_checkout(dino, backbone, patches):
        _write_adapter(cache)
        model, preprocess = dreamsim.dreamsim(pretrained=True, device="cpu", cache_dir=str(cache),
                                              normalize_embeds=True, dreamsim_type="dino_vitb16")
    reference = {}
    with torch.no_grad():
        for name, image in pictures.items():
            x = preprocess(image)
            reference[name] = {"input": x, "embedding": model.embed(x)[0].float()}
    timm_file = workdir / "model.safetensors"
    save_file({k: v.contiguous() for k, v in backbone.items()}, str(timm_file))
    home = workdir / "home"
    import_checkpoint("vit_base_patch16_224.dino", timm_file, home)
    import_checkpoint("dreamsim-dino-vitb16", cache / "dino_vitb16_single_lora", home)
    from specialists.outputs import Embedding

    per_image, rows, pairs = [], [], []
    with our_solver("dreamsim", "dreamsim-dino-vitb16", home) as solver:
        embedder = solver.model
        ours = dict(zip(pictures, embedder(list(pictures.values()))))
        for name, image in pictures.items():
            pixels = embedder.preprocess(torch.from_numpy(np.asarray(image).copy()).permute(2, 0, 1)[None])
            mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
            std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
            per_image.append({"image": name, "embedding": dense_errors(ours[name].vector, reference[name]["embedding"]),
                              "input": dense_errors(pixels, (reference[name]["input"] - mean) / std)})
        for question in similarity_questions(list(pictures), pictures):
            names = [next(k for k, v in pictures.items() if v is image) for image in question.images]
            mine = solver.decide(question)
            other = solver.decision(question, [Embedding(reference[k]["embedding"]) for k in names])
            pairs.append((mine.pred, other.pred))
            rows.append({"question": question.idx, "images": names, "ours": mine.pred, "reference": other.pred,
                         "distance_ours": mine.details["dreamsim_distance"],
                         "distance_reference": other.details["dreamsim_distance"]})
    return {
        "reference": reference_version(),
        "dino_commit": checkout_commit(dino),
        "scope": f"DreamSim dino_vitb16 at full size (ViT-B/16, LoRA r 16), {len(pictures)} images",
        "patches": patches.applied,
        "images": list(pictures),
        "per_image": per_image,
        "dense": dense_of(per_image),
        "decisions": {**agreement(pairs), "questions": rows},
        "settings": {"lora": LORA, "seed": SEED, "weight_noise": WEIGHT_NOISE, "dreamsim_type": "dino_vitb16"},
        "notes": "Reference: dreamsim.dreamsim(pretrained=True, dreamsim_type='dino_vitb16') on local files, "
                 "model.embed(preprocess(image)). Dense: the 768-d embedding and the normalised 224x224 input.",
    }
