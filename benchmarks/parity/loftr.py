"""LoFTR outdoor: the official code (zju3dv/LoFTR, its single-pair demo's steps) beside ours
(kornia's port, `loftr_flow` through the solver API) on Multi-view_Reasoning questions built
from the image pairs among the photographs.

BLINK's authors published no specialist script, so "the paper's settings" are the official
single-pair demo's (notebooks/demo_single_pair.ipynb, outdoor): `cv2.imread(IMREAD_GRAYSCALE)`,
`cv2.resize` to sides cut to multiples of 8 (full size otherwise), / 255, the default config with
`temp_bug_fix=False` (what the released outdoor weights were trained with), match threshold 0.2.
Random weights leave no match above 0.2 on either side, so both sides also run at threshold 0:
every mutual nearest neighbour off the border (the threshold is one more condition on the same
test). Decisions: the same flow rule (sign of the mean horizontal displacement) on each side's
matches, for each pair in both orders and mirrored (mirrors saved as PNG, so both of the official
reader's grey paths run). The first question runs the photographs at full size; the others run
copies with the long side at SMALL_SIDE (same code and weights, a smaller input: a full-size
LoFTR pass takes minutes on two shared CPU cores).
"""

from __future__ import annotations

import contextlib
import copy
import io
import re
from pathlib import Path
from typing import Any

import cv2
import torch
from PIL import Image

from benchmarks.parity.common import Patches, dense_errors, official_code, specialists_home, worst

SEED = 0
THRESHOLDS = (0.2, 0.0)  # the released one; 0 keeps every mutual nearest neighbour
SMALL_SIDE = 320  # long side of the copies the questions after the first run on
SAME_PX = 1e-3  # two matches are the same match when all four coordinates agree this closely
PROMPT = ("The images are frames from a video. The video is shooting a static scene. The camera is either "
          "moving clockwise (left) or counter-clockwise (right) around the object. The first image is from "
          "the beginning of the video and the second image is from the end. Is the camera moving left or "
          "right when shooting the video?")


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    patches = Patches()
    official_model = _official_model(official, patches)
    weights = workdir / "outdoor_ds.ckpt"
    # the release file: {"state_dict": plain LoFTR keys}, float32 (the demo loads ["state_dict"] into LoFTR)
    torch.save({"state_dict": official_model.state_dict()}, weights)
    frames = _frames(image_pairs(images), workdir)
    frames = frames[:1] + [(_smaller(a, workdir), _smaller(b, workdir)) for a, b in frames[1:]]
    with specialists_home(workdir / "home"):
        from adapters.cli.main import main as cli

        with contextlib.redirect_stdout(io.StringIO()):  # stdout carries the parity line alone
            imported = cli(["checkpoints", "import", "loftr-outdoor", str(weights)])
        if imported != 0:
            raise RuntimeError(f"specialists checkpoints import loftr-outdoor {weights} failed")
        solver = _our_solver()
        hooks = _ConfMatrix(official_model), _ConfMatrix(solver.model.model)
        rows = [_compare_question(official_model, solver, hooks, i, pair) for i, pair in enumerate(frames)]
    by_thr = {str(thr): _summary([r[str(thr)] for r in rows]) for thr in THRESHOLDS}
    decided = by_thr[str(THRESHOLDS[-1])]["decisions"]
    return {
        "patches": patches.applied,
        "images": sorted({p.name for pair in image_pairs(images) for p in pair}),
        "per_image": [r["dense"] for r in rows],
        "dense": worst([r["dense"] for r in rows]),
        "coarse_features": worst([r["features"] for r in rows]),
        "decisions": decided,
        "by_threshold": by_thr,
        "questions": [{"frames": r["frames"], **{str(t): r[str(t)] for t in THRESHOLDS}} for r in rows],
        "sizes": _sizes(rows),
        "settings": {**solver.settings, "config": "official default_cfg, temp_bug_fix=False", "seed": SEED,
                     "thresholds": list(THRESHOLDS), "weights_file": "{'state_dict': plain keys}, float32"},
        "notes": ("dense = the coarse confidence matrix (dual softmax: exp(similarity / 0.1) turns the coarse "
                  "transformer's float32 noise, coarse_features, into about 1e-5 of the largest confidence) per "
                  "question; matches compared as sets "
                  f"(same when all four coordinates agree within {SAME_PX} px, in original pixels); decisions "
                  "from the flow rule on each side's matches at threshold 0 (at 0.2 random weights give no "
                  "match on either side, so both abstain)"),
    }


