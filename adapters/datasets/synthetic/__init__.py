"""Generated BLINK-format benchmarks with answers known by construction.

`generators.py` makes each task's images, marker positions and answer; `build.py` draws the
markers and writes BLINK's parquet layout, read back through the same reader as the real BLINK.
"""

from adapters.datasets.synthetic.build import cached_synthetic, write_synthetic
from adapters.datasets.synthetic.generators import GENERATORS

__all__ = ["GENERATORS", "cached_synthetic", "write_synthetic"]
