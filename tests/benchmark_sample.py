"""The benchmark images that regression tests name ("image 118 at seed 3") are the ones
benchmarks/markers_accuracy.py and box_accuracy.py draw with ../shared/data/images beside the
repository and this set of label fonts (OpenCV's and Pillow's, and the DejaVu TTFs Debian
installs). Both decide the random sequence: with other photographs or fonts, "image 118" is
another image. Those tests ask here for the benchmark's inputs and skip, naming what differs,
where the machine cannot draw the same sample."""

import pytest

from adapters.markers.draw.fonts import available_fonts
from adapters.markers.draw.scenes import PHOTOS, load_photos

SAMPLE_FONTS = ("hershey-simplex", "hershey-duplex", "hershey-plain", "hershey-complex", "hershey-triplex",
                "pil-default", "dejavusans", "dejavusans-bold", "dejavuserif", "dejavusansmono")


def benchmark_inputs() -> tuple[list, list[str]]:
    """(photographs, font names) the benchmarks draw with here; skips the calling test when they
    are not the ones its images were drawn with."""
    photos = load_photos()
    if not photos:
        pytest.skip(f"the benchmark's images need the photographs of {PHOTOS} (put the repo beside ../shared)")
    fonts = [f.name for f in available_fonts()]
    if tuple(fonts) != SAMPLE_FONTS:
        pytest.skip(f"the benchmark's images were drawn in the fonts {list(SAMPLE_FONTS)}; this machine has "
                    f"{fonts} (Debian: apt install fonts-dejavu-core)")
    return photos, fonts
