"""Weights for a neural specialist from `--checkpoint`: tiny-random, a manifest name, or a path.

Every solver that loads a model goes through `load_weights`, so every result records exactly
which bytes answered (name + sha256), and `tiny-random` is labelled as meaningless everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, TypeVar

from adapters.core.solver import SolverOptions
from checkpoints import CheckpointRef

Model = TypeVar("Model")
TINY_RANDOM = "tiny-random"


def load_weights(
    options: SolverOptions, default_name: str, tiny: Callable[[], Model], real: Callable[[Path], Model]
) -> tuple[Model, CheckpointRef]:
    """Build the model the user asked for; returns it with the identity of its weights.

    Resolution (offline) and hash verification are the checkpoint registry's job: a missing
    weight raises its error, which names the places searched and the command that fixes it.
    """
    choice = options.checkpoint or default_name
    if choice == TINY_RANDOM:
        return tiny(), CheckpointRef(TINY_RANDOM, None, None, tiny_random=True)
    from checkpoints import resolve

    resolved = resolve(choice, expect=default_name)  # a path in another format is refused before hashing
    return real(Path(resolved.path)), resolved.ref
