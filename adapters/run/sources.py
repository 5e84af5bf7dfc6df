"""Where a run's questions come from: the benchmark's reader, the data section of results.json
(files and their hashes, the generator's settings) and the known marker coordinates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapters.core.benchmarks import benchmark
from adapters.datasets.blink.answers import load_answers
from adapters.datasets.blink.reader import BlinkReader
from adapters.datasets.synthetic import cached_synthetic
from adapters.markers import load_markers
from adapters.markers.find import parser_networks
from checkpoints.hashing import sha256_file

if TYPE_CHECKING:
    from adapters.run.runner import RunConfig


def marker_source(config: RunConfig, data_root: Path) -> tuple[dict, dict[str, Any]]:
    """Known marker coordinates for the run, and how they were obtained (recorded in results;
    its "note" is the line a run prints about them).

    --markers: None (parse the drawing; the synthetic benchmark reads its generator's file),
    "drawn" or "parse" (parse the drawing), "file" (the root's own markers.jsonl, as `specialists
    synth` writes it), or a path."""
    path: Path | None = None
    own = data_root / "markers.jsonl"
    if config.markers == "file":
        if not own.is_file():
            raise ValueError(f"--markers file: {data_root} holds no markers.jsonl; parse the drawing "
                             "(--markers drawn) or name a file (--markers FILE)")
        path, source = own, "file"
    elif config.markers not in (None, "parse", "drawn"):
        path, source = Path(config.markers), "file"
    elif config.markers is None and benchmark(config.benchmark).questions == "generated":
        path, source = own, "generator"
    if path is None:
        note = "markers: read from the drawing"
        if own.is_file():
            note += f" ({own} gives them too: --markers file reads it)"
        return {}, {"source": "parsed", "path": None, "sha256": None, "networks": parser_networks(), "note": note}
    note = f"markers: read from {path} (--markers drawn reads the drawing instead)"
    return load_markers(path), {"source": source, "path": str(path), "sha256": sha256_file(path), "note": note}


def _open_combo(config: RunConfig) -> tuple[Any, dict[str, Any], dict]:
    """ComBo's questions (no drawn markers, answers known by construction)."""
    from adapters.datasets.combo.benchmark import ComboBenchmark, ComboSettings

    if config.answers:
        raise ValueError("--answers overrides BLINK gold answers; ComBo's answers are known by construction")
    if config.markers:
        raise ValueError("--markers: ComBo questions have no drawn markers")
    reader = ComboBenchmark(ComboSettings(config.combo_root, config.combo_n, config.combo_k_support,
                                          factors=config.combo_factors, seed=config.seed), config.tasks)
    data = {"root": str(reader.root), "markers": {"source": "none", "path": None, "sha256": None},
            "generator": reader.describe(), "files": [f.to_json() for f in reader.data_files()]}
    return reader, data, {}


def _open_release(config: RunConfig) -> tuple[Any, dict[str, Any], dict]:
    """A release folder's questions (MARVEL, BLINK-Twice, CV-Bench: no BLINK markers)."""
    reader = benchmark(config.benchmark).open_reader(config.root, config.tasks)
    data = {"root": str(reader.root), "markers": {"source": "none", "path": None, "sha256": None},
            "generator": reader.describe(), "files": [f.to_json() for f in reader.data_files()]}
    return reader, data, {}


def open_benchmark(config: RunConfig) -> tuple[BlinkReader, dict[str, Any], dict]:
    """The question reader, the data section of results.json, and known marker coordinates."""
    questions = benchmark(config.benchmark).questions
    if questions == "combo":
        return _open_combo(config)
    if questions == "release":
        return _open_release(config)
    answers = load_answers(config.answers) if config.answers else None
    if questions == "generated":
        data_dir = cached_synthetic(config.synthetic_n, config.seed, config.synthetic_images)
        reader = BlinkReader(data_dir, "val", config.tasks, answers)
        generator = json.loads((data_dir / "synth.json").read_text(encoding="utf-8"))
    else:
        reader = BlinkReader(config.blink_root, config.split, config.tasks, answers)
        generator = None
    coordinates, markers = marker_source(config, Path(reader.root))
    data = {
        "root": str(reader.root),
        "markers": markers,
        "generator": generator,
        "files": [f.to_json() for f in reader.data_files()],
    }
    return reader, data, coordinates