def image_pairs(images: list[Path]) -> list[tuple[Path, Path]]:
    """Frames of one scene: names that differ only in a trailing number (sacre_coeur1/2,
    DSC_0410/0411), in name order; consecutive images when none pair up that way."""
    groups: dict[str, list[Path]] = {}
    for path in sorted(images, key=lambda p: p.name):
        groups.setdefault(re.sub(r"\d+$", "", path.stem), []).append(path)
    pairs = [(g[0], g[1]) for g in groups.values() if len(g) >= 2]
    return pairs or list(zip(images[::2], images[1::2]))


def _official_model(official: Path, patches: Patches):
    import kornia.utils

    why = "the checkout imports kornia.utils.grid, which kornia 0.7+ folded into kornia.utils (same create_meshgrid)"
    with official_code(official, "src"), patches.module("kornia.utils.grid", kornia.utils, why):
        from src.loftr import LoFTR, default_cfg

        config = copy.deepcopy(default_cfg)
        assert config["coarse"]["temp_bug_fix"] is False  # what the outdoor release was trained with
        torch.manual_seed(SEED)
        return LoFTR(config=config).eval()


def _our_solver():
    from adapters.core.registry import get
    from adapters.core.solver import SolverOptions

    return get("loftr_flow").build(SolverOptions(checkpoint="loftr-outdoor"))


def _frames(pairs: list[tuple[Path, Path]], workdir: Path) -> list[tuple[Path, Path]]:
    """Each pair in both orders, and mirrored left-right (the answer flips each time)."""
    frames = []
    for a, b in pairs:
        ma, mb = _mirror(a, workdir), _mirror(b, workdir)
        frames += [(a, b), (b, a), (ma, mb), (mb, ma)]
    return frames


def _mirror(path: Path, workdir: Path) -> Path:
    out = workdir / f"{path.stem}_mirrored.png"
    if not out.exists():
        with Image.open(path) as image:
            image.convert("RGB").transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(out)
    return out


def _smaller(path: Path, workdir: Path) -> Path:
    """A copy with the long side at SMALL_SIDE, stored as the original is (JPEG at quality 95, or PNG)."""
    out = workdir / f"{path.stem}_{SMALL_SIDE}{path.suffix.lower()}"
    if not out.exists():
        with Image.open(path) as image:
            small = image.convert("RGB")
            small.thumbnail((SMALL_SIDE, SMALL_SIDE), Image.Resampling.LANCZOS)
            small.save(out, **({"quality": 95} if out.suffix in (".jpg", ".jpeg") else {}))
    return out


def _question(idx: str, pair: tuple[Path, Path]):
    from adapters.core.questions import MCQuestion, QuestionSource, decode_image

    def load() -> list[Image.Image]:
        return [decode_image(p.read_bytes(), idx=idx, column=f"image_{i + 1}") for i, p in enumerate(pair)]

    return MCQuestion(idx, "Multi-view_Reasoning", PROMPT, ("left", "right"), None, QuestionSource("parity", "val"),
                      _image_loader=load)


class _ConfMatrix:
    """Keeps the coarse transformer's features and the confidence matrix a LoFTR forward computes
    (both ports pass CoarseMatching a dict it fills in place)."""

    def __init__(self, model) -> None:
        self.value: torch.Tensor | None = None
        self.features: torch.Tensor | None = None
        model.coarse_matching.register_forward_hook(self._keep)
        model.loftr_coarse.register_forward_hook(self._keep_features)

    def _keep(self, module, args, output) -> None:
        self.value = args[2]["conf_matrix"].detach().clone()

    def _keep_features(self, module, args, output) -> None:
        self.features = torch.cat([f.flatten() for f in output]).detach().clone()


