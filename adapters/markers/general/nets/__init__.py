"""The trained readers the parsers ask: the glyph classifier (prototypes rendered at run time)
and the small networks shipped as weights (patch reader, centre finder, corner finder, corner
reader), with the safetensors file format they share. Every network's weight file, the box
outline verifier's (boxes/outline_verifier.py) too, lives in nets/weights/."""
