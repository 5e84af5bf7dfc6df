"""Where weights come from. Imports no model code (see DESIGN.md)."""

from .ref import CheckpointRef

__all__ = ["CheckpointRef"]
