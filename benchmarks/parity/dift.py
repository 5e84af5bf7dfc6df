"""DIFT beside Tsingularity/dift: SD 2.1's UNet and VAE features at the paper's settings.

One SD 2.1 pipeline folder with seeded random weights (`sd21_layout`) is imported as our
`sd-2-1` (`specialists checkpoints import --link`) and given to the official `SDFeaturizer4Eval`
(the featurizer of eval_spair.py / eval_hpatches.py, which also does its own PIL resize) as its
`sd_id`, a local folder, so nothing is downloaded. Ours runs as the solver builds it
(`get("dift").build(SolverOptions(checkpoint="sd-2-1"))`), through the batched engine.

The noise. DIFT draws the VAE posterior sample and then the forward-process noise at t, each
(ensemble, 4, S/8, S/8), from torch's global generator. Ours draws the same two tensors, in the
same order and shapes, from a generator seeded with `image_seed(seed, model input)`. The
official side runs right after `torch.manual_seed(<that seed>)`, so on the CPU both sides draw
identical noise without touching the official code.

Settings: the first image at full size (768 x 768, ensemble 8) with both published presets
(semantic: t=261, up_ft_index 1, the paper's SPair-71k setting; geometric: t=0, up_ft_index 2,
its HPatches setting); every image at 256 x 256, ensemble 2, with both presets, same weights. Decisions: BLINK-layout correspondence
questions (REF on image 1, candidates A-D on image 2) on the real pairs, and on the first
image against its warp under a known homography (one candidate is REF's true image there),
each answered by our rule (`cosine_decision`) from each side's features.

Set DIFT_PARITY_WEIGHTS to a folder written earlier by `sd21_layout.write_sd21_folder` (seed 0)
to skip writing the 5.2 GB again. DIFT_PARITY_FULL_PRESETS names the presets run at full size
(default `semantic,geometric`; empty or DIFT_PARITY_FULL=0: none; on two shared CPU cores each
official 768 px, ensemble-8 pass takes about a quarter of an hour); DIFT_PARITY_SMALL=0 skips the
256 px runs and with them the decisions (for a full-size run merged into an earlier line with
`--merge`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from adapters.core.registry import get
from benchmarks.parity.common import Patches, dense_errors, official_code, worst
from benchmarks.parity.sd21_layout import write_sd21_folder

SEED = 0
FULL = (768, 8)  # (side, ensemble): the paper's
SMALL = (256, 2)
PRESETS = {"semantic": (261, 1), "geometric": (0, 2)}  # t, up_ft_index (the two published settings)
# Real pairs among the shared photographs: the same object or scene in both.
PAIRS = [("dift_cat", "dift_target_cat"), ("dift_guitar_cat", "dift_painting_cat"),
         ("lightglue_sacre_coeur1", "lightglue_sacre_coeur2"), ("lightglue_DSC_0410", "lightglue_DSC_0411")]
QUESTIONS_PER_PAIR = 4
LETTERS = ("A", "B", "C", "D")


def _full_presets() -> list[str]:
    if os.environ.get("DIFT_PARITY_FULL", "1") == "0":
        return []
    names = [p.strip() for p in os.environ.get("DIFT_PARITY_FULL_PRESETS", ",".join(PRESETS)).split(",") if p.strip()]
    unknown = [p for p in names if p not in PRESETS]
    if unknown:
        raise ValueError(f"DIFT_PARITY_FULL_PRESETS={','.join(names)}: unknown {unknown}; choose from {list(PRESETS)}")
    return names


def dense_of(per_image: list[dict]) -> dict:
    """The family's figure: the worst run's, per measure."""
    return worst([{k: v for k, v in e.items() if k.startswith(("max", "median"))} for e in per_image])


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    folder = Path(os.environ["DIFT_PARITY_WEIGHTS"]) if os.environ.get("DIFT_PARITY_WEIGHTS") else \
        write_sd21_folder(workdir / "sd-2-1", SEED)
    pictures = {path.stem: Image.open(path).convert("RGB") for path in images}
    first = images[0].stem
    warped, homography = _warp(pictures[first])
    pictures[f"{first}_warped"] = warped
    full_presets = _full_presets()
    small = os.environ.get("DIFT_PARITY_SMALL", "1") != "0"
    full = [(first, preset, *FULL) for preset in full_presets]
    runs = full + ([(name, preset, *SMALL) for name in pictures for preset in PRESETS] if small else [])
    if not small:  # the warped copy serves only the 256 px questions
        del pictures[f"{first}_warped"]

    patches = Patches()
    theirs = _official_features(official, folder, pictures, runs, patches)
    ours = _our_features(folder, pictures, runs, workdir)

    per_image = [{"image": name, "preset": preset, "size": size, "ensemble": ensemble,
                  **dense_errors(ours[name, preset, size], theirs[name, preset, size])}
                 for name, preset, size, ensemble in runs]
    decisions = _decisions(_questions(pictures, first, homography), pictures, ours, theirs) if small else None
    sizes = {"full": [{"image": first, "side": FULL[0], "ensemble": FULL[1], "preset": p} for p in full_presets]}
    if small:
        sizes["small"] = {"side": SMALL[0], "ensemble": SMALL[1], "presets": list(PRESETS)}
    return {
        "scope": f"full size ({FULL[0]} px, ensemble {FULL[1]}): {', '.join(full_presets) or 'none'}; "
                 f"{SMALL[0]} px: {'every image, both presets' if small else 'not run'}",
        "patches": patches.applied,
        "images": list(pictures),
        "sizes": sizes,
        "settings": {"presets": {k: {"t": t, "up_ft_index": i} for k, (t, i) in PRESETS.items()}, "seed": SEED,
                     "prompt": "", "weights": "SD 2.1 layout, seeded random, float32"},
        "per_image": per_image,
        "dense": dense_of(per_image),
        "decisions": decisions,
        "notes": "Official SDFeaturizer4Eval (PIL resize, ensemble copies through the VAE, attention slicing) vs "
                 "ours through the solver's engine; the same noise on both sides (global generator seeded "
                 "with our per-image seed before each official call). Dense = the up_ft_index map.",
    }


def _model_input_seed(image: Image.Image, size: int) -> int:
    """The seed ours draws an image's noise from: the run seed and the image as the model sees it."""
    from specialists.dift import engine_preprocess, image_seed

    pixels = torch.from_numpy(np.asarray(image).copy()).permute(2, 0, 1)[None]
    return image_seed(SEED, engine_preprocess(size)(pixels)[0])


