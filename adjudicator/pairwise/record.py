"""What a pairwise panel leaves in its verdict (``Verdict.pairwise``): every answer, every resolved
pair, each Bradley-Terry fit's inputs and outputs (the panel's and each judge's, per level), the
agreement figures, and the rules that turned strengths into the result."""

from __future__ import annotations

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.pairwise.agreement import LevelAgreement
from adjudicator.pairwise.bradley_terry import BradleyTerryFit
from adjudicator.pairwise.comparisons import PairChoice, PairResult

#: How the result is read off the strengths (written into every pairwise verdict).
RULES = (
    "unit strengths: one Bradley-Terry fit over every judge's resolved unit pairs (ties and order-inconsistent pairs as half a win each way, Gaussian prior precision alpha)",
    "two-sided formats: p = the fitted P(affirmative beats negative), two decimals; p above 0.5 -> affirmative; p of exactly 0.50 -> negative with p = 0.49 (the affirmative carries the burden of proof)",
    "ranking formats: houses ranked by fitted strength (equal strengths in declaration order); speeches ranked by the speaker-level fit; no speaker scores are given",
    "best debater: the 9 votes are apportioned by highest averages (D'Hondt) over the speaker-level strengths exp(theta), each judge's ballot likewise with 3 votes over its own fit",
    "each judge's ballot comes from a fit of that judge's comparisons alone; a judge whose unit pairs are not all resolved has no ballot, and the panel needs two ballots",
)


class PairwiseRecord(FrozenModel):
    """The pairwise panel's working (module docstring). ``fits`` maps level -> the panel's fit;
    ``judge_fits`` judge id -> level -> that judge's own fit; ``agreement`` one entry per level."""

    choices: list[PairChoice]
    results: list[PairResult]
    fits: dict[str, BradleyTerryFit]
    judge_fits: dict[str, dict[str, BradleyTerryFit]] = Field(default_factory=dict)
    agreement: list[LevelAgreement] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=lambda: list(RULES))

    def level_agreement(self, level: str) -> LevelAgreement | None:
        """The agreement entry of ``level``, None when the panel made no comparison there."""
        return next((a for a in self.agreement if a.level == level), None)
