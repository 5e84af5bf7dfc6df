"""DIRE classifier checkpoints (lsun_adm.pth, ...) -> torchvision ResNet-50 with a 1-logit head.

DIRE's training code saves {"model": state_dict, "optimizer": ..., "total_steps": ...}; the
released files may be that dict or the bare state dict. Keys are torchvision's ResNet names
(conv1, bn1, layer1..4, fc); fc is Linear(2048, 1): sigmoid(logit) = P(generated).
"""

from __future__ import annotations

from pathlib import Path

from checkpoints.convert.common import load_strictly, load_torch_file, require_shape, strip_common_prefix, tensor_dict
from checkpoints.formats import FORMATS


def dire_state_dict(path: str | Path) -> dict:
    checkpoint = load_torch_file(path, FORMATS["dire-resnet50"].description)
    if isinstance(checkpoint, dict) and "model" in checkpoint:
        checkpoint = checkpoint["model"]
    state = strip_common_prefix(tensor_dict(checkpoint, path, "a DIRE ResNet-50 state dict"))
    require_shape(state, "fc.weight", lambda s: s == (1, 2048), "(1, 2048): one logit on ResNet-50 features", path)
    require_shape(state, "conv1.weight", lambda s: s == (64, 3, 7, 7), "(64, 3, 7, 7): ResNet-50 stem", path)
    return state


def dire_classifier(path: str | Path):
    """torchvision resnet50(num_classes=1) with the file's weights, loaded strictly, in eval mode."""
    import torch
    from torchvision.models import resnet50

    with torch.device("meta"):  # skip a random init that the file overwrites
        model = resnet50(weights=None, num_classes=1)
    load_strictly(model, dire_state_dict(path), path, "a DIRE ResNet-50 classifier", assign=True)
    return model.eval()
