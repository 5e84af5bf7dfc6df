"""The first pass on BLINK's images: read BLINK's own drawing exactly (points: a ring under a
black label box; Object_Localization: red and green boxes with label tabs). What it cannot read
is left to the general parsers, never guessed."""
