"""A few Lightning steps on CPU through the real CLI: tiny factor table, resnet18 at 32 px."""

import csv
from pathlib import Path

import pytest
import torch
from combo_fixture import write_tiny_table

from adapters.datasets.combo.factors import FactorTable
from adapters.datasets.combo.render import ComboLiteRenderer
from specialists.timm_backbone import BackboneLoadError, Embedder, load_backbone


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from train.cli import main

    tmp = tmp_path_factory.mktemp("combo_train")
    factors = write_tiny_table(tmp)
    export = tmp / "export"
    argv = [
        "--config", "train/configs/combo_lite_cpu.yaml",
        "--trainer.max_steps", "12", "--trainer.log_every_n_steps", "1", "--trainer.enable_progress_bar", "false",
        "--trainer.max_epochs", "-1", "--trainer.default_root_dir", str(tmp / "run"),
        "--trainer.callbacks.dirpath", str(export),  # the last callback of the config: ExportBackbone
        "--trainer.callbacks.initial_dirpath", str(tmp / "initial"),
        "--data.factors", str(factors), "--data.image_size", "32", "--data.views_per_object", "1",
        "--data.batch_size", "8", "--data.num_workers", "0", "--data.augment", "false",
        "--model.warmup_steps", "0", "--model.lr", "0.003", "--model.label_smoothing", "0.0",
    ]
    assert main(argv) == 0
    return tmp, factors, export


def test_training_lowers_the_loss(trained):
    tmp, _, _ = trained
    metrics = next((tmp / "run").rglob("metrics.csv"))
    losses = [float(r["train_loss"]) for r in csv.DictReader(metrics.open()) if r.get("train_loss")]
    assert len(losses) >= 10
    assert sum(losses[-3:]) / 3 < sum(losses[:3]) / 3  # 8 objects, one view each: it must fit them


def test_export_reload_matches_the_trained_backbone(trained):
    tmp, factors, export = trained
    model, config, ref = load_backbone(str(export))
    assert config.architecture == "resnet18" and config.image_size == 32 and config.trained["n_objects"] == 8
    assert ref.sha256 and not ref.tiny_random
    last = next((tmp / "run").rglob("last.ckpt"))
    from train.combo_module import ComboClassifier

    module = ComboClassifier.load_from_checkpoint(last, map_location="cpu").eval()
    images = [ComboLiteRenderer(FactorTable.load(factors), 32).render(i, 0) for i in range(4)]
    embedder = Embedder(model, config)
    with torch.inference_mode():
        batch = embedder.preprocess(images)
        expected = module.model.forward_head(module.model.forward_features(batch), pre_logits=True)
    assert torch.allclose(embedder(images), expected, atol=1e-5)
    # The fine-tuned features tell the two primary shapes apart (cube objects 0-3, sphere 4-7).
    e = torch.nn.functional.normalize(embedder([ComboLiteRenderer(FactorTable.load(factors), 32).render(i, 5)
                                                for i in range(8)]), dim=1)
    assert e.shape == (8, config.num_features)


def test_bad_export_folder_is_named(tmp_path):
    with pytest.raises(BackboneLoadError, match="not a backbone export"):
        load_backbone(str(tmp_path))


def test_initial_export_is_the_network_before_its_first_step(trained):
    tmp, _, export = trained
    before, before_config, _ = load_backbone(str(tmp / "initial"))
    after, after_config, _ = load_backbone(str(export))
    assert before_config.trained["global_step"] == 0 and after_config.trained["global_step"] == 12
    changed = [k for k, v in before.state_dict().items() if v.is_floating_point() and not torch.equal(v, after.state_dict()[k])]
    assert "conv1.weight" in changed


@pytest.mark.parametrize("config", ["combo_lite_cpu", "resnet50_one_epoch", "vit_b16_one_epoch"])
def test_every_shipped_config_builds_model_data_and_callbacks(config, tmp_path):
    """The GPU recipes cannot train here, but they must parse and build (a typo fails at once)."""
    from train.cli import ComboCLI
    from train.combo_module import ComboClassifier
    from train.datamodule import ComboDataModule
    from train.export import ExportBackbone

    cli = ComboCLI(ComboClassifier, ComboDataModule, run=False, save_config_kwargs={"overwrite": True},
                   args=["--config", f"train/configs/{config}.yaml", "--trainer.accelerator", "cpu",
                         "--trainer.devices", "1", "--trainer.default_root_dir", str(tmp_path)])
    assert cli.model.num_classes == 9504
    export = [c for c in cli.trainer.callbacks if isinstance(c, ExportBackbone)]
    assert len(export) == 1 and export[0].initial_dirpath and export[0].dirpath != export[0].initial_dirpath


def test_factorised_head_sums_the_logits_of_each_objects_parts():
    """Each object's logit is the sum of its four parts' logits, so the 9,504-way cross-entropy
    equals the sum of one cross-entropy per part."""
    from train.combo_module import FactorisedHead

    table = FactorTable.load(None)
    head = FactorisedHead(16, table)
    features = torch.randn(5, 16)
    labels = torch.tensor([0, 1, 5000, 7777, table.n_objects - 1])
    parts = head.linear(features)
    sizes = (len(table.primary_options), len(table.secondary_options), table.n_appearances, table.n_appearances)
    for object_id in labels.tolist():
        obj = table.object(object_id)
        primary = table.primary_options.index(table.anchor(obj.primary_shape, obj.anchor))
        secondary = table.secondary_options.index(table.pivot(obj.secondary_shape, obj.pivot))
        expected = [primary, sizes[0] + secondary,
                    sum(sizes[:2]) + table.appearances.index(table.appearance(obj.primary_material, obj.primary_colour)),
                    sum(sizes[:3]) + table.appearances.index(table.appearance(obj.secondary_material, obj.secondary_colour))]
        assert head.columns[object_id].tolist() == expected
    joint = torch.nn.functional.cross_entropy(head(features), labels, reduction="none")
    offsets = torch.tensor([0, *sizes[:-1]]).cumsum(0)
    per_part = sum(torch.nn.functional.cross_entropy(chunk, (head.columns[labels] - offsets)[:, i], reduction="none")
                   for i, chunk in enumerate(parts.split(sizes, dim=1)))
    assert torch.allclose(joint, per_part, atol=1e-4)


def test_unknown_head_is_named():
    from train.combo_module import ComboClassifier

    with pytest.raises(ValueError, match="model.head 'mlp'"):
        ComboClassifier(backbone="resnet18", head="mlp")


def test_shipped_configs_are_found_from_any_folder(tmp_path, monkeypatch):
    from adapters.cli.train import shipped_configs

    monkeypatch.chdir(tmp_path)  # not the repository root
    argv = shipped_configs(["--config", "train/configs/combo_lite_cpu.yaml", "--trainer.max_epochs", "1"])
    assert argv[1].endswith("train/configs/combo_lite_cpu.yaml") and Path(argv[1]).is_file()
    assert argv[2:] == ["--trainer.max_epochs", "1"]
    assert Path(shipped_configs(["--config=combo_lite_cpu.yaml"])[0].split("=", 1)[1]).is_file()
    mine = tmp_path / "train" / "configs" / "combo_lite_cpu.yaml"  # a user's own copy there wins
    mine.parent.mkdir(parents=True)
    mine.write_text("seed_everything: 1\n")
    assert shipped_configs(["--config", "train/configs/combo_lite_cpu.yaml"])[1] == "train/configs/combo_lite_cpu.yaml"
