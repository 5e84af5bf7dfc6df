"""Where weights come from. Imports no model code, so that looking a checkpoint up stays light.

    resolve(name_or_path) -> ResolvedCheckpoint(path, ref: CheckpointRef, ...)   offline, verified
    fetch(name)            download into SPECIALISTS_HOME (the only network access)
    import_checkpoint(name, file, link=False)                                    register a user's file
"""

from checkpoints.ref import CheckpointRef
from checkpoints.resolve import MissingCheckpointError, ResolvedCheckpoint, resolve

__all__ = ["CheckpointRef", "MissingCheckpointError", "ResolvedCheckpoint", "resolve"]
