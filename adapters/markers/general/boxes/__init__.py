"""Drawn boxes (Object_Localization): each asked label's box, or why it cannot be said.

read.read_boxes runs the flow: outlines_at_corner fits the outlines from each candidate corner
(fit, with strokes, measure, thin_line and outline; traced_far_corner where no far corner is
proposed; verifier_outlines where only the outline verifier passes one); naming weighs each
corner's label by the networks and the word written there (label_word) and assigns labels to
corners; elimination and verifier_outlines.last_label_box place the labels left; final_checks
moves and refuses placed boxes (stroke_band, shared_lines). geometry and merged_band are shared.
"""
