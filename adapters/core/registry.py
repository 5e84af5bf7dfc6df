"""The one entry point to every specialist: name -> what it answers and how to build it.

Modelled on timm's registry: `register` a `SpecialistSpec`, `get` one by name (with "did you
mean"), ask which specialists serve a task. Later specialists register themselves in
`_builtin_specs` below.
"""

from __future__ import annotations

import difflib

from adapters.core.settings import Setting
from adapters.core.spec import SpecialistSpec
from adapters.core.tasks import ALL_TASK_NAMES, COMBO_TASKS, MARVEL_COUNT_TASKS


class UnknownSpecialistError(ValueError):
    pass


_REGISTRY: dict[str, SpecialistSpec] = {}
AVR_DEFAULTS = {"MARVEL_AVR": "avr_rules", "IQ_Test": "avr_rules", "MARVEL_Fine_Perception": "fine_perception"}
DETECTOR_TASKS = ("Counting", "Spatial_Relation", "Object_Localization", "CV_Bench_Count", "CV_Bench_Relation")
# The specialist a task uses when the user names none. On BLINK: the paper's (Table 2); on the
# synthetic benchmark (the embedded default, which must run without weights): the best
# weight-free one. Tasks missing here use `random`.
PAPER_DEFAULTS: dict[str, str] = {
    "Visual_Correspondence": "dift",
    "Semantic_Correspondence": "dift",
    "Functional_Correspondence": "dift",
    "Relative_Depth": "depth_anything",
    # the displacement rule: a public reproduction reached 92.48% on real val questions with it
    # (LoFTR outdoor);
    # the essential-matrix rule (`loftr`) has not been measured on real data
    "Multi-view_Reasoning": "loftr_flow",
    "Forensic_Detection": "dire",
    "Relative_Reflectance": "ordinal_shading",
    # tasks the paper ran no specialist on: ours
    "Jigsaw": "seam",
    "Visual_Similarity": "dinov2",  # DINOv2-S cosine: 82.96 in a public reproduction on real val
    "Art_Style": "vgg_gram",
    "Counting": "owlv2",
    "Spatial_Relation": "owlv2",
    "Object_Localization": "owlv2",
    **{task: "prototype" for task in COMBO_TASKS},  # ComBo's clustering & retrieval
    # MARVEL's panel counts, its AVR and fine-grained questions, BLINK's IQ_Test: weight-free
    # rules on the measured panels (BLINK-Twice has none: `random`, its expected score beside)
    **{task: "panel_count" for task in MARVEL_COUNT_TASKS},
    **AVR_DEFAULTS,
    # CV-Bench (whose runs take the weight-free defaults below; these are what its docs suggest with weights)
    "CV_Bench_Count": "owlv2",
    "CV_Bench_Relation": "marked_box_relation",
    "CV_Bench_Depth": "depth_anything_boxes",
    "CV_Bench_Distance": "depth_anything_boxes",
}
WEIGHT_FREE_DEFAULTS: dict[str, str] = {
    "Visual_Correspondence": "sift",
    "Multi-view_Reasoning": "essential",
    "Relative_Reflectance": "retinex",
    "Relative_Depth": "lower_is_closer",
    "Jigsaw": "seam",
    **{task: "panel_count" for task in MARVEL_COUNT_TASKS},
    **AVR_DEFAULTS,
    # CV-Bench: Count has no weight-free counter for photographs: `random`, its expectation beside
    "CV_Bench_Relation": "marked_box_relation",
    "CV_Bench_Depth": "box_bottom",
    "CV_Bench_Distance": "image_distance",
}


def register(spec: SpecialistSpec) -> SpecialistSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"specialist {spec.name!r} is registered twice")
    unknown = [t for t in spec.tasks if t not in ALL_TASK_NAMES]
    if unknown:
        raise ValueError(f"specialist {spec.name!r} names unknown tasks {unknown}")
    _REGISTRY[spec.name] = spec
    return spec


# --- named pipeline choices (adapters/core/settings.py): the default is the official pipeline's ------------

# The reflectance of a point: the WHDR reference (Bell et al. 2014, whdr.py) compares the mean of
# the linear RGB albedo; Rec. 709 luminance weighs green 0.72 and is the other common reading.
REFLECTANCE_MEASURE = Setting("measure", "mean_rgb", ("mean_rgb", "luminance"),
                              "WHDR's reference compares the mean of linear RGB albedo")
