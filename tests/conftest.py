import pytest

from blink_fixture import make_blink_fixture


@pytest.fixture
def blink_root(tmp_path):
    """A tiny BLINK-format folder: 3 tasks x 4 questions, val split, known answers."""
    root = tmp_path / "blink"
    make_blink_fixture(root)
    return root
