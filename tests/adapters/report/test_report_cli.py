"""The report, and the command line through a real subprocess (as users run it)."""

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from adapters.report.run_report import ReportError, write_report
from adapters.run.runner import RunConfig, run

REPO = Path(__file__).resolve().parents[3]


def cli(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "specialists", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_report_tables_and_plot(blink_root, tmp_path):
    for name, seed in (("r1", 0), ("r2", 1)):
        run(RunConfig(str(tmp_path / name), specialist=["random"], blink_root=str(blink_root), seed=seed, progress=False))
    paths = write_report([tmp_path / "r1"])
    assert paths["markdown"].parent == tmp_path / "r1"
    text = paths["markdown"].read_text()
    assert "| Relative_Depth |" in text and "Depth Anything 97.58" in text and "99.19" in text  # human, Table 1
    assert "GPT-4o 74.19" in text  # the best MLLM the paper reports on the task
    assert "r1: random (baseline)" in text and "macro mean" in text
    rows = list(csv.DictReader(open(paths["csv"])))
    depth = {r["model"]: r for r in rows if r["task"] == "Relative_Depth"}
    assert float(depth["random (expected)"]["accuracy"]) == 0.5
    assert float(depth["Depth Anything (paper)"]["accuracy"]) == 0.9758
    results = json.loads((tmp_path / "r1" / "results.json").read_text())
    run_row = depth["r1: random (baseline)"]
    assert float(run_row["accuracy"]) == results["tasks"]["Relative_Depth"]["accuracy"]
    assert Image.open(paths["plot"]).size[0] > 300

    with pytest.raises(ReportError, match="pass --output"):
        write_report([tmp_path / "r1", tmp_path / "r2"])
    both = write_report([tmp_path / "r1", tmp_path / "r2"], tmp_path / "both")
    assert "r2: random (baseline)" in both["markdown"].read_text()
    with pytest.raises(ReportError, match="no results.json"):
        write_report([tmp_path])


def test_cli_run_then_report(blink_root, tmp_path):
    out = tmp_path / "out"
    done = cli("run", "--benchmark", "blink", "--blink-root", blink_root, "--specialist", "random", "--output-dir", out)
    assert done.returncode == 0, done.stderr
    assert "| Visual_Correspondence |" in done.stdout
    assert (out / "samples.jsonl").exists() and json.loads((out / "results.json").read_text())["status"] == "complete"
    report = cli("report", out)
    assert report.returncode == 0, report.stderr
    assert {p.name for p in out.iterdir()} >= {"report.md", "report.csv", "report.png"}


def test_cli_errors_are_one_clear_line(blink_root, tmp_path):
    done = cli("run", "--blink-root", blink_root, "--tasks", "Relative_Dept", "--output-dir", tmp_path / "o")
    assert done.returncode == 2
    assert done.stderr.startswith("error: unknown BLINK task 'Relative_Dept'. Did you mean Relative_Depth")
    assert "Traceback" not in done.stderr
    done = cli("run", "--blink-root", blink_root, "--specialist", "randon", "--output-dir", tmp_path / "p")
    assert done.returncode == 2 and "Did you mean random" in done.stderr


def test_cli_ls_json():
    done = cli("ls", "--json")
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    assert len(listing["tasks"]) == 14
    assert {"name": "random", "kind": "baseline"}.items() <= listing["specialists"][0].items()


def test_cli_default_is_the_synthetic_run_with_default_specialists(monkeypatch, tmp_path):
    from adapters.cli import main as cli_module
    from adapters.cli import run as run_command

    seen = {}
    monkeypatch.setattr(run_command, "handle", lambda args: seen.update(vars(args)) or 0)
    monkeypatch.chdir(tmp_path)
    assert cli_module.main([]) == 0
    assert seen["benchmark"] == "synthetic" and seen["specialist"] is None and seen["synthetic_n"] == 50
    assert seen["output_dir"].startswith("runs/synthetic-default-")


def test_cli_synth_then_run_on_it(tmp_path):
    done = cli("synth", "--out", tmp_path / "syn", "--tasks", "Relative_Reflectance", "--n", "2")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "syn" / "Relative_Reflectance" / "val-00000-of-00001.parquet").exists()
    done = cli("run", "--benchmark", "blink", "--blink-root", tmp_path / "syn", "--output-dir", tmp_path / "out",
               "--markers", tmp_path / "syn" / "markers.jsonl", "--specialist", "retinex")
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["tasks"]["Relative_Reflectance"]["specialist"] == "retinex"
    assert (results["tasks"]["Relative_Reflectance"]["n"], results["tasks"]["Relative_Reflectance"]["errors"]) == (2, 0)
    assert results["markers"]["source"] == "file" and len(results["markers"]["sha256"]) == 64


