"""blink-specialists: specialist-model baselines for perception benchmarks made for MLLMs.

This package holds the model wrappers (image batch in, typed dense output out), the typed dense
outputs, and the command line (`specialists`, `python -m specialists`).
"""

__version__ = "0.1.0"
