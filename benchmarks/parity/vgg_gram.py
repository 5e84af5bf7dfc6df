"""VGG-19 Gram matrices (Art_Style) beside torchvision's VGG-19 and the published Gram recipe.

Reference: `torchvision.models.vgg19()` loaded from the release file with `load_state_dict`, its
relu1_1, relu2_1, relu3_1 and relu4_1 outputs taken by name with torchvision's
`create_feature_extractor` (features.1, .6, .11, .20), each Gram computed as PyTorch's neural
style tutorial does (F F^T / (b c h w)), on torchvision's transforms: `Resize(None, max_size=256,
bicubic)` (the long side to 256), ToTensor, ImageNet normalisation. Ours: the `vgg_gram` solver.

The release file is `vgg19-dcbb9e9d.pth` as torchvision publishes it (a plain fp32 state dict of
the whole network, classifier included) with torchvision's own seeded initialisation. The store
checks that file name's hash prefix (dcbb9e9d), which random weights cannot carry, so ours loads
it through the solver's `build_real` (what the solver runs after `specialists checkpoints
import`) after the importer's own format check (`vgg19_state_dict`). Decisions: BLINK-layout
Art_Style questions (image i the reference, i+1 and i+2 the options), our Gram-distance rule on
each side's Grams.
"""

from __future__ import annotations

from pathlib import Path

import torch

from benchmarks.parity.common import dense_errors, worst
from benchmarks.parity.published_pipelines import agreement, load_images, package_version, similarity_questions

SEED = 0
NODES = {"features.1": "relu1_1", "features.6": "relu2_1", "features.11": "relu3_1", "features.20": "relu4_1"}
LONG_SIDE = 256


def reference_version() -> str:
    return package_version("torchvision")


def write_release_file(path: Path, seed: int = SEED) -> Path:
    from torchvision.models import vgg19

    torch.manual_seed(seed)
    torch.save(vgg19(weights=None).state_dict(), path)
    return path


class Reference:
    def __init__(self, path: Path) -> None:
        from torchvision.models import vgg19
        from torchvision.models.feature_extraction import create_feature_extractor
        from torchvision.transforms import v2

        model = vgg19(weights=None)
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        self.extractor = create_feature_extractor(model.eval(), return_nodes=NODES)
        self.transform = v2.Compose([
            v2.Resize(size=None, max_size=LONG_SIDE, interpolation=v2.InterpolationMode.BICUBIC), v2.PILToTensor(),
            v2.ToDtype(torch.float32, scale=True), v2.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

    @staticmethod
    def gram(features: torch.Tensor) -> torch.Tensor:
        b, c, h, w = features.shape
        flat = features.reshape(b * c, h * w)
        return flat @ flat.T / (b * c * h * w)

    @torch.no_grad()
    def __call__(self, image):
        from specialists.style_gram import StyleGrams

        x = self.transform(image)[None]
        return x, StyleGrams({name: self.gram(f) for name, f in self.extractor(x).items()})


def dense_of(per_image: list[dict]) -> dict:
    return {key: worst([e[key] for e in per_image]) for key in ("input", *NODES.values())}


def compare(official: Path, images: list[Path], n: int, workdir: Path) -> dict:
    from adapters.core.registry import get
    from adapters.core.solver import SolverOptions
    from checkpoints.convert.vgg import vgg19_state_dict

    release = write_release_file(workdir / "vgg19-dcbb9e9d.pth")
    vgg19_state_dict(release)  # the importer's check of the layout
    reference = Reference(release)
    solver = get("vgg_gram").build(SolverOptions(checkpoint="tiny-random"))
    solver.model = solver.build_real(release)  # what an imported vgg19.tv_in1k loads through
    pictures = load_images(images)
    ours = dict(zip(pictures, solver.model(list(pictures.values()))))
    theirs, per_image = {}, []
    for name, image in pictures.items():
        x, theirs[name] = reference(image)
        mine = solver.model._tensor(image)
        per_image.append({"image": name, "input": dense_errors(mine, x) if mine.shape == x.shape else
                          {"max_abs": float("inf"), "max_rel": float("inf"), "median_rel": float("inf")},
                          "input_size_ours": list(mine.shape[-2:]), "input_size_reference": list(x.shape[-2:]),
                          **{layer: dense_errors(ours[name].grams[layer], theirs[name].grams[layer])
                             for layer in NODES.values()}})
    rows, pairs = [], []
    for question in similarity_questions(list(pictures), pictures, task="Art_Style"):
        names = [next(k for k, v in pictures.items() if v is image) for image in question.images]
        mine = solver.decide(question)
        other = solver.decision(question, [theirs[k] for k in names])
        pairs.append((mine.pred, other.pred))
        rows.append({"question": question.idx, "images": names, "ours": mine.pred, "reference": other.pred,
                     "distance_ours": mine.details["gram_distance"], "distance_reference": other.details["gram_distance"]})
    return {
        "reference": reference_version(),
        "scope": f"VGG-19 at full size (torchvision's layout), {len(pictures)} images at long side {LONG_SIDE}",
        "patches": [],
        "import": "store import refused by design (hash prefix dcbb9e9d of the published file name); the file "
                  "passed the importer's layout check and loaded through the solver's build_real",
        "images": list(pictures),
        "per_image": per_image,
        "dense": dense_of(per_image),
        "decisions": {**agreement(pairs), "questions": rows},
        "settings": {"nodes": NODES, "long_side": LONG_SIDE, "seed": SEED},
        "notes": "Reference: torchvision vgg19 + create_feature_extractor at the four ReLUs + the tutorial's "
                 "Gram, on v2.Resize(None, max_size=256, bicubic) + ToTensor + ImageNet normalisation.",
    }
