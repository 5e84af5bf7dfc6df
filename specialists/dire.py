"""DIRE (Wang et al., 2023): diffusion reconstruction error as a generated-image detector.

Per image: short side to 256, centre crop, [-1, 1]; DDIM inversion with the ADM 256x256 model
(20 steps respaced from its 1000-step linear schedule), DDIM reconstruction from that latent
(20 steps); DIRE = |x - reconstruction|; a ResNet-50 with one logit reads the DIRE image
(as DIRE saves it: |x - recon| / 2 as 8-bit, then Resize 256, CenterCrop 224, ImageNet
normalisation); sigmoid(logit) = P(generated).

The reconstruction is diffusers' DDIMScheduler. The inversion is written here: diffusers'
DDIMInverseScheduler does not take ADM's last step (to alpha_bar = 0, i.e. the latent is the
predicted noise) nor clip the predicted x0 as guided-diffusion's `ddim_reverse_sample` does, and
DIRE's numbers come from that exact loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from .precision import dtype_of, place
from .outputs import ForensicScore

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def adm_scheduler(steps: int = 20):
    """DDIM over ADM's linear 1000-step schedule, respaced to `steps` (timesteps 950, 900, ..., 0)."""
    from diffusers import DDIMScheduler

    scheduler = DDIMScheduler(
        num_train_timesteps=1000, beta_schedule="linear", beta_start=0.0001, beta_end=0.02,
        clip_sample=True, set_alpha_to_one=True, timestep_spacing="leading", steps_offset=0,
        prediction_type="epsilon",
    )
    scheduler.set_timesteps(steps)
    return scheduler


class DireDetector:
    """unet: diffusers UNet2DModel with ADM weights (6 output channels: epsilon, then variance);
    classifier: torchvision ResNet-50 with a 1-logit head, or None (raw reconstruction error only)."""

    def __init__(self, unet, classifier=None, image_size: int = 256, steps: int = 20,
                 device: str = "cpu", precision: str = "fp32", batch_size: int = 4) -> None:
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        self.unet = place(unet, self.device, self.dtype)
        self.classifier = classifier.to(self.device).eval() if classifier is not None else None
        self.image_size = image_size
        self.steps = steps
        self.batch_size = batch_size

    @classmethod
    def from_checkpoints(cls, adm_path: str | Path, classifier_path: str | Path | None = None, **kwargs):
        """ADM .pt (through the registry's converter) and an optional DIRE classifier .pth."""
        from checkpoints.convert.adm import load_adm_unet
        from checkpoints.convert.dire import dire_classifier

        classifier = dire_classifier(classifier_path) if classifier_path is not None else None
        return cls(load_adm_unet(adm_path), classifier, **kwargs)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32", steps: int = 4) -> "DireDetector":
        """Random weights: a small ADM-layout UNet at 32 px and a random ResNet-50 head."""
        from diffusers import UNet2DModel
        from torchvision.models import resnet50

        from checkpoints.convert.adm import ADMFlags, unet2d_config

        torch.manual_seed(seed)
        flags = ADMFlags(image_size=32, num_channels=32, num_res_blocks=1, attention_resolutions=(16,),
                         channel_mult=(1, 2), num_head_channels=16)
        return cls(UNet2DModel(**unet2d_config(flags)), resnet50(weights=None, num_classes=1),
                   image_size=32, steps=steps, device=device, precision=precision)

    def preprocess(self, image: Image.Image) -> torch.Tensor:
        """Short side to image_size (bicubic), centre crop -> (3, S, S) in [-1, 1]."""
        image = image.convert("RGB")
        scale = self.image_size / min(image.size)
        w, h = max(self.image_size, round(image.width * scale)), max(self.image_size, round(image.height * scale))
        image = image.resize((w, h), Image.BICUBIC)
        left, top = (w - self.image_size) // 2, (h - self.image_size) // 2
        image = image.crop((left, top, left + self.image_size, top + self.image_size))
        return torch.from_numpy(np.asarray(image, dtype=np.float32) / 127.5 - 1.0).permute(2, 0, 1)

    def _epsilon(self, x: torch.Tensor, t: int) -> torch.Tensor:
        timesteps = torch.full((x.shape[0],), t, device=self.device, dtype=torch.long)
        out = self.unet(x.to(self.dtype), timesteps).sample.float()
        return out[:, :3]  # learn_sigma: the first half is epsilon

    @torch.no_grad()
    def invert(self, x0: torch.Tensor) -> torch.Tensor:
        """guided-diffusion's DDIM reverse loop (eta 0): x_0 -> x_T over the respaced timesteps."""
        scheduler = adm_scheduler(self.steps)
        ascending = scheduler.timesteps.flip(0).tolist()  # 0, 50, ..., 950
        alphas = scheduler.alphas_cumprod
        x = x0
        for i, t in enumerate(ascending):
            ab_t = alphas[t]
            ab_next = alphas[ascending[i + 1]] if i + 1 < len(ascending) else torch.tensor(0.0)
            eps = self._epsilon(x, t)
            pred_x0 = ((x - (1 - ab_t).sqrt() * eps) / ab_t.sqrt()).clamp(-1, 1)
            eps = (x - ab_t.sqrt() * pred_x0) / (1 - ab_t).sqrt()  # epsilon consistent with the clipped x0
            x = ab_next.sqrt() * pred_x0 + (1 - ab_next).sqrt() * eps
        return x

    @torch.no_grad()
    def reconstruct(self, xT: torch.Tensor) -> torch.Tensor:
        """DDIM sampling (eta 0) from the inverted latent back to x_0, with diffusers' scheduler."""
        scheduler = adm_scheduler(self.steps)
        x = xT
        for t in scheduler.timesteps.tolist():
            # use_clipped_model_output: epsilon recomputed from the clipped x0, as guided-diffusion does
            x = scheduler.step(self._epsilon(x, t), t, x, eta=0.0, use_clipped_model_output=True).prev_sample
        return x

    def _classify(self, dire: torch.Tensor) -> torch.Tensor:
        """DIRE images (B, 3, S, S) in [0, 2] -> P(generated) (B,)."""
        as_saved = torch.round((dire / 2).clamp(0, 1) * 255) / 255  # DIRE writes 8-bit PNGs
        resized = F.interpolate(as_saved, size=(256, 256), mode="bilinear", align_corners=False, antialias=True)
        crop = resized[:, :, 16:240, 16:240]
        mean = torch.tensor(IMAGENET_MEAN, device=dire.device).view(1, 3, 1, 1)
        std = torch.tensor(IMAGENET_STD, device=dire.device).view(1, 3, 1, 1)
        return torch.sigmoid(self.classifier((crop - mean) / std).float().view(-1))

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[ForensicScore]:
        """One score per image: fake probability (None without a classifier), DIRE map, mean error."""
        out: list[ForensicScore] = []
        for start in range(0, len(images), self.batch_size):
            x0 = torch.stack([self.preprocess(img) for img in images[start : start + self.batch_size]]).to(self.device)
            dire = (x0 - self.reconstruct(self.invert(x0))).abs()
            probs = self._classify(dire).tolist() if self.classifier is not None else [None] * len(x0)
            for d, p in zip(dire, probs):
                out.append(ForensicScore(p, d.mean(0).cpu(), float(d.mean())))
        return out
