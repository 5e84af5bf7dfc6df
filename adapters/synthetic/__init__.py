"""Generated BLINK-format benchmarks, written through `adapters.blink_writer` and read back
through the same reader as the real BLINK.

Today this holds the *format demo*: questions in BLINK's schema, wording and image counts whose
images are procedural patterns and whose answers are drawn at random. It exercises the whole
flow (reader, runner, results, report) but measures nothing about perception; every output
names it `format-demo`. Questions with answers known from geometry arrive with the synthetic
benchmark issue.
"""

from .format_demo import FORMAT_DEMO_TASKS, format_demo_rows, write_format_demo

__all__ = ["FORMAT_DEMO_TASKS", "format_demo_rows", "write_format_demo"]
