"""The networks `benchmarks.gpu_check` times: the real architectures with random weights, built
here without any download, at full size (the GPU check) or at tiny widths (`--quick`, the same
code on a CPU in a minute).

- ResNet-50 and ViT-B/16: timm (quick: resnet18 and ViT-Ti/16).
- Depth Anything ViT-L/14 (v1 large: DINOv2-L backbone, DPT neck [256, 512, 1024, 1024], relative
  head), transformers classes (quick: the test-size instance).
- DIFT on Stable Diffusion 2.1's UNet and VAE shapes at 768 px, 8 noise draws (quick: narrow
  UNet/VAE at 64 px, 2 draws). The CLIP text encoder keeps one layer: it runs once per prompt.
- LoFTR outdoor (kornia's architecture), the ordinal-shading networks (MidasNet + MidasNet_small).

The solver classes at the bottom are the paper's solvers with `--checkpoint tiny-random` building
these instead of their test-size networks; `gpu_check` registers them as `<name>_full` so the
Table-2 pipeline runs through the real runner, feature cache included.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import torch
from PIL import Image

from adapters.rules.depth import DepthAnythingDepth
from adapters.rules.dift_correspondence import DiftCorrespondence
from adapters.rules.loftr_multiview import LoFTRFlow
from adapters.rules.ordinal_reflectance import OrdinalShadingReflectance
from specialists.dift import PRESETS, DiftFeaturizer, DiftPreset, byte_level_clip_tokenizer

QUICK = False  # set by gpu_check --quick before any solver is built: the tiny widths


def timm_classifier(arch: str, seed: int = 0, side: int | None = None):
    """(model, timm data config) of a timm architecture, random weights, 1,000 classes; `side`:
    another input size than the architecture's own (quick: 64)."""
    import timm
    from timm.data import resolve_data_config

    torch.manual_seed(seed)
    kwargs = {"img_size": side} if side and arch.startswith("vit") else {}
    model = timm.create_model(arch, pretrained=False, num_classes=1000, **kwargs).eval()
    return model, resolve_data_config({"input_size": (3, side, side)} if side else {}, model=model)


def depth_anything_vitl(quick: bool, seed: int = 0):
    """(DepthAnythingForDepthEstimation, DPTImageProcessor): v1 large's shapes (quick: test size)."""
    from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config, DPTImageProcessor

    torch.manual_seed(seed)
    if quick:
        size = 56
        backbone = Dinov2Config(hidden_size=32, num_hidden_layers=4, num_attention_heads=2, intermediate_size=64,
                                patch_size=14, image_size=size, out_indices=[1, 2, 3, 4], reshape_hidden_states=False)
        config = DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=32, neck_hidden_sizes=[8, 16, 32, 32],
                                     fusion_hidden_size=16, head_hidden_size=8, depth_estimation_type="relative")
    else:
        size = 518
        backbone = Dinov2Config(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                                patch_size=14, image_size=size, layerscale_value=1.0, reshape_hidden_states=False,
                                out_indices=[21, 22, 23, 24])  # v1: the last four blocks
        config = DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=1024,
                                     neck_hidden_sizes=[256, 512, 1024, 1024], fusion_hidden_size=256,
                                     head_hidden_size=32, depth_estimation_type="relative")
    processor = DPTImageProcessor(do_resize=True, size={"height": size, "width": size}, keep_aspect_ratio=True,
                                  ensure_multiple_of=14, resample=Image.BICUBIC, do_normalize=True,
                                  image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225], do_pad=False)
    return DepthAnythingForDepthEstimation(config).eval(), processor


