"""Gold labels a match file may carry: what the real judges (or the audience) decided. Never part of a
model input (a model sees a :class:`~adjudicator.input.match.MatchView`, which has no labels).

- :class:`JudgeLabel`: one judge's adjudication (CCDB: three per match, paper 2.2.1): winner,
  integer 1-10 stage scores, best-debater votes;
- :class:`Labels`: the panel, an appeal panel, a match-level outcome (PanelBench: the audience vote),
  the official ranking and speaker scores of a ranking format (BP), per-dimension outcomes;
- :func:`check_labels`: the labels agree with their match (called by its validation);
  :func:`check_ranks` and :func:`check_no_low_point_wins`: the rules a ranking obeys (WUDC: no ties,
  no low-point wins), shared with the verdict's ballots.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Literal

from pydantic import Field, field_validator

from adjudicator.frozen import StrictModel
from adjudicator.input.formats import FormatSpec, Side


class JudgeLabel(StrictModel):
    """One judge's gold adjudication of a match (CCDB: three per match, paper 2.2.1).

    ``stage_scores`` maps ``"<stage_id>|<side>"`` to an integer 1-10; ``best_debater_votes`` maps
    position labels to non-negative integers (each judge has 3 votes in CCDB).
    """

    judge_id: str
    winner: Side | None = None
    stage_scores: dict[str, int] = Field(default_factory=dict)
    best_debater_votes: dict[str, int] = Field(default_factory=dict)

    @field_validator("stage_scores")
    @classmethod
    def _scores_in_range(cls, v: dict[str, int]) -> dict[str, int]:
        for key, score in v.items():
            if "|" not in key:
                raise ValueError(f"{key!r} must look like '<stage_id>|affirmative' or '<stage_id>|negative'")
            if not 1 <= score <= 10:
                raise ValueError(f"{key}: score {score} is outside 1-10")
        return v

    @field_validator("best_debater_votes")
    @classmethod
    def _votes_non_negative(cls, v: dict[str, int]) -> dict[str, int]:
        for key, n in v.items():
            if n < 0:
                raise ValueError(f"{key}: a vote count cannot be negative")
        return v


#: Longest rationale text (characters), as long as a match's ``info``.
MAX_RATIONALE_CHARS = 20_000


class Labels(StrictModel):
    """Gold data for benchmarks. Never part of a model input.

    ``judges`` are the original panel; ``appeal_judges`` a replacement panel after an appeal, kept
    apart (paper 2.2.1). ``outcome`` is a match-level outcome where per-judge votes are unknown
    (PanelBench: the audience-vote result, with ``"tie"`` for a draw); ``vote_count`` its voter count.

    Ranking formats (BP) may carry the official adjudication instead: ``ranking`` unit -> rank 1..n
    (no ties), ``speaker_scores`` stage id -> the speech's score on the format's scale (WUDC 50-100),
    ``speaker_ranks`` stage id -> rank 1..(speeches) without ties, and ``advanced`` the units that
    went through to the next round (PanelBench BP: two in quarter- and semi-finals, the winner of a
    final). Each must agree with the others where both are given (no low-point wins).

    ``dimensions`` maps a rubric dimension's gold name to the audience's outcome on it (two-sided
    formats; PanelBench DebateArt: argument, source, language from ``gold/dimension.csv``, ``"tie"``
    where the voters split evenly or gave no points); bench scores per-dimension winners against it.
    ``dimension_scores`` gold name -> side -> a human score on that dimension (InspireScore-style
    annotations, e.g. the mean of three raters), for Pearson and Spearman correlations in bench.

    ``rationales`` the judges' written reasons, gold like the rest (they hold the scores and votes
    they justify): ``"winner"`` (Task 1), ``"best_debater"`` (Task 3) or a scored unit
    ``"<stage_id>|<side>"`` (Task 2) -> text, at most :data:`MAX_RATIONALE_CHARS` characters. Only
    ``adjudicate finetune export`` reads them, as the ``basis`` of training targets after removing
    every gold number (:mod:`adjudicator.finetune.rationales`).
    """

    judges: list[JudgeLabel] = Field(default_factory=list)
    appeal_judges: list[JudgeLabel] = Field(default_factory=list)
    outcome: Side | Literal["tie"] | None = None
    vote_count: int | None = Field(default=None, ge=0)
    note: str | None = None
    ranking: dict[str, int] = Field(default_factory=dict)
    speaker_scores: dict[str, float] = Field(default_factory=dict)
    speaker_ranks: dict[str, int] = Field(default_factory=dict)
    advanced: list[str] = Field(default_factory=list)
    dimensions: dict[str, Side | Literal["tie"]] = Field(default_factory=dict)
    dimension_scores: dict[str, dict[Side, float]] = Field(default_factory=dict)
    rationales: dict[str, Annotated[str, Field(max_length=MAX_RATIONALE_CHARS)]] = Field(default_factory=dict)

    def gold_winner(self) -> Side | Literal["tie"] | None:
        """The gold winner: majority of the original judges' votes when they exist, else ``outcome``."""
        votes = [j.winner for j in self.judges if j.winner]
        if votes:
            aff = votes.count("affirmative")
            neg = votes.count("negative")
            return "affirmative" if aff > neg else "negative" if neg > aff else "tie"
        return self.outcome


