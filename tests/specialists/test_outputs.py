import pytest
import torch
import torch.nn.functional as F

from specialists.outputs import DisparityMap, Embedding, FeatureMap, ForensicScore, IntrinsicLayers, Matches


def test_feature_map_sampling_equals_upsample_then_read():
    torch.manual_seed(0)
    fmap = FeatureMap(torch.randn(8, 6, 10), image_size=(48, 80))
    up = F.normalize(F.interpolate(fmap.features[None], size=(48, 80), mode="bilinear", align_corners=False)[0], dim=0)
    points = torch.tensor([[0.0, 0.0], [13.0, 7.0], [79.0, 47.0], [40.0, 24.0]])
    expected = torch.stack([up[:, int(y), int(x)] for x, y in points.tolist()])
    assert torch.allclose(fmap.at(points), expected, atol=1e-5)


def test_disparity_disc_median_ignores_a_ring():
    disparity = torch.zeros(20, 20)
    disparity[8:13, 8:13] = 5.0
    disparity[10, 10] = 100.0  # one outlier (e.g. a marker pixel)
    dmap = DisparityMap(disparity)
    assert dmap.at(10, 10) == 100.0
    assert dmap.at(10, 10, radius=2) == 5.0
    with pytest.raises(ValueError, match="outside"):
        dmap.at(25, 3)


def test_shapes_are_checked():
    with pytest.raises(ValueError, match=r"\(H, W\)"):
        DisparityMap(torch.zeros(1, 4, 4))
    with pytest.raises(ValueError, match="keypoints1"):
        Matches(torch.zeros(3, 2), torch.zeros(2, 2), torch.zeros(3))
    with pytest.raises(ValueError, match="shading"):
        IntrinsicLayers(torch.ones(3, 4, 4), torch.ones(4, 5))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ForensicScore(1.5, torch.zeros(4, 4), 0.0)


def test_albedo_luminance_and_embedding_cosine():
    layers = IntrinsicLayers(torch.full((3, 6, 6), 0.5), torch.ones(6, 6))
    assert layers.luminance_at(3, 3, radius=1) == pytest.approx(0.5)
    assert Embedding(torch.tensor([1.0, 0.0])).cosine(Embedding(torch.tensor([2.0, 0.0]))) == pytest.approx(1.0)
