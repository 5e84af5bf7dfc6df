"""OWLv2 open-vocabulary detection (Minderer et al., 2023) on transformers' `Owlv2ForObjectDetection`.

One image and its text queries in, `Detections` out: every predicted box with its best query
and that query's sigmoid score, in the image's own pixels, as transformers'
`post_process_grounded_object_detection` gives them. OWLv2's processor pads the image to a
square at the bottom and right (grey) before resizing to 960 px, so a normalised box maps back by
the padded side, max(H, W), and may lie partly or wholly in the padding. Queries are phrased "a photo of a {object}", the template the OWL
papers use.
"""

from __future__ import annotations

from typing import Sequence

import torch
from PIL import Image

from specialists.open_vocabulary import TextQueryDetector
from specialists.outputs import Detections

QUERY_TEMPLATE = "a photo of a {}"


class Owlv2Detector(TextQueryDetector):
    """model: Owlv2ForObjectDetection; processor: Owlv2Processor (image processor + CLIP tokenizer)."""

    model_class = "Owlv2ForObjectDetection"
    processor_class = "Owlv2Processor"

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32") -> "Owlv2Detector":
        """Random weights, the real architecture (CLIP towers, box and class heads) at small widths,
        64 px inputs, with a byte-level CLIP tokenizer made here (nothing downloaded)."""
        from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2ImageProcessor, Owlv2Processor

        from specialists.dift import byte_level_clip_tokenizer

        torch.manual_seed(seed)
        config = Owlv2Config(
            text_config=dict(vocab_size=514, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                             num_attention_heads=2, max_position_embeddings=16, bos_token_id=512, eos_token_id=513,
                             pad_token_id=513),
            vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                               image_size=64, patch_size=16),
            projection_dim=32)
        tokenizer = byte_level_clip_tokenizer()
        tokenizer.model_max_length = 16  # OWL's text tower reads 16 tokens
        processor = Owlv2Processor(image_processor=Owlv2ImageProcessor(size={"height": 64, "width": 64}),
                                   tokenizer=tokenizer)
        return cls(Owlv2ForObjectDetection(config), processor, device, precision)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image], queries: Sequence[Sequence[str]]) -> list[Detections]:
        """queries[i]: the object phrases to look for in images[i] (templated here)."""
        out = []
        for image, phrases in zip(images, queries):
            texts = [QUERY_TEMPLATE.format(p) for p in phrases]
            inputs = self.processor(text=[texts], images=image.convert("RGB"), return_tensors="pt",
                                    padding="max_length", truncation=True)
            inputs = {k: (v.to(self.device, self.dtype) if v.is_floating_point() else v.to(self.device))
                      for k, v in inputs.items()}
            result = self.model(**inputs)
            logits = result.logits[0].float()  # (boxes, queries)
            # the best query by logit, then its sigmoid (as post_process_object_detection): taking the
            # sigmoid first ties queries whose logits both saturate it, and the first would win
            best, labels = logits.max(dim=-1)
            scores = torch.sigmoid(best)
            cx, cy, w, h = result.pred_boxes[0].float().unbind(-1)
            side = float(max(image.width, image.height))  # the padded square's side
            # not clipped, as the published post-processing leaves them: boxes may run into the
            # padding; the rules clip them with the detector's setting boxes=clipped
            boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1) * side
            out.append(Detections(boxes.cpu(), scores.cpu(), labels.cpu(), tuple(phrases)))
        return out
