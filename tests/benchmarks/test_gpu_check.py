"""`python -m benchmarks.gpu_check --quick`: the GPU check's code on a CPU, every section's
figures where they belong; the budget cuts and skips sections as it says; the BLINK-sized set."""

import hashlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
from PIL import Image

REPO = Path(__file__).resolve().parents[2]
CASES = ("resnet50", "vit_b16", "depth_anything_vitl", "dift_sd21")


def test_quick_check_records_every_figure(tmp_path):
    out = tmp_path / "check.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), "SPECIALISTS_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "benchmarks.gpu_check", "--quick", "--budget-s", "900", "--out", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report == json.loads(done.stdout.strip().splitlines()[-1])  # the file and the printed line agree
    sections = report["sections"]
    assert report["quick"] is True and report["precision"] == "bf16"
    assert sections["environment"]["status"] == "ok" and "provenance" in sections["environment"]
    peaks = sections["matmul_peak"]
    assert peaks["bf16_gflops"] > 0 and peaks["fp32_gflops"] > 0
    decode = sections["nvjpeg"]
    assert decode["batched_decode_jpeg_cpu"]["img_s"] > 0 and decode["engine_cpu_decoder"]["img_s"] > 0
    engine = sections["engine"]
    assert engine["status"] == "ok"
    for name in CASES:
        row = engine[name]
        for key in ("naive_img_s", "engine_img_s", "speedup", "gflop_per_img", "gflops", "roofline_fraction",
                    "warmup_s", "batch_size", "architecture", "source"):
            assert key in row, (name, key, row)
        assert row["engine_img_s"] > 0 and row["gflop_per_img"] > 0 and row["compile"] is False
        assert abs(row["roofline_fraction"] - row["gflops"] / peaks["bf16_gflops"]) < 2e-3  # of the measured peak
    compiled = sections["compiled"]
    assert compiled["resnet50"]["status"] == "ok" and compiled["resnet50"]["compile"] is True
    assert compiled["resnet50"]["engine_img_s"] > 0 and "naive_img_s" not in compiled["resnet50"]
    assert all(compiled[name]["status"] == "skipped" and "--quick" in compiled[name]["reason"] for name in CASES[1:])
    pipeline = sections["pipeline"]
    assert pipeline["status"] == "ok", pipeline
    assert pipeline["set"]["questions"] == 10 and len(pipeline["set"]["per_task"]) == 5
    assert sorted(pipeline["specialists"]) == [
        "Jigsaw=seam", "Multi-view_Reasoning=loftr_flow_full", "Relative_Depth=depth_anything_full",
        "Relative_Reflectance=ordinal_shading_full", "Visual_Correspondence=dift_full"]
    cold, warm = pipeline["cold"], pipeline["warm"]
    assert cold["questions"] == warm["questions"] == 10
    assert sum(t["errors"] for t in cold["per_task"].values()) == 0
    # Depth Anything (one image) and DIFT (two) are cached; the warm run adds nothing
    assert cold["cache_entries"] == warm["cache_entries"] == 2 + 2 * 2
    assert pipeline["warm_speedup"] == round(cold["seconds"] / warm["seconds"], 2)


def test_the_budget_skips_and_cuts_sections(tmp_path):
    from benchmarks import gpu_check

    report = {"sections": {}}
    check = gpu_check.Check(report, tmp_path / "r.json", budget_s=2.0, quick=True, only=None)

    def slow() -> dict:
        time.sleep(30)
        return {"never": True}

    started = time.perf_counter()
    check.section("environment", slow, gpu_check.torch.device("cpu"))  # needs 0 s: starts, then is cut
    assert time.perf_counter() - started < 10
    assert report["sections"]["environment"]["status"] == "interrupted"
    check.section("engine", lambda: {"ran": True}, gpu_check.torch.device("cpu"))  # needs 30 s: never starts
    assert report["sections"]["engine"]["status"] == "skipped" and "budget" in report["sections"]["engine"]["reason"]
    assert json.loads((tmp_path / "r.json").read_text())["sections"] == report["sections"]
    only = gpu_check.Check({"sections": {}}, None, 1000.0, quick=False, only=["compiled"])
    assert only._skip_reason("compiled:dift_sd21") is None and only._skip_reason("matmul_peak") is None
    assert "--only" in only._skip_reason("pipeline")


def test_blink_sized_set_copies_questions_with_images_of_their_own(tmp_path):
    from adapters.datasets.blink.reader import BlinkReader
    from benchmarks.blink_sized import write_blink_sized

    written = write_blink_sized(tmp_path / "set", total=7, base=1, scale=2)
    assert written["questions"] == 7 and sorted(written["per_task"].values()) == [1, 1, 1, 2, 2]
    reader = BlinkReader(tmp_path / "set", "val")
    assert sum(reader.count(task) for task in reader.tasks) == 7
    hashes = []
    for task in reader.tasks:
        table = pq.read_table(next((tmp_path / "set" / task).glob("*.parquet"))).to_pylist()
        for row in table:
            for column in ("image_1", "image_2", "image_3", "image_4"):
                if row.get(column):
                    hashes.append(hashlib.sha256(row[column]["bytes"]).hexdigest())
    assert len(hashes) == len(set(hashes))  # a cold feature cache is cold for every question
    base = pq.read_table(next((tmp_path / "set-base" / "Relative_Depth").glob("*.parquet"))).to_pylist()[0]
    copy = pq.read_table(next((tmp_path / "set" / "Relative_Depth").glob("*.parquet"))).to_pylist()[0]
    small, large = (Image.open(io.BytesIO(r["image_1"]["bytes"])).size for r in (base, copy))
    assert large == (2 * small[0], 2 * small[1]) and copy["choices"] == base["choices"]
    markers = {json.loads(line)["idx"]: json.loads(line) for line in (tmp_path / "set" / "markers.jsonl").open()}
    base_markers = {json.loads(line)["idx"]: json.loads(line) for line in (tmp_path / "set-base" / "markers.jsonl").open()}
    a = base_markers["val_Relative_Depth_1"]["markers"]["image_1"]["A"]["xy"]
    assert markers["val_Relative_Depth_1"]["markers"]["image_1"]["A"]["xy"] == [2 * a[0] + 0.5, 2 * a[1] + 0.5]
