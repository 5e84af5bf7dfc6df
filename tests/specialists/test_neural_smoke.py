"""Every neural specialist end to end through the runner with `--checkpoint tiny-random`."""

import pytest

from adapters.report.run_report import load_run, markdown
from adapters.run.runner import RunConfig, run


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One synthetic set (2 questions per task) shared by every case."""
    return tmp_path_factory.mktemp("home")


@pytest.mark.parametrize("specialist, task, rule", [
    ("dift", "Visual_Correspondence", "correspondence.dift_cosine"),
    ("depth_anything", "Relative_Depth", "depth.depth_anything_disparity"),
    ("depth_anything_raw", "Relative_Depth", "depth.depth_anything_disparity_raw"),
    ("loftr", "Multi-view_Reasoning", "multiview.loftr_essential"),
    ("loftr_flow", "Multi-view_Reasoning", "multiview.loftr_flow"),
])
def test_tiny_random_runs_every_question(specialist, task, rule, tmp_path, monkeypatch, home):
    monkeypatch.setenv("SPECIALISTS_HOME", str(home))
    out = tmp_path / "run"
    results = run(RunConfig(str(out), benchmark="synthetic", synthetic_n=2, tasks=[task], specialist=[specialist],
                            checkpoint="tiny-random", batch_size=2, progress=False))
    summary = results["tasks"][task]
    # loftr with random weights may find too few matches: that must be an explained error, not a crash
    if specialist.startswith("loftr"):
        assert summary["n"] == 2 and summary["errors"] + len(summary["rules"]) >= 1
    else:
        assert (summary["n"], summary["errors"]) == (2, 0) and summary["rules"] == [rule]
    assert summary["checkpoint"]["tiny_random"] is True
    assert "tiny-random weights: meaningless" in markdown([load_run(out)])


def test_real_weight_path_through_the_registry(tmp_path, monkeypatch, home):
    """Weights saved in the official transformers layout, imported under the manifest name, then
    used by the default-checkpoint path (resolve -> from_pretrained), with the hash recorded."""
    import json

    from checkpoints.install import import_checkpoint
    from specialists.depth_anything import DepthAnything

    monkeypatch.setenv("SPECIALISTS_HOME", str(home))
    tiny = DepthAnything.tiny(seed=4)
    folder = tmp_path / "da"
    tiny.model.save_pretrained(folder)
    tiny.processor.save_pretrained(folder)
    import_checkpoint("depth-anything-v1-large", folder)
    results = run(RunConfig(str(tmp_path / "run"), benchmark="synthetic", synthetic_n=2, tasks=["Relative_Depth"],
                            specialist=["depth_anything"], progress=False))
    summary = results["tasks"]["Relative_Depth"]
    assert (summary["n"], summary["errors"]) == (2, 0)
    assert summary["checkpoint"]["name"] == "depth-anything-v1-large"
    assert len(summary["checkpoint"]["sha256"]) == 64 and summary["checkpoint"]["tiny_random"] is False
    samples = [json.loads(l) for l in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert all(s["checkpoint"]["sha256"] == summary["checkpoint"]["sha256"] for s in samples)


def test_missing_weights_fail_before_any_question(tmp_path, monkeypatch, blink_root):
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "empty"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    with pytest.raises(ValueError, match="checkpoints fetch depth-anything-v1-large"):
        run(RunConfig(str(tmp_path / "run"), blink_root=str(blink_root), specialist=["depth_anything"],
                      progress=False))
    assert not (tmp_path / "run" / "samples.jsonl").exists()


@pytest.mark.parametrize("specialist, settings", [
    ("dire", ["dire.unet_precision=fp16", "dire.codec=jpeg95"]),  # the official fp16 UNet, stored as JPEG
    ("dire_error", None),
])
def test_dire_tiny_random_through_the_runner(specialist, settings, tmp_path):
    import numpy as np
    from PIL import Image

    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder

    rng = np.random.default_rng(0)
    choices = ("the first image", "the second image", "the third image", "the fourth image")
    rows = [BlinkRow("Forensic_Detection", k, "Which image is most likely to be a real photograph?", choices, "ABCD"[k],
                     [Image.fromarray(rng.integers(0, 255, (40, 48, 3), dtype=np.uint8)) for _ in range(4)])
            for k in (1, 2)]
    write_blink_folder(tmp_path / "blink", rows)
    results = run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), specialist=[specialist],
                            checkpoint="tiny-random", settings=settings, progress=False))
    summary = results["tasks"]["Forensic_Detection"]
    assert (summary["n"], summary["errors"]) == (2, 0)
    if settings:
        assert summary["settings"] == {"codec": "jpeg95", "classifier": "paired", "unet_precision": "fp16"}
    assert summary["rules"] == [f"forensic.dire_{'classifier' if specialist == 'dire' else 'reconstruction_error'}"]


def _five_task_fixture(root):
    """BLINK-format questions for the paper's five DIFT / Depth Anything / LoFTR tasks, with the
    markers file. Semantic and Functional questions reuse the correspondence generator's images
    under their own task names: enough to exercise the path, not a semantic benchmark."""
    import json

    import numpy as np
    from PIL import Image

    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
    from adapters.datasets.synthetic import write_synthetic
    from adapters.datasets.synthetic.generators import visual_correspondence
    from adapters.markers import MarkerStyle, draw_points
    from adapters.markers.draw.textures import TextureSource

    write_synthetic(root, ["Visual_Correspondence", "Relative_Depth", "Multi-view_Reasoning"], n=2, seed=0)
    rows, lines = [], []
    for task in ("Semantic_Correspondence", "Functional_Correspondence"):
        for number in (1, 2):
            rng = np.random.default_rng([9, number])
            draft = visual_correspondence(rng, TextureSource(rng))
            images = [draw_points(Image.fromarray(im), draft.points[i], MarkerStyle()) for i, im in enumerate(draft.images)]
            rows.append(BlinkRow(task, number, draft.question, draft.choices, draft.answer, images, lead=draft.lead))
            lines.append({"idx": f"val_{task}_{number}", "markers": {
                f"image_{i + 1}": {k: {"xy": list(v)} for k, v in pts.items()} for i, pts in draft.points.items()}})
    write_blink_folder(root, rows)
    with open(root / "markers.jsonl", "a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)


def test_paper_specialists_full_path_from_the_command_line(tmp_path):
    """issue: `specialists run --benchmark blink --blink-root <fixture> --tasks <five> --checkpoint tiny-random`."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = tmp_path / "blink"
    _five_task_fixture(root)
    tasks = ["Visual_Correspondence", "Semantic_Correspondence", "Functional_Correspondence", "Relative_Depth",
             "Multi-view_Reasoning"]
    done = subprocess.run(
        [sys.executable, "-m", "specialists", "run", "--benchmark", "blink", "--blink-root", str(root), "--tasks", *tasks,
         "--checkpoint", "tiny-random", "--markers", str(root / "markers.jsonl"), "--output-dir", str(tmp_path / "out"),
         "--no-progress"],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}, capture_output=True, text=True,
        timeout=600)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["status"] == "complete"
    assert {t: v["specialist"] for t, v in results["tasks"].items()} == {
        "Visual_Correspondence": "dift", "Semantic_Correspondence": "dift", "Functional_Correspondence": "dift",
        "Relative_Depth": "depth_anything", "Multi-view_Reasoning": "loftr_flow"}
    for task in ("Visual_Correspondence", "Semantic_Correspondence", "Functional_Correspondence", "Relative_Depth"):
        assert results["tasks"][task]["errors"] == 0, task
    assert "tiny-random weights: meaningless" in done.stdout
