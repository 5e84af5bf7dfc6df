"""Each official weight format, written by the test in its exact layout (tiny model, official key
names), read through checkpoints.convert and loaded with strict=True."""

from __future__ import annotations

import pytest
import torch

from checkpoints.convert import StateDictError, validate
from checkpoints.convert.adm import ADM_256, ADMFlags, convert_adm_state_dict, load_adm_unet, unet2d_config
from checkpoints.convert.dire import dire_classifier
from checkpoints.convert.loftr import loftr_state_dict
from checkpoints.convert.ordinal_shading import ordinal_shading_stages, ordinal_shading_v1
from checkpoints.convert.timm_weights import create_timm_model


# --- LoFTR: Lightning checkpoint, weights under state_dict with the matcher. prefix -------------
def _tiny_loftr(seed: int):
    from kornia.feature import LoFTR

    from specialists.loftr import tiny_config

    torch.manual_seed(seed)
    return LoFTR(pretrained=None, config=tiny_config())


def test_loftr_lightning_checkpoint_loads_strictly(tmp_path):
    source = _tiny_loftr(seed=0)
    path = tmp_path / "loftr_outdoor.ckpt"
    torch.save({"epoch": 29, "global_step": 1000, "pytorch-lightning_version": "1.3.5",
                "state_dict": {f"matcher.{k}": v for k, v in source.state_dict().items()}}, path)
    state = loftr_state_dict(path)
    target = _tiny_loftr(seed=1)
    target.load_state_dict(state, strict=True)
    for key, value in source.state_dict().items():
        assert torch.equal(target.state_dict()[key], value), key


def test_loftr_wrong_file_is_refused(tmp_path):
    path = tmp_path / "x.ckpt"
    torch.save({"state_dict": {"model.fc.weight": torch.zeros(2, 2)}}, path)
    with pytest.raises(StateDictError, match="backbone"):
        loftr_state_dict(path)


# --- DIRE: torchvision ResNet-50 with a 1-logit fc, maybe wrapped under "model" -----------------
@pytest.fixture(scope="module")
def resnet50_one_logit_state():
    from torchvision.models import resnet50

    torch.manual_seed(1)
    return resnet50(weights=None, num_classes=1).state_dict()


@pytest.mark.parametrize("wrapped", [True, False])
def test_dire_checkpoint_loads_into_resnet50(tmp_path, wrapped, resnet50_one_logit_state):
    state = resnet50_one_logit_state
    path = tmp_path / "lsun_adm.pth"
    torch.save({"model": state, "optimizer": {}, "total_steps": 7} if wrapped else state, path)
    model = dire_classifier(path)
    assert all(torch.equal(model.state_dict()[k], v) for k, v in state.items())
    assert model.fc.weight.shape == (1, 2048)
    with torch.no_grad():
        assert model(torch.rand(1, 3, 64, 64)).shape == (1, 1)


def test_dire_thousand_class_resnet_is_refused(tmp_path, resnet50_one_logit_state):
    path = tmp_path / "imagenet.pth"
    torch.save({**resnet50_one_logit_state, "fc.weight": torch.zeros(1000, 2048), "fc.bias": torch.zeros(1000)}, path)
    with pytest.raises(StateDictError, match=r"fc.weight has shape \(1000, 2048\)"):
        validate("dire-resnet50", path)


# --- Ordinal shading: v1 combined dict and v2 stage files ---------------------------------------
def _midas_like(c_in: int, c_out: int) -> dict:
    """The keys that identify a MiDaS-style network (official names), plus a decoder weight."""
    return {"pretrained.layer1.0.weight": torch.randn(32, c_in, 3, 3),
            "scratch.refinenet1.resConfUnit1.conv1.weight": torch.randn(8, 8, 3, 3),
            "scratch.output_conv.4.weight": torch.randn(c_out, 32, 1, 1),
            "scratch.output_conv.4.bias": torch.randn(c_out)}


def test_ordinal_shading_v1_combined_dict(tmp_path):
    ord_sd, iid_sd = _midas_like(3, 1), _midas_like(5, 1)
    path = tmp_path / "final_weights.pt"
    torch.save({"ord_state_dict": ord_sd, "iid_state_dict": iid_sd}, path)
    nets = ordinal_shading_v1(path)
    assert set(nets) == {"ord", "iid"}
    assert nets["iid"].keys() == iid_sd.keys()
    assert all(torch.equal(nets["ord"][k], v) for k, v in ord_sd.items())


