"""README's Python examples run as written (a user copies them first)."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_markers_example_draws_parses_and_inpaints():
    blocks = [b for b in python_blocks() if "parse_image" in b]
    assert len(blocks) == 1
    names: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), names)
    parsed, drawn, clean = names["parsed"], names["drawn"], np.asarray(names["clean"])
    assert not parsed.missing
    for label, xy in {"A": (80.0, 120.0), "B": (230.0, 90.0)}.items():
        assert np.hypot(*np.subtract(parsed.markers[label].xy, xy)) <= 2.0
    # the inpainted image lost the red drawing: no pixel is left far from the grey scene
    assert np.abs(drawn.astype(int) - 180).max() > 60 > np.abs(clean.astype(int) - 180).max()
