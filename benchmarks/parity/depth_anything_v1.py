"""Depth Anything v1 (LiheYoung/Depth-Anything) beside ours, and the machinery v2 shares.

The official model is built with seeded random weights from the checkout's own classes, saved
as its release file (a plain fp32 state dict named depth_anything_vit{s,l}14.pth), imported with
`specialists checkpoints import`, and loaded by our solver from there. Both sides then see the
same BLINK-layout Relative_Depth question per image (two points drawn as BLINK draws them): the
official inference path runs on the scene our solver feeds its model (markers inpainted, written
losslessly and read back with cv2.imread as run.py reads images), and our solver decides the
question end to end. Dense errors compare the two disparity maps at the image's size.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import torch

from adapters.core.registry import get
from benchmarks.parity.common import Patches, dense_errors, official_code, specialists_home, worst

REPO = Path(__file__).resolve().parents[2]
SIZES = {  # encoder: (features, out_channels), as the official model_configs
    "vits": (64, [48, 96, 192, 384]),
    "vitl": (256, [256, 512, 1024, 1024]),
}
NAMES = {"vits": "small", "vitl": "large"}
SEED = 0
WEIGHT_NOISE = 0.02  # added to every tensor so biases, norms and layer scales are not at their init constants


@dataclass
class Side:
    """One official variant: how to build it and run its inference path on an image file."""

    version: str
    encoder: str
    release_file: str
    build: Callable[[], torch.nn.Module]
    infer: Callable[[torch.nn.Module, Path], np.ndarray]


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def v1_side(checkout: Path, encoder: str) -> Side:
    """The official v1: DepthAnything(config) (its DINOv2 from the bundled torchhub folder) and
    run.py's inference lines (cv2.imread, /255, its Resize/NormalizeImage/PrepareForNet, bilinear
    back to the image size)."""
    features, out_channels = SIZES[encoder]

    def build() -> torch.nn.Module:
        with official_code(checkout, "depth_anything", "dinov2", "hubconf"), working_directory(checkout):
            from depth_anything.dpt import DepthAnything

            return DepthAnything({"encoder": encoder, "features": features, "out_channels": out_channels})

    def infer(model: torch.nn.Module, image_file: Path) -> np.ndarray:
        import cv2
        import torch.nn.functional as F
        from torchvision.transforms import Compose

        with official_code(checkout, "depth_anything"):
            from depth_anything.util.transform import NormalizeImage, PrepareForNet, Resize

            transform = Compose([
                Resize(width=518, height=518, resize_target=False, keep_aspect_ratio=True, ensure_multiple_of=14,
                       resize_method="lower_bound", image_interpolation_method=cv2.INTER_CUBIC),
                NormalizeImage(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
                PrepareForNet(),
            ])
        raw_image = cv2.imread(str(image_file))
        image = cv2.cvtColor(raw_image, cv2.COLOR_BGR2RGB) / 255.0
        h, w = image.shape[:2]
        image = torch.from_numpy(transform({"image": image})["image"]).unsqueeze(0)
        with torch.no_grad():
            depth = model(image)
        return F.interpolate(depth[None], (h, w), mode="bilinear", align_corners=False)[0, 0].numpy()

    return Side("v1", encoder, f"depth_anything_{encoder}14.pth", build, infer)


def seeded_model(build: Callable[[], torch.nn.Module]) -> torch.nn.Module:
    """The official initialisation under a fixed seed, every tensor then moved off its init
    constant (zero biases, unit norms and layer scales), and the last bias raised so that the
    final ReLU leaves a map that varies."""
    torch.manual_seed(SEED)
    model = build()
    generator = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for tensor in model.state_dict().values():
            if tensor.is_floating_point():
                tensor.add_(torch.randn(tensor.shape, generator=generator) * WEIGHT_NOISE)
        model.depth_head.scratch.output_conv2[2].bias.add_(1.0)
    return model.eval()


def import_release_file(name: str, file: Path, home: Path) -> None:
    """`specialists checkpoints import NAME FILE` into `home`, as a user would run it."""
    env = {**os.environ, "SPECIALISTS_HOME": str(home), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "specialists", "checkpoints", "import", name, str(file)],
                          capture_output=True, text=True, env=env, cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(f"checkpoints import {name} {file} failed: {done.stderr.strip() or done.stdout.strip()}")


def question_for(image_file: Path, index: int):
    """A BLINK-layout Relative_Depth question on the image: two points (A, B) drawn as BLINK
    draws them, at seeded places away from the border and from each other."""
    from PIL import Image

    from adapters.core.questions import MCQuestion, QuestionSource
    from adapters.markers.draw.render import draw_points

    image = Image.open(image_file).convert("RGB")
    width, height = image.size
    rng = np.random.default_rng(SEED + index)
    margin = 40
    while True:
        points = rng.uniform([margin, margin], [width - margin, height - margin], size=(2, 2))
        if np.hypot(*(points[0] - points[1])) >= min(width, height) / 4:
            break
    marked = {"A": tuple(map(float, points[0])), "B": tuple(map(float, points[1]))}
    return MCQuestion(
        idx=f"parity_{index}", task="Relative_Depth",
        prompt="Two points are circled on the image, labeled by A and B beside each circle. "
               "Which point is closer to the camera?",
        choices=("A is closer", "B is closer"), gold=None, source=QuestionSource("parity", "val"),
        markers={"image_1": marked}, _images=[draw_points(image, marked)],
    )


def full_size_index(images: list[Path]) -> int:
    """The first image that is not square: there the position-embedding grid is resized
    unevenly, which is where the two interpolation rules part."""
    from PIL import Image

    for i, path in enumerate(images):
        width, height = Image.open(path).size
        if abs(width - height) > 14:
            return i
    return 0


def compare_family(sides: dict[str, Side], small: str, large: str, images: list[Path], workdir: Path,
                   patches: Patches) -> dict:
    """Run `large` on the chosen full-size image and `small` on the rest; the line's body."""
    from PIL import Image

    from adapters.core.solver import SolverOptions
    from adapters.rules.depth import disparity_decision
    from adapters.rules.points import scene_image
    from specialists.outputs import DisparityMap

    home = workdir / "home"
    full = full_size_index(images)
    per_image, decisions, sizes = [], [], {}
    loaded: dict[str, tuple] = {}
    for i, image_file in enumerate(images):
        encoder = large if i == full else small
        side = sides[encoder]
        if encoder not in loaded:
            model = seeded_model(side.build)
            release = workdir / encoder / side.release_file
            release.parent.mkdir(parents=True)
            torch.save(model.state_dict(), release)
            name = f"depth-anything-{side.version}-{NAMES[encoder]}-pth"
            import_release_file(name, release, home)
            with specialists_home(home):
                ours = get("depth_anything").build(SolverOptions(checkpoint=name, batch_size=1))
            loaded[encoder] = (model, ours, name)
        model, ours, name = loaded[encoder]
        question = question_for(image_file, i)
        scene = workdir / f"scene_{i}.png"
        scene_image(question, 0).save(scene)  # what our solver feeds its model, lossless for cv2
        official_map = side.infer(model, scene)
        (our_map,) = ours.model([Image.open(scene).convert("RGB")])
        errors = dense_errors(our_map.disparity.numpy(), official_map)
        # random weights leave a map whose spread is small beside its level: also relative to the spread
        errors["range_rel"] = errors["max_abs"] / float(official_map.max() - official_map.min())
        (our_decision,) = ours.decide_batch([question])
        official_decision = disparity_decision(question, DisparityMap(torch.from_numpy(official_map)), "official")
        per_image.append({"image": image_file.name, "checkpoint": name, **errors,
                          "ours": our_decision.pred, "official": official_decision.pred,
                          "scores_ours": dict(our_decision.scores), "scores_official": dict(official_decision.scores)})
        decisions.append(our_decision.pred == official_decision.pred)
        sizes[image_file.name] = f"ViT-{encoder[-1].upper()} ({'full size' if encoder == large else 'smaller variant'})"
    return {
        "patches": patches.applied,
        "images": [p.name for p in images],
        "per_image": per_image,
        "dense": worst([{k: e[k] for k in ("max_abs", "max_rel", "median_rel", "range_rel")} for e in per_image]),
        "decisions": {"n": len(decisions), "agree": sum(decisions),
                      "agreement": sum(decisions) / len(decisions) if decisions else None},
        "sizes": sizes,
        "settings": {"resize": "lower_bound", "positions": "official", "input_size": 518,
                     "solver": "depth_anything (markers inpainted)", "weights": "seeded random, official init + noise",
                     "release_format": "plain fp32 state dict (.pth), imported and converted on load"},
    }


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    patches = Patches()
    patches.applied.append("cwd: the checkout while the model is built, as run.py is run from there (its "
                           "torch.hub.load names 'torchhub/facebookresearch_dinov2_main', source='local', "
                           "relative to the repository root)")
    sides = {encoder: v1_side(Path(official), encoder) for encoder in SIZES}
    line = compare_family(sides, "vits", "vitl", images, workdir, patches)
    line["notes"] = ("v1 run.py's inference path (cv2 float INTER_CUBIC, lower_bound 518, bilinear back) against "
                     "our solver on the official release-file layout; ViT-L at full size on one non-square image, "
                     "ViT-S on the rest")
    return line
