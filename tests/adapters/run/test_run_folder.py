"""A run folder's trust: a --resume continues only the run it holds, a full or read-only disk
stops a run with one line and loses nothing, a damaged samples.jsonl line is named."""

import builtins
import errno
import json
import os
from pathlib import Path

import pytest

from adapters.cli.main import main
from adapters.run import folder as run_folder
from adapters.run import lock as run_lock
from adapters.run.runner import RunConfig, RunDirError, SampleStore, run


def _samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def _blink(blink_root, out, **kwargs) -> RunConfig:
    return RunConfig(str(out), blink_root=str(blink_root), progress=False, **kwargs)


# --- a resume continues the run the folder holds ---------------------------------------------------


def test_resume_without_results_json_is_checked_against_the_recorded_identity_and_the_samples(blink_root, tmp_path):
    out = tmp_path / "out"
    depth = dict(tasks=["Relative_Depth"], limit=2)
    run(_blink(blink_root, out, specialist=["lower_is_closer"], **depth))
    (out / "results.json").unlink()
    before = (out / "samples.jsonl").read_bytes()
    with pytest.raises(RunDirError, match="settings differ \\(specialists: was \\{'Relative_Depth': 'lower_is_closer'"
                       "\\}, now \\{'Relative_Depth': 'random'\\};.* as run_identity.json records them\\); resume "
                       "with the settings the run was started with"):
        run(_blink(blink_root, out, specialist=["Relative_Depth=random"], resume=True, tasks=["Relative_Depth"]))
    # with the identity file gone too, the samples themselves say who answered them
    (out / "run_identity.json").unlink()
    with pytest.raises(RunDirError, match="Relative_Depth: the samples are answered by 'lower_is_closer', this run "
                       "asks 'random' \\(first at val_Relative_Depth_1 in samples.jsonl\\)"):
        run(_blink(blink_root, out, specialist=["Relative_Depth=random"], resume=True, tasks=["Relative_Depth"]))
    assert (out / "samples.jsonl").read_bytes() == before  # a refused resume writes nothing
    resumed = run(_blink(blink_root, out, specialist=["lower_is_closer"], resume=True, tasks=["Relative_Depth"]))
    assert resumed["tasks"]["Relative_Depth"]["n"] == 4
    assert {s["specialist"] for s in _samples(out)} == {"lower_is_closer"}
    assert (out / "run_identity.json").is_file()  # written again for the next resume


def test_a_synthetic_run_is_not_resumed_as_blink(tmp_path):
    out = tmp_path / "out"
    first = run(RunConfig(str(out), benchmark="synthetic", synthetic_n=2, tasks=["Relative_Depth"],
                          specialist=["lower_is_closer"], progress=False))
    as_blink = RunConfig(str(out), benchmark="blink", blink_root=first["data"]["root"], tasks=["Relative_Depth"],
                         specialist=["lower_is_closer"], resume=True, progress=False)
    (out / "results.json").unlink()
    with pytest.raises(RunDirError, match="benchmark: was 'synthetic', now 'blink'"):
        run(as_blink)
    (out / "run_identity.json").unlink()
    with pytest.raises(RunDirError, match="benchmark: the samples are 'synthetic', this run 'blink'"):
        run(as_blink)


def test_a_checkpoint_changed_under_a_run_is_refused_on_resume():
    same = {"name": "w", "sha256": "a" * 64, "path": "/old/place", "tiny_random": False}
    assert run_folder.same_checkpoint(same, {**same, "path": "/new/place"})  # moved: the same weights
    assert not run_folder.same_checkpoint(same, {**same, "sha256": "b" * 64})
    assert not run_folder.same_checkpoint(same, None) and run_folder.same_checkpoint(None, None)
    samples = {"val_Relative_Depth_1": {"idx": "val_Relative_Depth_1", "task": "Relative_Depth",
                                        "specialist": "depth_anything", "checkpoint": same}}
    with pytest.raises(RunDirError, match="answered with checkpoint w \\(sha256 aaaaaaaaaaaa\\), this run loads w "
                       "\\(sha256 bbbbbbbbbbbb\\)"):
        run_folder.check_samples(Path("out"), samples, "blink",
                                 {"Relative_Depth": ("depth_anything", {**same, "sha256": "b" * 64})})


# --- samples.jsonl lines that are JSON but no sample ------------------------------------------------


