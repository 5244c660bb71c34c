"""Ballots (one judge's adjudication) and the Verdict (the panel's aggregated result).

A CCDB judge scores every (stage, evaluated side) 1-10, votes for a winner and gives three
best-debater votes (paper 2.2.1); the panel is three judges, so the verdict carries nine votes and a
3-judge mean per scored unit, the references the benchmark compares against (paper 2.3).

Formats whose units are ranked (``FormatSpec.verdict == "ranking"``, BP) generalise this from two sides
to their units: a BP judge ranks the four houses 1-4 without ties, gives every speech a speaker score
on the WUDC 50-100 scale and ranks the eight speeches 1-8, and the ranking agrees with the team totals
(no low-point wins; seed 002 section 3.2, the WUDC manual). Such ballots and verdicts carry
``ranking`` and ``speaker_scores`` and leave ``winner``, ``p``, 1-10 stage scores and best-debater votes
empty; the new fields are left out of the JSON when empty, so a two-sided verdict reads exactly as
before.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import Role, Side
from adjudicator.input.gold import check_no_low_point_wins, check_ranks
from adjudicator.pairwise.record import PairwiseRecord
from adjudicator.records import CallRecord, Dropped, NodeFailure, Normalised
from adjudicator.verdict.battlefield import Clash
from adjudicator.verdict.dimensions import DimensionDecision, DimensionResult, DimensionVote
from adjudicator.verdict.feedback import DebaterFeedback
from adjudicator.verdict.review import Review
from adjudicator.verdict.transcripts import TranscriptMark

BALLOT_VOTES = 3
PANEL_SIZE = 3
PANEL_VOTES = BALLOT_VOTES * PANEL_SIZE  # 9, paper 2.3 Task 3

Arm = Literal["agentic", "single-call"]


def _empty(value: object) -> bool:
    """``exclude_if`` predicate: a field left at its empty default is not written."""
    return not value


def _none(value: object) -> bool:
    """``exclude_if`` predicate: a field left at None is not written (``--p-source logprob`` values)."""
    return value is None


class SpeakerScore(FrozenModel):
    """One judge's speaker score for one speech of a ranking format (BP): the speech's stage id, its
    unit (house) and short name (``"PM"``), the score on the format's scale (WUDC: integer 50-100)
    and the speech's rank among all speeches (1 = best; no ties)."""

    stage_id: str
    unit: str
    speech: str = ""
    score: int = Field(ge=0, le=100)
    rank: int = Field(ge=1)



class BallotScore(FrozenModel):
    """One judge's integer score 1-10 for one (stage, evaluated side); with ``--p-source logprob``
    also ``expected``, the expectation over the score tokens' probabilities (1-10, see
    :func:`adjudicator.model.logprobs.expected_score`; None when the reply had none)."""

    stage_id: str
    side: Side
    score: int = Field(ge=1, le=10)
    expected: float | None = Field(default=None, ge=1.0, le=10.0, exclude_if=_none)