# The essential matrix needs 8 well-spread matches and a non-degenerate motion; when it fails
# the displacement rule still has the matches' direction to go on.
ESSENTIAL_FALLBACK = Setting("fallback", "flow", ("flow", "none"),
                             "when no essential matrix fits, answer by the mean horizontal displacement")
# LoFTR's input as the official single-pair demo builds it (BLINK's authors published no
# specialist script; the demo is the released way to run the outdoor weights on one pair).
LOFTR_SETTINGS = (
    Setting("size", "full", ("full", "840"),
            "official demo: full size, sides cut to multiples of 8 by cv2 bilinear (840: long side 840 as its "
            "MegaDepth test)"),
    Setting("grey", "cv2", ("cv2", "pil"),
            "official demo: cv2.imread IMREAD_GRAYSCALE (a JPEG's luma plane, libpng's weights for a PNG)"),
)
DEPTH_ANYTHING_SETTINGS = (
    Setting("resize", "lower_bound", ("lower_bound", "transformers"),
            "official v1 run.py (and v2): float pixels, cv2 bicubic, both sides at least 518, multiples of 14"),
    Setting("positions", "official", ("official", "transformers"),
            "official DINOv2: position grid resized by scale factor (side/14 + 0.1)/37, not to the token grid"),
)
ORDINAL_SHADING_SETTINGS = (
    Setting("resolution", "search", ("search", "long_side"),
            "official v1 pipeline: full size from the edge-density search (min(max(R0, long side), 1500))"),
    Setting("albedo", "network", ("network", "image"),
            "official: albedo = linear image / shading at network size, then resized with anti-aliasing"),
    Setting("fit", "all", ("all", "random_half"),
            "pixels fitting the base-to-full albedo scale: all (deterministic); the official code draws a random "
            "half from numpy's global generator on every call"),
    REFLECTANCE_MEASURE,
)
DETECTOR_BOXES = Setting("boxes", "as_published", ("as_published", "clipped"),
                         "boxes as transformers' post-processing gives them (OWLv2's may run into the square "
                         "padding below or right of the image); clipped: cut to the image before the rules")
OWLV2_SETTINGS = (
    Setting("threshold", "0.1", ("0.1", "0.05", "0.2", "0.3"),
            "Counting counts boxes scoring at least this (transformers' OWLv2 example uses 0.1; not tuned here: "
            "tuning needs the real weights)"),
    DETECTOR_BOXES,
)
GROUNDING_DINO_SETTINGS = (
    Setting("threshold", "0.35", ("0.35", "0.25", "0.3", "0.4"),
            "Counting counts boxes scoring at least this (Grounding DINO's published box threshold 0.35; not tuned here)"),
    Setting("box_score", "all_tokens", ("all_tokens", "phrase_tokens"),
            "a box's score: its best sigmoid over every caption token, [CLS], dots and [SEP] included (transformers' "
            "post-processing and the official demo), or only over the tokens of the phrase it is labelled with"),
    DETECTOR_BOXES,
)
# CV-Bench's Depth and Distance read Depth Anything's map inside each marked box
DEPTH_ANYTHING_BOX_SETTINGS = DEPTH_ANYTHING_SETTINGS + (
    Setting("statistic", "centre_median", ("centre_median", "box_median", "centre_point"),
            "median disparity over the box's central half: the drawn outline and the background in the box's "
            "corners stay out (not tuned: tuning needs the real weights and data)"),
    Setting("fov", "60", ("60", "45", "75", "90"),
            "Distance: horizontal field of view of the pinhole camera the box centres are back-projected with "
            "(principal point at the image centre); Omni3D's images come from several cameras; not tuned"),
)
DIRE_UNET_PRECISION = Setting("unet_precision", "auto", ("auto", "fp16", "fp32"),
                              "official compute_dire.sh runs ADM with use_fp16: fp16 on CUDA (auto), "
                              "the run's --precision elsewhere")
