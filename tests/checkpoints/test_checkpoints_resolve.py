"""Offline resolution: order (explicit path > SPECIALISTS_HOME > HF cache > torch hub), the
missing-weight message, hash pinning in the lock file, the hash cache (keyed on size, mtime,
inode and ctime; owner-only; weight files only), names that never lead outside the store, and
the `specialists checkpoints` commands (import, ls, path, verify catching a changed byte)."""

from __future__ import annotations

import argparse
import json
import os
import stat
import time
from pathlib import Path

import pytest
import torch

import checkpoints.hashing as hashing
from adapters.cli import checkpoints as cli_checkpoints
from checkpoints import MissingCheckpointError, resolve
from checkpoints.lock import HashMismatchError, LockFile
from checkpoints.manifest import UnknownCheckpointError, load_manifest


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    return tmp_path


def _loftr_file(path, value: float = 0.0):
    """A (tiny) file in the LoFTR Lightning layout."""
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": {"matcher.backbone.conv1.weight": torch.full((4, 1, 3, 3), value)}}, path)
    return path


def _hf_cached(tmp_path, repo_id: str, filename: str, value: float):
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hf" / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    return _loftr_file(repo / "snapshots" / commit / filename, value)


def test_resolution_order_home_then_hf_cache_then_torch_hub(tmp_path):
    torch_file = _loftr_file(tmp_path / "torch" / "hub" / "checkpoints" / "loftr_outdoor.ckpt", 1.0)
    assert resolve("loftr-outdoor").path == torch_file
    LockFile().forget("loftr-outdoor")  # each copy below holds other bytes on purpose
    hf_file = _hf_cached(tmp_path, "kornia/loftr", "loftr_outdoor.ckpt", 2.0)
    found = resolve("loftr-outdoor")
    assert found.path == hf_file and found.location.startswith("Hugging Face cache")
    LockFile().forget("loftr-outdoor")
    home_file = _loftr_file(tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt", 3.0)
    found = resolve("loftr-outdoor")
    assert found.path == home_file and found.location == "SPECIALISTS_HOME"
    assert found.ref.name == "loftr-outdoor" and found.ref.sha256 == hashing.sha256_file(home_file)


def test_missing_weight_names_checkpoint_places_and_fix(tmp_path):
    with pytest.raises(MissingCheckpointError) as err:
        resolve("loftr-outdoor")
    message = str(err.value)
    assert "'loftr-outdoor'" in message
    assert str(tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt") in message
    assert str(tmp_path / "hf" / "models--kornia--loftr") in message
    assert str(tmp_path / "torch" / "hub" / "checkpoints" / "loftr_outdoor.ckpt") in message
    assert "specialists checkpoints fetch loftr-outdoor" in message


def test_missing_manual_weight_says_how_to_get_it():
    with pytest.raises(MissingCheckpointError, match=r"BaiduDrive.*specialists checkpoints import dire-lsun-adm"):
        resolve("dire-lsun-adm")


def test_withdrawn_hub_id_still_resolves_from_an_old_cache(tmp_path):
    entry = load_manifest().get("sd-2-1")
    commit = "f" * 40
    repo = tmp_path / "hf" / "models--stabilityai--stable-diffusion-2-1"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    for rel in entry.files:
        (repo / "snapshots" / commit / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / "snapshots" / commit / rel).write_text(rel)
    found = resolve("sd-2-1")
    assert found.path == repo / "snapshots" / commit
    assert "stabilityai/stable-diffusion-2-1" in found.location


def test_unknown_name_suggests_close_names():
    with pytest.raises(UnknownCheckpointError, match="Did you mean loftr-outdoor"):
        resolve("loftr-outdor")


def test_first_use_pins_and_a_changed_file_is_refused(tmp_path):
    path = _loftr_file(tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt", 1.0)
    first = resolve("loftr-outdoor")
    assert first.verified == "pinned" and LockFile().pinned("loftr-outdoor") == first.ref.sha256
    assert resolve("loftr-outdoor").verified == "lock"
    _loftr_file(path, 5.0)
    with pytest.raises(HashMismatchError, match="loftr-outdoor"):
        resolve("loftr-outdoor")


def test_hash_cache_skips_rehashing_unchanged_files(tmp_path, monkeypatch):
    _loftr_file(tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt")
    calls = []
    real = hashing.sha256_file
    monkeypatch.setattr(hashing, "sha256_file", lambda p: calls.append(p) or real(p))
    resolve("loftr-outdoor")
    resolve("loftr-outdoor")
    assert len(calls) == 1


def test_explicit_path_is_named_after_the_entry_whose_bytes_it_holds(tmp_path):
    placed = _loftr_file(tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt", 1.0)
    resolve("loftr-outdoor")  # pins
    copy = tmp_path / "elsewhere" / "mine.ckpt"
    copy.parent.mkdir()
    copy.write_bytes(placed.read_bytes())
    found = resolve(str(copy))
    assert found.ref.name == "loftr-outdoor" and found.location == "explicit path"
    other = _loftr_file(tmp_path / "elsewhere" / "finetuned.ckpt", 9.0)
    assert resolve(str(other)).ref.name == "finetuned.ckpt"


# --- the CLI ------------------------------------------------------------------------------------
def _cli(*argv) -> int:
    parser = argparse.ArgumentParser()
    cli_checkpoints.add_parser(parser.add_subparsers(dest="command"))
    return cli_checkpoints.handle(parser.parse_args(["checkpoints", *argv]))


def test_cli_import_ls_path_and_verify_catching_a_changed_byte(tmp_path, capsys):
    mine = _loftr_file(tmp_path / "downloads" / "loftr_outdoor.ckpt", 1.0)
    assert _cli("import", "loftr-outdoor", str(mine)) == 0
    placed = tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt"
    assert placed.read_bytes() == mine.read_bytes()
    capsys.readouterr()
    _cli("ls")
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert " ok " in rows["loftr-outdoor"] and " missing " in rows["loftr-indoor"]
    assert " manual " in rows["dire-lsun-adm"] and "apache-2.0" in rows["loftr-outdoor"]
    assert _cli("path", "loftr-outdoor") == 0 and capsys.readouterr().out.strip() == str(placed)
    assert _cli("verify", "loftr-outdoor") == 0
    # flip one byte in place, keeping size and mtime: the hash cache cannot notice, verify must
    stat = placed.stat()
    data = bytearray(placed.read_bytes())
    data[-20] ^= 0xFF
    placed.write_bytes(bytes(data))
    os.utime(placed, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    capsys.readouterr()
    assert _cli("verify", "loftr-outdoor") == 1
    assert "MISMATCH loftr-outdoor" in capsys.readouterr().out


def test_cli_import_refuses_a_file_in_the_wrong_format(tmp_path):
    wrong = tmp_path / "loftr_outdoor.ckpt"
    torch.save({"state_dict": {"model.fc.weight": torch.zeros(2)}}, wrong)
    with pytest.raises(ValueError, match="backbone"):
        _cli("import", "loftr-outdoor", str(wrong))
    assert not (tmp_path / "home" / "loftr-outdoor").exists() and LockFile().pinned("loftr-outdoor") is None


def test_cli_import_link_and_repin(tmp_path):
    first = _loftr_file(tmp_path / "a" / "loftr_indoor.ckpt", 1.0)
    assert _cli("import", "loftr-indoor", str(first), "--link") == 0
    assert (tmp_path / "home" / "loftr-indoor" / "loftr_indoor.ckpt").is_symlink()
    second = _loftr_file(tmp_path / "b" / "loftr_indoor.ckpt", 2.0)
    with pytest.raises(HashMismatchError, match="--repin"):
        _cli("import", "loftr-indoor", str(second))
    assert _cli("import", "loftr-indoor", str(second), "--repin") == 0
    assert LockFile().pinned("loftr-indoor") == hashing.sha256_file(second)


def test_cli_import_refuses_tensors_that_are_not_the_architectures(tmp_path):
    """A safetensors file of one unrelated tensor, given for resnet50.tv_in1k, was pinned and then
    loaded (non-strictly) as random weights labelled real; now every tensor must be the model's."""
    from safetensors.torch import save_file

    wrong = tmp_path / "model.safetensors"
    save_file({"w": torch.zeros(3)}, str(wrong))
    with pytest.raises(ValueError, match=r"does not hold the weights of resnet50.tv_in1k: tensors 320 missing "
                                         r"\(first: conv1.weight.*1 unexpected \(first: w\)"):
        _cli("import", "resnet50.tv_in1k", str(wrong))
    assert not (tmp_path / "home" / "resnet50.tv_in1k").exists() and LockFile().pinned("resnet50.tv_in1k") is None


def test_timm_weights_of_another_shape_are_refused_at_load(tmp_path):
    import timm
    from safetensors.torch import save_file

    from checkpoints.convert.common import StateDictError
    from checkpoints.convert.timm_weights import create_timm_model

    state = timm.create_model("resnet18.tv_in1k", pretrained=False, num_classes=10).state_dict()
    path = tmp_path / "model.safetensors"
    save_file(state, str(path))
    with pytest.raises(StateDictError, match=r"1 of another shape|2 of another shape"):
        create_timm_model("resnet18.tv_in1k", path)  # a 10-class head where ImageNet's has 1000


def test_a_specialists_home_that_is_a_file_or_unwritable_is_named(tmp_path, monkeypatch, capsys):
    from adapters.cli import checkpoints as cli_checkpoints
    from adapters.cli.main import main

    a_file = tmp_path / "home-file"
    a_file.write_text("")
    monkeypatch.setenv("SPECIALISTS_HOME", str(a_file))
    assert main(["checkpoints", "ls"]) == 2
    assert f"SPECIALISTS_HOME={a_file} is a file, not a folder" in capsys.readouterr().err

    def refused(args):  # what a read-only SPECIALISTS_HOME gives (root, here, writes everywhere)
        raise PermissionError(13, "Permission denied", str(tmp_path / "ro" / "checkpoints.lock.json"))

    monkeypatch.setattr(cli_checkpoints, "handle", refused)
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "ro"))
    assert main(["checkpoints", "ls"]) == 2
    err = capsys.readouterr().err
    assert "checkpoints.lock.json: permission denied" in err and "SPECIALISTS_HOME" in err


def test_verify_with_nothing_installed_says_what_it_checked(tmp_path, capsys):
    assert _cli("verify") == 0
    out = capsys.readouterr().out
    assert "verified 0 of the" in out and "not installed" in out


# --- the hash cache records the bytes that are there -------------------------------------------
def _rewrite_in_place_keeping_mtime(path) -> None:
    """Change bytes of `path` without changing its size, inode or mtime (what the old size+mtime
    cache could not notice). ctime ticks coarsely (a jiffy): let one pass so the write shows."""
    stat = path.stat()
    time.sleep(0.05)
    with open(path, "r+b") as f:
        f.seek(-20, os.SEEK_END)
        byte = f.read(1)
        f.seek(-20, os.SEEK_END)
        f.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def test_a_file_rewritten_in_place_with_its_old_mtime_is_hashed_again(tmp_path):
    path = _loftr_file(tmp_path / "weights" / "mine.ckpt", 1.0)
    cache = hashing.HashCache()
    before = cache.sha256(path)
    _rewrite_in_place_keeping_mtime(path)
    assert cache.cached(path) is None
    assert cache.sha256(path) == hashing.sha256_file(path) != before


def test_resolve_records_the_hash_of_the_bytes_now_in_place(tmp_path):
    """A pinned checkpoint changed in place (same size, mtime put back) is refused, not recorded
    under its old hash; an explicit path is recorded under its new hash."""
    placed = _loftr_file(tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt", 1.0)
    resolve("loftr-outdoor")  # pins and caches
    _rewrite_in_place_keeping_mtime(placed)
    with pytest.raises(HashMismatchError, match="loftr-outdoor"):
        resolve("loftr-outdoor")
    mine = _loftr_file(tmp_path / "elsewhere" / "mine.ckpt", 2.0)
    resolve(str(mine))
    _rewrite_in_place_keeping_mtime(mine)
    assert resolve(str(mine)).ref.sha256 == hashing.sha256_file(mine)


def test_import_records_the_hash_of_the_copy_it_wrote(tmp_path, monkeypatch):
    mine = _loftr_file(tmp_path / "downloads" / "loftr_outdoor.ckpt", 1.0)
    calls = []
    real = hashing.sha256_file
    monkeypatch.setattr(hashing, "sha256_file", lambda p: calls.append(p) or real(p))
    assert _cli("import", "loftr-outdoor", str(mine)) == 0
    placed = tmp_path / "home" / "loftr-outdoor" / "loftr_outdoor.ckpt"
    assert hashing.HashCache().cached(placed) == real(placed)
    assert placed not in calls  # hashed while copied, not read a second time


# --- names stay inside the store; the cache holds only weights, owner-only ----------------------
@pytest.mark.parametrize("argv", [("path", "../../etc"), ("path", "/etc"), ("verify", "../../etc"),
                                  ("fetch", "../loftr-outdoor"), ("path", "loftr-outdoor/../../x"),
                                  ("path", "..\\..\\etc")])
def test_checkpoint_names_never_lead_outside_the_store(tmp_path, argv):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shadow").write_text("root:secret")
    with pytest.raises(UnknownCheckpointError, match="is not a checkpoint name: names hold no"):
        _cli(*argv)
    with pytest.raises(UnknownCheckpointError, match="is not a checkpoint name"):
        _cli("path", str(outside))
    assert not (tmp_path / "home" / hashing.CACHE_NAME).exists()


def test_a_path_shaped_name_gets_the_near_names(tmp_path, capsys):
    from adapters.cli.main import main

    assert main(["checkpoints", "path", "../loftr-outdor"]) == 2
    err = capsys.readouterr().err
    assert "'../loftr-outdor' is not a checkpoint name" in err and "Did you mean loftr-outdoor" in err
    with pytest.raises(UnknownCheckpointError, match="names hold no"):
        _cli("import", "../loftr-outdoor", str(_loftr_file(tmp_path / "mine.ckpt")))


def test_the_hash_cache_holds_only_weight_files(tmp_path):
    from checkpoints.formats import WeightFormatError

    notes = tmp_path / "etc"
    notes.mkdir()
    (notes / "shadow").write_text("root:secret")
    (notes / "passwd.txt").write_text("a list")
    for path in (notes, notes / "shadow"):
        with pytest.raises(WeightFormatError):
            resolve(str(path))
    assert not (tmp_path / "home" / hashing.CACHE_NAME).exists()
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"weights")
    (model / "README.md").write_text("a model card")
    (model / "id_rsa").write_text("a key")
    resolve(str(model))
    cached = json.loads((tmp_path / "home" / hashing.CACHE_NAME).read_text())
    assert sorted(Path(p).name for p in cached) == ["config.json", "model.safetensors"]


@pytest.mark.parametrize("group_writable, mode", [(False, 0o600), (True, 0o660)])
def test_the_hash_cache_and_lock_are_not_world_readable(tmp_path, group_writable, mode):
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o2775 if group_writable else 0o755)
    _loftr_file(home / "loftr-outdoor" / "loftr_outdoor.ckpt")
    resolve("loftr-outdoor")
    for name in (hashing.CACHE_NAME, "checkpoints.lock.json"):
        assert stat.S_IMODE((home / name).stat().st_mode) == mode, name
    assert not [p for p in home.iterdir() if p.name.endswith(".tmp")]
