"""Ordinal shading v1 (compphoto/Intrinsic) beside our `ordinal_shading` specialist.

PATH (`--official ordinal_shading=PATH`) is a checkout of compphoto/Intrinsic at its v1 code
(the last commit before the v2 pipeline: `load_models(path)` reads one `final_weights.pt` with
`ord_state_dict` and `iid_state_dict`). Its dependencies are checkouts beside it, in PATH's
parent folder, under these names:

    chrislib                  github CCareaga/chrislib        (resize search, uninvert, brightness)
    MiDaS                     github CCareaga/MiDaS           (the `altered_midas` package)
    WSL-Images                github facebookresearch/WSL-Images        (torch.hub: ResNeXt-101)
    gen-efficientnet-pytorch  github rwightman/gen-efficientnet-pytorch (torch.hub: EfficientNet-Lite3)

The official networks are built by the official constructors (as `load_models` builds them),
given seeded random weights (batch-norm statistics set from one forward pass over a real image,
so the random nets give graded, unsaturated outputs), and saved as the release file is laid
out. Ours imports that file with `specialists checkpoints import ordinal-shading-v1` and runs
through the Relative_Reflectance solver. Both run `run_pipeline(resize_conf=0.0,
maintain_size=True)`'s path: the official one itself, ours by default settings.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import numpy as np
import torch
from PIL import Image

from benchmarks.parity.common import Patches, checkout_commit, dense_errors, official_code, worst

CHECKPOINT = "ordinal-shading-v1"
SEED = 0
# PARITY_ORDINAL_QUESTIONS=0 compares the layers only (each question runs both pipelines again on
# its inpainted scene: at full size, minutes each on two CPU cores)
QUESTIONS_PER_IMAGE = int(os.environ.get("PARITY_ORDINAL_QUESTIONS", 2))
# PARITY_ORDINAL_SPREAD=0 skips the official run against itself with another random half (the
# seeded random-half run of ours already shows how much of the gap the fit's draw makes)
SELF_SPREAD = os.environ.get("PARITY_ORDINAL_SPREAD", "1") != "0"
LAYERS = ("albedo", "shading")
SMALL_LONG_SIDE = 320  # the images after the first run at this long side (same networks)
# PARITY_ORDINAL_FULL=0 shrinks the first image too (a full-size run takes many minutes on CPU)
FULL_SIZE_FIRST = os.environ.get("PARITY_ORDINAL_FULL", "1") != "0"
FULL_SIZE_PREFERRED = "intrinsic_"  # the paper's own example image runs at full size when given
DEPENDENCIES = {  # folder beside the Intrinsic checkout -> (GitHub repository, top-level modules)
    "chrislib": ("CCareaga/chrislib", ("chrislib",)),
    "MiDaS": ("CCareaga/MiDaS", ("altered_midas",)),
    "WSL-Images": ("facebookresearch/WSL-Images", ()),
    "gen-efficientnet-pytorch": ("rwightman/gen-efficientnet-pytorch", ("geffnet",)),
}
NOTES = ("both networks gave identical outputs on the same input tensor (checked by hand, max abs 0.0); "
         "what remains is the official least-squares fit over a random half of the pixels "
         "(official_self_spread: the official run against itself with another draw); ours fits all "
         "(setting fit=random_half draws as the official)")
HUB_REPOS = {"facebookresearch/WSL-Images": "WSL-Images",
             "rwightman/gen-efficientnet-pytorch": "gen-efficientnet-pytorch"}


def _dependency(official: Path, name: str) -> Path:
    folder = official.absolute().parent / name
    if not folder.is_dir():
        repo = DEPENDENCIES[name][0]
        raise FileNotFoundError(f"{folder}: no checkout of {repo}; clone it beside {official} as {name}/")
    return folder


@contextlib.contextmanager
def official_pipeline(official: Path, patches: Patches) -> Iterator[dict]:
    """The official modules importable, torch.hub pointed at the local checkouts, and the
    ImageNet download of the WSL hub entry replaced by a freshly built network's own weights
    (the stand-in weights overwrite them anyway). Yields {"load_models", "run_pipeline", ...}."""
    hub_dirs = {repo: _dependency(official, folder) for repo, folder in HUB_REPOS.items()}
    real_load = torch.hub.load

    def local_hub(repo, model, *args, **kwargs):
        if repo not in hub_dirs:
            raise RuntimeError(f"torch.hub.load({repo!r}): no local checkout for it")
        kwargs.pop("source", None)
        return real_load(str(hub_dirs[repo]), model, *args, source="local", **kwargs)

    def no_download(url, *args, **kwargs):
        from torchvision.models.resnet import Bottleneck, ResNet

        if "ig_resnext101_32x8" not in url:
            raise RuntimeError(f"parity runs offline; the official code asked for {url}")
        return ResNet(Bottleneck, [3, 4, 23, 3], groups=32, width_per_group=8).state_dict()

    with contextlib.ExitStack() as stack:
        stack.enter_context(official_code(official, "intrinsic"))
        for folder in ("chrislib", "MiDaS"):
            stack.enter_context(official_code(_dependency(official, folder), *DEPENDENCIES[folder][1]))
        stack.enter_context(official_code(_dependency(official, "gen-efficientnet-pytorch"), "geffnet"))
        stack.enter_context(patches.attribute(torch.hub, "load", local_hub,
                                              "hub repos loaded from the local checkouts (source='local')"))
        stack.enter_context(patches.attribute(torch.hub, "load_state_dict_from_url", no_download,
                                              "WSL-Images' ImageNet download replaced by a built ResNeXt-101's "
                                              "own random weights (overwritten by the stand-in weights)"))
        from altered_midas.midas_net import MidasNet
        from altered_midas.midas_net_custom import MidasNet_small
        from chrislib.general import uninvert
        from intrinsic.model_util import load_models
        from intrinsic.pipeline import run_pipeline

        yield {"load_models": load_models, "run_pipeline": run_pipeline, "uninvert": uninvert,
               "MidasNet": MidasNet, "MidasNet_small": MidasNet_small}


def _calibrate(net: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Batch-norm statistics from one forward pass over x (cumulative average = this batch);
    returns the net's output in eval mode."""
    for module in net.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.reset_running_stats()
            module.momentum = None
    net.train()
    with torch.no_grad():
        net(x)
        net.eval()
        return net(x)


