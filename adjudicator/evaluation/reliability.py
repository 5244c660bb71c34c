"""Label reliability from the gold labels alone (CCDB paper 2.5 and Appendix B.1; protocol 001 s.02).

Everything here reads the three original judges' labels only (appeal panels are ignored), never a
model output. The functions take plain arrays:

* winner votes: per match, a sequence of the judges' votes ``"affirmative" | "negative"``;
* stage scores: a table of shape (S, k), one row per scored (stage, side), one column per judge
  (k = 3 in CCDB); rows with a missing score (NaN) are dropped;
* best-debater votes: per match, an array of shape (J, K) of each judge's votes per debater.

:func:`adjudicator.evaluation.reliability_report.reliability_from_matches` reads
:class:`adjudicator.input.match.Match` objects into these arrays and returns the JSON-ready report, in
which a statistic the dataset cannot support is ``None`` with a reason, never 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.errors import InputError
from adjudicator.evaluation.metrics import (
    MetricResult,
    best_debater_top1,
    stage_mse,
    stage_pearson,
    stage_spearman,
    top_set,
    vote_share_mae,
)
from adjudicator.frozen import FrozenModel
from adjudicator.input.rubric import band

_SIDES = ("affirmative", "negative")


def _result(value: float, n: int, n_excluded: int = 0) -> MetricResult:
    return MetricResult(value=float(value), n=int(n), n_excluded=int(n_excluded))


# ---------------------------------------------------------------------------------------------
# winner votes


class WinnerAgreement(FrozenModel):
    """Agreement of the judges' winner votes (paper 2.5, "Winner labels").

    ``pairwise``: share of agreeing judge pairs, pooled over all pairs of all matches (n = pairs).
    ``unanimous`` / ``split``: share of matches whose votes are all equal / not (n = matches).
    ``equal_ability_judge_accuracy`` and ``equal_ability_panel_accuracy``: the paper's illustration
    under a model where every judge is independently right with the same probability q, so the
    pairwise agreement is a = q^2 + (1-q)^2, giving q = (1 + sqrt(2a - 1)) / 2, and a 3-judge majority
    is right with q^3 + 3 q^2 (1 - q). NaN when a < 0.5 or when the panels are not all 3 judges.
    """

    pairwise: MetricResult
    unanimous: MetricResult
    split: MetricResult
    equal_ability_judge_accuracy: float
    equal_ability_panel_accuracy: float


def _check_votes(votes: Sequence[Sequence[Any]]) -> list[list[str]]:
    out = []
    for m, vs in enumerate(votes):
        row = list(vs)
        for j, v in enumerate(row):
            if v not in _SIDES:
                raise InputError(f"votes[{m}][{j}]: {v!r} is not a winner vote; use 'affirmative' or 'negative'")
        out.append(row)
    return out


def winner_vote_agreement(votes: Sequence[Sequence[str]]) -> WinnerAgreement:
    """Pairwise judge agreement and unanimous/split shares of winner votes (paper 2.5).

    ``votes``: per match, the judges' votes (``"affirmative"``/``"negative"``). Matches with fewer
    than two votes are excluded. Example: 82 unanimous and 66 split 3-judge panels give
    (82*3 + 66*1) / (148*3) = 0.703 pairwise, judge accuracy 0.819 and panel accuracy 0.913.
    Raises InputError for an unknown vote.
    """
    rows = _check_votes(votes)
    used = [r for r in rows if len(r) >= 2]
    agree_pairs = total_pairs = unanimous = 0
    for r in used:
        a = r.count("affirmative")
        b = len(r) - a
        agree_pairs += a * (a - 1) // 2 + b * (b - 1) // 2
        total_pairs += len(r) * (len(r) - 1) // 2
        unanimous += int(a == 0 or b == 0)
    n = len(used)
    excl = len(rows) - n
    pair_rate = agree_pairs / total_pairs if total_pairs else math.nan
    q = p3 = math.nan
    if n and all(len(r) == 3 for r in used) and pair_rate >= 0.5:
        q = (1.0 + math.sqrt(2.0 * pair_rate - 1.0)) / 2.0
        p3 = q**3 + 3.0 * q**2 * (1.0 - q)
    return WinnerAgreement(
        pairwise=_result(pair_rate, total_pairs, 0),
        unanimous=_result(unanimous / n if n else math.nan, n, excl),
        split=_result((n - unanimous) / n if n else math.nan, n, excl),
        equal_ability_judge_accuracy=q,
        equal_ability_panel_accuracy=p3,
    )


def _majority(votes: Sequence[str]) -> str | None:
    a = sum(v == "affirmative" for v in votes)
    b = len(votes) - a
    return "affirmative" if a > b else "negative" if b > a else None


class HumanReference(FrozenModel):
    """An individual-judge reference (Appendix B.1): the self-included and leave-one-out settings."""

    self_included: MetricResult
    leave_one_out: MetricResult


def human_winner_references(votes: Sequence[Sequence[str]]) -> HumanReference:
    """Winner accuracy of individual judges (Appendix B.1), one instance per (match, judge).

    Self-included: the judge's vote against the majority of all the match's judges (the judge is part
    of it). Leave-one-out: against the majority of the *other* judges; when they split evenly (1:1 of
    two) no label exists and the instance is excluded. Matches with fewer than 2 votes (self-included)
    or 3 votes (leave-one-out) are excluded, as are instances whose majority is a tie.
    Example: 82 unanimous and 66 split panels give self 378/444 = 0.851, leave-one-out 246/312 = 0.788.
    """
    rows = _check_votes(votes)
    self_hits = self_n = loo_hits = loo_n = instances = 0
    for r in rows:
        instances += len(r)
        maj = _majority(r) if len(r) >= 2 else None
        for j, v in enumerate(r):
            if maj is not None:
                self_n += 1
                self_hits += int(v == maj)
            others = r[:j] + r[j + 1 :]
            om = _majority(others) if len(others) >= 2 else None
            if om is not None:
                loo_n += 1
                loo_hits += int(v == om)
    return HumanReference(
        self_included=_result(self_hits / self_n if self_n else math.nan, self_n, instances - self_n),
        leave_one_out=_result(loo_hits / loo_n if loo_n else math.nan, loo_n, instances - loo_n),
    )


# ---------------------------------------------------------------------------------------------
# stage scores


def _table(scores: Any, name: str = "scores") -> tuple[np.ndarray, int]:
    """A complete (S, k) float table (rows with NaN dropped) and the number of dropped rows."""
    try:
        x = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a table of numbers, one row per scored stage, one column per judge") from None
    if x.size == 0:
        return np.empty((0, 0)), 0
    if x.ndim != 2:
        raise InputError(f"{name}: expected a 2-D table (stages x judges), got shape {x.shape}")
    ok = np.all(np.isfinite(x), axis=1)
    return x[ok], int((~ok).sum())


def icc_1k(scores: Any) -> MetricResult:
    """ICC(1,k): one-way random-effects reliability of the mean of k raters (paper 2.5, ICC(1,3)).

    ``scores`` (S, k): S targets (scored stages, or paired-stage differences) by k judges. With row
    means m_i and grand mean G::

        MSB = k * sum_i (m_i - G)^2 / (S - 1)                  between-target mean square
        MSW = sum_i sum_j (x_ij - m_i)^2 / (S * (k - 1))       within-target mean square
        ICC(1,k) = (MSB - MSW) / MSB

    Judges are not crossed with targets (most CCDB judges score two or three matches), hence the
    one-way model. Rows with a NaN are dropped (``n_excluded``). NaN when S < 2, k < 2 or MSB == 0.
    The value can be negative when judges disagree more within a stage than stages differ.
    """
    x, dropped = _table(scores)
    if x.shape[0] < 2 or x.shape[1] < 2:
        return _result(math.nan, x.shape[0], dropped)
    s, k = x.shape
    m = x.mean(axis=1)
    msb = k * float(np.sum((m - x.mean()) ** 2)) / (s - 1)
    msw = float(np.sum((x - m[:, None]) ** 2)) / (s * (k - 1))
    return _result((msb - msw) / msb if msb > 0 else math.nan, s, dropped)


def paired_differences(affirmative: Any, negative: Any) -> np.ndarray:
    """Per-judge tendencies of paired stages: ``affirmative - negative`` elementwise, shape (P, k),
    row p = one stage scored for both sides, column j = the same judge on both sides (paper 2.5).
    Feed the result to :func:`icc_1k` for the ICC(1,3) of judge tendencies."""
    a = np.asarray(affirmative, dtype=float)
    b = np.asarray(negative, dtype=float)
    if a.shape != b.shape:
        raise InputError(f"affirmative has shape {a.shape} but negative has {b.shape}; align paired stages and judges")
    return a - b


class BandAgreement(FrozenModel):
    """How many of the three judges put a stage score in the same rubric band (paper 2.5).

    Bands: 1-3, 4-5, 6-8, 9-10 (:func:`adjudicator.input.rubric.band`). The three shares sum to 1 over n.
    """

    all_same: MetricResult
    two_same: MetricResult
    all_different: MetricResult


def score_band_agreement(scores: Any) -> BandAgreement:
    """Score-band agreement of 3-judge panels: share of scored stages where all three judges' scores
    fall in one band, exactly two do, or all three differ (paper 2.5: 52.8 / 44.3 / 2.8 %).

    ``scores`` (S, 3) integers 1-10; rows with a NaN dropped. Raises InputError when k != 3 or a
    score is not an integer in 1-10. NaN shares when S == 0.
    """
    x, dropped = _table(scores)
    if x.size and x.shape[1] != 3:
        raise InputError(f"scores: band agreement is defined for 3 judges, got {x.shape[1]} columns")
    if x.size and (np.any(x != np.round(x)) or x.min() < 1 or x.max() > 10):
        raise InputError("scores: band agreement needs integer judge scores 1-10")
    counts = {1: 0, 2: 0, 3: 0}  # number of distinct bands in a row
    for row in x:
        counts[len({band(int(v)) for v in row})] += 1
    s = x.shape[0]

    def share(c: int) -> MetricResult:
        return _result(c / s if s else math.nan, s, dropped)

    return BandAgreement(all_same=share(counts[1]), two_same=share(counts[2]), all_different=share(counts[3]))


def judge_score_mse(scores: Any, *, kind: str = "stage_mean") -> MetricResult:
    """Score MSE among the judges (paper 2.5: 0.759).

    ``kind="stage_mean"`` (default, the paper's number): mean over every (stage, judge) of the squared
    deviation of the judge's score from that stage's k-judge mean, ``mean_ij (x_ij - m_i)^2``. It is
    identical to the self-included human Task 2 MSE (Table 7 lists .759 there too), and the
    leave-one-out MSE (1.709) is (k/(k-1))^2 = 9/4 times it for k = 3, which this reading reproduces.
    ``kind="pairwise"``: mean over stages and judge pairs of ``(x_ia - x_ib)^2`` (3x the default for
    k = 3), for readers who expect that definition. ``scores`` (S, k); NaN rows dropped; NaN when S == 0.
    """
    x, dropped = _table(scores)
    if x.shape[0] == 0 or x.shape[1] < 2:
        return _result(math.nan, x.shape[0], dropped)
    if kind == "stage_mean":
        v = float(np.mean((x - x.mean(axis=1, keepdims=True)) ** 2))
    elif kind == "pairwise":
        k = x.shape[1]
        diffs = [(x[:, a] - x[:, b]) ** 2 for a in range(k) for b in range(a + 1, k)]
        v = float(np.mean(np.concatenate(diffs)))
    else:
        raise InputError(f"kind: {kind!r} is not a judge-MSE definition; use 'stage_mean' or 'pairwise'")
    return _result(v, x.shape[0], dropped)


class StageReference(FrozenModel):
    """Task 2 metrics of individual judges in one reference setting (Appendix B.1)."""

    mse: MetricResult
    pearson: MetricResult
    spearman: MetricResult


class HumanStageReferences(FrozenModel):
    """Individual judges' Task 2 agreement: self-included and leave-one-out (Appendix B.1)."""

    self_included: StageReference
    leave_one_out: StageReference


def human_stage_references(scores: Any) -> HumanStageReferences:
    """Individual judges scored as predictors of the panel (Appendix B.1; paper .759/.716/.682 self,
    1.709/.337/.296 leave-one-out).

    ``scores`` (S, k). Instances are pooled over every (stage, judge) pair, S*k points: the judge's
    score x_ij is the prediction; the target is the k-judge mean m_i (self-included) or the mean of
    the other k-1 judges (leave-one-out). MSE, Pearson and Spearman are the Task 2 functions of
    :mod:`adjudicator.evaluation.metrics` on those points, so ``n`` counts (stage, judge) instances.
    """
    x, dropped = _table(scores)
    if x.shape[0] == 0 or x.shape[1] < 2:
        empty = _result(math.nan, 0, dropped)
        none = StageReference(mse=empty, pearson=empty, spearman=empty)
        return HumanStageReferences(self_included=none, leave_one_out=none)
    k = x.shape[1]
    pred = x.T.ravel()  # judge-major: all stages of judge 1, then judge 2, ...
    self_target = np.tile(x.mean(axis=1), k)
    loo_target = ((x.sum(axis=1, keepdims=True) - x) / (k - 1)).T.ravel()

    def ref(target: np.ndarray) -> StageReference:
        return StageReference(mse=stage_mse(pred, target), pearson=stage_pearson(pred, target), spearman=stage_spearman(pred, target))

    return HumanStageReferences(self_included=ref(self_target), leave_one_out=ref(loo_target))


# ---------------------------------------------------------------------------------------------
# best-debater votes


def _vote_tables(judge_votes: Sequence[Any]) -> tuple[list[np.ndarray], int]:
    """Complete (J, K) vote tables: every judge cast at least one vote. Returns tables and #dropped."""
    out, dropped = [], 0
    for m, t in enumerate(judge_votes):
        try:
            x = np.asarray(t, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"judge_votes[{m}]: expected a judges x debaters table of vote counts") from None
        if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
            raise InputError(f"judge_votes[{m}]: expected a 2-D table (judges x debaters), got shape {x.shape}")
        if not np.all(np.isfinite(x)) or np.any(x.sum(axis=1) <= 0):
            dropped += 1
            continue
        if x.min() < 0:
            raise InputError(f"judge_votes[{m}]: vote counts must be non-negative")
        out.append(x)
    return out, dropped


class BestDebaterConsensus(FrozenModel):
    """Share of matches where every judge voted for the eventual best debater (paper 2.5: 87.8 %).

    ``n_tied_top``: matches whose summed votes have a tied maximum (see the rule in
    :func:`best_debater_consensus`).
    """

    share: MetricResult
    n_tied_top: int


def best_debater_consensus(judge_votes: Sequence[Any]) -> BestDebaterConsensus:
    """Share of matches in which every judge gave at least one vote to the eventual best debater.

    ``judge_votes``: per match a (J, K) table. The eventual best debater is the argmax of the summed
    votes. Tie rule: when several debaters tie for the most summed votes, the match counts if at
    least one of them received a vote from every judge (``n_tied_top`` reports how often a tie
    occurred). Matches where some judge cast no vote are excluded. NaN when no match remains.
    """
    tables, dropped = _vote_tables(judge_votes)
    hits = tied = 0
    for x in tables:
        top = top_set(x.sum(axis=0))
        tied += int(top.size > 1)
        hits += int(np.any(np.all(x[:, top] > 0, axis=0)))
    n = len(tables)
    return BestDebaterConsensus(share=_result(hits / n if n else math.nan, n, dropped), n_tied_top=tied)


class VoteReference(FrozenModel):
    """Individual judges' Task 3 agreement in one setting (Appendix B.1)."""

    top1: MetricResult
    vote_share_mae: MetricResult


class HumanVoteReferences(FrozenModel):
    """Self-included and leave-one-out Task 3 references (Appendix B.1; paper top-1 .698/.576,
    MAE .079/.121)."""

    self_included: VoteReference
    leave_one_out: VoteReference


def human_vote_references(judge_votes: Sequence[Any]) -> HumanVoteReferences:
    """Each judge's ballot (their votes, 3 in CCDB) as a prediction of the panel (Appendix B.1).

    One instance per (match, judge). Target: the summed votes of all judges (self-included, 9 in
    CCDB) or of the other judges (leave-one-out, 6). Top-1 uses :func:`adjudicator.evaluation.metrics.top1_credit`
    (a judge who splits 1-1-1 has a tied maximum and earns the share of those debaters in the top
    set); MAE uses vote shares normalised by each ballot's own total. Matches where some judge cast
    no vote are excluded; leave-one-out needs at least 2 judges.
    """
    tables, _ = _vote_tables(judge_votes)
    pred, self_gold, loo_gold = [], [], []
    for x in tables:
        total = x.sum(axis=0)
        for j in range(x.shape[0]):
            pred.append(x[j])
            self_gold.append(total)
            loo_gold.append(total - x[j] if x.shape[0] >= 2 else None)
    return HumanVoteReferences(
        self_included=VoteReference(top1=best_debater_top1(pred, self_gold), vote_share_mae=vote_share_mae(pred, self_gold)),
        leave_one_out=VoteReference(top1=best_debater_top1(pred, loo_gold), vote_share_mae=vote_share_mae(pred, loo_gold)),
    )


__all__ = [
    "BandAgreement",
    "BestDebaterConsensus",
    "HumanReference",
    "HumanStageReferences",
    "HumanVoteReferences",
    "StageReference",
    "VoteReference",
    "WinnerAgreement",
    "best_debater_consensus",
    "human_stage_references",
    "human_vote_references",
    "human_winner_references",
    "icc_1k",
    "judge_score_mse",
    "paired_differences",
    "score_band_agreement",
    "winner_vote_agreement",
]