DIRE_SETTINGS = (
    Setting("codec", "as-source", ("as-source", "png", "jpeg95"),
            "official compute_dire.py saves the DIRE image under the input's name: JPEG (quality 95) for a "
            "JPEG input, PNG otherwise"),
    Setting("classifier", "paired", ("paired", "dire-imagenet-adm", "dire-lsun-adm"),
            "official pairs each classifier with the ADM it was trained on: ImageNet ADM -> imagenet_adm.pth, "
            "LSUN-Bedroom ADM -> lsun_adm.pth"),
    DIRE_UNET_PRECISION,
)


def _builtin_specs() -> None:
    register(SpecialistSpec("random", ALL_TASK_NAMES, "baseline",
                            "uniform random choice, seeded per question (baseline)",
                            "adapters.rules.baselines:RandomChoice"))
    register(SpecialistSpec("sift", ("Visual_Correspondence",), "classical",
                            "OpenCV SIFT matches, MAGSAC homography, REF projected to the nearest candidate",
                            "adapters.rules.correspondence:SiftCorrespondence"))
    register(SpecialistSpec("essential", ("Multi-view_Reasoning",), "classical",
                            "SIFT matches, essential matrix with assumed intrinsics, sign of the camera's sideways motion",
                            "adapters.rules.multiview:EssentialDirection", settings=(ESSENTIAL_FALLBACK,)))
    register(SpecialistSpec("flow", ("Multi-view_Reasoning",), "classical",
                            "SIFT matches, sign of the mean horizontal displacement",
                            "adapters.rules.multiview:MeanFlowDirection"))
    register(SpecialistSpec("retinex", ("Relative_Reflectance",), "classical",
                            "colour Retinex albedo at the points, IIW rule (delta 0.10)",
                            "adapters.rules.reflectance:RetinexReflectance", settings=(REFLECTANCE_MEASURE,)))
    register(SpecialistSpec("dift", ("Visual_Correspondence", "Semantic_Correspondence", "Functional_Correspondence"),
                            "neural", "DIFT (Stable Diffusion 2.1 UNet features), cosine similarity to REF",
                            "adapters.rules.dift_correspondence:DiftCorrespondence", default_checkpoint="sd-2-1"))
    register(SpecialistSpec("depth_anything", ("Relative_Depth",), "neural",
                            "Depth Anything disparity at the points, markers inpainted",
                            "adapters.rules.depth:DepthAnythingDepth", default_checkpoint="depth-anything-v1-large",
                            settings=DEPTH_ANYTHING_SETTINGS))
    register(SpecialistSpec("depth_anything_raw", ("Relative_Depth",), "neural",
                            "Depth Anything disparity at the points, markers left in the image",
                            "adapters.rules.depth:DepthAnythingDepthRaw", default_checkpoint="depth-anything-v1-large",
                            settings=DEPTH_ANYTHING_SETTINGS))
    register(SpecialistSpec("loftr", ("Multi-view_Reasoning",), "neural",
                            "LoFTR matches, essential matrix, sign of the camera's sideways motion",
                            "adapters.rules.loftr_multiview:LoFTREssential", default_checkpoint="loftr-outdoor",
                            settings=(ESSENTIAL_FALLBACK, *LOFTR_SETTINGS)))
    register(SpecialistSpec("loftr_flow", ("Multi-view_Reasoning",), "neural",
                            "LoFTR matches, sign of the mean horizontal displacement",
                            "adapters.rules.loftr_multiview:LoFTRFlow", default_checkpoint="loftr-outdoor",
                            settings=LOFTR_SETTINGS))
    register(SpecialistSpec("dire", ("Forensic_Detection",), "neural",
                            "DIRE: ADM DDIM inversion + reconstruction, ResNet-50 on the error image; polarity-aware",
                            "adapters.rules.forensic:DireForensics", default_checkpoint="adm-256-uncond",
                            settings=DIRE_SETTINGS))
    register(SpecialistSpec("dire_error", ("Forensic_Detection",), "neural",
                            "DIRE reconstruction error alone (no classifier; lower error = generated)",
                            "adapters.rules.forensic:DireReconstructionError", default_checkpoint="adm-256-uncond",
                            settings=(DIRE_UNET_PRECISION,)))
    register(SpecialistSpec("ordinal_shading", ("Relative_Reflectance",), "neural",
                            "ordinal shading v1 (MiDaS-style ordinal + intrinsic nets), linear albedo at the points, "
                            "IIW rule (delta 0.10)",
                            "adapters.rules.ordinal_reflectance:OrdinalShadingReflectance",
                            default_checkpoint="ordinal-shading-v1", settings=ORDINAL_SHADING_SETTINGS))
    register(SpecialistSpec("panel_count", MARVEL_COUNT_TASKS, "classical",
                            "MARVEL's panel counts from the puzzle's bordered panels (the choices: its bottom row)",
                            "adapters.rules.panel_count:PanelCount"))
    register(SpecialistSpec("avr_rules", ("MARVEL_AVR", "IQ_Test"), "classical",
                            "the choice that makes the puzzle most regular: measured panel attributes, the simplest "
                            "rule (constant, progression, period, distribute, sum, ...) explaining each over the context",
                            "adapters.rules.avr:PanelRules"))
    register(SpecialistSpec("avr_dinov2", ("MARVEL_AVR", "IQ_Test"), "neural",
                            "the same rule search on DINOv2 embeddings of the panels (pooled CLS)",
                            "adapters.rules.avr:EmbeddingRules", default_checkpoint="dinov2-small"))
    register(SpecialistSpec("fine_perception", ("MARVEL_Fine_Perception",), "classical",
                            "MARVEL's fine-grained question read (colour, count, edges, location, shape) and answered "
                            "from the named panel's measured shapes; other kinds abstain",
                            "adapters.rules.fine_perception:FinePerception"))
    register(SpecialistSpec("seam", ("Jigsaw",), "classical",
                            "seam continuity: the piece whose borders continue the picture beside its blacked-out corner",
                            "adapters.rules.jigsaw:JigsawSeam"))
    register(SpecialistSpec("dinov2", ("Visual_Similarity", "Art_Style"), "neural",
                            "DINOv2 embeddings (pooled CLS), the option most cosine-similar to the reference image",
                            "adapters.rules.similarity:DinoSimilarity", default_checkpoint="dinov2-small"))
    register(SpecialistSpec("dreamsim", ("Visual_Similarity",), "neural",
                            "DreamSim perceptual distance (DINO ViT-B/16 + its human-similarity LoRA) to the reference image",
                            "adapters.rules.similarity:DreamSimSimilarity", default_checkpoint="dreamsim-dino-vitb16"))
    register(SpecialistSpec("vgg_gram", ("Art_Style",), "neural",
                            "style statistics: Gram matrices of VGG-19 relu1_1-relu4_1, the option closest to the reference",
                            "adapters.rules.similarity:VggStyleSimilarity", default_checkpoint="vgg19.tv_in1k"))
    register(SpecialistSpec("owlv2", DETECTOR_TASKS, "neural",
                            "OWLv2 open-vocabulary boxes of the question's objects: counted (Counting, CV-Bench Count), "
                            "their geometry (Spatial_Relation, depth relations abstain; CV-Bench Relation where the "
                            "question's marked boxes are missing), IoU with the drawn boxes (Object_Localization)",
                            "adapters.rules.detection:Owlv2Tasks", default_checkpoint="owlv2-base",
                            settings=OWLV2_SETTINGS))
    register(SpecialistSpec("grounding_dino", DETECTOR_TASKS, "neural",
                            "Grounding DINO boxes of the question's objects, with owlv2's rules",
                            "adapters.rules.detection:GroundingDinoTasks", default_checkpoint="grounding-dino-tiny",
                            settings=GROUNDING_DINO_SETTINGS))
    register(SpecialistSpec("lower_is_closer", ("Relative_Depth",), "classical",
                            "the lower point in the image is closer (ground-plane prior, no model)",
                            "adapters.rules.depth:LowerIsCloser"))
    register(SpecialistSpec("marked_box_relation", ("CV_Bench_Relation",), "classical",
                            "left/right/above/below from the boxes the question marks (the row's bbox, else the red and "
                            "blue outlines drawn in the image), by their centres",
                            "adapters.rules.cv_bench:MarkedBoxRelation"))
    register(SpecialistSpec("box_bottom", ("CV_Bench_Depth",), "classical",
                            "the marked object whose box reaches lower in the image is closer (ground-plane prior, no model)",
                            "adapters.rules.cv_bench:BoxBottomDepth"))
    register(SpecialistSpec("image_distance", ("CV_Bench_Distance",), "classical",
                            "the option whose box centre is nearer the anchor's in the image (image-plane distance, "
                            "ignores depth; no model)",
                            "adapters.rules.cv_bench:ImageDistance"))
    register(SpecialistSpec("depth_anything_boxes", ("CV_Bench_Depth", "CV_Bench_Distance"), "neural",
                            "Depth Anything disparity inside each marked box: larger is closer (Depth); box centres "
                            "back-projected with an assumed pinhole camera, nearest to the anchor (Distance)",
                            "adapters.rules.cv_bench_depth:DepthAnythingBoxes",
                            default_checkpoint="depth-anything-v1-large", settings=DEPTH_ANYTHING_BOX_SETTINGS))
    register(SpecialistSpec("prototype", COMBO_TASKS, "neural",
                            "prototype retrieval (ComBo's clustering & retrieval): timm backbone embeddings, mean "
                            "per category, nearest by cosine",
                            "adapters.rules.prototype_retrieval:PrototypeRetrieval", default_checkpoint="resnet50.tv_in1k"))


