"""The trained readers the parsers ask: the glyph classifier (prototypes rendered at run time)
and the small networks shipped as weights (patch reader, centre finder, corner finder, corner
reader, outline verifier), with the safetensors file format they share."""