def make_release_file(official: dict, path: Path, calibration: np.ndarray) -> None:
    """Seeded random weights for the official networks, saved as final_weights.pt is laid out:
    one torch.save'd dict {"ord_state_dict", "iid_state_dict"} of float32 CPU tensors."""
    torch.manual_seed(SEED)
    ordinal = official["MidasNet"]()
    intrinsic = official["MidasNet_small"](exportable=False, input_channels=5, output_channels=1)
    linear = torch.from_numpy(np.ascontiguousarray(calibration ** 2.2)).permute(2, 0, 1)[None].float()
    ordinal_out = _calibrate(ordinal, linear)
    _calibrate(intrinsic, torch.cat((linear, ordinal_out, ordinal_out), 1))
    for module in list(ordinal.modules()) + list(intrinsic.modules()):
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.momentum = 0.1  # the constructors' value; it is not part of the state dict
    torch.save({"ord_state_dict": ordinal.state_dict(), "iid_state_dict": intrinsic.state_dict()}, path)


def _calibration_image(image: Path) -> np.ndarray:
    """(H, W, 3) float in [0, 1], sides multiples of 32 (a 384 px version of the first photograph)."""
    pil = Image.open(image).convert("RGB")
    scale = 384 / max(pil.size)
    size = (32 * max(1, round(pil.width * scale / 32)), 32 * max(1, round(pil.height * scale / 32)))
    return np.asarray(pil.resize(size, Image.BICUBIC), dtype=np.float32) / 255.0


