"""DIFT on a tiny random-weight Stable Diffusion of the real architecture classes."""

import numpy as np
import pytest
import torch
from PIL import Image

from specialists.dift import DiftFeaturizer, DiftPreset


@pytest.fixture(scope="module")
def dift():
    return DiftFeaturizer.tiny(seed=0)


def _images(n=2, size=(48, 64)):
    return [Image.fromarray(np.random.default_rng(i).integers(0, 255, (*size, 3), dtype=np.uint8)) for i in range(n)]


@pytest.mark.parametrize("index, stride", [(0, 32), (1, 16), (2, 8), (3, 8)])
def test_feature_resolution_per_up_block(dift, index, stride):
    (fmap,) = dift(_images(1), DiftPreset(64, 261, index, 2))
    assert fmap.features.shape[1:] == (64 // stride, 64 // stride)
    assert fmap.image_size == (48, 64)


def test_truncated_pass_equals_that_block_in_a_full_pass(dift):
    """Stopping after up-block i gives exactly what the full UNet computes at that block."""
    torch.manual_seed(0)
    sample = torch.randn(2, 4, 8, 8)
    t = torch.tensor([261, 261])
    context = torch.cat([dift.prompt_embedding("")] * 2)
    seen = {}
    handle = dift.unet.up_blocks[1].register_forward_hook(lambda m, i, o: seen.setdefault("out", o))
    with torch.no_grad():
        dift.unet(sample, t, encoder_hidden_states=context)
    handle.remove()
    with torch.no_grad():
        truncated = dift.unet_until(sample, t, context, 1)
    assert torch.equal(truncated, seen["out"])
    assert not dift.unet.up_blocks[1]._forward_hooks  # the stop hook is removed


def test_later_blocks_never_run(dift):
    calls = []
    handle = dift.unet.up_blocks[2].register_forward_pre_hook(lambda m, i: calls.append(1))
    dift(_images(1), DiftPreset(64, 0, 1, 2))
    handle.remove()
    assert calls == []


def test_seeded_batched_and_prompt_cached(dift):
    images = _images(3)
    preset = DiftPreset(64, 261, 1, 2)
    a = dift(images, preset, seed=1)
    b = dift(images, preset, seed=1)
    assert all(torch.equal(x.features, y.features) for x, y in zip(a, b))
    assert not torch.equal(a[0].features, dift(images, preset, seed=2)[0].features)
    dift(images, preset, prompts=["a photo of a cat"] * 3)
    assert "a photo of a cat" in dift._prompt_cache


def test_ensemble_draws_come_from_one_encoding(dift, monkeypatch):
    encodes = []
    original = dift.vae.encode
    monkeypatch.setattr(dift.vae, "encode", lambda x: encodes.append(x.shape[0]) or original(x))
    dift(_images(2), DiftPreset(64, 261, 1, 8))
    assert encodes == [2]  # one VAE pass per image, not one per ensemble member


def test_from_pretrained_reads_a_diffusers_folder(dift, tmp_path):
    for part in ("vae", "unet", "scheduler", "text_encoder", "tokenizer"):
        getattr(dift, part).save_pretrained(tmp_path / part)
    loaded = DiftFeaturizer.from_pretrained(tmp_path)
    preset = DiftPreset(64, 261, 1, 2)
    assert torch.allclose(loaded(_images(1), preset)[0].features, dift(_images(1), preset)[0].features, atol=1e-5)
    with pytest.raises(ValueError, match="not a diffusers pipeline folder .*: it lacks unet/"):
        (tmp_path / "unet").rename(tmp_path / "unet_gone")
        DiftFeaturizer.from_pretrained(tmp_path)


def test_encode_once_matches_the_n_encode_reference_in_distribution(dift):
    """The reference code VAE-encodes each of the N copies (a fresh posterior sample each); we
    encode once and draw N posterior samples. Both estimate the same expected feature: our mean
    must sit as close to the reference's as two reference runs sit to each other."""
    image = _images(1)
    preset = DiftPreset(64, 261, 1, 192)

    def reference(seed):
        x = dift.preprocess(image, 64).repeat(preset.ensemble, 1, 1, 1)
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            latents = dift.vae.encode(x).latent_dist.sample(generator=g) * dift.vae.config.scaling_factor
            t = torch.full((preset.ensemble,), preset.t, dtype=torch.long)
            noisy = dift.scheduler.add_noise(latents, torch.randn(latents.shape, generator=g), t)
            context = dift.prompt_embedding("").repeat(preset.ensemble, 1, 1)
            return dift.unet_until(noisy, t, context, preset.up_ft_index).mean(0)

    def gap(a, b):
        return float((a - b).norm() / b.norm())

    ref_a, ref_b = reference(11), reference(12)
    ours = dift(image, preset, seed=3)[0].features
    monte_carlo = gap(ref_b, ref_a)
    assert gap(ours, ref_a) < 1.5 * monte_carlo + 0.01
    # the check can fail: a wrong estimator (another timestep) lands well outside that band
    wrong = dift(image, DiftPreset(64, 900, 1, 192), seed=3)[0].features
    assert gap(wrong, ref_a) > 2 * monte_carlo


def test_features_do_not_depend_on_the_batch(dift):
    """Each image draws its noise from its own seeded generator: alone or in a batch, in any
    position, its features are the same (what makes them cacheable by image)."""
    images = _images(3)
    preset = DiftPreset(64, 261, 1, 2)
    together = dift(images, preset, seed=4)
    reversed_order = dift(images[::-1], preset, seed=4)[::-1]
    for i, image in enumerate(images):
        torch.testing.assert_close(reversed_order[i].features, together[i].features, atol=1e-5, rtol=1e-5)
        (alone,) = dift([image], preset, seed=4)
        torch.testing.assert_close(alone.features, together[i].features, atol=1e-5, rtol=1e-5)


def test_engine_preprocessing_is_the_published_pil_resize_exactly():
    """DIFT's input is PIL's `img.resize((S, S))` (bicubic) then (PILToTensor / 255 - 0.5) * 2;
    torchvision's antialiased bicubic is a grey level off on about 1% of pixels, which moved the
    features by up to 1.5e-3 of their scale (small UNet of the same layout)."""
    from torchvision.transforms import PILToTensor

    from specialists.dift import engine_preprocess

    image = Image.fromarray(np.random.default_rng(3).integers(0, 255, (75, 113, 3), dtype=np.uint8))
    for size in (64, 256):
        official = (PILToTensor()(image.resize((size, size))) / 255.0 - 0.5) * 2
        ours = engine_preprocess(size)(torch.from_numpy(np.asarray(image).copy()).permute(2, 0, 1)[None])[0]
        assert torch.equal(ours, official)


def test_features_are_the_one_step_recipe_drawn_from_the_image_seed(dift):
    """The official one-step recipe (VAE posterior sample of the ensemble copies, then forward
    noise, both from torch's generator, DDIM add_noise at t, the up-block output averaged),
    with the generator seeded by `image_seed`, gives our features: the same draws, in order."""
    from specialists.dift import image_seed

    (image,) = _images(1)
    preset = DiftPreset(64, 261, 1, 3)
    (ours,) = dift([image], preset, seed=7)
    x = dift.preprocess([image], 64)
    torch.manual_seed(image_seed(7, x[0]))
    with torch.no_grad():
        latents = dift.vae.encode(x.repeat(3, 1, 1, 1)).latent_dist.sample() * dift.vae.config.scaling_factor
        noisy = dift.scheduler.add_noise(latents, torch.randn(latents.shape), torch.tensor(261))
        context = dift.prompt_embedding("").expand(3, -1, -1)
        official = dift.unet_until(noisy, torch.tensor(261).expand(3), context, 1).mean(0)
    torch.testing.assert_close(ours.features, official, atol=1e-5, rtol=1e-5)


def test_sd21_release_layout_imports_and_loads_the_same_tensors(tmp_path, monkeypatch):
    """A folder laid out as stabilityai/stable-diffusion-2-1 (model_index with feature_extractor and
    a null safety_checker, CLIP tokenizer files; small widths) imports as sd-2-1, and the loaded
    UNet, VAE and text encoder hold exactly the saved tensors."""
    from safetensors.torch import load_file

    from benchmarks.parity.sd21_layout import TINY, write_sd21_folder
    from checkpoints import resolve
    from checkpoints.install import import_checkpoint

    folder = write_sd21_folder(tmp_path / "sd21", seed=1, shrink=TINY)
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    import_checkpoint("sd-2-1", folder, link=True)
    loaded = DiftFeaturizer.from_pretrained(resolve("sd-2-1").path)
    for part, weights in (("unet", "diffusion_pytorch_model"), ("vae", "diffusion_pytorch_model"),
                          ("text_encoder", "model")):
        saved = load_file(str(folder / part / f"{weights}.safetensors"))
        state = getattr(loaded, part).state_dict()
        assert set(saved) <= set(state)
        for key, tensor in saved.items():
            assert torch.equal(state[key], tensor), f"{part}: {key}"
    ids = loaded.tokenizer("", padding="max_length", max_length=77).input_ids
    assert ids[:3] == [49406, 49407, 0] and set(ids[2:]) == {0}  # SD 2's pad token "!" fills the rest


def test_from_pretrained_and_import_refuse_a_unet_missing_tensors(dift, tmp_path, monkeypatch):
    """diffusers would initialise what the file lacks at random and only log it; `checkpoints
    import` of the pipeline folder checks every weighted component of model_index.json first."""
    import json

    from safetensors.torch import load_file, save_file

    from checkpoints.install import import_checkpoint

    for part in ("vae", "unet", "scheduler", "text_encoder", "tokenizer"):
        getattr(dift, part).save_pretrained(tmp_path / part)
    index = {"_class_name": "StableDiffusionPipeline", "unet": ["diffusers", "UNet2DConditionModel"],
             "vae": ["diffusers", "AutoencoderKL"], "text_encoder": ["transformers", "CLIPTextModel"],
             "tokenizer": ["transformers", "CLIPTokenizer"], "scheduler": ["diffusers", "DDIMScheduler"]}
    (tmp_path / "model_index.json").write_text(json.dumps(index))
    for name in ("merges.txt", "special_tokens_map.json", "vocab.json"):  # listed by the manifest; the tiny
        path = tmp_path / "tokenizer" / name                              # tokenizer saves tokenizer.json only
        if not path.exists():
            path.write_text("{}" if name.endswith(".json") else "")
    monkeypatch.setenv("SPECIALISTS_HOME", str(tmp_path / "home"))
    import_checkpoint("sd-2-1", tmp_path, link=True)  # complete: accepted
    weights = next((tmp_path / "unet").glob("*.safetensors"))
    state = load_file(str(weights))
    dropped = sorted(state)[0]
    save_file({k: v for k, v in state.items() if k != dropped}, str(weights), metadata={"format": "pt"})
    with pytest.raises(ValueError, match=rf"unet: its weights do not fit .*missing keys \(first: {dropped}"):
        DiftFeaturizer.from_pretrained(tmp_path)
    with pytest.raises(ValueError, match=rf"unet: its weights do not fit .*missing keys \(first: {dropped}"):
        import_checkpoint("sd-2-1", tmp_path, link=True, repin=True)


def test_different_images_draw_independent_noise(dift, monkeypatch):
    """Each image's generator is seeded from (seed, its pixels): two images never share draws
    (identical draws would correlate source and target noise at the same position), while
    one image keeps its draws from call to call."""
    from specialists.dift import image_seed

    a, b = _images(2)
    x = dift.preprocess([a, b, a], 64)
    seeds = [image_seed(4, image) for image in x]
    assert seeds[0] != seeds[1] and seeds[0] == seeds[2]
    assert image_seed(5, x[0]) != seeds[0]
    draws = []
    original = dift._draws
    monkeypatch.setattr(dift, "_draws", lambda *args: draws.append(original(*args)) or draws[-1])
    dift([a, b], DiftPreset(64, 261, 1, 2), seed=4)
    eps, noise = draws[0]
    assert not torch.allclose(noise[:2], noise[2:]) and not torch.allclose(eps[:2], eps[2:])