@contextlib.contextmanager
def _official_on_cpu(patches: Patches):
    """The official featurizer assumes CUDA (and xformers) and imports the UNet from its pre-0.25
    diffusers path; each is patched here for the duration, nothing else."""
    import diffusers.models.unets.unet_2d_condition as unet_module
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import StableDiffusionPipeline

    to, randn = StableDiffusionPipeline.to, torch.randn

    def encode_prompt(self, *args, **kwargs):  # what _encode_prompt returned before diffusers 0.22 without CFG
        return self.encode_prompt(*args, **{**kwargs, "device": "cpu"})[0]

    with contextlib.ExitStack() as stack:
        stack.enter_context(patches.module("diffusers.models.unet_2d_condition", unet_module,
                                           "the UNet module's pre-0.25 diffusers path (moved to models.unets)"))
        stack.enter_context(patches.attribute(StableDiffusionPipeline, "to", lambda self, *a, **k: to(self, "cpu"),
                                              "pipe.to('cuda') -> cpu"))
        stack.enter_context(patches.attribute(
            StableDiffusionPipeline, "_encode_prompt", encode_prompt,
            "_encode_prompt(device='cuda') -> encode_prompt(device='cpu')[0]: its pre-0.22 result without "
            "guidance (today's _encode_prompt concatenates a None negative)"))
        stack.enter_context(patches.attribute(
            StableDiffusionPipeline, "enable_xformers_memory_efficient_attention", lambda self, *a, **k: None,
            "xformers (CUDA only) off: diffusers' default attention"))
        stack.enter_context(patches.attribute(torch.Tensor, "cuda", lambda self, *a, **k: self,
                                              "tensor.cuda() -> stays on the cpu"))
        stack.enter_context(patches.attribute(
            torch, "randn_like", lambda x, **k: randn(x.shape, dtype=x.dtype, device=x.device),
            "forward noise torch.randn_like(latents) -> torch.randn(latents.shape): the same global generator, "
            "drawn in logical order (the CPU VAE hands back channels_last latents, which randn_like fills in "
            "memory order: other, equally Gaussian numbers than ours draws)"))
        yield


def _official_features(official: Path, folder: Path, pictures: dict, runs: list, patches: Patches) -> dict:
    features = {}
    with official_code(official, "src"), _official_on_cpu(patches):
        from src.models.dift_sd import SDFeaturizer4Eval

        featurizer = SDFeaturizer4Eval(sd_id=str(folder))
        slicing = patches.attribute(featurizer.pipe.vae, "use_slicing", True,
                                    "VAE encodes the ensemble copies one at a time (memory: eight 768 px copies "
                                    "at once need over 10 GB on the CPU; the copies are identical)")
        with slicing:
            _official_runs(featurizer, pictures, runs, features)
        del featurizer
    gc.collect()
    return features


