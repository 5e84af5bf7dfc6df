"""Grounding DINO open-set detection (Liu et al., 2023) on transformers' `GroundingDinoForObjectDetection`.

The same interface as `owlv2.Owlv2Detector`: one image and its object phrases in, `Detections`
out. Grounding DINO reads all phrases as one caption, "cat. dog." (its convention), and scores
every predicted box against every caption token. A box's label is the phrase whose tokens score
it highest; its score (`box_score`) is, as transformers' post_process_grounded_object_detection
and the official demo give it, its highest sigmoid over every caption token, [CLS], the dots and
[SEP] included ("all_tokens", the default), or only over its label's tokens ("phrase_tokens").
Boxes come normalised to the image (padding is masked), so they scale by its width and height.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import torch
from PIL import Image

from specialists.open_vocabulary import TextQueryDetector
from specialists.outputs import Detections


def caption(phrases: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """"cat. dog." and each phrase's character span in it."""
    text, spans = "", []
    for phrase in phrases:
        start = len(text)
        text += phrase.lower()
        spans.append((start, len(text)))
        text += ". "
    return text.strip(), spans


class GroundingDinoDetector(TextQueryDetector):
    """model: GroundingDinoForObjectDetection; processor: GroundingDinoProcessor (with a fast tokenizer)."""

    model_class = "GroundingDinoForObjectDetection"
    processor_class = "GroundingDinoProcessor"
    box_score = "all_tokens"  # or "phrase_tokens" (setting grounding_dino.box_score)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32") -> "GroundingDinoDetector":
        """Random weights, the real architecture (Swin backbone, BERT text encoder, deformable
        encoder-decoder) at small widths, with a word-piece vocabulary of single letters made here."""
        import tempfile

        from transformers import (
            BertConfig,
            BertTokenizerFast,
            GroundingDinoConfig,
            GroundingDinoForObjectDetection,
            GroundingDinoImageProcessor,
            GroundingDinoProcessor,
            SwinConfig,
        )

        torch.manual_seed(seed)
        backbone = SwinConfig(embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2], window_size=7,
                              out_features=["stage2", "stage3", "stage4"], out_indices=[2, 3, 4])
        letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
        vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", *letters, *("##" + c for c in letters)]
        text = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                          intermediate_size=64)
        config = GroundingDinoConfig(backbone_config=backbone, text_config=text, d_model=32, encoder_layers=1,
                                     decoder_layers=2, encoder_ffn_dim=64, decoder_ffn_dim=64, encoder_attention_heads=2,
                                     decoder_attention_heads=2, num_queries=20, encoder_n_points=2, decoder_n_points=2,
                                     max_text_len=64)
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "vocab.txt").write_text("\n".join(vocab))
            tokenizer = BertTokenizerFast(vocab_file=str(Path(folder) / "vocab.txt"))
        processor = GroundingDinoProcessor(
            image_processor=GroundingDinoImageProcessor(size={"shortest_edge": 96, "longest_edge": 160}),
            tokenizer=tokenizer)
        return cls(GroundingDinoForObjectDetection(config), processor, device, precision)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image], queries: Sequence[Sequence[str]]) -> list[Detections]:
        """queries[i]: the object phrases to look for in images[i]."""
        out = []
        for image, phrases in zip(images, queries):
            text, spans = caption(phrases)
            inputs = self.processor(images=image.convert("RGB"), text=text, return_tensors="pt")
            encoding = self.processor.tokenizer(text, return_offsets_mapping=True)
            inputs = {k: (v.to(self.device, self.dtype) if v.is_floating_point() else v.to(self.device))
                      for k, v in inputs.items()}
            result = self.model(**inputs)
            token_scores = torch.sigmoid(result.logits[0].float())  # (boxes, max_text_len)
            per_phrase = []
            for start, end in spans:
                tokens = [i for i, (a, b) in enumerate(encoding["offset_mapping"]) if b > a and a >= start and b <= end]
                if not tokens:
                    raise ValueError(f"the tokenizer gave no token for {text[start:end]!r}")
                per_phrase.append(token_scores[:, tokens].max(dim=1).values)
            phrase_scores, labels = torch.stack(per_phrase, dim=1).max(dim=1)
            # positions past the caption are -inf logits (sigmoid 0), so the max runs over its tokens
            scores = token_scores.max(dim=1).values if self.box_score == "all_tokens" else phrase_scores
            cx, cy, w, h = result.pred_boxes[0].float().unbind(-1)
            # not clipped, as the published post-processing leaves them (setting boxes=clipped cuts them)
            boxes = torch.stack([(cx - w / 2) * image.width, (cy - h / 2) * image.height,
                                 (cx + w / 2) * image.width, (cy + h / 2) * image.height], dim=-1)
            out.append(Detections(boxes.cpu(), scores.cpu(), labels.cpu(), tuple(phrases)))
        return out
