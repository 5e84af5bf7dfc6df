"""bf16 only where the hardware makes it fast (specialists.precision.bf16_is_fast): the marker networks'
shared fit (train/rendered_fit.py) and the extraction benchmark's default precision."""

import pytest
import torch

from adapters.markers.general.nets.corner_reader import CornerReader
from benchmarks.extract import default_precision
from specialists.precision import bf16_is_fast
from train import rendered_fit
from train.markers_corner_reader import main as train_main


@pytest.mark.parametrize("avx512_bf16, amx, fast", [(False, False, False), (True, False, True), (False, True, True)])
def test_a_cpu_is_fast_in_bf16_only_with_bf16_or_amx_units(monkeypatch, avx512_bf16, amx, fast):
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx, raising=False)
    assert bf16_is_fast("cpu") is fast
    assert default_precision(torch.device("cpu")) == ("bf16" if fast else "fp32")  # the extraction benchmark's


def test_a_cpu_without_bf16_units_fits_in_fp32_and_the_record_says_so(tmp_path, monkeypatch):
    # emulated bf16 made the corner reader's fit 10x slower on a 2-core AVX2 CPU
    monkeypatch.setattr(rendered_fit, "bf16_is_fast", lambda device: False)
    enabled = []
    autocast = torch.autocast

    def recorded_autocast(*args, **kwargs):
        enabled.append(kwargs.get("enabled", True))
        return autocast(*args, **kwargs)

    monkeypatch.setattr(torch, "autocast", recorded_autocast)
    path = tmp_path / "reader.safetensors"
    assert train_main(["--output", str(path), "--steps", "2", "--batch", "4", "--width", "4", "--workers", "0"]) == 0
    assert enabled == [False, False]
    assert CornerReader.load(path).record["autocast"] is None


def test_a_cpu_with_bf16_units_fits_under_bf16_autocast_and_the_record_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(rendered_fit, "bf16_is_fast", lambda device: True)
    path = tmp_path / "reader.safetensors"
    assert train_main(["--output", str(path), "--steps", "1", "--batch", "4", "--width", "4", "--workers", "0"]) == 0
    assert CornerReader.load(path).record["autocast"] == "bf16"
