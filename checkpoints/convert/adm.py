"""ADM (openai/guided-diffusion) UNet state dicts -> diffusers `UNet2DModel`.

diffusers has no ADM pipeline, but UNet2DModel with scale-shift time conditioning and resnet
up/down-sampling blocks is the same network (diffusers converts OpenAI's consistency-model
UNets, which share it, the same way). Two things are ours: the config derived from the ADM
flags, and the key mapping from ADM's flat module lists to diffusers' nested blocks.

ADM layout (guided_diffusion/unet.py), L = len(channel_mult), R = num_res_blocks:
  time_embed.{0,2}                       Linear, SiLU, Linear
  input_blocks.0.0                       conv in
  input_blocks.k  (k = 1..)              per level: R x [ResBlock (+ AttentionBlock)], then one
                                         down ResBlock (resblock_updown) unless last level
  middle_block.{0,1,2}                   ResBlock, AttentionBlock, ResBlock
  output_blocks.k                        per level, deepest first: R+1 x [ResBlock (+ Attention)],
                                         the last one of each level but level 0 + an up ResBlock
  out.{0,2}                              GroupNorm, (SiLU), conv out
  ResBlock: in_layers.{0 norm, 2 conv}, emb_layers.1, out_layers.{0 norm, 3 conv}, skip_connection
  AttentionBlock: norm, qkv (Conv1d 3C), proj_out (Conv1d C)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from checkpoints.convert.common import StateDictError, load_strictly, load_torch_file, strip_common_prefix, tensor_dict
from checkpoints.formats import FORMATS


@dataclass(frozen=True)
class ADMFlags:
    """The guided-diffusion command-line flags that fix the UNet's shape.

    Defaults: 256x256_diffusion_uncond.pt and lsun_bedroom.pt (guided-diffusion README):
    --attention_resolutions 32,16,8 --image_size 256 --learn_sigma True --num_channels 256
    --num_head_channels 64 --num_res_blocks 2 --resblock_updown True --use_scale_shift_norm True.
    """

    image_size: int = 256
    num_channels: int = 256
    num_res_blocks: int = 2
    attention_resolutions: tuple[int, ...] = (32, 16, 8)
    channel_mult: tuple[float, ...] | None = None  # None: guided-diffusion's default per image size
    num_head_channels: int = 64
    learn_sigma: bool = True
    resblock_updown: bool = True
    use_scale_shift_norm: bool = True
    use_new_attention_order: bool = False
    in_channels: int = 3
    num_classes: int | None = None

    @property
    def mults(self) -> tuple[float, ...]:
        if self.channel_mult is not None:
            return tuple(self.channel_mult)
        defaults = {512: (0.5, 1, 1, 2, 2, 4, 4), 256: (1, 1, 2, 2, 4, 4), 128: (1, 1, 2, 3, 4), 64: (1, 2, 3, 4)}
        if self.image_size not in defaults:
            raise ValueError(f"ADM image_size {self.image_size} has no default channel_mult; pass channel_mult")
        return defaults[self.image_size]

    @property
    def attention_levels(self) -> set[int]:
        """Levels (0 = full resolution) with attention: ADM attends where image_size // res = 2**level."""
        downsample_rates = {self.image_size // res for res in self.attention_resolutions}
        return {level for level in range(len(self.mults)) if 2 ** level in downsample_rates}


ADM_256 = ADMFlags()


def unet2d_config(flags: ADMFlags) -> dict:
    """UNet2DModel keyword arguments equivalent to an ADM UNet with these flags."""
    if not flags.use_scale_shift_norm:
        raise ValueError("only use_scale_shift_norm=True ADM models are supported (the released 256x256 ones are)")
    mults = flags.mults
    if mults[0] != 1:
        raise ValueError("channel_mult must start at 1: diffusers sizes the time embedding from the first block")
    attn = flags.attention_levels
    updown = flags.resblock_updown
    down = tuple("AttnDownBlock2D" if lvl in attn else ("ResnetDownsampleBlock2D" if updown else "DownBlock2D")
                 for lvl in range(len(mults)))
    up = tuple("AttnUpBlock2D" if lvl in attn else ("ResnetUpsampleBlock2D" if updown else "UpBlock2D")
               for lvl in reversed(range(len(mults))))
    config = dict(
        sample_size=flags.image_size,
        in_channels=flags.in_channels,
        out_channels=flags.in_channels * (2 if flags.learn_sigma else 1),
        block_out_channels=tuple(int(m * flags.num_channels) for m in mults),
        layers_per_block=flags.num_res_blocks,
        down_block_types=down,
        up_block_types=up,
        downsample_type="resnet" if updown else "conv",
        upsample_type="resnet" if updown else "conv",
        attention_head_dim=flags.num_head_channels,
        norm_num_groups=32,  # ADM's normalization() is GroupNorm32(32, ch)
        attn_norm_num_groups=32,  # explicit: with scale_shift diffusers would drop the mid-block attention norm
        norm_eps=1e-5,
        resnet_time_scale_shift="scale_shift",
        flip_sin_to_cos=True,  # ADM's timestep_embedding is [cos, sin]
        freq_shift=0,
    )
    if flags.num_classes is not None:
        config["num_class_embeds"] = flags.num_classes
    return config


def _resblock(src: str, dst: str) -> list[tuple[str, str]]:
    return [(f"{src}.in_layers.0", f"{dst}.norm1"), (f"{src}.in_layers.2", f"{dst}.conv1"),
            (f"{src}.emb_layers.1", f"{dst}.time_emb_proj"), (f"{src}.out_layers.0", f"{dst}.norm2"),
            (f"{src}.out_layers.3", f"{dst}.conv2"), (f"{src}.skip_connection", f"{dst}.conv_shortcut")]


def _module_pairs(flags: ADMFlags) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(ADM module prefix -> diffusers prefix) for plain modules, and for attention blocks."""
    plain = [("time_embed.0", "time_embedding.linear_1"), ("time_embed.2", "time_embedding.linear_2"),
             ("input_blocks.0.0", "conv_in"), ("out.0", "conv_norm_out"), ("out.2", "conv_out")]
    if flags.num_classes is not None:
        plain.append(("label_emb", "class_embedding"))
    attention: list[tuple[str, str]] = []
    levels = len(flags.mults)
    attn = flags.attention_levels
    k = 1
    for level in range(levels):
        for r in range(flags.num_res_blocks):
            plain += _resblock(f"input_blocks.{k}.0", f"down_blocks.{level}.resnets.{r}")
            if level in attn:
                attention.append((f"input_blocks.{k}.1", f"down_blocks.{level}.attentions.{r}"))
            k += 1
        if level != levels - 1:
            if flags.resblock_updown:
                plain += _resblock(f"input_blocks.{k}.0", f"down_blocks.{level}.downsamplers.0")
            else:
                plain.append((f"input_blocks.{k}.0.op", f"down_blocks.{level}.downsamplers.0.conv"))
            k += 1
    plain += _resblock("middle_block.0", "mid_block.resnets.0") + _resblock("middle_block.2", "mid_block.resnets.1")
    attention.append(("middle_block.1", "mid_block.attentions.0"))
    k = 0
    for block, level in enumerate(reversed(range(levels))):
        for i in range(flags.num_res_blocks + 1):
            plain += _resblock(f"output_blocks.{k}.0", f"up_blocks.{block}.resnets.{i}")
            sub = 1
            if level in attn:
                attention.append((f"output_blocks.{k}.1", f"up_blocks.{block}.attentions.{i}"))
                sub = 2
            if level and i == flags.num_res_blocks:
                if flags.resblock_updown:
                    plain += _resblock(f"output_blocks.{k}.{sub}", f"up_blocks.{block}.upsamplers.0")
                else:
                    plain.append((f"output_blocks.{k}.{sub}.conv", f"up_blocks.{block}.upsamplers.0.conv"))
            k += 1
    return plain, attention


def _split_qkv(weight, bias, heads: int, new_order: bool):
    """ADM's fused qkv (Conv1d, 3C x C x 1) -> q, k, v Linear weights and biases.

    Legacy order (QKVAttentionLegacy, the released models) interleaves per head:
    [h0: q k v, h1: q k v, ...]; the new order stacks [q all heads, k ..., v ...].
    """
    three_c = weight.shape[0]
    c = three_c // 3
    w = weight.reshape(three_c, -1)
    if new_order:
        ws, bs = w.chunk(3, dim=0), bias.chunk(3, dim=0)
    else:
        w = w.reshape(heads, 3, c // heads, w.shape[1])
        b = bias.reshape(heads, 3, c // heads)
        ws = [w[:, j].reshape(c, -1) for j in range(3)]
        bs = [b[:, j].reshape(c) for j in range(3)]
    return ws, bs


def convert_adm_state_dict(state: dict, flags: ADMFlags = ADM_256) -> dict:
    """ADM UNet state dict -> UNet2DModel(**unet2d_config(flags)) state dict (same tensors, renamed;
    attention qkv split and squeezed). Raises StateDictError on keys the flags do not explain."""
    state = strip_common_prefix(dict(state))
    plain, attention = _module_pairs(flags)
    out: dict = {}
    used: set[str] = set()
    for src, dst in plain:
        for param in ("weight", "bias"):
            key = f"{src}.{param}"
            if key in state:
                out[f"{dst}.{param}"] = state[key]
                used.add(key)
    for src, dst in attention:
        needed = [f"{src}.{p}" for p in ("norm.weight", "norm.bias", "qkv.weight", "qkv.bias", "proj_out.weight", "proj_out.bias")]
        absent = [k for k in needed if k not in state]
        if absent:
            raise StateDictError(f"ADM state dict lacks {absent[0]}: the flags' attention_resolutions "
                                 f"{flags.attention_resolutions} do not match the file")
        channels = state[f"{src}.proj_out.weight"].shape[0]
        ws, bs = _split_qkv(state[f"{src}.qkv.weight"], state[f"{src}.qkv.bias"],
                            channels // flags.num_head_channels, flags.use_new_attention_order)
        out[f"{dst}.group_norm.weight"] = state[f"{src}.norm.weight"]
        out[f"{dst}.group_norm.bias"] = state[f"{src}.norm.bias"]
        for name, w, b in zip(("to_q", "to_k", "to_v"), ws, bs):
            out[f"{dst}.{name}.weight"], out[f"{dst}.{name}.bias"] = w.contiguous(), b.contiguous()
        out[f"{dst}.to_out.0.weight"] = state[f"{src}.proj_out.weight"].reshape(channels, channels)
        out[f"{dst}.to_out.0.bias"] = state[f"{src}.proj_out.bias"]
        used.update(needed)
    unexplained = sorted(set(state) - used)
    if unexplained:
        raise StateDictError(f"ADM state dict has {len(unexplained)} keys these flags do not explain "
                             f"(first: {unexplained[:3]}); check num_res_blocks, channel_mult, resblock_updown, num_classes")
    return out


def read_adm_state_dict(path: str | Path) -> dict:
    """The tensors of an ADM .pt file (a bare state dict, as OpenAI released them)."""
    state = tensor_dict(load_torch_file(path, FORMATS["adm"].description), path, "an ADM UNet state dict")
    if "input_blocks.0.0.weight" not in state and "module.input_blocks.0.0.weight" not in state:
        raise StateDictError(f"{path}: no 'input_blocks.0.0.weight'; not an ADM (guided-diffusion) UNet")
    return state


def load_adm_unet(path_or_state, flags: ADMFlags = ADM_256):
    """A diffusers UNet2DModel holding the ADM weights (strict load), in eval mode.

    path_or_state: an ADM .pt file or an already-loaded ADM state dict.
    """
    import torch
    from diffusers import UNet2DModel

    state = path_or_state if isinstance(path_or_state, dict) else read_adm_state_dict(path_or_state)
    with torch.device("meta"):  # no time spent on a random init that is overwritten at once
        model = UNet2DModel(**unet2d_config(flags))
    where = "the ADM state dict" if isinstance(path_or_state, dict) else path_or_state
    load_strictly(model, convert_adm_state_dict(state, flags), where, "the ADM UNet these flags describe", assign=True)
    return model.eval()
