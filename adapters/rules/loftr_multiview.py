"""Multi-view reasoning with LoFTR matches (the paper's specialist): the mean-horizontal-flow rule
`multiview.loftr_flow` (the default, as in the public reproduction), or the essential-matrix rule
`multiview.loftr_essential`, which falls back to the flow rule where no essential matrix fits."""

from __future__ import annotations

from adapters.core.questions import Decision, MCQuestion
from adapters.rules.model_solver import ModelSolver
from adapters.rules.multiview import essential_decision, flow_decision, question_frames
from specialists.loftr import LoFTRMatcher
from specialists.outputs import Matches


class LoFTREssential(ModelSolver):
    rule = "multiview.loftr_essential"

    def build_tiny(self):
        return LoFTRMatcher.tiny(self.options.seed, self.options.device, **self._input_settings())

    def build_real(self, path):
        o = self.options
        return LoFTRMatcher.from_checkpoint(path, _variant(o.checkpoint or self.default_checkpoint), o.device, o.precision,
                                            **self._input_settings())

    def _input_settings(self) -> dict:
        return {"size": self.settings["size"], "grey": self.settings["grey"]}

    def model_input(self, question: MCQuestion):
        return question_frames(question)

    def decision(self, question: MCQuestion, output: Matches) -> Decision:
        fallback = LoFTRFlow.rule if self.settings["fallback"] == "flow" else None
        return essential_decision(question, output, self.rule, fallback)


class LoFTRFlow(LoFTREssential):
    rule = "multiview.loftr_flow"

    def decision(self, question: MCQuestion, output: Matches) -> Decision:
        return flow_decision(question, output, self.rule)


def _variant(checkpoint: str) -> str:
    """The LoFTR variant a checkpoint name or file implies: loftr-indoor-new, loftr_indoor_ds_new.ckpt
    -> indoor_new; *indoor* -> indoor; anything else -> outdoor."""
    name = checkpoint.lower()
    if "indoor" in name:
        return "indoor_new" if "new" in name else "indoor"
    return "outdoor"
