"""Lightning extraction (Trainer.predict, DDP strategy, writer callback) with one CPU process."""

import numpy as np
import torch

from specialists.distributed import extract_distributed
from specialists.engine import Engine, ImageRequest, ModelSpec, Preprocess, encode_image


def _specs():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=2), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
    return [ModelSpec("net", net.eval(), Preprocess(size=16, crop=16), batch_size=4)]


def test_predict_with_ddp_returns_every_result_by_key(tmp_path):
    rng = np.random.default_rng(0)
    requests = [
        ImageRequest(f"q{i}", "net", encode_image(rng.integers(0, 255, (20 + i, 24, 3), dtype=np.uint8), "PNG"))
        for i in range(11)
    ]
    out = extract_distributed(requests, _specs, tmp_path / "work", accelerator="cpu", devices=1,
                              strategy="ddp", requests_per_step=4)
    assert list(out) == [r.key for r in requests]
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["rank0.pt"]
    reference = Engine(_specs()).run(requests)
    for key, value in reference.items():
        torch.testing.assert_close(out[key], value, atol=1e-5, rtol=1e-5)