class Ballot(FrozenModel):
    """One judge's ballot.

    Two-sided formats: ``p`` is the judge's winner tendency in [0, 1] (>0.5 affirmative), two
    decimals; ``winner`` must agree with it (p == 0.5 is not allowed: judges may not tie, paper 2.3).
    ``best_debater_votes`` maps position labels to non-negative integers summing to exactly 3.

    Ranking formats (BP): ``ranking`` maps every unit to its rank 1..n without ties, and
    ``speaker_scores`` holds one :class:`SpeakerScore` per speech with ranks 1..(speeches) without
    ties; a speech scored higher ranks better, and a unit ranked above another has strictly more
    speaker points (no low-point wins). ``winner`` and ``p`` are None and there are no 1-10 stage
    scores or best-debater votes. Which units and speeches a match has is checked where the ballot
    is built (the judge's parser), not here.

    ``dimensions`` (dimensional rubrics, :mod:`adjudicator.verdict.dimensions`): one vote per rubric
    dimension, each side's score and the dimension's winner or a tie; empty under the ccdb rubric.
    ``p_logprob`` (``--p-source logprob`` only): P(affirmative) read off the winner token's
    probabilities (:func:`adjudicator.model.logprobs.logprob_p`), beside the stated ``p``; it may
    disagree with ``winner``, which follows the stated answer. ``feedback``: the judge's feedback to
    each debater, as a coach gives it (:mod:`adjudicator.verdict.feedback`; two-sided scoring
    ballots of the LLM and offline judges; left out of the JSON when empty).

    Issue 38 (each left out of the JSON at its default): ``normalised``, the fields of the judge's
    answer a normalisation rule read other than as written (:mod:`adjudicator.model.normalise`: a
    rescaled p, a stage named by its name, votes by a debater's name); ``dropped``, the fields the
    ballot was taken without, still invalid after their repair (feedback points; the node's
    ``dropped_field`` failure lists them too); ``deciding`` False for a ballot whose judge still
    answered p = 0.5 after a repair turn and stated no winner: it is kept and shown, its stage scores
    and votes count, but it has no winner (``winner`` None, ``p`` 0.5) and takes no part in the panel's
    winner or p; ``p_counted`` False for a ballot whose judge still answered p = 0.5 after a repair turn
    but stated a winner: its winner vote counts (it is deciding), its p (0.5) is left out of the
    panel's p and of the even-split tie-break (session 5: the decision fields stand on their own).
    """

    judge_id: str
    perspective: str = ""
    model: str
    winner: Side | None
    p: float | None = Field(ge=0.0, le=1.0)
    stage_scores: list[BallotScore]
    best_debater_votes: dict[str, int]
    reasoning: str = ""
    ranking: dict[str, int] = Field(default_factory=dict, exclude_if=_empty)
    speaker_scores: list[SpeakerScore] = Field(default_factory=list, exclude_if=_empty)
    dimensions: list[DimensionVote] = Field(default_factory=list, exclude_if=_empty)
    p_logprob: float | None = Field(default=None, ge=0.0, le=1.0, exclude_if=_none)
    feedback: list[DebaterFeedback] = Field(default_factory=list, exclude_if=_empty)
    normalised: list[Normalised] = Field(default_factory=list, exclude_if=_empty)
    dropped: list[Dropped] = Field(default_factory=list, exclude_if=_empty)
    deciding: bool = Field(default=True, exclude_if=lambda v: v is True)
    p_counted: bool = Field(default=True, exclude_if=lambda v: v is True)

    @field_validator("best_debater_votes")
    @classmethod
    def _non_negative_votes(cls, v: dict[str, int]) -> dict[str, int]:
        if any(n < 0 for n in v.values()):
            raise ValueError("best_debater_votes: counts must be non-negative")
        return {k: n for k, n in v.items() if n > 0}

    @model_validator(mode="after")
    def _consistent(self) -> "Ballot":
        if self.ranking:
            return self._check_ranking()
        if sum(self.best_debater_votes.values()) != BALLOT_VOTES:
            raise ValueError(f"best_debater_votes: a judge gives exactly {BALLOT_VOTES} votes, got {sum(self.best_debater_votes.values())}")
        if not self.deciding:
            if self.winner is not None or self.p != 0.5 or self.p_counted:
                raise ValueError("deciding: a ballot that does not decide has no winner, p = 0.5 and p_counted false")
            return self
        if self.winner is None or self.p is None:
            raise ValueError("winner: a ballot without a ranking needs a winner and p")
        if not self.p_counted:
            if self.p != 0.5:
                raise ValueError("p_counted: a ballot whose p is left out has p = 0.5")
            return self
        if self.p == 0.5:
            raise ValueError("p: a judge may not tie; p must not be exactly 0.5")
        if (self.p > 0.5) != (self.winner == "affirmative"):
            raise ValueError(f"winner: {self.winner} contradicts p={self.p}")
        return self

    def _check_ranking(self) -> "Ballot":
        """Ranks without ties, speech ranks that follow the scores, and no low-point wins."""
        if self.winner is not None or self.p is not None or self.stage_scores or self.best_debater_votes:
            raise ValueError("ranking: a ranking ballot has no winner, p, 1-10 stage scores or best-debater votes")
        check_ranks("ranking", self.ranking, list(self.ranking), "team")
        if not self.speaker_scores:
            return self
        ids = [s.stage_id for s in self.speaker_scores]
        if len(set(ids)) != len(ids):
            raise ValueError("speaker_scores: a speech is scored twice")
        check_ranks("speaker_scores", {s.stage_id: s.rank for s in self.speaker_scores}, ids, "speech")
        by_rank = sorted(self.speaker_scores, key=lambda s: s.rank)
        for better, worse in zip(by_rank, by_rank[1:]):
            if better.score < worse.score:
                raise ValueError(f"speaker_scores: {worse.stage_id} scored {worse.score} ranks below {better.stage_id} scored {better.score}; a higher score ranks better")
        totals: dict[str, float] = {u: 0.0 for u in self.ranking}
        for s in self.speaker_scores:
            if s.unit not in totals:
                raise ValueError(f"speaker_scores: {s.stage_id} is by {s.unit!r}, which the ranking does not rank")
            totals[s.unit] += s.score
        check_no_low_point_wins("ranking", self.ranking, totals)
        return self

    def team_points(self) -> dict[str, int]:
        """Ranking ballots: unit -> the sum of its speeches' speaker scores (empty otherwise)."""
        out = {u: 0 for u in self.ranking}
        for s in self.speaker_scores:
            out[s.unit] = out.get(s.unit, 0) + s.score
        return out if self.speaker_scores else {}