def import_ours(path: Path, home: Path) -> str:
    """`specialists checkpoints import ordinal-shading-v1 FILE` into `home`; returns its output."""
    env = {**os.environ, "SPECIALISTS_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "specialists", "checkpoints", "import", CHECKPOINT, str(path)],
                          capture_output=True, text=True, env=env, timeout=600)
    if done.returncode:
        raise RuntimeError(f"checkpoint import failed: {done.stdout}{done.stderr}")
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def _rgb(image: Image.Image) -> np.ndarray:
    """What chrislib's load_image gives for an 8-bit RGB image: float32 in [0, 1]."""
    return np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0


def run_official(official: dict, models: dict, image: Image.Image, seed: int = SEED) -> dict[str, np.ndarray]:
    """The README's inference: run_pipeline(models, image, resize_conf=0.0, maintain_size=True) on
    CPU; shading = uninvert(inv_shading). The least-squares fit inside uses a random half of the
    pixels (numpy's global generator): seeded here so a run repeats."""
    np.random.seed(seed)
    result = official["run_pipeline"](models, _rgb(image), resize_conf=0.0, maintain_size=True, device="cpu")
    return {"albedo": np.asarray(result["albedo"], dtype=np.float64),
            "shading": np.asarray(official["uninvert"](result["inv_shading"]), dtype=np.float64)}


def run_ours(solver, image: Image.Image) -> dict[str, np.ndarray]:
    (layers,) = solver.model([image])
    return {"albedo": layers.albedo.permute(1, 2, 0).double().numpy(), "shading": layers.shading.double().numpy()}


def _points(rng: np.random.Generator, width: int, height: int) -> dict[str, tuple[float, float]]:
    """Two points at least 40 px apart and 30 px inside the image (BLINK's Relative_Reflectance)."""
    margin = 30
    while True:
        a, b = (rng.uniform((margin, margin), (width - margin, height - margin)) for _ in range(2))
        if np.hypot(*(a - b)) >= 40:
            return {"A": (float(a[0]), float(a[1])), "B": (float(b[0]), float(b[1]))}


def make_question(image: Image.Image, points: dict, idx: str):
    """A BLINK-layout Relative_Reflectance question: white rings and label boxes drawn on the photo."""
    from adapters.core.questions import MCQuestion, QuestionSource
    from adapters.markers.blink.draw import BlinkStyle, draw_blink_points
    from adapters.markers.labels import ring_colour

    style = BlinkStyle.for_image(image.width, image.height, ring_colour("Relative_Reflectance"))
    drawn, _ = draw_blink_points(image.convert("RGB"), points, style)
    return MCQuestion(idx=idx, task="Relative_Reflectance", prompt="", gold=None,
                      question="Which point has darker surface color, or the colors is about the same?",
                      choices=("A is darker", "B is darker", "About the same"),
                      source=QuestionSource("parity", "val"), _images=[drawn])


def decide_both(question, solver, official: dict, models: dict) -> tuple[str, str, dict]:
    """Our solver's answer, and the same IIW rule on the official albedo of the same inpainted scene."""
    from adapters.rules.points import scene_image
    from adapters.rules.reflectance import reflectance_decision
    from specialists.outputs import IntrinsicLayers

    ours = solver.decide(question)
    theirs = run_official(official, models, scene_image(question, 0))
    layers = IntrinsicLayers(albedo=torch.from_numpy(theirs["albedo"]).permute(2, 0, 1).float(),
                             shading=torch.from_numpy(theirs["shading"]).float())
    official_decision = reflectance_decision(question, layers, ours.rule, measure=solver.settings["measure"])
    return ours.pred, official_decision.pred, {
        "reflectance_ours": ours.details["albedo_reflectance"],
        "reflectance_official": official_decision.details["albedo_reflectance"]}


def _order(images: list[Path]) -> list[Path]:
    """The paper's own example first (it runs at full size), then the rest in the given order."""
    preferred = [p for p in images if p.name.startswith(FULL_SIZE_PREFERRED)]
    return preferred[:1] + [p for p in images if p not in preferred[:1]]


