"""Drawing markers: BLINK's own points and boxes (with OpenCV 4.x's glyphs), the general
MarkerStyle renderer and its fonts, and the random scenes the benchmarks and the networks'
training draw."""