def test_ordinal_shading_v1_swapped_networks_are_refused(tmp_path):
    path = tmp_path / "final_weights.pt"
    torch.save({"ord_state_dict": _midas_like(5, 1), "iid_state_dict": _midas_like(3, 1)}, path)
    with pytest.raises(StateDictError, match="3 channels"):
        ordinal_shading_v1(path)


def test_ordinal_shading_v2_stage_files(tmp_path):
    channels = [(3, 1), (5, 1), (7, 2), (9, 3), (9, 3)]
    files = [f"stage_{i}_v21.pt" for i in range(5)]
    for file, (c_in, c_out) in zip(files, channels):
        torch.save({f"_orig_mod.{k}": v for k, v in _midas_like(c_in, c_out).items()}, tmp_path / file)
    stages = ordinal_shading_stages(tmp_path, files)
    assert list(stages) == ["ord", "iid", "col", "alb", "dif"]
    assert stages["col"]["scratch.output_conv.4.weight"].shape == (2, 32, 1, 1)
    assert "pretrained.layer1.0.weight" in stages["dif"]  # compile prefix gone, official names kept
    torch.save(_midas_like(3, 1), tmp_path / files[2])  # a stage-0 network where stage 2 belongs
    with pytest.raises(StateDictError, match="7 channels"):
        ordinal_shading_stages(tmp_path, files)


# --- ADM guided-diffusion -> diffusers UNet2DModel ----------------------------------------------
TINY = ADMFlags(image_size=32, num_channels=32, num_res_blocks=1, attention_resolutions=(16,),
                channel_mult=(1, 2), num_head_channels=16)


def adm_layout_state_dict(ch=32, mults=(1, 2), blocks=1, attn_levels=(1,), out_ch=6, seed=0) -> dict:
    """A random state dict with the key names and shapes of guided_diffusion/unet.py's UNetModel
    (resblock_updown=True, use_scale_shift_norm=True), enumerated here independently of the
    converter: time_embed, input_blocks, middle_block, output_blocks, out."""
    g = torch.Generator().manual_seed(seed)
    sd: dict = {}
    emb = 4 * ch

    def t(*shape):
        return torch.randn(*shape, generator=g)

    def norm(p, c):
        sd[f"{p}.weight"], sd[f"{p}.bias"] = t(c), t(c)

    def conv(p, cin, cout, k=3):
        sd[f"{p}.weight"], sd[f"{p}.bias"] = t(cout, cin, k, k), t(cout)

    def linear(p, cin, cout):
        sd[f"{p}.weight"], sd[f"{p}.bias"] = t(cout, cin), t(cout)

    def res(p, cin, cout):
        norm(f"{p}.in_layers.0", cin)
        conv(f"{p}.in_layers.2", cin, cout)
        linear(f"{p}.emb_layers.1", emb, 2 * cout)  # scale and shift
        norm(f"{p}.out_layers.0", cout)
        conv(f"{p}.out_layers.3", cout, cout)
        if cin != cout:
            conv(f"{p}.skip_connection", cin, cout, 1)

    def attn(p, c):
        norm(f"{p}.norm", c)
        sd[f"{p}.qkv.weight"], sd[f"{p}.qkv.bias"] = t(3 * c, c, 1), t(3 * c)
        sd[f"{p}.proj_out.weight"], sd[f"{p}.proj_out.bias"] = t(c, c, 1), t(c)

    linear("time_embed.0", ch, emb)
    linear("time_embed.2", emb, emb)
    conv("input_blocks.0.0", 3, ch)
    skips, c, k = [ch], ch, 1
    for level, mult in enumerate(mults):
        for _ in range(blocks):
            res(f"input_blocks.{k}.0", c, mult * ch)
            c = mult * ch
            if level in attn_levels:
                attn(f"input_blocks.{k}.1", c)
            skips.append(c)
            k += 1
        if level != len(mults) - 1:
            res(f"input_blocks.{k}.0", c, c)  # down-sampling ResBlock
            skips.append(c)
            k += 1
    res("middle_block.0", c, c)
    attn("middle_block.1", c)
    res("middle_block.2", c, c)
    k = 0
    for level, mult in reversed(list(enumerate(mults))):
        for i in range(blocks + 1):
            res(f"output_blocks.{k}.0", c + skips.pop(), mult * ch)
            c, sub = mult * ch, 1
            if level in attn_levels:
                attn(f"output_blocks.{k}.1", c)
                sub = 2
            if level and i == blocks:
                res(f"output_blocks.{k}.{sub}", c, c)  # up-sampling ResBlock
            k += 1
    norm("out.0", c)
    conv("out.2", ch, out_ch)
    return sd


