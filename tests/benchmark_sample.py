"""The benchmark images that regression tests name ("image 118 at seed 3") are the ones of the
random sequence benchmarks/markers_accuracy.py and box_accuracy.py draw, drawn here over the
held-out photographs (draw.held_out_photos: scikit-image's bundled stereo pair, which no network
trains on) in this set of label fonts (OpenCV's and Pillow's, and the DejaVu TTFs Debian installs).

With any photographs at all the sequence draws the same markers, styles, background kinds and
JPEG qualities image by image; only a photo background's pixels depend on which photographs
(the benchmarks crop the photographs of scenes.PHOTOS where that folder exists). So every test
image is drawn on a fresh clone, and one over a procedural background is the very image the
benchmark measured. The fonts decide the sequence too: the tests ask here for the benchmark's
inputs and skip, naming the missing fonts, where the machine cannot draw them."""

import pytest

from adapters.markers.draw.fonts import available_fonts
from adapters.markers.draw.held_out_photos import held_out_photos

SAMPLE_FONTS = ("hershey-simplex", "hershey-duplex", "hershey-plain", "hershey-complex", "hershey-triplex",
                "pil-default", "dejavusans", "dejavusans-bold", "dejavuserif", "dejavusansmono")


def benchmark_inputs() -> tuple[list, list[str]]:
    """(photographs, font names) the tests draw the benchmarks' sequences with; skips the calling
    test when this machine lacks one of the fonts."""
    # the sample's fonts, in its order: further TTFs installed here do not move its random draws
    missing = sorted(set(SAMPLE_FONTS) - {f.name for f in available_fonts()})
    if missing:
        pytest.skip(f"the benchmark's images were drawn in the fonts {list(SAMPLE_FONTS)}; this machine lacks "
                    f"{missing} (Debian: apt install fonts-dejavu-core)")
    return list(held_out_photos()), list(SAMPLE_FONTS)
