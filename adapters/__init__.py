"""Benchmarks meet specialists: question readers, decision rules, the runner and reports."""
