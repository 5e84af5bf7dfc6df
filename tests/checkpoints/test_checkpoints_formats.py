"""A path that is not weights at all (a text file, an empty file, random bytes, a folder of
something else) given to any specialist's loader, to `checkpoints import` or to `run
--checkpoint`: one line naming the path, what it holds, the format that family expects and what
to do, never an IndexError or KeyError out of torch's unpickler."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import torch

from checkpoints.convert import validate
from checkpoints.formats import FORMATS, WeightFormatError, container
from checkpoints.manifest import load_manifest

FIX = "give the weight file or folder itself"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))


def _bad(tmp_path: Path, kind: str, name: str = "weights.pth") -> Path:
    """A file (or folder) that holds no weights: `kind` text, empty, random bytes or a folder of notes."""
    path = tmp_path / kind / name
    path.parent.mkdir(parents=True)
    if kind == "text":
        path.write_text("some text\nline two\n")  # torch.load of this raised IndexError
    elif kind == "hello":
        path.write_text("hello world\n")  # ... and this KeyError: 101
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "random":
        path.write_bytes(torch.randint(0, 256, (5000,), generator=torch.Generator().manual_seed(0),
                                       dtype=torch.uint8).numpy().tobytes())
    elif kind == "folder":
        path.mkdir()
        (path / "notes.txt").write_text("not a model")
    return path


BAD_KINDS = ("text", "hello", "empty", "random", "folder")


def _loaders():
    """(family, what its message must name, loader) for every from_pretrained / from_checkpoint."""
    from checkpoints.convert.adm import load_adm_unet
    from checkpoints.convert.dire import dire_classifier
    from checkpoints.convert.lora import read_lora_adapter
    from checkpoints.convert.timm_weights import create_timm_model
    from specialists.depth_anything import DepthAnything
    from specialists.dift import DiftFeaturizer
    from specialists.dinov2 import Dinov2Embedder
    from specialists.dire import DireDetector
    from specialists.dreamsim import DreamSimEmbedder
    from specialists.grounding_dino import GroundingDinoDetector
    from specialists.loftr import LoFTRMatcher
    from specialists.ordinal_shading import OrdinalShading
    from specialists.owlv2 import Owlv2Detector
    from specialists.style_gram import VggStyle

    transformers_folder = FORMATS["transformers"].description
    return [
        ("depth_anything", transformers_folder, DepthAnything.from_pretrained),
        ("dinov2", transformers_folder, Dinov2Embedder.from_pretrained),
        ("owlv2", transformers_folder, Owlv2Detector.from_pretrained),
        ("grounding_dino", transformers_folder, GroundingDinoDetector.from_pretrained),
        ("dift", FORMATS["diffusers"].description, DiftFeaturizer.from_pretrained),
        ("loftr", FORMATS["loftr-lightning"].description, LoFTRMatcher.from_checkpoint),
        ("dire", FORMATS["adm"].description, DireDetector.from_checkpoints),
        ("dire classifier", FORMATS["dire-resnet50"].description, dire_classifier),
        ("adm", FORMATS["adm"].description, load_adm_unet),
        ("ordinal_shading", "ordinal-shading", OrdinalShading.from_checkpoint),
        ("vgg_gram", FORMATS["torchvision-vgg19"].description, VggStyle.from_checkpoint),
        ("dreamsim backbone", FORMATS["timm"].description, lambda p: DreamSimEmbedder.from_checkpoints(p, p)),
        ("dreamsim adapter", FORMATS["peft-lora"].description, read_lora_adapter),
        ("timm (prototype)", FORMATS["timm"].description, partial(create_timm_model, "resnet18")),
    ]


LOADERS = {family: (expected, load) for family, expected, load in _loaders()}


def _one_clear_line(message: str, path: Path, expected: str) -> None:
    assert "\n" not in message, message
    assert str(path) in message and expected in message, message


@pytest.mark.parametrize("kind", BAD_KINDS)
@pytest.mark.parametrize("family", list(LOADERS))
def test_every_loader_refuses_what_is_no_weights_in_one_line(tmp_path, family, kind):
    expected, load = LOADERS[family]
    path = _bad(tmp_path, kind)
    with pytest.raises(ValueError) as err:  # KeyError, IndexError or RuntimeError fail this test
        load(path)
    _one_clear_line(str(err.value), path, expected)
    assert FIX in str(err.value)


@pytest.mark.parametrize("kind", BAD_KINDS)
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_import_validation_refuses_what_is_no_weights_in_one_line(tmp_path, fmt, kind):
    path = _bad(tmp_path, kind)
    with pytest.raises(WeightFormatError) as err:
        validate(fmt, path)
    _one_clear_line(str(err.value), path, FORMATS[fmt].description)
    assert FIX in str(err.value)


def test_every_manifest_format_says_what_it_expects():
    assert {entry.format for entry in load_manifest().entries} <= set(FORMATS)


def test_containers_are_told_apart_by_their_first_bytes(tmp_path):
    from safetensors.torch import save_file

    torch.save({"w": torch.zeros(2)}, tmp_path / "new.pt")
    torch.save({"w": torch.zeros(2)}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    save_file({"w": torch.zeros(2)}, str(tmp_path / "w.safetensors"))
    (tmp_path / "text.txt").write_text("résumé: a line of text")
    found = {name: container(tmp_path / name) for name in ("new.pt", "legacy.pt", "w.safetensors", "text.txt")}
    assert found == {"new.pt": "zip", "legacy.pt": "pickle", "w.safetensors": "safetensors", "text.txt": "text"}
    assert container(_bad(tmp_path, "random")) == "binary" and container(_bad(tmp_path, "empty")) == "empty"


def test_a_cut_off_torch_file_is_one_line_too(tmp_path):
    whole = tmp_path / "loftr_outdoor.ckpt"
    torch.save({"state_dict": {"matcher.backbone.w": torch.zeros(64, 64)}}, whole)
    cut = tmp_path / "cut.ckpt"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    expected, load = LOADERS["loftr"]
    with pytest.raises(ValueError) as err:
        load(cut)
    _one_clear_line(str(err.value), cut, expected)
    assert "damaged" in str(err.value)


# --- through the command line -------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["text", "hello", "empty", "random"])
def test_cli_import_of_a_file_that_is_no_weights_is_one_clear_line(tmp_path, capsys, kind):
    from adapters.cli.main import main

    junk = _bad(tmp_path, kind, "loftr_outdoor.ckpt")
    assert main(["checkpoints", "import", "loftr-outdoor", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {junk} ") and "not a LoFTR Lightning checkpoint" in err and FIX in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "home" / "loftr-outdoor").exists()


def test_cli_import_of_a_file_where_a_folder_belongs_says_what_the_file_is(tmp_path, capsys):
    from adapters.cli.main import main

    junk = _bad(tmp_path, "hello")
    assert main(["checkpoints", "import", "depth-anything-v1-small", str(junk)]) == 2
    err = capsys.readouterr().err
    assert "needs a folder holding config.json" in err and f'{junk} is a text file (it starts "hello world")' in err


@pytest.mark.parametrize("specialist", ["loftr_flow", "depth_anything", "ordinal_shading", "dift", "dinov2", "vgg_gram",
                                        "owlv2", "dreamsim", "dire_error"])
def test_run_checkpoint_that_is_a_text_file_stops_before_hashing_with_one_line(tmp_path, specialist):
    """`run --checkpoint FILE`: the solver's weights are resolved with the specialist's format, so
    the file is refused before it is hashed (nothing enters the hash cache) or loaded."""
    from adapters.core.registry import get
    from adapters.core.solver import SolverOptions

    junk = _bad(tmp_path, "hello")
    with pytest.raises(WeightFormatError) as err:
        get(specialist).build(SolverOptions(checkpoint=str(junk)))
    message = str(err.value)
    assert "\n" not in message and message.startswith(f'{junk} is a text file (it starts "hello world"), not ')
    assert not (tmp_path / "home" / "hash-cache.json").exists()


def test_cli_run_with_a_text_checkpoint_prints_one_line(tmp_path, capsys):
    from adapters.cli.main import main

    junk = _bad(tmp_path, "text")
    out = tmp_path / "run"
    argv = ["run", "--benchmark", "synthetic", "--synthetic-n", "1", "--tasks", "Multi-view_Reasoning",
            "--specialist", "loftr_flow", "--checkpoint", str(junk), "--output-dir", str(out), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f'error: {junk} is a text file (it starts "some text"), not {FORMATS["loftr-lightning"].description}; '
                   f"{FIX} (`specialists checkpoints ls` lists the checkpoint names and their files)")
    assert not out.exists()

