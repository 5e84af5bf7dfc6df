"""One run per run folder: `RunLock(out)` holds an exclusive lock on OUT/.run.lock while a run
writes there; `writing(path)` turns a failed write in the folder into one line saying what to do.

Two runs into one --output-dir would interleave their samples.jsonl lines and overwrite each
other's results.json. The lock is an OS file lock (flock), so the kernel drops it when its process
dies: a lock left by a killed run is taken over, with no stale-lock bookkeeping. The lock file
also names its holder (pid, host, start time) for the message the second run prints.

A run of several processes: rank 0 holds the folder's lock, and every other rank R holds
`.run.rank{R}.lock` over its own part of the answers (adapters/run/folder.py), so a rank left
running by a killed run is never joined by a second writer of the same part. On several nodes
the folder must be on a file system every node sees, with working flock (NFSv4, Lustre, GPFS).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

LOCK_NAME = ".run.lock"


def lock_name(rank: int) -> str:
    """The lock file rank `rank` holds: the folder's own for rank 0, its part's for the others."""
    return LOCK_NAME if rank == 0 else f".run.rank{rank}.lock"


class RunDirError(ValueError):
    """The run folder cannot be used as asked (already holds a run, in use, settings differ)."""


# what to do when a write fails, by cause; the answers already in samples.jsonl are kept in every case
_FULL = "free some space, then continue with --resume (the answers already saved are kept)"
_READ_ONLY = ("choose a folder you can write with --output-dir (to continue this run, copy its folder there "
              "and --resume it)")
_ADVICE = {errno.ENOSPC: ("no space left on the device", _FULL),
           errno.EDQUOT: ("disk quota exceeded", _FULL),
           errno.EROFS: ("the file system is read-only", _READ_ONLY),
           errno.EACCES: ("permission denied", _READ_ONLY),
           errno.EPERM: ("permission denied", _READ_ONLY)}


def unwritable(path: str | Path, exc: OSError) -> RunDirError:
    """The one-line error for a run-folder file that could not be written."""
    what, todo = _ADVICE.get(exc.errno, (exc.strerror or str(exc), "fix that, then continue with --resume"))
    return RunDirError(f"cannot write {path}: {what}; {todo}")


@contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """Writes to `path` inside this block fail as a RunDirError naming it, not as a traceback."""
    try:
        yield
    except OSError as exc:
        raise unwritable(path, exc) from exc


class RunLock:
    """Context manager: the exclusive lock of one run folder (RunDirError when another holds it)."""

    def __init__(self, folder: str | Path, started_at: str, name: str = LOCK_NAME) -> None:
        self.path = Path(folder) / name
        self.started_at = started_at
        self._handle = None

    def __enter__(self) -> "RunLock":
        with writing(self.path):
            handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = _holder(handle.read())
            handle.close()
            which = "" if self.path.name == LOCK_NAME else f" ({self.path.name})"
            raise RunDirError(f"{self.path.parent}{which} is in use by another run ({holder}); wait for it to finish, "
                              "or choose another --output-dir") from None
        self._handle = handle
        try:
            with writing(self.path):
                handle.seek(0)
                handle.truncate()
                handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                         "started_at": self.started_at}))
                handle.flush()
        except RunDirError:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._handle is not None:
            try:  # the holder's name goes; the lock itself is the kernel's and goes with the close
                self._handle.seek(0)
                self._handle.truncate()
            except OSError:
                pass
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            try:
                self._handle.close()
            except OSError:  # a holder line the full disk did not take: nothing of the run's
                pass
            self._handle = None


def _holder(text: str) -> str:
    try:
        info = json.loads(text)
        return f"pid {info['pid']} on {info['host']}, started {info['started_at']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"
