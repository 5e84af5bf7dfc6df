"""DIRE (Wang et al., 2023): diffusion reconstruction error as a generated-image detector.

Per image, as the official `compute_dire.py`: halve with a BOX filter while the short side is
at least twice 256, short side to 256 (BICUBIC), centre crop, [-1, 1]; DDIM inversion with the
ADM 256x256 model (20 steps respaced from its 1000-step linear schedule), DDIM reconstruction
from that latent (20 steps); DIRE = |x - reconstruction|, stored as the official stores it
(x 255 / 2, clamped, TRUNCATED to 8 bits, written with the input's codec: JPEG quality 95 for a
JPEG input, PNG otherwise; `codec`); a ResNet-50 with one logit reads the stored image (Resize
256, CenterCrop 224, ImageNet normalisation); sigmoid(logit) = P(generated). The codec matters:
the released classifiers are known to key on JPEG vs PNG.

Both DDIM loops are written here, as guided-diffusion's `ddim_reverse_sample` and
`ddim_sample` (eta 0, clipped x0, epsilon re-derived from it), with its coefficients: computed
in float64 from the respaced schedule and cast to float32 per step. diffusers' DDIM schedulers
work in float32 throughout (1 - alpha_bar at t = 0 keeps only about three digits), which moved
the reconstruction by 1e-3 after two steps; its inverse scheduler also stops short of ADM's last
inversion step (to alpha_bar = 0: the latent is the predicted noise).
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from specialists.outputs import ForensicScore
from specialists.precision import dtype_of, place

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
CODECS = ("as-source", "png", "jpeg95")
JPEG_FORMATS = {"JPEG", "MPO"}  # PIL's names for JPEG files (MPO: a JPEG with extra frames)
OFFICIAL_JPEG_QUALITY = 95  # OpenCV's imwrite default, which the official script relies on


def stored_dire(dire: torch.Tensor, codec: str) -> torch.Tensor:
    """A DIRE image (3, S, S) in [0, 2] -> the image the classifier reads, (3, S, S) in [0, 1]:
    8-bit by truncation, as the official `(dire * 255 / 2).clamp(0, 255).to(uint8)`, then through
    `codec` ("png": lossless; "jpeg95": OpenCV JPEG at quality 95, read back with PIL as the
    official classifier loads its files)."""
    levels = (dire * 255.0 / 2.0).clamp(0, 255).to(torch.uint8)
    if codec == "png":
        return levels.float() / 255.0
    if codec != "jpeg95":
        raise ValueError(f"DIRE codec {codec!r}: choose png or jpeg95 (or as-source per image)")
    import cv2

    bgr = np.ascontiguousarray(levels.permute(1, 2, 0).cpu().numpy()[..., ::-1])
    ok, encoded = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, OFFICIAL_JPEG_QUALITY])
    if not ok:
        raise RuntimeError("OpenCV could not JPEG-encode a DIRE image")
    with Image.open(io.BytesIO(encoded.tobytes())) as decoded:
        rgb = np.asarray(decoded.convert("RGB"), dtype=np.float32) / 255.0
    return torch.from_numpy(rgb).permute(2, 0, 1).to(dire.device)


def classifier_input(stored: torch.Tensor) -> torch.Tensor:
    """A stored DIRE image (3, S, S) in [0, 1], 8-bit levels -> the tensor DIRE's demo.py and test
    loader feed the ResNet: torchvision Resize(256) on the 8-bit PIL image (bilinear, 8-bit out),
    CenterCrop(224), ToTensor, ImageNet normalisation. At S = 256 the resize is the identity."""
    from torchvision import transforms

    levels = (stored * 255.0).round().to(torch.uint8).permute(1, 2, 0).cpu().numpy()
    pipeline = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(),
                                   transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD)])
    return pipeline(Image.fromarray(levels))


def codec_for(image: Image.Image, codec: str) -> str:
    """The codec a DIRE image is stored with: `codec`, or for "as-source" the input's own kind
    (the official script saves under the input's file name)."""
    if codec != "as-source":
        return codec
    return "jpeg95" if (image.format or "").upper() in JPEG_FORMATS else "png"


def _sigmoid(logit: float) -> float:
    """P(generated) from a logit, without overflow for very negative logits."""
    return 1.0 / (1.0 + math.exp(-logit)) if logit >= 0 else math.exp(logit) / (1.0 + math.exp(logit))


def official_resize_crop(image: Image.Image, size: int) -> Image.Image:
    """guided-diffusion's `center_crop_arr`: BOX-halve while the short side is >= 2 * size,
    BICUBIC to short side `size` (sides rounded), centre crop size x size."""
    while min(image.size) >= 2 * size:
        image = image.resize(tuple(x // 2 for x in image.size), resample=Image.BOX)
    scale = size / min(image.size)
    image = image.resize(tuple(round(x * scale) for x in image.size), resample=Image.BICUBIC)
    left, top = (image.width - size) // 2, (image.height - size) // 2
    return image.crop((left, top, left + size, top + size))


def adm_alphas_cumprod(train_steps: int = 1000) -> np.ndarray:
    """ADM's linear schedule as guided-diffusion computes it: alpha_bar per training step, float64."""
    return np.cumprod(1.0 - np.linspace(0.0001, 0.02, train_steps, dtype=np.float64))


class RespacedSchedule:
    """guided-diffusion's `SpacedDiffusion` for `ddim{steps}`: the kept timesteps (0, 1000/steps,
    ...) and, per kept step, the float64 coefficients its DDIM steps read (cast to float32 on use)."""

    def __init__(self, steps: int, train_steps: int = 1000) -> None:
        stride = train_steps // steps
        if stride * steps != train_steps:
            raise ValueError(f"DIRE steps {steps}: choose a divisor of {train_steps} (the official 'ddimN' striding)")
        self.timesteps = list(range(0, train_steps, stride))
        base = adm_alphas_cumprod(train_steps)
        kept, last = [], 1.0
        for t in self.timesteps:  # respacing re-derives betas between kept steps, as SpacedDiffusion does
            kept.append(1.0 - base[t] / last)
            last = base[t]
        alphas = np.cumprod(1.0 - np.array(kept))
        self.alphas = alphas
        self.alphas_prev = np.append(1.0, alphas[:-1])
        self.alphas_next = np.append(alphas[1:], 0.0)
        self.sqrt_recip = np.sqrt(1.0 / alphas)
        self.sqrt_recipm1 = np.sqrt(1.0 / alphas - 1.0)

    def x0_and_eps(self, x: torch.Tensor, eps: torch.Tensor, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Clipped x0 from the model's epsilon at kept step i, and the epsilon consistent with it."""
        recip, recipm1 = _f32(self.sqrt_recip[i], x), _f32(self.sqrt_recipm1[i], x)
        x0 = (recip * x - recipm1 * eps).clamp(-1, 1)
        return x0, (recip * x - x0) / recipm1


def _f32(value: float, like: torch.Tensor) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64).to(device=like.device, dtype=torch.float32)


class DireDetector:
    """unet: diffusers UNet2DModel with ADM weights (6 output channels: epsilon, then variance);
    classifier: torchvision ResNet-50 with a 1-logit head, or None (raw reconstruction error only)."""

    def __init__(self, unet, classifier=None, image_size: int = 256, steps: int = 20,
                 device: str = "cpu", precision: str = "fp32", batch_size: int = 4, codec: str = "as-source") -> None:
        if codec not in CODECS:
            raise ValueError(f"DIRE codec {codec!r}: choose one of {', '.join(CODECS)}")
        self.codec = codec
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
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32", steps: int = 4,
             codec: str = "as-source") -> "DireDetector":
        """Random weights: a small ADM-layout UNet at 32 px and a random ResNet-50 head."""
        from diffusers import UNet2DModel
        from torchvision.models import resnet50

        from checkpoints.convert.adm import ADMFlags, unet2d_config

        torch.manual_seed(seed)
        flags = ADMFlags(image_size=32, num_channels=32, num_res_blocks=1, attention_resolutions=(16,),
                         channel_mult=(1, 2), num_head_channels=16)
        return cls(UNet2DModel(**unet2d_config(flags)), resnet50(weights=None, num_classes=1),
                   image_size=32, steps=steps, device=device, precision=precision, codec=codec)

    def preprocess(self, image: Image.Image) -> torch.Tensor:
        """`official_resize_crop` to image_size -> (3, S, S) in [-1, 1]."""
        image = official_resize_crop(image.convert("RGB"), self.image_size)
        return torch.from_numpy(np.asarray(image, dtype=np.float32) / 127.5 - 1.0).permute(2, 0, 1)

    def _epsilon(self, x: torch.Tensor, t: int) -> torch.Tensor:
        timesteps = torch.full((x.shape[0],), t, device=self.device, dtype=torch.long)
        out = self.unet(x.to(self.dtype), timesteps).sample.float()
        return out[:, :3]  # learn_sigma: the first half is epsilon

    @torch.no_grad()
    def invert(self, x0: torch.Tensor) -> torch.Tensor:
        """guided-diffusion's `ddim_reverse_sample_loop` (eta 0): x_0 -> x_T over the kept timesteps."""
        schedule = RespacedSchedule(self.steps)
        x = x0
        for i, t in enumerate(schedule.timesteps):
            pred_x0, eps = schedule.x0_and_eps(x, self._epsilon(x, t), i)
            ab_next = _f32(schedule.alphas_next[i], x)
            x = pred_x0 * ab_next.sqrt() + (1 - ab_next).sqrt() * eps
        return x

    @torch.no_grad()
    def reconstruct(self, xT: torch.Tensor) -> torch.Tensor:
        """guided-diffusion's `ddim_sample_loop` (eta 0) from the inverted latent back to x_0."""
        schedule = RespacedSchedule(self.steps)
        x = xT
        for i in reversed(range(len(schedule.timesteps))):
            pred_x0, eps = schedule.x0_and_eps(x, self._epsilon(x, schedule.timesteps[i]), i)
            ab_prev = _f32(schedule.alphas_prev[i], x)
            x = pred_x0 * ab_prev.sqrt() + (1 - ab_prev).sqrt() * eps
        return x

    def _logits(self, stored: torch.Tensor) -> torch.Tensor:
        """Stored DIRE images (B, 3, S, S) in [0, 1] -> the classifier's logits (B,), float32."""
        batch = torch.stack([classifier_input(image) for image in stored]).to(stored.device)
        return self.classifier(batch).float().view(-1)

    @torch.no_grad()
    def __call__(self, images: Sequence[Image.Image]) -> list[ForensicScore]:
        """One score per image: fake logit and probability (None without a classifier), DIRE
        map, mean error. Each image's DIRE is stored with `codec_for(image, self.codec)`."""
        out: list[ForensicScore] = []
        for start in range(0, len(images), self.batch_size):
            chunk = images[start : start + self.batch_size]
            x0 = torch.stack([self.preprocess(img) for img in chunk]).to(self.device)
            dire = (x0 - self.reconstruct(self.invert(x0))).abs()
            logits: list[float | None] = [None] * len(x0)
            if self.classifier is not None:
                stored = torch.stack([stored_dire(d, codec_for(img, self.codec)) for d, img in zip(dire, chunk)])
                logits = self._logits(stored).tolist()
            for d, logit in zip(dire, logits):
                out.append(ForensicScore(None if logit is None else _sigmoid(logit), d.mean(0).cpu(), float(d.mean()), logit))
        return out