def check_labels(labels: Labels, fmt: str, spec: FormatSpec, scored_units: Iterable[tuple[str, Side]], speeches: Sequence[tuple[str, str, str]], known: set[str]) -> None:
    """The gold labels of a match of format ``fmt`` agree with it: each judge's stage scores key a
    scored (stage, side) of ``scored_units``, votes name a debater of ``known`` (a CCDB judge gives
    exactly 3), judge ids are unique, and the ranking labels hold (:func:`check_ranking_labels`;
    ``speeches`` as :meth:`~adjudicator.input.match.MatchView.speeches`). Raises ValueError naming the field."""
    check_ranking_labels(labels, fmt, spec, speeches)
    units = {f"{sid}|{side}" for sid, side in scored_units}
    for group_name in ("judges", "appeal_judges"):
        group = getattr(labels, group_name)
        jids = [j.judge_id for j in group]
        if len(set(jids)) != len(jids):
            raise ValueError(f"labels.{group_name}: a judge_id is used twice; judge ids must be unique")
        for k, j in enumerate(group):
            for key in j.stage_scores:
                if key not in units:
                    raise ValueError(f"labels.{group_name}.{k}.stage_scores: {key!r} is not a scored (stage, side) of this match")
            for key in j.best_debater_votes:
                if key not in known:
                    raise ValueError(f"labels.{group_name}.{k}.best_debater_votes: {key!r} is not a debater of this match")
            total = sum(j.best_debater_votes.values())
            if fmt.startswith("ccdb-") and j.best_debater_votes and total != 3:
                raise ValueError(f"labels.{group_name}.{k}.best_debater_votes: a CCDB judge gives exactly 3 votes, got {total}")
    for key in labels.rationales:
        if key not in units and key not in ("winner", "best_debater"):
            raise ValueError(f"labels.rationales: {key!r} is not 'winner', 'best_debater' or a scored (stage, side) of this match like 's01|affirmative'")


def check_ranking_labels(labels: Labels, fmt: str, spec: FormatSpec, speeches: Sequence[tuple[str, str, str]]) -> None:
    """Gold ranking, speaker scores, speaker ranks and advancing units (ranking formats only):
    complete, without ties, on the format's scale, and consistent (no low-point wins)."""
    given = [f for f in ("ranking", "speaker_scores", "speaker_ranks", "advanced") if getattr(labels, f)]
    if spec.verdict != "ranking":
        if given:
            raise ValueError(f"labels.{given[0]}: {fmt} has a winner, not a ranking; give outcome or judges instead")
        return
    units = spec.unit_ids()
    if labels.ranking:
        check_ranks("labels.ranking", labels.ranking, units, "team")
    speech_ids = [sid for sid, _, _ in speeches]
    if labels.speaker_scores:
        lo, hi = spec.speaker_scale or (0, 0)
        for sid, score in labels.speaker_scores.items():
            if sid not in speech_ids:
                raise ValueError(f"labels.speaker_scores: {sid!r} is not a speech of this match; key scores by stage_id")
            if not lo <= score <= hi:
                raise ValueError(f"labels.speaker_scores.{sid}: {score:g} is outside {lo}-{hi}")
    if labels.speaker_ranks:
        check_ranks("labels.speaker_ranks", labels.speaker_ranks, speech_ids, "speech")
    if labels.ranking and len(labels.speaker_scores) == len(speech_ids) and speech_ids:
        totals = {u: 0.0 for u in units}
        for sid, unit, _ in speeches:
            totals[unit] += labels.speaker_scores[sid]
        check_no_low_point_wins("labels.ranking", labels.ranking, totals)
    if len(set(labels.advanced)) != len(labels.advanced):
        raise ValueError("labels.advanced: a team is listed twice")
    for u in labels.advanced:
        if u not in units:
            raise ValueError(f"labels.advanced: {u!r} is not a team of {fmt}; use one of {', '.join(units)}")
    if labels.advanced and len(labels.advanced) >= len(units):
        raise ValueError(f"labels.advanced: {len(labels.advanced)} of {len(units)} teams cannot all advance")
    if labels.ranking and labels.advanced:
        top = {u for u, r in labels.ranking.items() if r <= len(labels.advanced)}
        if top != set(labels.advanced):
            raise ValueError("labels.advanced: the advancing teams must be the top of labels.ranking")


def check_ranks(field: str, ranks: dict[str, int], keys: list[str], what: str) -> None:
    """``ranks`` ranks exactly ``keys`` 1..len(keys) without ties. Raises ValueError naming ``field``
    (a duplicate rank, a missing or unknown key, a rank out of range)."""
    for k in ranks:
        if k not in keys:
            raise ValueError(f"{field}: {k!r} is not a {what} of this match; use {', '.join(keys)}")
    missing = [k for k in keys if k not in ranks]
    if missing:
        raise ValueError(f"{field}: {missing[0]} has no rank; rank every {what} ({', '.join(keys)})")
    values = list(ranks.values())
    for k, r in ranks.items():
        if not 1 <= r <= len(keys):
            raise ValueError(f"{field}.{k}: rank {r} is outside 1-{len(keys)}")
    if len(set(values)) != len(values):
        dup = next(r for r in values if values.count(r) > 1)
        tied = [k for k, r in ranks.items() if r == dup]
        raise ValueError(f"{field}: rank {dup} is given to {' and '.join(tied)}; ranks are 1-{len(keys)} without ties")


def check_no_low_point_wins(field: str, ranks: dict[str, int], totals: dict[str, float]) -> None:
    """Every unit ranked above another has strictly more speaker points (WUDC: no low-point wins,
    and equal totals cannot separate two teams). Raises ValueError naming ``field``."""
    order = sorted(ranks, key=lambda u: ranks[u])
    for better, worse in zip(order, order[1:]):
        if totals[better] <= totals[worse]:
            raise ValueError(
                f"{field}: {better} (rank {ranks[better]}, {totals[better]:g} speaker points) must have more points than "
                f"{worse} (rank {ranks[worse]}, {totals[worse]:g}); no low-point wins"
            )
