"""Ordinal shading (Careaga & Aksoy 2023, compphoto/Intrinsic): intrinsic decomposition in linear light.

Two MiDaS-style networks, rebuilt here with the module names of the official code
(`altered_midas` in CCareaga/MiDaS) so the released state dicts load strictly:

- the ordinal network `MidasNet`: ResNeXt-101 32x8d encoder, RefineNet-style decoder, sigmoid
  output: linear RGB (B, 3, H, W) -> ordinal (inverse) shading (B, 1, H, W) in (0, 1);
- the intrinsic network `MidasNetSmall`: EfficientNet-Lite3 encoder with a 5-channel stem
  (RGB + base ordinal + full ordinal), expanding decoder, sigmoid output = inverse shading
  s_inv = 1 / (1 + shading).

Both encoders come from timm with pretrained=False: their ImageNet weights are inside the
official state dicts, so nothing is downloaded. The v1 pipeline (`OrdinalShading`, official
`run_pipeline(resize_conf=0.0, maintain_size=True)`): full size from the edge-density search
(`resolution_search`); linearise sRGB (x ** 2.2); ordinal estimate at a base size (long side
384, sides rounded up to multiples of 32) and at full size; equalise the full estimate to the
base one (one global albedo scale, least squares); intrinsic net -> s_inv; shading = 1 / s_inv
- 1; albedo = linear image / shading at network size, resized to the image. v2 / v2.1 weights
run the same two stages (their stage 0 and 1 are the same networks); their colour stages 2-4
are not run here.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Sequence

import numpy as np
import timm
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

from specialists.outputs import IntrinsicLayers
from specialists.precision import dtype_of, place
from specialists.resolution_search import MAX_LONG_SIDE, optimal_size, round_up_32

BASE_SIZE = 384  # long side of the base-resolution ordinal estimate (official default)
MAX_FULL_SIZE = MAX_LONG_SIDE  # the official resolution search caps the full-size long side here
GAMMA = 2.2  # the official linearisation: sRGB ** 2.2
SHADING_EPS = 1e-3  # inverse shading clipped to [eps, 1] before 1/x - 1 (official `uninvert`)
ALBEDO_EPS = 1e-5  # the clip the official equalisation applies before dividing
# CCIR601 brightness, which the official equalisation uses (not Rec. 709)
BRIGHTNESS = (0.3, 0.59, 0.11)


# --- building blocks (MiDaS blocks.py) ------------------------------------------------------------


class Interpolate(nn.Module):
    """Bilinear resize by a fixed factor: a parameter-free module, so it takes an index in the
    official `output_conv` sequence and the convolutions after it keep their official names."""

    def __init__(self, scale_factor: float, align_corners: bool = False) -> None:
        super().__init__()
        self.scale_factor = scale_factor
        self.align_corners = align_corners

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, scale_factor=self.scale_factor, mode="bilinear", align_corners=self.align_corners)


class ResidualConvUnit(nn.Module):
    """relu -> conv3x3 -> relu -> conv3x3, plus the skip (MidasNet's decoder unit).

    The official unit applies an IN-PLACE ReLU to its input before the convolutions, so its
    skip connection adds relu(x), not x; the released weights were trained that way.
    """

    def __init__(self, features: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(features, features, 3, padding=1, bias=True)
        self.conv2 = nn.Conv2d(features, features, 3, padding=1, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        activated = F.relu(x)
        return self.conv2(F.relu(self.conv1(activated))) + activated


class FeatureFusionBlock(nn.Module):
    """Adds the refined skip feature (if any), refines, upsamples x2 (align_corners=True)."""

    def __init__(self, features: int) -> None:
        super().__init__()
        self.resConfUnit1 = ResidualConvUnit(features)  # official name (sic); unused by refinenet4
        self.resConfUnit2 = ResidualConvUnit(features)

    def forward(self, x: torch.Tensor, skip: torch.Tensor | None = None) -> torch.Tensor:
        if skip is not None:
            x = x + self.resConfUnit1(skip)
        x = self.resConfUnit2(x)
        return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)


class ResidualConvUnitCustom(nn.Module):
    """MidasNet_small's unit: the same convolutions, a NON-in-place ReLU, so the skip adds x."""

    def __init__(self, features: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(features, features, 3, padding=1, bias=True)
        self.conv2 = nn.Conv2d(features, features, 3, padding=1, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(F.relu(self.conv1(F.relu(x)))) + x


class FeatureFusionBlockCustom(nn.Module):
    """MidasNet_small's fusion: add refined skip, refine, upsample x2, then a 1x1 `out_conv`
    (halving the channels when the decoder expands)."""

    def __init__(self, features: int, expand: bool) -> None:
        super().__init__()
        self.resConfUnit1 = ResidualConvUnitCustom(features)
        self.resConfUnit2 = ResidualConvUnitCustom(features)
        self.out_conv = nn.Conv2d(features, features // 2 if expand else features, 1, bias=True)

    def forward(self, x: torch.Tensor, skip: torch.Tensor | None = None) -> torch.Tensor:
        if skip is not None:
            x = x + self.resConfUnit1(skip)
        x = self.resConfUnit2(x)
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
        return self.out_conv(x)


def _scratch_convs(in_channels: Sequence[int], out_channels: Sequence[int]) -> nn.Module:
    """The `scratch.layerN_rn` 3x3 convolutions (no bias) mapping encoder features to the decoder."""
    scratch = nn.Module()
    for i, (c_in, c_out) in enumerate(zip(in_channels, out_channels), start=1):
        setattr(scratch, f"layer{i}_rn", nn.Conv2d(c_in, c_out, 3, padding=1, bias=False))
    return scratch


def _head(features: int, hidden: int, out_channels: int, extra_in: int) -> nn.Sequential:
    """`scratch.output_conv`: conv3x3 -> x2 upsample -> conv3x3 -> ReLU -> conv1x1 -> sigmoid.
    extra_in: channels of the input image concatenated after the upsample (v2.1 `last_residual`)."""
    return nn.Sequential(
        nn.Conv2d(features, hidden, 3, padding=1),
        Interpolate(2),
        nn.Conv2d(hidden + extra_in, 32, 3, padding=1),
        nn.ReLU(True),
        nn.Conv2d(32, out_channels, 1),
        nn.Sigmoid(),
    )


def _run_head(head: nn.Sequential, features: torch.Tensor, image: torch.Tensor, last_residual: bool) -> torch.Tensor:
    out = head[1](head[0](features))
    if last_residual:
        out = torch.cat((out, image), dim=1)
    for layer in head[2:]:
        out = layer(out)
    return out


# --- encoders from timm, re-registered under the official MiDaS names -----------------------------


def resnext_encoder(in_channels: int, tiny: bool = False) -> tuple[nn.Module, list[int]]:
    """`pretrained.layer1..4` of MidasNet from a timm ResNeXt; returns it with its 4 widths.

    layer1 = Sequential(conv1, bn1, relu, maxpool, layer1) as in MiDaS `_make_resnet_backbone`.
    tiny: the same timm ResNet/Bottleneck classes at small widths and one block per stage.
    """
    small = dict(layers=(1, 1, 1, 1), cardinality=4, base_width=16, stem_width=8, channels=(8, 16, 32, 64))
    resnet = timm.create_model("resnext101_32x8d", pretrained=False, in_chans=in_channels, **(small if tiny else {}))
    encoder = nn.Module()
    encoder.layer1 = nn.Sequential(resnet.conv1, resnet.bn1, resnet.act1, resnet.maxpool, resnet.layer1)
    encoder.layer2, encoder.layer3, encoder.layer4 = resnet.layer2, resnet.layer3, resnet.layer4
    widths = {info["module"]: info["num_chs"] for info in resnet.feature_info}
    return encoder, [widths[f"layer{i}"] for i in range(1, 5)]


def efficientnet_encoder(in_channels: int, tiny: bool = False) -> tuple[nn.Module, list[int]]:
    """`pretrained.layer1..4` of MidasNet_small from timm's TF EfficientNet-Lite; returns its 4 widths.

    Official split (gen-efficientnet): layer1 = (conv_stem, bn1, act1, blocks 0-1), layer2 =
    block 2, layer3 = blocks 3-4, layer4 = blocks 5-6. timm folds act1 into bn1
    (BatchNormAct2d), so an Identity keeps index 2 and the later indices official.
    tiny: tf_efficientnet_lite0, the smallest member of the same family and classes.
    """
    effnet = timm.create_model("tf_efficientnet_lite0" if tiny else "tf_efficientnet_lite3",
                               pretrained=False, in_chans=in_channels)
    blocks = effnet.blocks
    encoder = nn.Module()
    encoder.layer1 = nn.Sequential(effnet.conv_stem, effnet.bn1, nn.Identity(), *blocks[0:2])
    encoder.layer2 = nn.Sequential(*blocks[2:3])
    encoder.layer3 = nn.Sequential(*blocks[3:5])
    encoder.layer4 = nn.Sequential(*blocks[5:7])
    widths = {info["module"]: info["num_chs"] for info in effnet.feature_info}
    return encoder, [widths[f"blocks.{i}"] for i in (1, 2, 4, 6)]


# --- the two networks -----------------------------------------------------------------------------


class _Midas(nn.Module):
    """Shared forward: encoder `pretrained`, decoder `scratch`; input sides must be multiples of 32."""

    last_residual: bool

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, C_in, H, W) -> (B, C_out, H, W) in (0, 1)."""
        if x.shape[-1] % 32 or x.shape[-2] % 32:
            raise ValueError(f"{type(self).__name__} needs sides that are multiples of 32, got {tuple(x.shape[-2:])}")
        p, s = self.pretrained, self.scratch
        l1 = p.layer1(x)
        l2 = p.layer2(l1)
        l3 = p.layer3(l2)
        l4 = p.layer4(l3)
        path = s.refinenet4(s.layer4_rn(l4))
        path = s.refinenet3(path, s.layer3_rn(l3))
        path = s.refinenet2(path, s.layer2_rn(l2))
        path = s.refinenet1(path, s.layer1_rn(l1))
        return _run_head(s.output_conv, path, x, self.last_residual)


class MidasNet(_Midas):
    """The ordinal network (official `altered_midas.midas_net.MidasNet`, sigmoid activation).

    in/out channels: 3/1 for the ordinal stage (v2 colour stages: 7/2, 9/3). features: decoder
    width (official 256); head_width: first head conv (official 128); tiny: small encoder.
    """

    def __init__(self, in_channels: int = 3, out_channels: int = 1, features: int = 256, head_width: int = 128,
                 last_residual: bool = False, tiny: bool = False) -> None:
        super().__init__()
        self.last_residual = last_residual
        self.pretrained, widths = resnext_encoder(in_channels, tiny)
        self.scratch = _scratch_convs(widths, [features] * 4)
        for i in range(1, 5):
            setattr(self.scratch, f"refinenet{i}", FeatureFusionBlock(features))
        self.scratch.output_conv = _head(features, head_width, out_channels, in_channels if last_residual else 0)


class MidasNetSmall(_Midas):
    """The intrinsic network (official `altered_midas.midas_net_custom.MidasNet_small`,
    expand=True, sigmoid activation): 5 channels in (RGB + base + full ordinal), inverse shading out.

    features: decoder width at the finest level (official 64; x2, x4, x8 deeper).
    """

    def __init__(self, in_channels: int = 5, out_channels: int = 1, features: int = 64,
                 last_residual: bool = False, tiny: bool = False) -> None:
        super().__init__()
        self.last_residual = last_residual
        self.pretrained, widths = efficientnet_encoder(in_channels, tiny)
        self.scratch = _scratch_convs(widths, [features, features * 2, features * 4, features * 8])
        self.scratch.refinenet4 = FeatureFusionBlockCustom(features * 8, expand=True)
        self.scratch.refinenet3 = FeatureFusionBlockCustom(features * 4, expand=True)
        self.scratch.refinenet2 = FeatureFusionBlockCustom(features * 2, expand=True)
        self.scratch.refinenet1 = FeatureFusionBlockCustom(features, expand=False)
        self.scratch.output_conv = _head(features, features // 2, out_channels, in_channels if last_residual else 0)


# --- the v1 pipeline ------------------------------------------------------------------------------


def _mirror(index: torch.Tensor, n: int) -> torch.Tensor:
    """Indices outside [0, n) reflected about the edge pixels' centres (scipy.ndimage's "mirror",
    the mode skimage's resize uses for mode="reflect"), periodically for any distance."""
    if n == 1:
        return torch.zeros_like(index)
    period = 2 * (n - 1)
    index = index.remainder(period)
    return torch.where(index >= n, period - index, index)


def _gaussian_axis(x: torch.Tensor, sigma: float, dim: int) -> torch.Tensor:
    """scipy.ndimage.gaussian_filter1d (truncate 4, mirror edges) along `dim` (negative), in x's dtype."""
    radius = int(4.0 * sigma + 0.5)
    offsets = torch.arange(-radius, radius + 1, dtype=torch.float64)
    kernel = torch.exp(-0.5 * offsets**2 / sigma**2)
    kernel = (kernel / kernel.sum()).to(x.device, x.dtype)
    n = x.shape[dim]
    taps = _mirror(torch.arange(n, device=x.device)[:, None] + offsets.long().to(x.device)[None, :], n)
    gathered = x.index_select(dim, taps.flatten()).unflatten(dim, (n, len(kernel)))  # taps on axis `dim`
    return (gathered * kernel.view([-1] + [1] * (-dim - 1))).sum(dim)


def _linear_axis(x: torch.Tensor, n_out: int, dim: int) -> torch.Tensor:
    """scipy.ndimage.zoom(order=1, grid_mode=True, mode="mirror") along `dim` (negative): pixel centres map
    as (i + 0.5) * n_in / n_out - 0.5; samples past the edge are mirrored."""
    n_in = x.shape[dim]
    if n_in == n_out:
        return x
    position = (torch.arange(n_out, dtype=torch.float64) + 0.5) * (n_in / n_out) - 0.5
    left = position.floor()
    weight = (position - left).to(x.device, x.dtype).view([-1] + [1] * (-dim - 1))
    left = left.long().to(x.device)
    return x.index_select(dim, _mirror(left, n_in)) * (1 - weight) + x.index_select(dim, _mirror(left + 1, n_in)) * weight


def _resize(x: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """(B, C, h, w) -> (B, C, *size) exactly as the official code's skimage.transform.resize
    (order 1, mode "reflect"): a Gaussian blur of sigma (factor - 1) / 2 on each shrinking axis
    (its anti-aliasing), then bilinear sampling with mirrored edges. torch's antialiased
    bilinear filters with a triangle instead, which moves albedo by several per cent at edges."""
    for dim, n_out in ((-2, size[0]), (-1, size[1])):
        sigma = (x.shape[dim] / n_out - 1) / 2
        if sigma > 0:
            x = _gaussian_axis(x, sigma, dim)
    for dim, n_out in ((-2, size[0]), (-1, size[1])):
        x = _linear_axis(x, n_out, dim)
    return x


def _brightness(linear: torch.Tensor) -> torch.Tensor:
    """(B, 3, H, W) -> (B, 1, H, W), CCIR601 weights."""
    weights = torch.tensor(BRIGHTNESS, device=linear.device, dtype=linear.dtype).view(1, 3, 1, 1)
    return (linear * weights).sum(1, keepdim=True)


def equalize(linear: torch.Tensor, base: torch.Tensor, full: torch.Tensor, fit: str = "all") -> torch.Tensor:
    """The full-size ordinal estimate rescaled so its implied albedo matches the base estimate's.

    linear (B, 3, H, W); base, full (B, 1, H, W) ordinal (inverse) shading at the same size.
    Official method: implied albedo = brightness / (1/o - 1) for each estimate, one least-squares
    scale per image fitted from full to base albedo, the full estimate rebuilt from the scaled
    albedo. fit: "all" pixels (deterministic), or "random_half" as the official code draws them
    (np.random.randn(h, w) > 0 from numpy's global generator, one draw per image): the same
    estimator in expectation.
    """
    bright = _brightness(linear)

    def albedo(ordinal: torch.Tensor) -> torch.Tensor:
        shading = 1.0 / ordinal.clamp_min(ALBEDO_EPS) - 1.0
        return bright / shading.clamp_min(ALBEDO_EPS)

    full_albedo, base_albedo = albedo(full), albedo(base)
    if fit not in FITS:
        raise ValueError(f"fit {fit!r}: choose from {FITS}")
    weight = torch.ones_like(full_albedo)
    if fit == "random_half":
        height, width = full_albedo.shape[-2:]
        draws = [torch.from_numpy(np.random.randn(height, width) > 0) for _ in range(len(full_albedo))]
        weight = torch.stack(draws)[:, None].to(full_albedo)
    scale = (weight * full_albedo * base_albedo).sum((1, 2, 3), keepdim=True) / (
        (weight * full_albedo**2).sum((1, 2, 3), keepdim=True).clamp_min(1e-12))
    new_shading = bright / (scale * full_albedo).clamp_min(ALBEDO_EPS)
    return 1.0 / (1.0 + new_shading)


def inverse_to_shading(inverse: torch.Tensor) -> torch.Tensor:
    """Official `uninvert`: s_inv clipped to [1e-3, 1], shading = 1 / s_inv - 1 (in [0, 999])."""
    return 1.0 / inverse.clamp(SHADING_EPS, 1.0) - 1.0


RESOLUTIONS = ("search", "long_side")  # how the full-size ordinal estimate's size is chosen
ALBEDO_MODES = ("network", "image")  # where albedo is divided out (see OrdinalShading)
FITS = ("all", "random_half")  # which pixels fit the base-to-full albedo scale (see equalize)


class OrdinalShading:
    """Images in, one `IntrinsicLayers` per image out (linear albedo and shading at the image's size).

    ordinal_net: MidasNet; intrinsic_net: MidasNetSmall. base_size: long side of the base
    estimate; max_size: cap on the full-size long side.
    resolution: "search" (official): the full size from the edge-density search
    (`resolution_search.optimal_size`), so an image dense in edges (or flat) is enlarged up to
    max_size; "long_side": the image's long side kept (clamped to [base_size, max_size]).
    fit: the pixels of the base-to-full scale fit (`equalize`): "all", or the official "random_half".
    albedo: "network" (official): albedo = linear image / shading at network size, then albedo
    and inverse shading are each resized to the image (anti-aliased); "image": shading resized
    to the image and albedo = the image's own linear pixels / shading, so albedo x shading
    reproduces the image exactly. Images whose network sizes agree share batches.
    """

    def __init__(self, ordinal_net: MidasNet, intrinsic_net: MidasNetSmall, device: str = "cpu",
                 precision: str = "fp32", batch_size: int = 4, base_size: int = BASE_SIZE,
                 max_size: int = MAX_FULL_SIZE, resolution: str = "search", albedo: str = "network",
                 fit: str = "all") -> None:
        if resolution not in RESOLUTIONS or albedo not in ALBEDO_MODES or fit not in FITS:
            raise ValueError(f"resolution {resolution!r} / albedo {albedo!r} / fit {fit!r}: choose from "
                             f"{RESOLUTIONS} / {ALBEDO_MODES} / {FITS}")
        self.device = torch.device(device)
        self.dtype = dtype_of(precision)
        self.ordinal_net = place(ordinal_net, self.device, self.dtype)
        self.intrinsic_net = place(intrinsic_net, self.device, self.dtype)
        self.batch_size = batch_size
        self.base_size = base_size
        self.max_size = max_size
        self.resolution = resolution
        self.albedo = albedo
        self.fit = fit

    @classmethod
    def from_state_dicts(cls, ordinal: dict, intrinsic: dict, **kwargs) -> "OrdinalShading":
        """Official-layout state dicts -> the networks, loaded strictly (every key, every shape)."""
        from checkpoints.convert.common import load_strictly

        ordinal_net, intrinsic_net = MidasNet(), MidasNetSmall()
        load_strictly(ordinal_net, ordinal, "the ordinal network's state dict", "MidasNet (the ordinal net)")
        load_strictly(intrinsic_net, intrinsic, "the intrinsic network's state dict", "MidasNet_small (the intrinsic net)")
        return cls(ordinal_net, intrinsic_net, **kwargs)

    @classmethod
    def from_checkpoint(cls, path: str | Path, **kwargs) -> "OrdinalShading":
        """v1 `final_weights.pt` (a file), or a v2 / v2.1 folder (its stage 0 and 1 files are used)."""
        from checkpoints.convert.ordinal_shading import ordinal_shading_stages, ordinal_shading_v1
        from checkpoints.formats import check_fits, wrong_format

        path = Path(path)
        check_fits(path, ["ordinal-shading-v1", "ordinal-shading-stages"])
        if path.is_dir():
            for names in (("stage_0.pt", "stage_1.pt"), ("stage_0_v21.pt", "stage_1_v21.pt")):
                if all((path / n).is_file() for n in names):
                    nets = ordinal_shading_stages(path, names)
                    break
            else:
                raise wrong_format(path, "an ordinal-shading v2 folder with stage_0.pt and stage_1.pt (or v2.1's "
                                         "stage_0_v21.pt and stage_1_v21.pt)")
        else:
            nets = ordinal_shading_v1(path)
        return cls.from_state_dicts(nets["ord"], nets["iid"], **kwargs)

    @classmethod
    def tiny(cls, seed: int = 0, device: str = "cpu", precision: str = "fp32", batch_size: int = 4,
             base_size: int = 64, max_size: int = 128, resolution: str = "search",
             albedo: str = "network", fit: str = "all") -> "OrdinalShading":
        """Random weights, the same classes at small widths (test-size; answers are meaningless)."""
        torch.manual_seed(seed)
        ordinal_net = MidasNet(features=16, head_width=16, tiny=True)
        intrinsic_net = MidasNetSmall(features=8, tiny=True)
        return cls(ordinal_net, intrinsic_net, device, precision, batch_size, base_size, max_size, resolution, albedo,
                   fit)

    def full_size(self, srgb: np.ndarray) -> tuple[int, int]:
        """(h, w) of the full-size network input for an sRGB image (H, W, 3) in [0, 1]; multiples of 32."""
        if self.resolution == "search":
            return optimal_size(srgb, self.base_size, self.max_size)
        height, width = srgb.shape[:2]
        long_side = max(height, width)
        scale = min(max(long_side, self.base_size), self.max_size) / long_side
        return round_up_32(height * scale), round_up_32(width * scale)

    def base_size_for(self, full: tuple[int, int]) -> tuple[int, int]:
        """(h, w) of the base estimate: the full-size input's long side to base_size, sides
        rounded up to multiples of 32 (official `base_resize`, applied to the full-size input)."""
        scale = self.base_size / max(full)
        return round_up_32(full[0] * scale), round_up_32(full[1] * scale)

    def _net(self, net: nn.Module, x: torch.Tensor) -> torch.Tensor:
        return net(x.to(self.dtype)).float()

    @torch.no_grad()
    def decompose(self, srgb: torch.Tensor, full_size: tuple[int, int]) -> dict[str, torch.Tensor]:
        """srgb (B, 3, H, W) in [0, 1], one size; full_size: the network size (`full_size`) ->
        {"albedo" (B, 3, H, W), "shading" (B, 1, H, W), "inverse_shading", "ordinal_base",
        "ordinal_full" (B, 1, h, w) at full network size}.

        Official order: resize the sRGB image to full size, linearise (x ** 2.2), base input =
        the linear full-size input resized to base size; base estimate upsampled to full size;
        full estimate equalised to it; intrinsic net -> inverse shading."""
        height, width = srgb.shape[-2:]
        srgb = srgb.to(self.device, torch.float32)
        linear_full = _resize(srgb, full_size).clamp(0, 1) ** GAMMA
        linear_base = _resize(linear_full, self.base_size_for(full_size))
        base = self._net(self.ordinal_net, linear_base)
        full = self._net(self.ordinal_net, linear_full)
        # the base estimate upsampled to full size (skimage's bilinear, as the official)
        base = _resize(base, full_size)
        full = equalize(linear_full, base, full, self.fit)
        inverse = self._net(self.intrinsic_net, torch.cat((linear_full, base, full), dim=1))
        if self.albedo == "network":
            # the official divides at network size (its shading can reach 0 where the network
            # saturates: clipped here so albedo stays finite), then resizes albedo and inverse
            # shading to the image separately
            albedo = _resize(linear_full / inverse_to_shading(inverse).clamp_min(ALBEDO_EPS), (height, width))
            shading = inverse_to_shading(_resize(inverse, (height, width))).clamp_min(ALBEDO_EPS)
        else:
            # shading resized, albedo from the original linear pixels: albedo * shading
            # reproduces the linear image wherever shading is positive
            shading = _resize(inverse_to_shading(inverse), (height, width)).clamp_min(ALBEDO_EPS)
            albedo = srgb.clamp(0, 1) ** GAMMA / shading
        return {"albedo": albedo, "shading": shading, "inverse_shading": inverse,
                "ordinal_base": base, "ordinal_full": full}

    def __call__(self, images: Sequence[Image.Image]) -> list[IntrinsicLayers]:
        """One `IntrinsicLayers` per image (linear light, the image's (H, W)); images sharing
        their own size and their network size run as one batch."""
        arrays = [np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0 for image in images]
        groups: dict[tuple, list[int]] = defaultdict(list)
        for i, array in enumerate(arrays):
            groups[(array.shape[:2], self.full_size(array))].append(i)
        out: list[IntrinsicLayers | None] = [None] * len(images)
        for (_, full_size), indices in groups.items():
            for start in range(0, len(indices), self.batch_size):
                chunk = indices[start : start + self.batch_size]
                batch = torch.from_numpy(np.stack([arrays[i] for i in chunk])).permute(0, 3, 1, 2)
                result = self.decompose(batch, full_size)
                for k, i in enumerate(chunk):
                    out[i] = IntrinsicLayers(albedo=result["albedo"][k].cpu(), shading=result["shading"][k, 0].cpu())
        return out  # type: ignore[return-value]