def all_specs() -> list[SpecialistSpec]:
    if not _REGISTRY:
        _builtin_specs()
    return list(_REGISTRY.values())


def get(name: str) -> SpecialistSpec:
    specs = {spec.name: spec for spec in all_specs()}
    if name in specs:
        return specs[name]
    close = difflib.get_close_matches(name, list(specs), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UnknownSpecialistError(
        f"unknown specialist {name!r}.{hint} Known: {', '.join(sorted(specs))} (see `specialists ls`)"
    )


def serving(task: str) -> list[SpecialistSpec]:
    return [spec for spec in all_specs() if task in spec.tasks]


def default_for(task: str, weight_free: bool = False) -> SpecialistSpec:
    defaults = WEIGHT_FREE_DEFAULTS if weight_free else PAPER_DEFAULTS
    return get(defaults.get(task, "random"))


def device_note(device: str, assignment: dict[str, SpecialistSpec]) -> str | None:
    """A warning for a run given a GPU that none of its specialists uses: only neural ones load a
    model; the rules and baselines compute on the CPU whatever --device says."""
    if device.startswith("cpu") or any(spec.kind == "neural" for spec in assignment.values()):
        return None
    names = ", ".join(sorted({spec.name for spec in assignment.values()}))
    return (f"warning: --device {device}: {names} load no model and run on the CPU; --device moves only "
            "neural specialists")


def assign(tasks: list[str], choices: list[str] | None, weight_free: bool = False) -> dict[str, SpecialistSpec]:
    """Which specialist answers each task, from `--specialist NAME | TASK=NAME ...`.

    A bare NAME applies to every task not named in a TASK=NAME pair; several bare names (`sift
    essential`) give each such task to the first that answers it, and a task none answers its
    default. Tasks named by neither use their default (`default_for`). One bare specialist given
    a task it does not serve is an error, not a skip.
    """
    from adapters.core.tasks import canonical_task

    bare: list[str] = []
    per_task: dict[str, str] = {}
    for choice in choices or []:
        if "=" in choice:
            task, name = choice.split("=", 1)
            task = canonical_task(task, ALL_TASK_NAMES)
            if per_task.setdefault(task, name) != name:
                raise ValueError(f"--specialist names {task} twice ({per_task[task]} and {name}); "
                                 "give each task one specialist")
        else:
            get(choice)  # an unknown name is refused here, with the known ones
            bare.append(choice)
    stray = sorted(set(per_task) - set(tasks))
    if stray:
        raise ValueError(f"--specialist names task(s) {', '.join(stray)} that this run does not include")
    assignment = {}
    for task in tasks:
        name = per_task.get(task)
        if name is None and len(bare) == 1:
            name = bare[0]
        elif name is None:
            name = next((b for b in bare if task in get(b).tasks), None)
        spec = get(name) if name else default_for(task, weight_free)
        if task not in spec.tasks:
            others = ", ".join(s.name for s in serving(task))
            raise ValueError(f"specialist {spec.name!r} does not answer {task}; specialists for it: {others}")
        assignment[task] = spec
    return assignment
