"""`specialists run --benchmark combo`: Category Building per difficulty level and Pattern
Perception through the resumable runner, on ComBo-lite and on a real-format ComBo folder."""

import json

import cv2
import numpy as np
import pytest
import torch
from combo_fixture import write_tiny_table

from adapters.cli.main import main
from adapters.core.registry import get
from adapters.core.solver import SolverOptions
from adapters.core.tasks import CATEGORY_BUILDING_TASKS, COMBO_TASKS, combo_tasks
from adapters.datasets.combo import ComboLiteRenderer, ComboLiteSource, FactorTable
from adapters.datasets.combo.pattern_perception import PARTS, build_pattern_perception, one_part_neighbours
from adapters.run.runner import RunConfig, RunDirError, run


def _parts_differing(table, a, b):
    fa, fb = table.object(a).factors(), table.object(b).factors()
    groups = {"primary": ("primary_shape", "anchor"), "secondary": ("secondary_shape", "pivot"),
              "primary_look": ("primary_material", "primary_colour"),
              "secondary_look": ("secondary_material", "secondary_colour")}
    return {part for part, names in groups.items() if any(fa[n] != fb[n] for n in names)}


def test_task_names_and_shorthand():
    assert combo_tasks(None) == list(CATEGORY_BUILDING_TASKS)
    assert combo_tasks(["category building", "pattern-perception"]) == list(COMBO_TASKS)
    with pytest.raises(ValueError, match="Did you mean Category_Building_expert"):
        combo_tasks(["Category_Building_exprt"])


def test_one_part_neighbours_change_exactly_that_part():
    table = FactorTable.load()
    for object_id in (0, 4321, 9503):
        for part, ids in one_part_neighbours(table, object_id).items():
            assert ids and all(_parts_differing(table, object_id, o) == {part} for o in ids)


def test_pattern_perception_questions_have_one_right_candidate():
    table = FactorTable.load()
    questions = build_pattern_perception(ComboLiteSource(ComboLiteRenderer(table, 32, seed=1)), table, 12, seed=3)
    assert len({q.gold for q in questions}) > 1  # the right answer's position varies
    for q in questions:
        reference, *candidates = q.object_ids
        assert len(q.images) == 5 and len(candidates) == len(q.choices) == 4
        gold = "ABCD".index(q.gold)
        assert candidates[gold] == reference and q.changed[gold] == ""
        for i, (candidate, part) in enumerate(zip(candidates, q.changed)):
            if i != gold:
                assert part in PARTS and _parts_differing(table, reference, candidate) == {part}
        assert len(set(q.changed) - {""}) == 3  # distractors spread over different parts
    again = build_pattern_perception(ComboLiteSource(ComboLiteRenderer(table, 32, seed=1)), table, 12, seed=3)
    assert [q.object_ids for q in again] == [q.object_ids for q in questions]
    assert np.array_equal(np.asarray(again[5].images[2]), np.asarray(questions[5].images[2]))


def test_prototype_retrieval_answers_pattern_perception_on_oracle_embeddings():
    """With an embedding that is the object's identity, the same object is always nearest."""
    table = FactorTable.load()
    questions = build_pattern_perception(ComboLiteSource(ComboLiteRenderer(table, 16, seed=0)), table, 8, seed=0)
    solver = get("prototype").build(SolverOptions(checkpoint="tiny-random"))
    identity = {id(im): object_id for q in questions for im, object_id in zip(q.images, q.object_ids)}
    solver.embedder = lambda images: torch.nn.functional.one_hot(
        torch.tensor([identity[id(im)] for im in images]), table.n_objects).float()
    decisions = solver.decide_batch(questions)
    assert [d.pred for d in decisions] == [q.gold for q in questions]
    assert decisions[0].details["changed"] == list(questions[0].changed)