class StageScore(FrozenModel):
    """The panel's score for one (stage, evaluated side): each judge's integer and their mean (1-10);
    with ``--p-source logprob``, ``logprob_mean`` the mean of the judges' expected scores (4 decimals)."""

    stage_id: str
    stage_name: str
    stage_type: str
    side: Side
    role: Role | None = None
    judge_scores: list[int]
    mean: float = Field(ge=1.0, le=10.0)
    logprob_mean: float | None = Field(default=None, ge=1.0, le=10.0, exclude_if=_none)


class UnitResult(FrozenModel):
    """The panel's result for one unit of a ranking format (BP house): its rank 1..n, each judge's
    rank and the mean rank, and the team's speaker points (each judge's total and the mean, 2
    decimals)."""

    unit: str
    name: str
    rank: int = Field(ge=1)
    judge_ranks: list[int]
    mean_rank: float
    judge_points: list[int] = Field(default_factory=list)
    points: float | None = None


class SpeechResult(FrozenModel):
    """The panel's speaker score for one speech of a ranking format: each judge's score and rank,
    the mean score (3 decimals, on the format's scale) and the panel's speaker rank 1..(speeches).
    The single-call arm asks for scores and ranks separately, so either may be None there."""

    stage_id: str
    speech: str
    unit: str
    judge_scores: list[int]
    mean: float | None
    judge_ranks: list[int]
    rank: int | None = Field(ge=1)


class Dissent(FrozenModel):
    """How far the panel disagreed: the winner split ("3:0" or "2:1"), the dissenting judges, and the
    largest per-unit score range (max - min over judges, 0-9).

    Ranking formats: ``winner_split`` counts the judges who put the panel's first-ranked unit first
    against those who did not, ``dissenting_judges`` are those whose full ranking differs from the
    panel's, the score ranges are over speaker scores, ``rank_error`` gives each judge's sum of
    absolute rank differences from the panel's ranking (0 = the same ranking; at most 8 with four
    units), and ``low_point_wins`` names every pair where the panel's ranking puts a unit with fewer
    mean team points above another (the ranking follows the judges' ranks, see
    :mod:`adjudicator.verdict.aggregate`)."""

    winner_split: str
    dissenting_judges: list[str] = Field(default_factory=list)
    max_score_range: int = 0
    units_with_range_ge_3: int = 0
    rank_error: dict[str, int] = Field(default_factory=dict, exclude_if=_empty)
    low_point_wins: list[str] = Field(default_factory=list, exclude_if=_empty)


