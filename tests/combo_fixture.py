"""A tiny ComBo factor table (2 primary options x 1 secondary option x 2 appearances = 8 objects)
for fast tests."""

from pathlib import Path

TINY_TABLE = """
secondary_scale = 0.6

[[shapes]]
name = "cube"
anchors = [{ name = "top_face", point = [0.0, 0.0, 0.5], normal = [0.0, 0.0, 1.0] }]
pivots = [{ name = "face_centre", point = [0.0, 0.0, -0.5], normal = [0.0, 0.0, -1.0] }]

[[shapes]]
name = "sphere"
anchors = [{ name = "surface", point = [0.0, 0.0, 0.5], normal = [0.0, 0.0, 1.0] }]

[[appearances]]
material = "rubber"
colour = "red"
rgb = [200, 40, 40]

[[appearances]]
material = "metal"
colour = "blue"
rgb = [40, 80, 210]
"""


def write_tiny_table(folder: Path) -> Path:
    path = Path(folder) / "tiny_factors.toml"
    path.write_text(TINY_TABLE, encoding="utf-8")
    return path