def test_combo_run_writes_every_task_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["run", "--benchmark", "combo", "--checkpoint", "tiny-random", "--combo-n", "4", "--tasks",
            "category_building", "pattern_perception", "--output-dir", str(out), "--no-progress", "--limit", "2"]
    assert main(argv) == 0
    first = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(first) == 10
    assert main(argv[:-2] + ["--resume"]) == 0
    printed = capsys.readouterr().out
    assert "ResNet-50 + 1 epoch 9,504-way (paper)" in printed and "prototype: tiny-random" in printed
    results = json.loads((out / "results.json").read_text())
    assert list(results["tasks"]) == list(COMBO_TASKS)
    assert all(t["n"] == 4 and t["specialist"] == "prototype" and t["errors"] == 0 for t in results["tasks"].values())
    assert results["tasks"]["Pattern_Perception"]["expected_random"] == pytest.approx(0.25)
    assert results["tasks"]["Category_Building_expert"]["expected_random"] == pytest.approx(0.5)
    assert results["data"]["generator"]["source"] == "combo-lite"
    assert results["data"]["files"][0]["sha256"]  # the factor table is hashed
    assert results["checkpoints"]["prototype"]["tiny_random"] is True
    samples = {}
    for line in (out / "samples.jsonl").read_text().splitlines():
        record = json.loads(line)
        samples[record["idx"]] = record
    assert len(samples) == 20
    # The resumed run kept the first two answers per task: the questions were rebuilt identically.
    assert all(samples[r["idx"]] == r for r in first)
    levels = {samples[i]["decision"]["details"]["level"] for i in samples if "Category_Building" in i}
    assert levels == {"easy", "medium", "hard", "expert"}

    with pytest.raises(RunDirError, match="combo"):
        run(RunConfig(output_dir=str(out), benchmark="combo", checkpoint="tiny-random", combo_n=5,
                      tasks=["category_building", "pattern_perception"], resume=True, progress=False))


def test_combo_run_on_a_real_format_folder(tmp_path):
    """A ComBo folder (manifest.csv + images) with a custom factor table, read instead of rendered."""
    table_path = write_tiny_table(tmp_path)
    table = FactorTable.load(table_path)
    renderer = ComboLiteRenderer(table, 24, seed=0)
    rows = ["path,object_id,view"]
    for object_id in range(table.n_objects):
        for view in range(3):
            name = f"images/{object_id}_{view}.png"
            (tmp_path / "images").mkdir(exist_ok=True)
            cv2.imwrite(str(tmp_path / name), cv2.cvtColor(renderer.render(object_id, view), cv2.COLOR_RGB2BGR))
            rows.append(f"{name},{object_id},{view}")
    (tmp_path / "manifest.csv").write_text("\n".join(rows) + "\n")
    results = run(RunConfig(output_dir=str(tmp_path / "run"), benchmark="combo", checkpoint="tiny-random",
                            combo_root=str(tmp_path), combo_factors=str(table_path), combo_n=2, combo_k_support=2,
                            tasks=["category_building", "pattern_perception"], progress=False))
    assert results["data"]["generator"]["source"] == "combo" and results["data"]["generator"]["n_objects"] == 8
    assert {f["path"].split("/")[-1] for f in results["data"]["files"]} == {"tiny_factors.toml", "manifest.csv"}
    assert all(t["n"] == 2 and t["errors"] == 0 for t in results["tasks"].values())


@pytest.mark.parametrize("extra, message", [
    (["--combo-root", "nowhere"], "no manifest.csv there"),
    (["--answers", "x.json"], "ComBo's answers are known by construction"),
    (["--specialist", "dift"], "answers none of the tasks in combo-lite"),
])
def test_combo_run_input_errors(tmp_path, capsys, extra, message):
    argv = ["run", "--benchmark", "combo", "--checkpoint", "tiny-random", "--combo-n", "1",
            "--output-dir", str(tmp_path / "r"), "--no-progress", *extra]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_manifest_backbone_name_resolves_local_weights(tmp_path, monkeypatch):
    """`--checkpoint resnet50.tv_in1k` loads the file `checkpoints fetch/import` put in place,
    hash-recorded; absent, the error says how to get it."""
    import timm
    from safetensors.torch import save_file

    from checkpoints.hashing import sha256_file
    from specialists.timm_backbone import load_backbone

    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    with pytest.raises(ValueError, match="specialists checkpoints fetch resnet50.tv_in1k"):
        load_backbone("resnet50.tv_in1k")
    source = timm.create_model("resnet50", pretrained=False)
    weights = tmp_path / "resnet50.tv_in1k" / "model.safetensors"
    weights.parent.mkdir()
    save_file({k: v.contiguous() for k, v in source.state_dict().items()}, str(weights))
    model, config, ref = load_backbone("resnet50.tv_in1k")
    assert ref.name == "resnet50.tv_in1k" and ref.sha256 == sha256_file(weights) and not ref.tiny_random
    assert config.num_features == 2048 and config.image_size == 224
    assert torch.equal(model.state_dict()["layer1.0.conv1.weight"], source.state_dict()["layer1.0.conv1.weight"])
    with pytest.raises(ValueError, match="not a timm backbone"):
        load_backbone("sd-2-1")


def test_random_weight_backbones_are_the_same_network_every_time():
    from specialists.timm_backbone import load_backbone

    torch.manual_seed(123)
    first = load_backbone("tiny-random")[0].state_dict()
    torch.manual_seed(456)
    second = load_backbone("tiny-random")[0].state_dict()
    assert all(torch.equal(first[k], second[k]) for k in first)
