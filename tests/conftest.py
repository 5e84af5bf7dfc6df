import pytest

# box_scenes' helpers assert (all_placed_right_and_then_without): rewrite them as in a test file
pytest.register_assert_rewrite("box_scenes")

from blink_fixture import make_blink_fixture  # noqa: E402


@pytest.fixture
def blink_root(tmp_path):
    """A tiny BLINK-format folder: 3 tasks x 4 questions, val split, known answers."""
    root = tmp_path / "blink"
    make_blink_fixture(root)
    return root
