"""LoFTR Lightning checkpoints (loftr_outdoor.ckpt, ...) -> kornia LoFTR state dict.

The official files are Lightning checkpoints: the weights sit under "state_dict" with every
key prefixed "matcher." (the PL module's attribute); other entries (epoch, optimizer states)
are ignored. The result loads strictly into `kornia.feature.LoFTR(pretrained=None, config=...)`.
"""

from __future__ import annotations

from pathlib import Path

from checkpoints.convert.common import StateDictError, load_torch_file, tensor_dict
from checkpoints.formats import FORMATS

PREFIX = "matcher."


def loftr_state_dict(path: str | Path) -> dict:
    """{kornia LoFTR key: Tensor} from an official (or already plain) LoFTR checkpoint."""
    checkpoint = load_torch_file(path, FORMATS["loftr-lightning"].description)
    raw = checkpoint.get("state_dict", checkpoint) if isinstance(checkpoint, dict) else checkpoint
    state = tensor_dict(raw, path, "a LoFTR state dict (under 'state_dict')")
    matcher = {k[len(PREFIX):]: v for k, v in state.items() if k.startswith(PREFIX)}
    if not matcher and any(k.startswith("backbone.") for k in state):
        matcher = state  # already a plain kornia state dict
    if not any(k.startswith("backbone.") for k in matcher):
        raise StateDictError(f"{path}: no LoFTR backbone weights ('{PREFIX}backbone.*' or 'backbone.*'); "
                             f"keys start with {sorted({k.split('.')[0] for k in state})[:5]}")
    return matcher
