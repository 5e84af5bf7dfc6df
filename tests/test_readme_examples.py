"""The READMEs' examples run as written (a user copies them first): README.md's commands and
adapters/markers/README.md's Python example."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"
MARKERS_README = Path(__file__).resolve().parents[1] / "adapters" / "markers" / "README.md"


def python_blocks(readme: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S)


def test_the_markers_example_draws_parses_and_inpaints():
    blocks = [b for b in python_blocks(MARKERS_README) if "parse_image" in b]
    assert len(blocks) == 1
    names: dict = {}
    exec(compile(blocks[0], str(MARKERS_README), "exec"), names)
    parsed, drawn, clean = names["parsed"], names["drawn"], np.asarray(names["clean"])
    assert not parsed.missing
    for label, xy in {"A": (80.0, 120.0), "B": (230.0, 90.0)}.items():
        assert np.hypot(*np.subtract(parsed.markers[label].xy, xy)) <= 2.0
    # the inpainted image lost the red drawing: no pixel is left far from the grey scene
    assert np.abs(drawn.astype(int) - 180).max() > 60 > np.abs(clean.astype(int) - 180).max()


def _shell_commands(block: str) -> list[list[str]]:
    """A bash block's commands: continuation lines joined, comments dropped, split into words."""
    import shlex

    joined = block.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if line.strip()]


def test_the_running_on_blink_commands_run_as_written(tmp_path, capsys):
    """README's "Running on BLINK" example, on a BLINK-format fixture in place of ~/data/BLINK:
    it ran the paper's specialists, which stop without weights."""
    from blink_fixture import make_blink_fixture

    from adapters.cli.main import main

    section = README.read_text().split("### Running on BLINK", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S).group(1)
    make_blink_fixture(tmp_path / "BLINK", n_per_task=3)
    for words in _shell_commands(block):
        assert words[0] == "specialists"
        words = [w.replace("~/data/BLINK", str(tmp_path / "BLINK")).replace("runs/", f"{tmp_path}/runs/")
                 for w in words[1:]]
        assert main(words + (["--no-progress"] if words[0] == "run" else [])) == 0, words
    results = (tmp_path / "runs" / "weightfree" / "results.json").read_text()
    assert '"sift"' in results and '"essential"' in results
