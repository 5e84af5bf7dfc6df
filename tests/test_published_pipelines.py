"""Our wrappers against the pipelines DINOv2, OWLv2, Grounding DINO, DreamSim and VGG-19 are
published with (transformers processors and post-processing, the dreamsim package, torchvision),
on tiny random instances of the real architectures; the full-size checks are
benchmarks/parity's dinov2, owlv2, grounding_dino, dreamsim and vgg_gram families."""

import numpy as np
import pytest
import torch
from PIL import Image
from torchvision.transforms import v2 as T

from specialists.dinov2 import Dinov2Embedder
from specialists.engine import Preprocess


def _image(seed, shape):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 255, (*shape, 3), dtype=np.uint8))


@pytest.mark.parametrize("shape", [(731, 1024), (1024, 731), (375, 500), (70, 97), (97, 70)])
def test_short_side_resize_truncates_the_long_side_as_torchvision_resize(shape):
    pixels = torch.zeros(1, 3, *shape, dtype=torch.uint8)
    for size in (64, 256):
        expected = tuple(T.Resize(size)(pixels).shape[-2:])
        assert Preprocess(size, "short_side").resized_size(*shape) == expected


def test_dinov2_input_is_the_image_processors_where_the_long_side_has_a_fraction_over_half():
    model = Dinov2Embedder.tiny()
    image = _image(4, (70, 97))  # 64 * 97 / 70 = 88.7: the processor resizes to 64 x 88
    expected = model.processor(images=image, return_tensors="pt")["pixel_values"]
    ours = model.preprocess(torch.from_numpy(np.array(image)).permute(2, 0, 1)[None])
    torch.testing.assert_close(ours, expected, atol=1e-5, rtol=0)
