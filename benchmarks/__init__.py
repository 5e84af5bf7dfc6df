"""Speed benchmarks (not tests): each prints one JSON line per case. See the performance issue."""
