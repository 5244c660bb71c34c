"""Ballots (one judge's adjudication) and the Verdict (the panel's aggregated result).

A CCDB judge scores every (stage, evaluated side) 1-10, votes for a winner and gives three
best-debater votes (paper 2.2.1); the panel is three judges, so the verdict carries nine votes and a
3-judge mean per scored unit, the references the benchmark compares against (paper 2.3).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from adjudicator.battlefield import Clash
from adjudicator.formats import Role, Side
from adjudicator.frozen import FrozenModel
from adjudicator.records import CallRecord, NodeFailure

BALLOT_VOTES = 3
PANEL_SIZE = 3
PANEL_VOTES = BALLOT_VOTES * PANEL_SIZE  # 9, paper 2.3 Task 3

Arm = Literal["agentic", "single-call"]



class BallotScore(FrozenModel):
    """One judge's integer score 1-10 for one (stage, evaluated side)."""

    stage_id: str
    side: Side
    score: int = Field(ge=1, le=10)


class Ballot(FrozenModel):
    """One judge's ballot.

    ``p`` is the judge's winner tendency in [0, 1] (>0.5 affirmative), two decimals; ``winner`` must
    agree with it (p == 0.5 is not allowed: judges may not tie, paper 2.3). ``best_debater_votes``
    maps position labels to non-negative integers summing to exactly 3.
    """

    judge_id: str
    perspective: str = ""
    model: str
    winner: Side
    p: float = Field(ge=0.0, le=1.0)
    stage_scores: list[BallotScore]
    best_debater_votes: dict[str, int]
    reasoning: str = ""

    @field_validator("best_debater_votes")
    @classmethod
    def _three_votes(cls, v: dict[str, int]) -> dict[str, int]:
        if any(n < 0 for n in v.values()):
            raise ValueError("best_debater_votes: counts must be non-negative")
        if sum(v.values()) != BALLOT_VOTES:
            raise ValueError(f"best_debater_votes: a judge gives exactly {BALLOT_VOTES} votes, got {sum(v.values())}")
        return {k: n for k, n in v.items() if n > 0}

    @model_validator(mode="after")
    def _winner_matches_p(self) -> "Ballot":
        if self.p == 0.5:
            raise ValueError("p: a judge may not tie; p must not be exactly 0.5")
        if (self.p > 0.5) != (self.winner == "affirmative"):
            raise ValueError(f"winner: {self.winner} contradicts p={self.p}")
        return self


class StageScore(FrozenModel):
    """The panel's score for one (stage, evaluated side): each judge's integer and their mean (1-10)."""

    stage_id: str
    stage_name: str
    stage_type: str
    side: Side
    role: Role | None = None
    judge_scores: list[int]
    mean: float = Field(ge=1.0, le=10.0)


class Dissent(FrozenModel):
    """How far the panel disagreed: the winner split ("3:0" or "2:1"), the dissenting judges, and the
    largest per-unit score range (max - min over judges, 0-9)."""

    winner_split: str
    dissenting_judges: list[str] = Field(default_factory=list)
    max_score_range: int = 0
    units_with_range_ge_3: int = 0


class Provenance(FrozenModel):
    """What produced the verdict. Deterministic: a cached rerun reproduces it byte for byte, so it
    holds no wall-clock times and no cache-hit flags (those go to stderr and benchmark records).

    ``model`` names the default model; ``models`` every model used (trackers and each judge);
    ``prompt_hashes`` template name -> content hash; token and cost sums cover every call that shaped
    the verdict (``cost_usd`` None when a price was unknown).
    """

    arm: Arm = "agentic"
    model: str
    models: dict[str, str] = Field(default_factory=dict)
    is_llm: bool
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    calls: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    strict_json: int = 0
    recovered: int = 0
    parse_failures: int = 0
    package_version: str = ""


class TaskStatus(FrozenModel):
    """Parse status of one protocol task or node group: ``ok`` if a value was extracted, how
    (strict / recovered), attempts used, and the raw outputs when it failed."""

    task: str
    key: str = ""
    ok: bool
    parse: str = "native"
    attempts: int = 1
    error: str | None = None


class Verdict(FrozenModel):
    """The result of adjudicating one match.

    - ``p``: winner tendency in [0, 1], two decimals, never exactly 0.5; >0.5 favours the affirmative.
    - ``stage_scores``: one :class:`StageScore` per scored (stage, side) that has at least one score.
    - ``best_debater_votes``: position label -> votes, summing to 9 (or 3 x valid ballots).
    - ``battlefields``: the clash map; ``ballots``: every valid judge ballot; ``failures``: nodes that
      failed with their raw outputs (the verdict is computed only from what succeeded).
    - ``tasks``: per-task parse status (single-call arm; the agentic arm reports per-node status).
    """

    match_id: str
    format: str
    motion: str
    arm: Arm = "agentic"
    winner: Side | None
    p: float | None = Field(default=None, ge=0.0, le=1.0)
    stage_scores: list[StageScore] = Field(default_factory=list)
    best_debater_votes: dict[str, int] = Field(default_factory=dict)
    best_debaters: list[str] = Field(default_factory=list)
    dissent: Dissent | None = None
    battlefields: list[Clash] = Field(default_factory=list)
    ballots: list[Ballot] = Field(default_factory=list)
    failures: list[NodeFailure] = Field(default_factory=list)
    tasks: list[TaskStatus] = Field(default_factory=list)
    provenance: Provenance
    calls: list[CallRecord] = Field(default_factory=list, exclude=True)