class Provenance(FrozenModel):
    """What produced the verdict. Deterministic: a cached rerun reproduces it byte for byte, so it
    holds no wall-clock times and no cache-hit flags (those go to stderr and benchmark records).

    ``model`` names the default model; ``models`` every model used (trackers and each judge);
    ``prompt_hashes`` template name -> content hash; token and cost sums cover every call that shaped
    the verdict (``cost_usd`` None when a price was unknown; ``reasoning_tokens`` the part of the
    completion tokens spent on reasoning; ``cached_tokens`` / ``cache_write_tokens`` the parts of the
    prompt tokens the provider read from / wrote to its prompt cache, billed at their own prices in
    ``cost_usd``; ``tokens_counted_locally`` the attempts whose reply had no usage, counted offline
    and priced undiscounted; the three left out of the JSON when 0). ``strict_json`` / ``recovered`` / ``parse_failures`` count
    attempts by how their output was read; ``repaired`` counts the nodes whose valid answer came from a
    repair turn (:mod:`adjudicator.model.repair`). ``judge_evidence``: what the LLM judges read
    beyond the tracker's ledger (``--judge-evidence``: ledger, quotes or transcript); None when no
    LLM judge wrote a ballot that could read it (offline judges, a pairwise panel, the single-call arm).
    ``track_window_chars``: the character budget of the LLM tracker's stage windows
    (``--track-window-chars``, :mod:`adjudicator.workflow.windows`); None, and left out of the JSON,
    when the tracker analysed one stage per request.
    ``p_source`` is ``"logprob"`` when the LLM judges were asked for token log-probabilities
    (``--p-source logprob``), and ``p_logprob_missing`` then counts the ballots from whose reply no
    log-prob p could be read (the server sent no log-probabilities, or tokens that do not spell the
    reply); both are left out of the JSON under the default (``stated``: the p each judge writes).
    ``offline_note``: when no model judged (``is_llm`` false), what the offline judge is and what
    winner accuracy to expect from it on unseen debates, in the match's language
    (:mod:`adjudicator.verdict.offline_note`); None, and left out of the JSON, otherwise.
    ``json_mode_fallback``: each response-format fallback of the run's clients, as its call record
    says it (:attr:`~adjudicator.records.CallRecord.json_mode_fallback`; issue 38); left out when none.
    ``feedback``: False when the run asked for no coach's feedback (``--no-feedback``); None, and left
    out of the JSON, when it asked (the default).
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
    reasoning_tokens: int = 0
    cached_tokens: int = Field(default=0, ge=0, exclude_if=lambda v: not v)
    cache_write_tokens: int = Field(default=0, ge=0, exclude_if=lambda v: not v)
    tokens_counted_locally: int = Field(default=0, ge=0, exclude_if=lambda v: not v)
    cost_usd: float | None = 0.0
    strict_json: int = 0
    recovered: int = 0
    repaired: int = 0
    parse_failures: int = 0
    judge_evidence: str | None = None
    track_window_chars: int | None = Field(default=None, ge=1, exclude_if=_none)
    p_source: str | None = Field(default=None, exclude_if=_none)
    p_logprob_missing: int | None = Field(default=None, ge=0, exclude_if=_none)
    offline_note: str | None = Field(default=None, exclude_if=_none)
    json_mode_fallback: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    feedback: bool | None = Field(default=None, exclude_if=_none)
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
    - ``p_logprob`` (``--p-source logprob`` only): the mean of the ballots' log-prob p (4 decimals),
      beside the stated ``p``; None when no ballot had one.
    - ``review``: whether a person should look at the verdict and why (:mod:`adjudicator.verdict.review`:
      a close call, a split panel, a failed judge or stage, a probe flip, and the quality gate's
      findings: an empty or thin clash map, empty, short or unanchored reasoning, identical ballots,
      equal stage scores, p against a ballot's own scores, most fields repaired, example choices);
      a partial verdict carries one too (it escalates). None only in files written before it existed.
    - ``feedback``: for each debater, what worked, the response they missed and one thing to work
      on, each tied to a stage and a clash (:mod:`adjudicator.verdict.feedback`), from the ballot of
      the judge ``feedback_from`` (the majority judge whose p is nearest the panel's); empty for the
      single-call arm (the CCDB protocol has no such task), BP and pairwise panels.
    - ``tasks``: per-task parse status (single-call arm; the agentic arm reports per-node status).
    - Ranking formats (BP): ``ranking`` one :class:`UnitResult` per unit in rank order and
      ``speaker_scores`` one :class:`SpeechResult` per speech in speaking order; ``winner`` and ``p``
      are None, ``stage_scores`` and ``best_debater_votes`` empty. Left out of the JSON when empty.
    - Dimensional rubrics (``--rubric debateart``, ``inspire``, a file): ``rubric`` its name,
      ``dimensions`` the panel's :class:`~adjudicator.verdict.dimensions.DimensionResult` per dimension and
      ``dimension_decision`` the winner those results give by the rubric's rule, beside the panel's
      direct ``winner``. Left out of the JSON under the ccdb rubric.
    - ``pairwise``: a pairwise panel's working (``--panel pairwise``: every comparison, the
      Bradley-Terry fits' inputs and outputs, agreement figures; :mod:`adjudicator.pairwise`); left
      out of the JSON for a scoring panel. Such a verdict has no 1-10 stage scores or speaker scores.
    - ``transcripts``: the stages whose text a machine made from a recording, one
      :class:`~adjudicator.verdict.transcripts.TranscriptMark` each (model, attribution, confidence,
      silences); left out of the JSON when every stage was typed.
    """

    match_id: str
    format: str
    motion: str
    arm: Arm = "agentic"
    winner: Side | None
    p: float | None = Field(default=None, ge=0.0, le=1.0)
    p_logprob: float | None = Field(default=None, ge=0.0, le=1.0, exclude_if=_none)
    ranking: list[UnitResult] = Field(default_factory=list, exclude_if=_empty)
    speaker_scores: list[SpeechResult] = Field(default_factory=list, exclude_if=_empty)
    rubric: str = Field(default="", exclude_if=_empty)
    dimensions: list[DimensionResult] = Field(default_factory=list, exclude_if=_empty)
    dimension_decision: DimensionDecision | None = Field(default=None, exclude_if=_empty)
    stage_scores: list[StageScore] = Field(default_factory=list)
    best_debater_votes: dict[str, int] = Field(default_factory=dict)
    best_debaters: list[str] = Field(default_factory=list)
    dissent: Dissent | None = None
    battlefields: list[Clash] = Field(default_factory=list)
    ballots: list[Ballot] = Field(default_factory=list)
    failures: list[NodeFailure] = Field(default_factory=list)
    tasks: list[TaskStatus] = Field(default_factory=list)
    pairwise: PairwiseRecord | None = Field(default=None, exclude_if=_empty)
    feedback: list[DebaterFeedback] = Field(default_factory=list, exclude_if=_empty)
    feedback_from: str = Field(default="", exclude_if=_empty)
    review: Review | None = None
    transcripts: list[TranscriptMark] = Field(default_factory=list, exclude_if=_empty)
    provenance: Provenance
    calls: list[CallRecord] = Field(default_factory=list, exclude=True)

    def decided(self) -> bool:
        """True when the verdict has its result: a winner tendency, or (ranking formats) a ranking."""
        return self.p is not None or bool(self.ranking)

    def outcome_text(self) -> str:
        """One phrase for logs: ``"winner negative (p=0.38)"`` or ``"ranking CO > OO > CG > OG"``."""
        if self.ranking:
            return "ranking " + " > ".join(r.unit for r in sorted(self.ranking, key=lambda r: r.rank))
        p = "n/a" if self.p is None else f"{self.p:.2f}"
        return f"winner {self.winner} (p={p})"