def test_every_command_names_its_output_folder_output_dir_and_keeps_the_old_names():
    from adapters.cli.main import build_parser

    parser = build_parser()
    for argv, dest in ((["synth"], "out"), (["report", "r"], "output"), (["compare", "--mllm", "m"], "output"),
                       (["markers"], "output")):
        for flag in ("--output-dir", {"synth": "--out"}.get(argv[0], "--output")):
            assert getattr(parser.parse_args([*argv, flag, "D"]), dest) == "D", (argv, flag)
    assert "--out " not in parser._subparsers._group_actions[0].choices["synth"].format_help()


def test_combo_eval_takes_runs_names_for_its_sizes_and_the_old_ones():
    from adapters.cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["combo", "eval"]).n_per_level == 25
    assert parser.parse_args(["combo", "eval", "--combo-n", "9"]).n_per_level == 9
    assert parser.parse_args(["combo", "eval", "--n-per-level", "7"]).n_per_level == 7
    assert parser.parse_args(["combo", "eval", "--combo-root", "C"]).manifest == "C"
    assert parser.parse_args(["combo", "eval", "--manifest", "C"]).manifest == "C"


@pytest.mark.parametrize("content", [bytes(range(128, 256)), b"[1, 2]", b'{"tasks": [1]}'])
def test_a_results_file_that_is_not_one_is_named(tmp_path, content):
    (tmp_path / "results.json").write_bytes(content)
    with pytest.raises(ReportError, match=rf"^{tmp_path / 'results.json'} (is not valid JSON|has no 'tasks' section)"):
        write_report([tmp_path])


def test_report_prints_the_macro_interval_and_keeps_names_as_data(blink_root, tmp_path):
    run_dir = tmp_path / "=r|1"
    run(RunConfig(str(run_dir), specialist=["random"], blink_root=str(blink_root), progress=False))
    results = json.loads((run_dir / "results.json").read_text())
    results["tasks"]["Relative_Depth"]["specialist"] = "x|y\n| z |"
    (run_dir / "results.json").write_text(json.dumps(results))
    lo, hi = results["macro_ci95"]
    macro = f"{100 * results['macro_accuracy']:.2f} [{100 * lo:.2f}, {100 * hi:.2f}]"
    assert lo < results["macro_accuracy"] < hi

    paths = write_report([run_dir])
    text = paths["markdown"].read_text()
    [macro_row] = [line for line in text.splitlines() if line.startswith("| **macro mean**")]
    assert macro_row.split(" | ")[1] == macro
    assert "=r\\|1: random" in text and "x\\|y \\| z \\|" in text and "\n| z |" not in text
    for table in text.split("\n\n"):
        assert len({len(re.findall(r"(?<!\\)\|", line)) for line in table.splitlines() if line.startswith("|")}) <= 1
    models = {row["model"] for row in csv.DictReader(open(paths["csv"], newline=""))}
    assert any(model.startswith("'=r|1: random") for model in models)

    # a run written before results.json kept the interval: the same one, from its samples
    del results["macro_ci95"]
    (run_dir / "results.json").write_text(json.dumps(results))
    assert macro in write_report([run_dir])["markdown"].read_text()


def read_only_disk(monkeypatch, under):
    """Writing any file under `under` fails as on a read-only mount (so the test runs as root too)."""
    import errno

    real_write_text, real_open = Path.write_text, open

    def refuse(path):
        if Path(path).resolve().is_relative_to(Path(under).resolve()):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    def write_text(self, *args, **kwargs):
        refuse(self)
        return real_write_text(self, *args, **kwargs)

    def open_(file, mode="r", *args, **kwargs):
        if any(flag in mode for flag in "wax+"):
            refuse(file)
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)
    monkeypatch.setattr("builtins.open", open_)


def test_report_and_compare_into_a_read_only_folder_say_so_in_one_line(blink_root, tmp_path, monkeypatch, capsys):
    from adapters.cli.main import main

    run_dir = tmp_path / "run"
    run(RunConfig(str(run_dir), specialist=["random"], blink_root=str(blink_root), progress=False))
    (tmp_path / "m.json").write_text(json.dumps({"val_Relative_Depth_1": "(A)"}))
    read_only_disk(monkeypatch, run_dir)
    for argv, what in ((["report", str(run_dir)], "the report"),
                       (["compare", str(run_dir), "--mllm", str(tmp_path / "m.json")], "the comparison")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == f"error: cannot write {what} into {run_dir}: Read-only file system; pass --output-dir DIR, " \
                      "a folder you can write\n"
    assert main(["report", str(run_dir), "--output-dir", str(tmp_path / "elsewhere")]) == 0
    assert (tmp_path / "elsewhere" / "report.md").is_file()
