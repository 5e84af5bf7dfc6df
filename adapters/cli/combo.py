"""`specialists combo eval`: Category Building by prototype retrieval, accuracy per difficulty
level (easy/medium/hard/expert) next to ComBo's published rows.

Without --combo-root the questions are built from ComBo-lite renders; --checkpoint takes
tiny-random, timm:NAME, an export folder from `specialists train combo`, or a weight file
(with --architecture). With --devices N [--num-nodes M] Lightning starts one process per device
(as `specialists run` does): every process builds the same questions, answers its share of them
with the backbone on its own device, and rank 0 prints and writes the table of all of them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tqdm import tqdm


def add_parser(commands: argparse._SubParsersAction) -> None:
    combo = commands.add_parser("combo", help="ComBo: Category Building by prototype retrieval")
    sub = combo.add_subparsers(dest="combo_command", required=True)
    ev = sub.add_parser("eval", help="accuracy per difficulty level of prototype retrieval")
    ev.add_argument("--checkpoint", action="append", metavar="SPEC",
                    help="backbone(s) to compare: tiny-random, timm:NAME, an export folder, or a weight file "
                         "(repeat the option for several; default tiny-random)")
    ev.add_argument("--architecture", help="timm architecture of a plain weight file given as --checkpoint")
    ev.add_argument("--combo-root", dest="manifest", metavar="DIR|CSV",
                    help="real ComBo folder or its manifest CSV (default: ComBo-lite renders), as in `run`")
    ev.add_argument("--manifest", dest="manifest", help=argparse.SUPPRESS)  # the older name
    ev.add_argument("--factors", help="factor table TOML (default: the packaged 9,504-object table)")
    ev.add_argument("--combo-n", dest="n_per_level", type=int, default=25,
                    help="questions per difficulty level (default 25), as in `run`")
    ev.add_argument("--n-per-level", dest="n_per_level", type=int, default=argparse.SUPPRESS,
                    help=argparse.SUPPRESS)  # the older name
    ev.add_argument("--k-support", type=int, default=5, help="support images per category (default 5)")
    ev.add_argument("--image-size", type=int, default=64, help="ComBo-lite render size (default 64)")
    ev.add_argument("--difficulty-features", default="pixels",
                    help="what ranks difficulty: 'pixels' (weight-free 16x16 thumbnails) or a backbone SPEC")
    ev.add_argument("--device", default="cpu", help="cpu or cuda (with --devices: each process its own GPU)")
    ev.add_argument("--devices", type=int, default=1, metavar="N", help="processes per node, as in `run`")
    ev.add_argument("--num-nodes", type=int, default=1, metavar="M", help="nodes, as in `run`")
    ev.add_argument("--strategy", default="ddp", choices=["ddp", "ddp_spawn"], help="Lightning's launcher, as in `run`")
    ev.add_argument("--batch-size", type=int, default=8, help="questions per forward pass")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--output", help="write the per-level results as JSON here")


def handle(args: argparse.Namespace) -> int:
    from adapters.run.ranks import SINGLE, launch
    from specialists.precision import check_device

    if args.n_per_level < 1 or args.k_support < 1:
        raise ValueError("--combo-n and --k-support must be at least 1")
    check_device(args.device)  # a GPU that is not here stops before any backbone is built
    if args.devices < 1 or args.num_nodes < 1:
        raise ValueError("--devices and --num-nodes must be at least 1")
    if args.devices * args.num_nodes == 1:
        return _evaluate(args, SINGLE)
    if args.device not in ("cpu", "cuda"):
        raise ValueError(f"--device {args.device} with --devices {args.devices}: give --device cuda or cpu")
    code = launch(_evaluate, args, accelerator="cpu" if args.device == "cpu" else "cuda", devices=args.devices,
                  num_nodes=args.num_nodes, strategy=args.strategy)
    return 0 if code is None else code


def _evaluate(args: argparse.Namespace, ranks) -> int:
    from adapters.core import registry
    from adapters.core.solver import SolverOptions
    from adapters.datasets.combo import (
        CategoryBuildingConfig,
        ComboLiteRenderer,
        ComboLiteSource,
        FactorTable,
        ManifestSource,
        build_category_building,
        pixel_features,
        read_manifest,
    )
    from adapters.datasets.combo.evaluation import answer_questions, levels_summary, markdown_table
    from adapters.rules.prototype_retrieval import PrototypeRetrieval
    from specialists.timm_backbone import Embedder, load_backbone

    device = ranks.device if ranks.world_size > 1 else args.device
    table = FactorTable.load(args.factors)
    manifest = args.manifest
    if manifest and Path(manifest).is_dir():  # a ComBo folder, as `run --combo-root` takes it
        manifest = Path(manifest) / "manifest.csv"
    source = (ManifestSource(read_manifest(manifest, table)) if manifest
              else ComboLiteSource(ComboLiteRenderer(table, args.image_size, seed=args.seed)))
    if args.difficulty_features == "pixels":
        features = pixel_features
    else:
        model, config, _ = load_backbone(args.difficulty_features, args.architecture)
        features = Embedder(model, config, device).features
    questions = build_category_building(source, table, CategoryBuildingConfig(
        n_per_level=args.n_per_level, k_support=args.k_support, seed=args.seed), features)
    rows, raw = {}, {}
    specs = args.checkpoint or ["tiny-random"]
    # this process's share: every W-th question (all of them in a one-process run)
    mine = list(range(len(questions)))[ranks.rank::ranks.world_size]
    # one step per backbone (each embeds every question's images), on a terminal only
    show = None if len(specs) > 1 and ranks.is_main else True
    for spec in tqdm(specs, desc="backbones", unit="model", disable=show, leave=False):
        options = SolverOptions(device=device, batch_size=args.batch_size, seed=args.seed, checkpoint=spec)
        solver = ranks.main_first(lambda: PrototypeRetrieval(options, registry.get("prototype"), args.architecture))
        ref = solver.checkpoint
        name = f"{spec}{' (random weights: meaningless)' if ref.tiny_random else ''}"
        outcomes: list = [None] * len(questions)
        for share in ranks.gather(lambda: list(zip(mine, answer_questions([questions[i] for i in mine], solver,
                                                                          args.batch_size)))):
            for i, outcome in share:
                outcomes[i] = outcome
        rows[name] = levels_summary(questions, outcomes, args.seed)
        raw[spec] = {"checkpoint": ref.to_json(), "levels": rows[name]}
    distributed = ranks.describe()  # every rank takes part; rank 0 reports
    if not ranks.is_main:
        return 0
    print(f"Category Building on {source.name}, prototype retrieval, {args.n_per_level} questions per level, "
          f"{args.k_support} supports per category; accuracy in %\n")
    print(markdown_table(rows))
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(json.dumps({"source": source.name, "n_per_level": args.n_per_level,
                                                 "k_support": args.k_support, "seed": args.seed,
                                                 "difficulty_features": args.difficulty_features,
                                                 "distributed": distributed,
                                                 "models": raw}, indent=2) + "\n", encoding="utf-8")
        print(f"\nwrote {args.output}")
    return 0
