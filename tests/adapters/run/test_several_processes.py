"""`specialists run --devices 2` (and `combo eval`, `train combo`) on CPU with gloo, against one
process, question by question; resume after a rank is killed; the agreements between ranks."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.run.folder import SampleStore, consolidate, has_samples, part_files, part_path
from adapters.run.lock import RunLock, lock_name
from adapters.run.ranks import SINGLE, StoppedElsewhere, launched_by_torchrun_without_devices
from adapters.run.runner import RunConfig, RunDirError

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SLOW_CLI = HERE / "slow_cli.py"
# what may differ between a one-process and a several-process run of the same questions
TIMING = ("seconds", "started_at", "finished_at")
LAUNCH = ("output_dir", "devices", "num_nodes", "strategy")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """SPECIALISTS_HOME shared by the module's runs (one generated synthetic set)."""
    return tmp_path_factory.mktemp("home")


def cli(args: list[str], home: Path, script: Path | None = None, extra_env: dict | None = None,
        timeout: int = 600) -> subprocess.CompletedProcess:
    command = [sys.executable, str(script)] if script else [sys.executable, "-m", "specialists"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "SPECIALISTS_HOME": str(home), **(extra_env or {})}
    return subprocess.run([*command, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


def samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def comparable(results: dict) -> dict:
    """results.json without timing and the launch's own record."""
    kept = {k: v for k, v in results.items() if k not in TIMING and k != "distributed"}
    kept["config"] = {k: v for k, v in results["config"].items() if k not in LAUNCH}
    return kept


def one_and_two(home: Path, tmp_path: Path, args: list[str]) -> tuple[Path, Path]:
    """The same `specialists run` with one process and with two; both must succeed."""
    outs = []
    for devices in (1, 2):
        out = tmp_path / f"p{devices}"
        done = cli(["run", *args, "--output-dir", str(out), "--devices", str(devices), "--no-progress"], home)
        assert done.returncode == 0, done.stderr[-3000:]
        outs.append(out)
    return outs[0], outs[1]


def test_two_processes_answer_every_question_as_one_does(home, tmp_path):
    one, two = one_and_two(home, tmp_path, ["--benchmark", "synthetic", "--synthetic-n", "5", "--batch-size", "2"])
    a, b = samples(one), samples(two)
    assert [s["idx"] for s in a] == [s["idx"] for s in b] and len(a) == 25  # one line per question, same order
    assert [{**s, "seconds": 0} for s in a] == [{**s, "seconds": 0} for s in b]
    ra, rb = (json.loads((o / "results.json").read_text()) for o in (one, two))
    assert comparable(ra) == comparable(rb)
    assert ra["distributed"] == {"world_size": 1}
    launch = rb["distributed"]
    assert (launch["world_size"], launch["backend"], launch["launcher"]) == (2, "gloo", "lightning")
    assert launch["strategy"] == "ddp"
    assert [r["rank"] for r in launch["ranks"]] == [0, 1] and rb["config"]["devices"] == 2
    assert not part_files(two)  # every rank's part was filed into samples.jsonl


def test_under_torchrun_the_processes_it_started_are_the_ranks(home, tmp_path):
    """torchrun starts both processes (Lightning launches none) and names the launcher; asking
    for one process under it is refused in one line instead of two runs racing for the folder."""
    import socket

    def torchrun() -> list[str]:
        with socket.socket() as probe:  # a free port for its rendezvous
            probe.bind(("127.0.0.1", 0))
            port = str(probe.getsockname()[1])
        return [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", port,
                "-m", "specialists"]

    args = ["run", "--benchmark", "synthetic", "--synthetic-n", "3", "--no-progress"]
    one = tmp_path / "one"
    assert cli([*args, "--output-dir", str(one)], home).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(REPO), "SPECIALISTS_HOME": str(home)}
    two = tmp_path / "two"
    done = subprocess.run([*torchrun(), *args, "--output-dir", str(two), "--devices", "2"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [{**s, "seconds": 0} for s in samples(one)] == [{**s, "seconds": 0} for s in samples(two)]
    results = json.loads((two / "results.json").read_text())
    assert (results["distributed"]["launcher"], results["distributed"]["world_size"]) == ("torchelastic", 2)
    refused = subprocess.run([*torchrun(), *args, "--output-dir", str(tmp_path / "three")], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=600)
    assert refused.returncode != 0 and "started by a launcher (WORLD_SIZE=2)" in refused.stderr


def test_two_processes_with_a_tiny_random_network_and_a_shared_feature_cache(home, tmp_path):
    """Depth Anything and DIFT (tiny random instances of the real architectures) on two processes,
    both writing one feature cache: the same decisions as one process, every entry whole."""
    cache = tmp_path / "features"
    common = ["--benchmark", "synthetic", "--synthetic-n", "3", "--tasks", "Relative_Depth", "Visual_Correspondence",
              "--specialist", "depth_anything", "dift", "--checkpoint", "tiny-random", "--batch-size", "2"]
    one = tmp_path / "p1"
    done = cli(["run", *common, "--output-dir", str(one), "--no-progress"], home)
    assert done.returncode == 0, done.stderr[-3000:]
    two = tmp_path / "p2"
    done = cli(["run", *common, "--output-dir", str(two), "--devices", "2", "--cache", "read", "--cache-dir", str(cache),
                "--no-progress"], home)
    assert done.returncode == 0, done.stderr[-3000:]
    a, b = samples(one), samples(two)
    assert [s["idx"] for s in a] == [s["idx"] for s in b] and len(a) == 6
    for x, y in zip(a, b):
        assert x["status"] == y["status"] == "ok", (x, y)
        assert x["decision"]["pred"] == y["decision"]["pred"], x["idx"]
        # the processes run on fewer threads and other batches: the same numbers up to float rounding
        assert x["decision"]["scores"] == pytest.approx(y["decision"]["scores"], rel=1e-4, abs=1e-7), x["idx"]
    ra, rb = (json.loads((o / "results.json").read_text()) for o in (one, two))
    assert comparable(ra)["tasks"] == comparable(rb)["tasks"]
    from safetensors.torch import load_file

    entries = list(cache.glob("*/*.safetensors"))
    assert len(entries) == 3 + 2 * 3  # one depth map per depth question, two DIFT maps per correspondence one
    assert all(load_file(e) for e in entries) and not list(cache.glob("*/.tmp-*"))


def test_combo_benchmark_through_run_on_two_processes(home, tmp_path):
    one, two = one_and_two(home, tmp_path, ["--benchmark", "combo", "--combo-n", "2", "--checkpoint", "tiny-random"])
    a = samples(one)
    assert [{**s, "seconds": 0} for s in a] == [{**s, "seconds": 0} for s in samples(two)]
    ra, rb = (json.loads((o / "results.json").read_text()) for o in (one, two))
    assert comparable(ra) == comparable(rb)
    assert len(ra["tasks"]) == 4 and len(a) == sum(t["n"] for t in ra["tasks"].values())  # the four levels


def test_combo_eval_on_two_processes(home, tmp_path):
    tables = []
    for devices in (1, 2):
        output = tmp_path / f"levels{devices}.json"
        done = cli(["combo", "eval", "--combo-n", "4", "--output", str(output), "--devices", str(devices)], home)
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.count("Category Building on") == 1  # rank 0 alone prints
        tables.append(json.loads(output.read_text()))
    assert tables[0]["models"] == tables[1]["models"]
    assert tables[1]["distributed"]["world_size"] == 2 and tables[0]["distributed"] == {"world_size": 1}


def test_train_combo_on_two_processes_follows_the_one_process_run(tmp_path):
    """Two processes with batch 4 take the steps one process takes with batch 8: the same images
    per step (the seeded sampler) and averaged gradients. A ViT has no batch statistics, so the
    weights agree up to rounding (Adam magnifies it on near-zero gradients): far closer to each
    other than to where they started."""
    sys.path.insert(0, str(REPO / "tests"))
    from combo_fixture import write_tiny_table
    from safetensors.torch import load_file

    factors = write_tiny_table(tmp_path)
    exports = {}
    for devices, batch, strategy in ((1, 8, "auto"), (2, 4, "ddp")):
        run = tmp_path / f"d{devices}"
        done = cli(["train", "combo", "--config", "train/configs/combo_lite_cpu.yaml",
                    "--trainer.max_steps", "6", "--trainer.max_epochs", "-1", "--trainer.enable_progress_bar", "false",
                    "--trainer.default_root_dir", str(run / "run"), "--trainer.callbacks.dirpath", str(run / "export"),
                    "--trainer.callbacks.initial_dirpath", str(run / "initial"),
                    "--trainer.devices", str(devices), "--trainer.strategy", strategy,
                    "--data.factors", str(factors), "--data.image_size", "32", "--data.views_per_object", "2",
                    "--data.batch_size", str(batch), "--data.num_workers", "0", "--data.augment", "false",
                    "--model.backbone", "vit_tiny_patch16_224", "--model.warmup_steps", "0", "--model.lr", "0.003",
                    "--model.label_smoothing", "0.0"], tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        exports[devices] = load_file(run / "export" / "model.safetensors")
        config = json.loads((run / "export" / "config.json").read_text())
        assert config["trained"]["global_step"] == 6
    start = load_file(tmp_path / "d1" / "initial" / "model.safetensors")

    def distance(a, b):
        return sum(float(((a[k] - b[k]) ** 2).sum()) for k in a) ** 0.5

    assert distance(exports[1], start) > 1.0  # the runs trained
    assert distance(exports[2], exports[1]) < 0.01 * distance(exports[1], start)


@pytest.mark.slow
@pytest.mark.parametrize("victim", [1, 0])
def test_resume_after_a_rank_is_killed(home, tmp_path, victim):
    """SIGKILL one rank mid-run; `--resume` on two processes then finishes the run with every
    question answered once, as an uninterrupted one-process run answers them."""
    args = ["run", "--benchmark", "synthetic", "--synthetic-n", "8", "--specialist", "slow_random", "--batch-size", "1",
            "--no-progress"]  # one question per batch: an answer is saved every SLOW_SECONDS
    reference = tmp_path / "reference"
    done = cli([*args, "--output-dir", str(reference)], home, SLOW_CLI)
    assert done.returncode == 0, done.stderr[-3000:]
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(REPO), "SPECIALISTS_HOME": str(home), "SLOW_SECONDS": "0.4"}
    main = subprocess.Popen([sys.executable, str(SLOW_CLI), *args, "--output-dir", str(out), "--devices", "2"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not mid_task(out):  # the first task filed, rank 1 inside another
            time.sleep(0.05)
        pids = [json.loads((out / lock_name(rank)).read_text())["pid"] for rank in (0, 1)]
        assert pids[0] == main.pid
        os.kill(pids[victim], signal.SIGKILL)
        for pid in pids:  # the other rank stops too: Lightning's watcher, or the lost peer at the next agreement
            while time.monotonic() < deadline and (main.poll() is None if pid == main.pid else alive(pid)):
                time.sleep(0.2)
            assert time.monotonic() < deadline, f"rank with pid {pid} still runs"
    finally:
        if main.poll() is None:
            main.kill()
        main.wait()
    assert len(consolidate_copy(out)) < 40  # the kill left work to do
    done = cli([*args, "--output-dir", str(out), "--devices", "2", "--resume"], home, SLOW_CLI)
    assert done.returncode == 0, done.stderr[-3000:]
    answered = SampleStore(out / "samples.jsonl").load()
    expected = SampleStore(reference / "samples.jsonl").load()
    assert {k: {**v, "seconds": 0} for k, v in answered.items()} == {k: {**v, "seconds": 0} for k, v in expected.items()}
    ra, rb = (json.loads((o / "results.json").read_text()) for o in (reference, out))
    assert comparable({**rb, "config": {**rb["config"], "resume": False}}) == comparable(ra)
    assert not part_files(out)


def mid_task(out: Path) -> bool:
    try:
        return (out / "samples.jsonl").exists() and len(part_path(out, 1).read_bytes().splitlines()) >= 1
    except FileNotFoundError:  # the part was filed between the two looks
        return False


def alive(pid: int) -> bool:
    """Whether pid runs (a zombie waiting for its new parent to reap it does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def consolidate_copy(out: Path) -> dict:
    """The answers a folder holds, read from a copy (the folder itself stays as the kill left it)."""
    import shutil

    copy = out.parent / f"{out.name}-copy"
    shutil.copytree(out, copy)
    return consolidate(copy)


def test_a_rank_that_cannot_take_its_part_stops_every_rank(home, tmp_path):
    """A rank of an earlier run still writing part 1: the new run's rank 1 is refused, and rank 0
    stops with the same line (printed once) instead of waiting for it."""
    out = tmp_path / "busy"
    out.mkdir()
    with RunLock(out, "earlier", lock_name(1)):
        done = cli(["run", "--benchmark", "synthetic", "--synthetic-n", "2", "--output-dir", str(out), "--devices", "2",
                    "--no-progress"], home)
    assert done.returncode != 0
    assert done.stderr.count(f"{out} (.run.rank1.lock) is in use by another run") == 1, done.stderr[-2000:]
    assert not has_samples(out)


def test_resume_files_every_part_newest_last(tmp_path):
    """A killed several-process run leaves parts; consolidating appends what samples.jsonl lacks
    (a retried answer included) and removes them."""
    store = SampleStore(tmp_path / "samples.jsonl")
    old = {"idx": "q1", "task": "T", "status": "error"}
    store.append_many([old, {"idx": "q2", "task": "T", "status": "ok"}])
    SampleStore(part_path(tmp_path, 1)).append_many([{"idx": "q1", "task": "T", "status": "ok"}])
    SampleStore(part_path(tmp_path, 3)).append_many([{"idx": "q2", "task": "T", "status": "ok"},
                                                     {"idx": "q3", "task": "T", "status": "ok"}])
    (part_path(tmp_path, 0).parent / "samples.rankX.jsonl").write_text("not a part\n")
    assert [p.name for p in part_files(tmp_path)] == ["samples.rank1.jsonl", "samples.rank3.jsonl"]
    records = consolidate(tmp_path)
    assert {k: v["status"] for k, v in records.items()} == {"q1": "ok", "q2": "ok", "q3": "ok"}
    assert SampleStore(tmp_path / "samples.jsonl").load() == records
    assert len((tmp_path / "samples.jsonl").read_text().splitlines()) == 4  # q2's identical copy not repeated
    assert not part_files(tmp_path)


def test_one_process_agreements_just_call():
    assert SINGLE.together(lambda: 3) == 3 and SINGLE.gather(lambda: 4) == [4] and SINGLE.from_main(lambda: 5) == 5
    with pytest.raises(RunDirError):
        SINGLE.together(lambda: (_ for _ in ()).throw(RunDirError("full")))


def _agreeing_rank(rank: int, init: str, results) -> None:
    import torch.distributed as dist

    from adapters.run.ranks import Ranks

    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    ranks = Ranks(rank, 2)
    try:
        assert ranks.gather(lambda: rank * 10) == [0, 10]

        def refuse_on_rank_1():
            if rank == 1:
                raise RunDirError("disk full on rank 1")
            return "fine"

        try:
            ranks.together(refuse_on_rank_1)
        except BaseException as error:  # noqa: BLE001 - what each rank raised is the result
            results.put((rank, type(error).__name__, str(error)))
    finally:
        dist.destroy_process_group()


def test_an_error_on_one_rank_stops_all_rank_0_reporting_it(tmp_path):
    import torch.multiprocessing as mp

    context = mp.get_context("spawn")
    results = context.Queue()
    init = f"file://{tmp_path / 'rendezvous'}"
    mp.start_processes(_agreeing_rank, args=(init, results), nprocs=2, start_method="spawn")
    seen = sorted(results.get(timeout=30) for _ in range(2))
    assert seen == [(0, "RunDirError", "disk full on rank 1"),
                    (1, StoppedElsewhere.__name__, "rank 1 stopped: disk full on rank 1")]


def test_a_launcher_started_world_without_devices_is_named(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert "--devices" in launched_by_torchrun_without_devices(1, 1)
    assert launched_by_torchrun_without_devices(2, 2) is None
    with pytest.raises(ValueError, match="WORLD_SIZE=4"):
        RunConfig("x", benchmark="synthetic").validate()


@pytest.mark.parametrize("change, message", [
    ({"devices": 0}, "at least 1"),
    ({"devices": 2, "device": "cuda:1"}, "each process takes its own device"),
    ({"devices": 2, "strategy": "fsdp"}, "--strategy 'fsdp'"),
])
def test_bad_process_options_are_named(change, message, monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    config = RunConfig("x", benchmark="synthetic", **change)
    with pytest.raises(ValueError, match=message):
        config._validate_processes()