def _shrunk(image: Image.Image) -> Image.Image:
    scale = SMALL_LONG_SIDE / max(image.size)
    return image.resize((round(image.width * scale), round(image.height * scale)), Image.BICUBIC) if scale < 1 else image


def dense_of(per_image: list[dict]) -> dict:
    """The family's figures: the worst image's, per layer, of ours at its default fit; and of
    ours drawing the official's random half, where that ran."""
    default = [entry for entry in per_image if "fit" not in entry]
    dense = {layer: worst([entry[layer] for entry in default]) for layer in LAYERS}
    seeded = [entry for entry in per_image if "fit" in entry]
    if seeded:
        dense["random_half_seeded"] = {layer: worst([entry[layer] for entry in seeded]) for layer in LAYERS}
    return dense


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    official = Path(official)
    patches = Patches()
    images = _order(images)
    home = workdir / "home"
    weights = workdir / "final_weights.pt"
    rng = np.random.default_rng(SEED)
    per_image, decisions, sizes, spreads = [], [], {}, {}
    with official_pipeline(official, patches) as code:
        make_release_file(code, weights, _calibration_image(images[0]))
        imported = import_ours(weights, home)
        models = code["load_models"](str(weights), device="cpu")
        os.environ["SPECIALISTS_HOME"] = str(home)
        from adapters.core.registry import get
        from adapters.core.solver import SolverOptions

        solver = get("ordinal_shading").build(SolverOptions(checkpoint=CHECKPOINT))
        half_solver = None
        for i, path in enumerate(images):
            image = Image.open(path).convert("RGB")
            full = i == 0 and FULL_SIZE_FIRST
            if not full:
                image = _shrunk(image)
            size = f"{image.width}x{image.height}"
            sizes[path.name] = size + (" (full size)" if full else " (shrunk)")
            theirs, ours = run_official(code, models, image), run_ours(solver, image)
            per_image.append({"image": path.name, "size": size,
                              **{layer: dense_errors(ours[layer], theirs[layer]) for layer in LAYERS}})
            if i == 0 and SELF_SPREAD:  # the official run against itself with another random half in its fit
                again = run_official(code, models, image, seed=SEED + 1)
                spreads[f"{path.name} {size}"] = {layer: dense_errors(again[layer], theirs[layer]) for layer in LAYERS}
            if i == 0:  # ours with the official's fit, drawing the same random half (numpy seeded alike)
                half_solver = half_solver or get("ordinal_shading").build(
                    SolverOptions(checkpoint=CHECKPOINT, settings={"fit": "random_half"}))
                np.random.seed(SEED)
                half = run_ours(half_solver, image)
                per_image.append({"image": path.name, "size": size, "fit": "random_half, numpy seeded as the official",
                                  **{layer: dense_errors(half[layer], theirs[layer]) for layer in LAYERS}})
            for q in range(QUESTIONS_PER_IMAGE):
                question = make_question(image, _points(rng, image.width, image.height), f"{path.stem}-{size}-{q}")
                ours_pred, official_pred, details = decide_both(question, solver, code, models)
                decisions.append({"question": question.idx, "ours": ours_pred, "official": official_pred, **details})
            print(f"  {path.name}: {per_image[-1]}", file=sys.stderr, flush=True)
    agree = sum(d["ours"] == d["official"] for d in decisions)
    return {
        "checkpoint": CHECKPOINT, "import": imported, "patches": patches.applied,
        "official_dependencies": {name: checkout_commit(_dependency(official, name)) for name in DEPENDENCIES},
        "settings": {"official": "run_pipeline(resize_conf=0.0, maintain_size=True, device='cpu'), lstsq_p=0.0",
                     "ours": dict(solver.settings), "seed": SEED},
        "scope": f"{', '.join(f'{k} at {v}' for k, v in sizes.items())}",
        "images": [p.name for p in images], "sizes": sizes, "per_image": per_image, "dense": dense_of(per_image),
        "official_self_spread": spreads,
        "notes": NOTES,
        "decisions": {"n": len(decisions), "agree": agree, "agreement": agree / len(decisions) if decisions else None,
                      "questions": decisions},
    }
