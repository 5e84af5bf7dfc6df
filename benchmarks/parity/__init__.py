"""Parity with the official implementations: the paper's specialists run side by side with the
code their authors released, on the same (seeded random) weights and the same images.

`python -m benchmarks.parity --official FAMILY=PATH ...` (see __main__.py). Each family is one
module here with a `compare(official, images, n, workdir) -> dict` function and a
`dense_of(per_image) -> dict` summary (what `--merge` recomputes over the joined entries); PATH is
a checkout of the official repository that the user provides: nothing of it is copied into this
repository. Families checked against a package's published pipeline (published_pipelines.py)
also name it with `reference_version()`.
"""