def dift_parts(quick: bool, device: str, seed: int = 0):
    """(vae, unet, scheduler, text_encoder, tokenizer): SD-2.1 shapes at 768 (quick: narrow, 64)."""
    from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    torch.manual_seed(seed)
    if quick:
        cross = 32
        unet = UNet2DConditionModel(
            sample_size=8, layers_per_block=1, block_out_channels=(32, 32, 64, 64), cross_attention_dim=cross,
            down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"),
            attention_head_dim=4, norm_num_groups=8)
        vae = AutoencoderKL(block_out_channels=(16, 16, 16, 16), down_block_types=("DownEncoderBlock2D",) * 4,
                            up_block_types=("UpDecoderBlock2D",) * 4, layers_per_block=1, latent_channels=4,
                            norm_num_groups=8, sample_size=64)
    else:
        cross = 1024
        with torch.device(device):  # a 865M-parameter UNet: built where it runs
            unet = UNet2DConditionModel(sample_size=96, block_out_channels=(320, 640, 1280, 1280), layers_per_block=2,
                                        attention_head_dim=(5, 10, 20, 20), cross_attention_dim=cross,
                                        use_linear_projection=True)
            vae = AutoencoderKL(block_out_channels=(128, 256, 512, 512), down_block_types=("DownEncoderBlock2D",) * 4,
                                up_block_types=("UpDecoderBlock2D",) * 4, layers_per_block=2, latent_channels=4,
                                sample_size=768)
    scheduler = DDIMScheduler(num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")
    text_encoder = CLIPTextModel(CLIPTextConfig(
        vocab_size=514, hidden_size=cross, intermediate_size=2 * cross, num_hidden_layers=1,
        num_attention_heads=8 if cross % 8 == 0 else 4, max_position_embeddings=77, bos_token_id=512, eos_token_id=513,
        pad_token_id=513))
    return vae, unet, scheduler, text_encoder, byte_level_clip_tokenizer()


def dift_preset(quick: bool) -> DiftPreset:
    """The semantic preset (768 px, t=261, up-block 1, 8 draws); quick: 64 px, 2 draws."""
    return replace(PRESETS["semantic"], image_size=64, ensemble=2) if quick else PRESETS["semantic"]


def dift_pair(quick: bool, device: str, precision: str, batch_size: int):
    """(engine featurizer, fp32 reference featurizer with its own copy of the weights)."""
    vae, unet, scheduler, text_encoder, tokenizer = dift_parts(quick, device)
    reference = DiftFeaturizer(copy.deepcopy(vae), copy.deepcopy(unet), scheduler, text_encoder, tokenizer, device)
    return DiftFeaturizer(vae, unet, scheduler, text_encoder, tokenizer, device, precision, batch_size), reference


def naive_dift(reference: DiftFeaturizer, preset: DiftPreset, device) -> Callable[[bytes], torch.Tensor]:
    """DIFT as the official code runs it, the benchmarks' baseline: per image, fp32, the image
    copied `ensemble` times and each copy VAE-encoded, one noise draw each, the UNet stopped after
    up-block `up_ft_index`, features averaged. (H', W', C) -> the caller's timing loop."""
    context = reference.prompt_embedding("")
    size = preset.image_size

    def features(data: bytes) -> torch.Tensor:
        img = Image.open(io.BytesIO(data)).convert("RGB").resize((size, size), Image.BILINEAR)
        x = torch.from_numpy(np.array(img)).permute(2, 0, 1).float().div(127.5).sub(1)[None].to(device)
        x = x.repeat(preset.ensemble, 1, 1, 1)
        latents = reference.vae.encode(x).latent_dist.sample() * reference.vae.config.scaling_factor
        t = torch.tensor([preset.t], device=device)
        noisy = reference.scheduler.add_noise(latents, torch.randn_like(latents), t)
        return reference.unet_until(noisy, t.expand(preset.ensemble), context.expand(preset.ensemble, -1, -1),
                                    preset.up_ft_index).mean(0).cpu()

    return features


# -- the paper's solvers on these networks (registered by gpu_check as <name>_full) ---------------


class FullDift(DiftCorrespondence):
    def __init__(self, options, spec) -> None:
        super().__init__(options, spec)
        if not QUICK:  # the published presets (768 px, 8 draws), not the test-size ones
            self.presets = dict(PRESETS)

    def build_tiny(self):
        o = self.options
        return DiftFeaturizer(*dift_parts(QUICK, o.device, o.seed), o.device, o.precision, o.batch_size)


class FullDepth(DepthAnythingDepth):
    def build_tiny(self):
        from specialists.depth_anything import DepthAnything

        o = self.options
        model, processor = depth_anything_vitl(QUICK, o.seed)
        return DepthAnything(model, processor, o.device, o.precision, o.batch_size, resize=self.settings["resize"],
                             positions=self.settings["positions"])


class FullLoFTR(LoFTRFlow):
    def build_tiny(self):
        from kornia.feature import LoFTR

        from specialists.loftr import LoFTRMatcher, loftr_config, tiny_config

        torch.manual_seed(self.options.seed)
        config = tiny_config() if QUICK else loftr_config("outdoor")
        config["match_coarse"]["thr"] = 0.0  # random weights: keep whatever mutual matches exist
        return LoFTRMatcher(LoFTR(pretrained=None, config=config), self.options.device, self.options.precision,
                            **self._input_settings())


class FullOrdinalShading(OrdinalShadingReflectance):
    def build_tiny(self):
        from specialists.ordinal_shading import MidasNet, MidasNetSmall, OrdinalShading

        o = self.options
        if QUICK:
            return super().build_tiny()
        torch.manual_seed(o.seed)
        return OrdinalShading(MidasNet(), MidasNetSmall(), o.device, o.precision, o.batch_size,
                              resolution=self.settings["resolution"], albedo=self.settings["albedo"],
                              fit=self.settings["fit"])


FULL_SOLVERS = {  # registry name -> this module's class
    "dift": "FullDift", "depth_anything": "FullDepth", "loftr_flow": "FullLoFTR", "ordinal_shading": "FullOrdinalShading",
}
