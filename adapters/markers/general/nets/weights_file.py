"""The safetensors files the marker networks ship in (weights/): float16 tensors plus a JSON
training record in the metadata; loading adds the file's sha256 to the record, so every result
can name the exact weights it used. `TrainedNetwork` is what every network's wrapper shares."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import ClassVar

import torch
from safetensors import safe_open
from safetensors.torch import save_file


def save_weights(net: torch.nn.Module, path: Path, record: dict, **metadata: str) -> None:
    """Float tensors are stored as float16 (half the file; the networks' outputs move by < 1e-3)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {k: v for k, v in record.items() if k != "sha256"}  # the file's own hash is added on load
    state = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in net.state_dict().items()}
    save_file(state, str(path), metadata={**metadata, "record": json.dumps(record)})


def load_weights(path: Path, how_to_make: str) -> tuple[dict[str, torch.Tensor], dict[str, str], dict]:
    """(float32 state dict, metadata, record with "sha256") of a file written by save_weights.

    how_to_make: the command that writes the file, named in the error when it is absent."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no weights at {path}: make them with `{how_to_make} --output {path}`")
    with safe_open(str(path), "pt") as f:
        metadata = dict(f.metadata() or {})
        state = {k: f.get_tensor(k) for k in f.keys()}
    state = {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
    record = json.loads(metadata.pop("record", "{}"))
    record["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state, metadata, record


class TrainedNetwork:
    """A trained network in eval mode with its training record (`record["sha256"]` once loaded).

    Subclasses set NETWORK (an nn.Module class built from its `width`), WEIGHTS (the shipped
    file) and TRAIN (the command that writes such a file)."""

    NETWORK: ClassVar[type]
    WEIGHTS: ClassVar[Path]
    TRAIN: ClassVar[str]

    def __init__(self, net: torch.nn.Module, record: dict | None = None) -> None:
        self.net = net.eval()
        self.record = record or {}

    def save(self, path: Path) -> None:
        """save_weights, with the network's width in the metadata."""
        save_weights(self.net, path, self.record, width=str(self.net.width))

    @classmethod
    def load(cls, path: Path | None = None):
        """A file written by `save` (default: the shipped WEIGHTS); record gains the file's sha256."""
        state, metadata, record = load_weights(path or cls.WEIGHTS, cls.TRAIN)
        net = cls.NETWORK(int(metadata.get("width", 24)))
        net.load_state_dict(state)
        return cls(net, record)