def _official_runs(featurizer, pictures: dict, runs: list, features: dict) -> None:
    for name, preset, size, ensemble in runs:
        t, up_ft_index = PRESETS[preset]
        torch.manual_seed(_model_input_seed(pictures[name], size))
        map_ = featurizer.forward(pictures[name], img_size=[size, size], t=t, up_ft_index=up_ft_index,
                                  ensemble_size=ensemble)
        features[name, preset, size] = map_[0].float()
        print(f"official {name} {preset} {size}: {tuple(map_.shape)}", file=sys.stderr, flush=True)


def _our_features(folder: Path, pictures: dict, runs: list, workdir: Path) -> dict:
    from adapters.core.solver import SolverOptions
    from specialists.dift import DiftPreset

    env = {**os.environ, "SPECIALISTS_HOME": str(workdir / "home")}
    subprocess.run([sys.executable, "-m", "specialists", "checkpoints", "import", "--link", "sd-2-1", str(folder)],
                   env=env, check=True)
    old_home = os.environ.get("SPECIALISTS_HOME")
    os.environ["SPECIALISTS_HOME"] = env["SPECIALISTS_HOME"]
    try:
        model = get("dift").build(SolverOptions(checkpoint="sd-2-1", seed=SEED, batch_size=1)).model
    finally:
        os.environ.pop("SPECIALISTS_HOME") if old_home is None else os.environ.update(SPECIALISTS_HOME=old_home)
    features = {}
    for name, preset, size, ensemble in runs:
        t, up_ft_index = PRESETS[preset]
        (map_,) = model([pictures[name]], DiftPreset(size, t, up_ft_index, ensemble), seed=SEED)
        features[name, preset, size] = map_.features.float()
    return features


def _warp(image: Image.Image) -> tuple[Image.Image, np.ndarray]:
    """The image under a fixed mild homography (a rotation, scale and some perspective)."""
    import cv2

    w, h = image.size
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    moved = (corners + np.float32([[0.06, 0.04], [-0.05, 0.08], [-0.08, -0.05], [0.04, -0.06]]) * [w, h]).astype(np.float32)
    homography = cv2.getPerspectiveTransform(corners, moved)
    return Image.fromarray(cv2.warpPerspective(np.asarray(image), homography, (w, h))), homography


def _questions(pictures: dict, first: str, homography: np.ndarray) -> list[dict]:
    """REF on the source, A-D on the target; on the warped pair one candidate is REF's true image."""
    rng = np.random.default_rng(SEED)
    pairs = [(a, b, None) for a, b in PAIRS if a in pictures and b in pictures]
    pairs.append((first, f"{first}_warped", homography))
    questions = []
    for source, target, h in pairs:
        (sw, sh), (tw, th) = pictures[source].size, pictures[target].size
        for _ in range(QUESTIONS_PER_PAIR):
            ref = rng.uniform([0.2 * sw, 0.2 * sh], [0.8 * sw, 0.8 * sh])
            points = rng.uniform([0.1 * tw, 0.1 * th], [0.9 * tw, 0.9 * th], size=(4, 2))
            if h is not None:
                true = h @ np.array([*ref, 1.0])
                points[rng.integers(4)] = true[:2] / true[2]
            questions.append({"source": source, "target": target, "ref": tuple(ref.tolist()),
                              "candidates": {letter: tuple(p.tolist()) for letter, p in zip(LETTERS, points)}})
    return questions


def _decisions(questions: list[dict], pictures: dict, ours: dict, theirs: dict) -> dict:
    from adapters.rules.dift_correspondence import DiftCorrespondence, cosine_decision
    from specialists.outputs import FeatureMap

    def decide(features: dict, q: dict, preset: str):
        size = lambda name: (pictures[name].height, pictures[name].width)  # noqa: E731
        source = FeatureMap(features[q["source"], preset, SMALL[0]], size(q["source"]))
        target = FeatureMap(features[q["target"], preset, SMALL[0]], size(q["target"]))
        return cosine_decision(source, target, q["ref"], q["candidates"], {k: k for k in LETTERS},
                               DiftCorrespondence.rule)

    agree, total, smallest_margin, flips = 0, 0, float("inf"), []
    for q in questions:
        for preset in PRESETS:
            a, b = decide(ours, q, preset), decide(theirs, q, preset)
            total += 1
            agree += a.pred == b.pred
            scores = sorted(b.scores.values(), reverse=True)
            smallest_margin = min(smallest_margin, scores[0] - scores[1])
            if a.pred != b.pred:
                flips.append({"pair": [q["source"], q["target"]], "preset": preset, "ours": a.pred,
                              "official": b.pred})
    return {"n": total, "agree": agree, "agreement": agree / total if total else None,
            "smallest_official_margin": smallest_margin, "flips": flips,
            "questions": f"{QUESTIONS_PER_PAIR} per pair and preset, at {SMALL[0]} px"}
