"""The general points parser, for circled markers in any drawing style: rings and words found,
labels given to rings by the words, then checked and completed by the patch reader and the
centre finder. Entry point: parse.parse_image."""
