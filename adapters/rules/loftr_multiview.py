"""Multi-view reasoning with LoFTR matches (the paper's specialist): essential-matrix rule
`multiview.loftr_essential`, or the mean-horizontal-flow rule `multiview.loftr_flow`."""

from __future__ import annotations

from specialists.loftr import LoFTRMatcher

from ..questions import Decision, MCQuestion
from ..solver import Solver, SolverOptions
from .loading import load_weights
from .multiview import _frames, essential_decision, flow_decision

DEFAULT_CHECKPOINT = "loftr-outdoor"


class LoFTREssential(Solver):
    specialist = "loftr"
    rule = "multiview.loftr_essential"
    decision = staticmethod(essential_decision)

    def __init__(self, options: SolverOptions) -> None:
        super().__init__(options)
        self.matcher, self._checkpoint = load_weights(
            options, DEFAULT_CHECKPOINT,
            tiny=lambda: LoFTRMatcher.tiny(options.seed, options.device),
            real=lambda path: LoFTRMatcher.from_checkpoint(
                path, _variant(options.checkpoint or DEFAULT_CHECKPOINT), options.device, options.precision),
        )

    @property
    def checkpoint(self):
        return self._checkpoint

    def decide(self, question: MCQuestion) -> Decision:
        return self.decide_batch([question])[0]  # type: ignore[return-value]

    def decide_batch(self, questions):
        """One batched LoFTR call for the whole batch, then the rule per question."""
        results: list = [None] * len(questions)
        pairs, members = [], []
        for i, q in enumerate(questions):
            try:
                pairs.append(_frames(q))
                members.append(i)
            except Exception as exc:
                results[i] = exc
        for i, matches in zip(members, self.matcher(pairs) if pairs else []):
            try:
                results[i] = self.decision(questions[i], matches, self.rule)
            except Exception as exc:
                results[i] = exc
        return results


class LoFTRFlow(LoFTREssential):
    specialist = "loftr_flow"
    rule = "multiview.loftr_flow"
    decision = staticmethod(flow_decision)


def _variant(checkpoint: str) -> str:
    """The LoFTR variant a checkpoint name or file implies: loftr-indoor-new, loftr_indoor_ds_new.ckpt
    -> indoor_new; *indoor* -> indoor; anything else -> outdoor."""
    name = checkpoint.lower()
    if "indoor" in name:
        return "indoor_new" if "new" in name else "indoor"
    return "outdoor"