def test_adm_tiny_state_dict_loads_strictly_into_unet2dmodel(tmp_path):
    state = adm_layout_state_dict()
    path = tmp_path / "256x256_diffusion_uncond.pt"
    torch.save(state, path)
    model = load_adm_unet(path, TINY)  # strict=True inside
    assert sum(p.numel() for p in model.parameters()) == sum(v.numel() for v in state.values())
    assert torch.equal(model.conv_in.weight, state["input_blocks.0.0.weight"])
    assert torch.equal(model.up_blocks[0].upsamplers[0].conv1.weight, state["output_blocks.1.2.in_layers.2.weight"])
    # legacy attention order: qkv rows are [head0: q k v, head1: q k v]; heads are 16 channels
    qkv = state["input_blocks.3.1.qkv.weight"].squeeze(-1)  # level-1 attention, 64 channels, 4 heads
    attention = model.down_blocks[1].attentions[0]
    assert torch.equal(attention.to_q.weight[:16], qkv[0:16])
    assert torch.equal(attention.to_k.weight[:16], qkv[16:32])
    assert torch.equal(attention.to_v.weight[16:32], qkv[80:96])
    with torch.no_grad():
        out = model(torch.randn(2, 3, 32, 32), torch.tensor([3, 999])).sample
    assert out.shape == (2, 6, 32, 32) and torch.isfinite(out).all()


def test_adm_keys_the_flags_do_not_explain_are_refused():
    state = adm_layout_state_dict()
    with pytest.raises(StateDictError, match="attention_resolutions"):  # flags without attention at level 1
        convert_adm_state_dict(state, ADMFlags(image_size=32, num_channels=32, num_res_blocks=1,
                                               attention_resolutions=(32,), channel_mult=(1, 2), num_head_channels=16))
    with pytest.raises(StateDictError, match="do not explain"):
        convert_adm_state_dict({**state, "label_emb.weight": torch.zeros(10, 128)}, TINY)


def test_adm_256_config_has_the_official_parameter_count():
    """The published ADM 256x256 flags give UNetModel 552,814,086 parameters (counted on the
    official guided_diffusion UNetModel built on the meta device)."""
    from diffusers import UNet2DModel

    with torch.device("meta"):
        model = UNet2DModel(**unet2d_config(ADM_256))
    assert sum(p.numel() for p in model.parameters()) == 552_814_086
    assert model.config.out_channels == 6 and model.config.attention_head_dim == 64


# --- timm: local file through pretrained_cfg_overlay -------------------------------------------
def test_timm_weights_from_a_local_file(tmp_path):
    import timm
    from safetensors.torch import save_file

    torch.manual_seed(2)
    source = timm.create_model("resnet18.tv_in1k", pretrained=False)
    path = tmp_path / "model.safetensors"
    save_file(source.state_dict(), str(path))
    model = create_timm_model("resnet18.tv_in1k", path)
    assert all(torch.equal(model.state_dict()[k], v) for k, v in source.state_dict().items())
    assert model.pretrained_cfg["interpolation"] == "bilinear"  # the tag's preprocessing comes along


def test_timm_safetensors_for_an_npz_default_model(tmp_path):
    """augreg ViTs publish .npz; a safetensors copy needs custom_load=False (set automatically)."""
    import timm
    from safetensors.torch import save_file

    name = "vit_tiny_patch16_224.augreg_in21k_ft_in1k"
    torch.manual_seed(3)
    source = timm.create_model(name, pretrained=False)
    path = tmp_path / "model.safetensors"
    save_file(source.state_dict(), str(path))
    model = create_timm_model(name, path)
    assert torch.equal(model.cls_token, source.cls_token)