@pytest.mark.parametrize("line", ["[1, 2]", "3", '"x"', "{}", '{"idx": 5, "task": "Relative_Depth"}', "null"])
def test_a_sample_line_that_is_not_a_sample_is_named(blink_root, tmp_path, line, capsys):
    out = tmp_path / "out"
    run(_blink(blink_root, out, specialist=["random"], limit=1))
    lines = (out / "samples.jsonl").read_text().splitlines()
    lines.insert(1, line)
    (out / "samples.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(RunDirError, match="samples.jsonl:2 is not a sample \\(a JSON object with idx and task\\), "
                       "it reads .*; fix or remove that line"):
        SampleStore(out / "samples.jsonl").load()
    code = main(["run", "--blink-root", str(blink_root), "--specialist", "random", "--limit", "1", "--no-progress",
                 "--output-dir", str(out), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"error: {out / 'samples.jsonl'}:2 is not a sample") and "Traceback" not in err


# --- a full disk, a read-only folder ----------------------------------------------------------------


class _FullDisk:
    """A file on a disk that fills up in the middle of this write: half the text lands."""

    def __init__(self, handle):
        self.handle = handle

    def write(self, text):
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()


def _disk_fills_after(monkeypatch, appends: int, results_fit: bool = True) -> None:
    """Once the run answers questions, samples.jsonl takes `appends` more lines, then the disk is
    full for every file of the run (for results.json at once unless `results_fit`)."""
    left = {"appends": appends, "answering": False}

    def fake_open(file, mode="r", *args, **kwargs):
        handle = builtins.open(file, mode, *args, **kwargs)
        is_sample = str(file).endswith("samples.jsonl")
        left["answering"] |= is_sample
        if ("r" in mode and "+" not in mode) or not left["answering"]:
            return handle
        if left["appends"] > 0 and (is_sample or results_fit):
            left["appends"] -= is_sample
            return handle
        return _FullDisk(handle)

    monkeypatch.setattr(run_folder, "open", fake_open, raising=False)


def test_a_full_disk_stops_the_run_with_one_line_and_a_resume_continues(blink_root, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    fresh = run(_blink(blink_root, tmp_path / "fresh", specialist=["random"]))
    with monkeypatch.context() as patch:
        _disk_fills_after(patch, 6)
        code = main(["run", "--blink-root", str(blink_root), "--specialist", "random", "--no-progress",
                     "--output-dir", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip() == (f"error: cannot write {out / 'samples.jsonl'}: no space left on the device; free some "
                           "space, then continue with --resume (the answers already saved are kept)")
    assert len(SampleStore(out / "samples.jsonl").load()) == 6  # the half-written seventh line is cut off
    resumed = run(_blink(blink_root, out, specialist=["random"], resume=True))
    assert resumed["status"] == "complete" and resumed["tasks"] == fresh["tasks"]
    assert len(_samples(out)) == 12


def test_a_full_disk_while_writing_results_keeps_the_samples(blink_root, tmp_path, monkeypatch):
    out = tmp_path / "out"
    with monkeypatch.context() as patch:
        _disk_fills_after(patch, 10**6, results_fit=False)  # samples fit; results.json (its .tmp file) does not
        with pytest.raises(RunDirError, match=f"cannot write {out / 'results.json'}: no space left on the device"):
            run(_blink(blink_root, out, specialist=["random"]))
    assert not (out / "results.json").exists() and not (out / "results.json.tmp").exists()
    assert len(_samples(out)) == 4  # the first task's answers, all kept
    assert run(_blink(blink_root, out, specialist=["random"], resume=True))["status"] == "complete"


def _read_only(monkeypatch, folder: Path) -> None:
    """What a read-only file system answers to a write under `folder`."""
    def fake_open(file, mode="r", *args, **kwargs):
        if Path(file).parent == folder and ("r" not in mode or "+" in mode):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(file))
        return builtins.open(file, mode, *args, **kwargs)

    for module in (run_folder, run_lock):
        monkeypatch.setattr(module, "open", fake_open, raising=False)


def test_a_read_only_folder_is_refused_for_run_and_resume(blink_root, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    run(_blink(blink_root, out, specialist=["random"], limit=1))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    expected = (f"error: cannot write {out / '.run.lock'}: the file system is read-only; choose a folder you can "
                "write with --output-dir (to continue this run, copy its folder there and --resume it)")
    with monkeypatch.context() as patch:
        _read_only(patch, out)
        for extra in (["--resume"], []):
            code = main(["run", "--blink-root", str(blink_root), "--specialist", "random", "--no-progress",
                         "--output-dir", str(out), *extra])
            err = capsys.readouterr().err
            assert code == 2 and err.strip() == expected
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_an_output_folder_that_cannot_be_made_is_named(blink_root, tmp_path, monkeypatch):
    out = tmp_path / "read-only" / "out"

    def refuse(self, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(RunDirError, match=f"cannot write {out}: the file system is read-only"):
        run(_blink(blink_root, out, specialist=["random"]))


def test_a_folder_without_write_permission_is_refused(blink_root, tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    if os.geteuid() == 0:  # root writes into a chmod'ed folder regardless: give the answer anyone else gets
        import adapters.run.lock as lock

        def denied(path, *args, **kwargs):
            if Path(path).parent == out:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return open(path, *args, **kwargs)

        monkeypatch.setattr(lock, "open", denied, raising=False)
    try:
        with pytest.raises(RunDirError, match=f"cannot write {out / '.run.lock'}: permission denied"):
            run(_blink(blink_root, out, specialist=["random"]))
    finally:
        out.chmod(0o755)
