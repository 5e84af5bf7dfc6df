"""Relative reflectance from ordinal shading (Careaga & Aksoy): the IIW rule on its linear albedo.

The networks see the scene with its markers inpainted; the points are read from the drawn
markers; `reflectance_decision` compares the median albedo reflectance over a small disc at A and
B with the IIW threshold and maps the options by their text.
"""

from __future__ import annotations

from adapters.core.questions import Decision, MCQuestion
from adapters.rules.model_solver import ModelSolver
from adapters.rules.points import scene_image
from adapters.rules.reflectance import reflectance_decision, with_albedo
from specialists.outputs import IntrinsicLayers


class OrdinalShadingReflectance(ModelSolver):
    """`reflectance.ordinal_shading_iid`: ordinal-shading v1 albedo at A and B, IIW rule (delta 0.10)."""

    rule = "reflectance.ordinal_shading_iid"

    def build_tiny(self):
        from specialists.ordinal_shading import OrdinalShading

        o = self.options
        return OrdinalShading.tiny(o.seed, o.device, o.precision, o.batch_size, resolution=self.settings["resolution"],
                                   albedo=self.settings["albedo"], fit=self.settings["fit"])

    def build_real(self, path):
        from specialists.ordinal_shading import OrdinalShading

        o = self.options
        return OrdinalShading.from_checkpoint(path, device=o.device, precision=o.precision, batch_size=o.batch_size,
                                              resolution=self.settings["resolution"], albedo=self.settings["albedo"],
                                              fit=self.settings["fit"])

    def model_input(self, question: MCQuestion):
        return scene_image(question, 0)

    def decision(self, question: MCQuestion, output: IntrinsicLayers) -> Decision:
        decision = reflectance_decision(question, output, self.rule, measure=self.settings["measure"])
        return with_albedo(decision, question, output, self.options.keep_evidence)
