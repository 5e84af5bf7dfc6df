"""torchvision's VGG-19 ImageNet weights (`vgg19-dcbb9e9d.pth`): a plain state dict whose every
key and shape must be those of `torchvision.models.vgg19()` (checked on the meta device, so the
check allocates nothing)."""

from __future__ import annotations

from pathlib import Path

from checkpoints.convert.common import StateDictError, load_torch_file, strip_common_prefix, tensor_dict
from checkpoints.formats import FORMATS


def vgg19_state_dict(path: str | Path) -> dict:
    """The state dict in `path`, or StateDictError naming the keys missing, unexpected or misshapen."""
    import torch
    from torchvision.models import vgg19

    state = strip_common_prefix(tensor_dict(load_torch_file(path, FORMATS["torchvision-vgg19"].description), path, "a VGG-19 state dict"))
    with torch.device("meta"):
        expected = {k: tuple(v.shape) for k, v in vgg19(weights=None).state_dict().items()}
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    misshapen = sorted(k for k in set(expected) & set(state) if tuple(state[k].shape) != expected[k])
    if missing or unexpected or misshapen:
        parts = [f"{len(v)} {label} (first: {', '.join(v[:3])})"
                 for label, v in (("missing", missing), ("unexpected", unexpected), ("misshapen", misshapen)) if v]
        raise StateDictError(f"{path}: not torchvision's VGG-19 weights: {'; '.join(parts)}")
    return state
