"""The processes of one run: who this process is among them, and the few agreements they need.

`specialists run --devices N [--num-nodes M]` starts its processes with Lightning Fabric's
launcher (strategy "ddp": the command re-runs itself once per extra device with LOCAL_RANK set,
as `Trainer` does for training; under torchrun or SLURM the processes exist already and Fabric
reads their ranks from the environment). The processes never exchange tensors, only small
Python objects (which questions are done, each process's answers, errors), so the process group
is always gloo, on CPUs and GPUs alike: no NCCL set-up and no GPU memory spent on messages.

`Ranks` is what the runner sees. Every rank calls its methods in the same order:
- `together(fn)`: every rank runs `fn`; if any raised, every rank stops with that error (rank 0
  raises it and reports it; the others raise `StoppedElsewhere`, which the CLI does not print
  twice). So a refused lock or a full disk on one rank never leaves the others waiting.
- `gather(fn)`: the same, and every rank gets the list of all ranks' results.
- `from_main(fn)`: rank 0 runs `fn`; every rank gets its result.
- `main_first(fn)`: rank 0 runs `fn` before the others (first-use caches, generated data).
A one-process run uses `SINGLE`, whose methods just call `fn`.
"""

from __future__ import annotations

import os
import pickle
import socket
from datetime import timedelta
from typing import Any, Callable, TypeVar

T = TypeVar("T")
STRATEGIES = ("ddp", "ddp_spawn")
# how long a rank waits for the others at an agreement (a task's answers, rank 0's first-use work)
AGREEMENT_TIMEOUT = timedelta(hours=12)


class StoppedElsewhere(Exception):
    """This rank's own work was fine; another rank failed and rank 0 reports why."""


def _nothing() -> None:
    return None


def _transportable(error: BaseException) -> BaseException:
    """The error itself when it pickles (and unpickles), else a RuntimeError carrying its message."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # an exception with unpicklable state: its message is what matters
        return RuntimeError(f"{type(error).__name__}: {error}")


class Ranks:
    """One process of a run. rank: global rank; world_size: processes in all; device: where this
    rank's models run ("cpu", "cuda:N")."""

    def __init__(self, rank: int = 0, world_size: int = 1, device: str = "cpu", local_rank: int = 0,
                 node_rank: int = 0, group: Any = None, facts: dict | None = None) -> None:
        self.rank, self.world_size, self.device = rank, world_size, device
        self.local_rank, self.node_rank = local_rank, node_rank
        self.group = group
        self.facts = facts or {}

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def _all_gather(self, value: Any) -> list[Any]:
        if self.world_size == 1:
            return [value]
        import torch.distributed as dist

        out: list[Any] = [None] * self.world_size
        dist.all_gather_object(out, value, group=self.group)
        return out

    def _agree(self, fn: Callable[[], T], share: bool) -> tuple[T, list[Any]]:
        """Run fn here; (own result, every rank's result when `share`, else Nones), or stop
        every rank with the lowest failing rank's error."""
        own: BaseException | None = None
        value: Any = None
        try:
            value = fn()
            mine: tuple[str, Any] = ("ok", value if share else None)
        except BaseException as error:  # KeyboardInterrupt too: a stop on one rank stops all
            if self.world_size == 1:
                raise
            mine, own = ("error", _transportable(error)), error
        everyone = self._all_gather(mine)
        failed = [(rank, value) for rank, (status, value) in enumerate(everyone) if status == "error"]
        if failed:
            rank, error = failed[0]
            if self.is_main:
                raise (own if rank == 0 else error)
            if own is not None and not isinstance(own, (ValueError, OSError, KeyboardInterrupt)):
                raise own  # a bug on this rank: its own traceback is the useful one
            raise StoppedElsewhere(f"rank {rank} stopped: {error}")
        return value, [v for _, v in everyone]

    def gather(self, fn: Callable[[], T]) -> list[T]:
        """Every rank runs fn; every rank gets [rank 0's result, rank 1's, ...] (they must pickle),
        or every rank stops with the lowest failing rank's error."""
        return self._agree(fn, share=True)[1]

    def together(self, fn: Callable[[], T]) -> T:
        """Every rank runs fn and keeps its own result; errors as in `gather`."""
        return self._agree(fn, share=False)[0]

    def from_main(self, fn: Callable[[], T]) -> T:
        """Rank 0 runs fn; every rank gets its result (it must pickle)."""
        return self.gather(fn if self.is_main else _nothing)[0]

    def main_first(self, fn: Callable[[], T]) -> T:
        """Rank 0 runs fn, then the other ranks (each its own result)."""
        mine = self.together(fn if self.is_main else _nothing)
        later = self.together(_nothing if self.is_main else fn)
        return mine if self.is_main else later

    def describe(self) -> dict[str, Any]:
        """Provenance for results.json: the launch and each rank's host and device."""
        if self.world_size == 1:
            return {"world_size": 1}
        ranks = self.gather(lambda: {"rank": self.rank, "node_rank": self.node_rank, "local_rank": self.local_rank,
                                     "host": socket.gethostname(), "device": self.device})
        return {"world_size": self.world_size, **self.facts, "ranks": ranks}


SINGLE = Ranks()


def launch(function: Callable[..., T], *args: Any, accelerator: str, devices: int, num_nodes: int,
           strategy: str) -> T | None:
    """Start (or join, under torchrun / SLURM) the run's processes with Lightning Fabric and call
    function(*args, ranks) in each; rank 0's return value comes back (None on the other ranks).

    accelerator: "cpu" or "cuda"; devices: processes per node; strategy: "ddp" (re-run the
    command per device, Lightning's default launcher) or "ddp_spawn" (fork-free spawn from this
    interpreter, for notebooks)."""
    from lightning.fabric import Fabric
    from lightning.fabric.strategies import DDPStrategy

    if strategy not in STRATEGIES:
        raise ValueError(f"--strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    ddp = DDPStrategy(process_group_backend="gloo", timeout=AGREEMENT_TIMEOUT,
                      start_method="spawn" if strategy == "ddp_spawn" else "popen")
    fabric = Fabric(accelerator=accelerator, devices=devices, num_nodes=num_nodes, strategy=ddp)
    facts = {"num_nodes": num_nodes, "devices_per_node": devices, "strategy": strategy, "accelerator": accelerator,
             "backend": "gloo", "launcher": None}
    return fabric.launch(_as_rank, function, args, facts)


def _as_rank(fabric: Any, function: Callable[..., T], args: tuple, facts: dict) -> T | None:
    import torch.distributed as dist

    environment = fabric.strategy.cluster_environment
    facts = {**facts, "launcher": "lightning" if not environment.creates_processes_externally
             else type(environment).__name__.removesuffix("Environment").lower()}
    ranks = Ranks(fabric.global_rank, fabric.world_size, str(fabric.device), fabric.local_rank, fabric.node_rank,
                  group=None, facts=facts)
    try:
        result = function(*args, ranks)
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    return result if ranks.is_main else None


def launched_by_torchrun_without_devices(devices: int, num_nodes: int) -> str | None:
    """The line to print when torchrun (or another launcher that sets WORLD_SIZE) started several
    processes but the command asks for one (each would take the whole run); None when they agree."""
    world = int(os.environ.get("WORLD_SIZE", "1") or 1)
    if world > 1 and devices * num_nodes == 1 and "LOCAL_RANK" in os.environ:
        return (f"this process is one of {world} started by a launcher (WORLD_SIZE={world}), but the command asks for "
                "one process; pass --devices (processes per node) and --num-nodes so that they multiply to "
                f"{world}")
    return None
