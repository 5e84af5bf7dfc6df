"""One run per run folder: `RunLock(out)` holds an exclusive lock on OUT/.run.lock while a run
writes there.

Two runs into one --output-dir would interleave their samples.jsonl lines and overwrite each
other's results.json. The lock is an OS file lock (flock), so the kernel drops it when its process
dies: a lock left by a killed run is taken over, with no stale-lock bookkeeping. The lock file
also names its holder (pid, host, start time) for the message the second run prints.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from pathlib import Path

LOCK_NAME = ".run.lock"


class RunDirError(ValueError):
    """The run folder cannot be used as asked (already holds a run, in use, settings differ)."""


class RunLock:
    """Context manager: the exclusive lock of one run folder (RunDirError when another holds it)."""

    def __init__(self, folder: str | Path, started_at: str) -> None:
        self.path = Path(folder) / LOCK_NAME
        self.started_at = started_at
        self._handle = None

    def __enter__(self) -> "RunLock":
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = _holder(handle.read())
            handle.close()
            raise RunDirError(f"{self.path.parent} is in use by another run ({holder}); wait for it to finish, "
                              "or choose another --output-dir") from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started_at": self.started_at}))
        handle.flush()
        self._handle = handle
        return self

    def __exit__(self, *exc) -> None:
        if self._handle is not None:
            self._handle.seek(0)
            self._handle.truncate()
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def _holder(text: str) -> str:
    try:
        info = json.loads(text)
        return f"pid {info['pid']} on {info['host']}, started {info['started_at']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"
