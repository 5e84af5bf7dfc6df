"""What every open-vocabulary detector wrapper shares (owlv2, grounding_dino): a transformers
model and its processor on one device and dtype, loaded from a local folder only when every
tensor fits. Subclasses name their two transformers classes and implement `tiny` and `__call__`
(images and their object phrases in, `Detections` out)."""

from __future__ import annotations

from pathlib import Path

import torch

from specialists.precision import DTYPES, dtype_of, place


class TextQueryDetector:
    """model: the transformers detection model; processor: its processor (image + tokenizer)."""

    model_class = ""  # transformers class names, imported on use
    processor_class = ""

    def __init__(self, model, processor, device: str = "cpu", precision: str = "fp32") -> None:
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        self.model = place(model, self.device, self.dtype)
        self.processor = processor

    @classmethod
    def from_pretrained(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32"):
        """A local transformers folder (config, weights, processor and tokenizer files)."""
        import transformers

        from checkpoints.convert.common import load_pretrained_folder

        model, processor = load_pretrained_folder(getattr(transformers, cls.model_class),
                                                  getattr(transformers, cls.processor_class), folder, DTYPES[precision])
        return cls(model, processor, device, precision)