def _official_matches(model, pair: tuple[Path, Path], thr: float, conf: _ConfMatrix):
    """The demo's steps, on CPU: grey from the file, sides cut to multiples of 8, / 255."""
    from specialists.outputs import Matches

    batch, scales = {}, []
    for key, path in zip(("image0", "image1"), pair):
        raw = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        h, w = raw.shape
        raw = cv2.resize(raw, (w // 8 * 8, h // 8 * 8))
        batch[key] = torch.from_numpy(raw)[None][None] / 255.
        scales.append(torch.tensor([w / (w // 8 * 8), h / (h // 8 * 8)]))  # back to the file's pixels, as ours reports
    model.coarse_matching.thr = thr
    with torch.no_grad():
        model(batch)
    return Matches(batch["mkpts0_f"] * scales[0], batch["mkpts1_f"] * scales[1], batch["mconf"]), conf.value


def _compare_question(official_model, solver, hooks: tuple[_ConfMatrix, _ConfMatrix], i: int,
                      pair: tuple[Path, Path]) -> dict:
    from adapters.rules.multiview import flow_decision

    question = _question(f"parity_multiview_{i}", pair)
    row: dict[str, Any] = {"frames": [p.name for p in pair], "sizes": [list(im.size) for im in question.images]}
    for thr in THRESHOLDS:
        theirs, conf_theirs = _official_matches(official_model, pair, thr, hooks[0])
        solver.model.model.coarse_matching.thr = thr  # the same condition on our side
        (ours,) = solver.run_model([solver.model_input(question)])
        conf_ours = hooks[1].value
        decision_ours = solver.decision(question, ours)
        decision_theirs = flow_decision(question, theirs, solver.rule)
        row[str(thr)] = {**_match_agreement(ours, theirs), "pred_ours": decision_ours.pred,
                         "pred_official": decision_theirs.pred,
                         "mean_dx": [decision_ours.details.get("mean_dx_px"), decision_theirs.details.get("mean_dx_px")]}
        row["dense"] = dense_errors(conf_ours, conf_theirs)
        row["features"] = dense_errors(hooks[1].features, hooks[0].features)
    return row


def _match_agreement(ours, theirs) -> dict:
    a = torch.cat([ours.keypoints0, ours.keypoints1], 1).double()
    b = torch.cat([theirs.keypoints0, theirs.keypoints1], 1).double()
    out = {"matches": [len(a), len(b)]}
    if len(a) and len(b):
        gap = torch.cdist(b, a, p=float("inf"))
        out["same"] = int((gap.min(1).values <= SAME_PX).sum())
    else:
        out["same"] = 0
    out["same_fraction"] = out["same"] / max(len(a), len(b)) if max(len(a), len(b)) else 1.0
    if len(a) == len(b) and len(a):
        out["keypoints_max_abs"] = float((a - b).abs().max())
        out["confidence_max_abs"] = float((ours.confidence.double() - theirs.confidence.double()).abs().max())
    return out


def _summary(rows: list[dict]) -> dict:
    agree = sum(r["pred_ours"] == r["pred_official"] for r in rows)
    ours, theirs = sum(r["matches"][0] for r in rows), sum(r["matches"][1] for r in rows)
    return {"matches": [ours, theirs], "same": sum(r["same"] for r in rows),
            "same_fraction": sum(r["same"] for r in rows) / max(ours, theirs) if max(ours, theirs) else 1.0,
            "decisions": {"n": len(rows), "agree": agree, "agreement": agree / len(rows) if rows else None,
                          "abstained": sum(r["pred_ours"] is None for r in rows)}}


def _sizes(rows: list[dict]) -> dict:
    """name -> the image's [width, height], the network's (sides cut to multiples of 8), and
    whether it is the photograph at full size (the first question) or a smaller copy."""
    return {name: {"image": size, "network": [size[0] // 8 * 8, size[1] // 8 * 8], "full_size": i == 0}
            for i, r in enumerate(rows) for name, size in zip(r["frames"], r["sizes"])}
