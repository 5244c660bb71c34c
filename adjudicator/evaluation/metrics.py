"""CCDB benchmark metrics: pure numpy functions of predictions and gold references.

Sources: CCDB paper (seed 000) section 2.3 (task definitions and formulas), Appendix A.5 (parsing
exclusion, paired predictions) and protocol seed 001 section 01.

Conventions shared by every function here:

* Every metric returns a :class:`MetricResult` ``(value, n, n_excluded)``: ``n`` is the effective
  sample size the value was computed on, ``n_excluded`` how many input items were dropped (and why is
  stated in the function's docstring). ``value`` is ``NaN`` when the metric is undefined (no items,
  n < 2 for a correlation, or zero variance); it is never silently 0.
* A missing prediction (a parsing failure) is passed as ``NaN`` (numeric inputs) or ``None``
  (vote vectors, winners) and is excluded: "a pair is included only when all required predictions
  are available" (A.5). Gold values that are missing are excluded the same way.
* Inputs are aligned by position: item ``i`` of the prediction belongs to item ``i`` of the gold.
  Shape mismatches and out-of-range values raise :class:`adjudicator.errors.InputError`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
from pydantic import Field

from adjudicator.errors import InputError
from adjudicator.evaluation.inputs import GoldWinner, Numbers, check_p, gold_winners, same_length, vector
from adjudicator.frozen import FrozenModel

#: Two tendencies (affirmative minus negative) closer than this are a tie. Means of three integer
#: scores differ by at least 1/3 when they differ, so this only absorbs floating-point noise.
TIE_TOLERANCE = 1e-9


class MetricResult(FrozenModel):
    """A metric value with its effective sample size.

    ``value``: the metric (``NaN`` when undefined). ``n``: items the value was computed on.
    ``n_excluded``: input items dropped (missing prediction, missing or not-applicable gold).
    """

    value: float
    n: int = Field(ge=0)
    n_excluded: int = Field(default=0, ge=0)

    @property
    def defined(self) -> bool:
        """True when ``value`` is a finite number."""
        return math.isfinite(self.value)

    def as_dict(self) -> dict[str, Any]:
        """``{"value", "n", "n_excluded"}`` with an undefined value as ``None`` (JSON has no NaN)."""
        return {"value": self.value if self.defined else None, "n": self.n, "n_excluded": self.n_excluded}


class TendencyAgreement(FrozenModel):
    """Stage-tendency agreement over all paired stages and over pairs with a non-tie human tendency."""

    all_pairs: MetricResult
    non_tie: MetricResult


# ---------------------------------------------------------------------------------------------
# shared helpers


def _result(value: float, n: int, total: int) -> MetricResult:
    return MetricResult(value=float(value), n=int(n), n_excluded=int(total - n))


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r of two equal-length finite vectors; NaN when n < 2 or either is constant."""
    if x.size < 2:
        return math.nan
    xc = x - x.mean()
    yc = y - y.mean()
    sxx = float(np.dot(xc, xc))
    syy = float(np.dot(yc, yc))
    if np.ptp(x) == 0 or np.ptp(y) == 0 or sxx == 0 or syy == 0:
        return math.nan
    return float(np.clip(np.dot(xc, yc) / math.sqrt(sxx * syy), -1.0, 1.0))


def average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of ``x`` (N,) finite, ties sharing the mean of the ranks they span: a tie group
    of ``c`` values after ``a`` smaller ones ranks ``a + (c + 1) / 2`` (``scipy.stats.rankdata``'s
    ``method="average"``, value for value: the ranks are multiples of 1/2, so exact). (N,) float64."""
    _, codes, counts = np.unique(x, return_inverse=True, return_counts=True)
    rank_of = np.cumsum(counts) - (counts - 1) / 2.0
    return rank_of[codes.reshape(-1)]


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rho: Pearson r of average ranks (ties share the mean of their ranks)."""
    if x.size < 2:
        return math.nan
    return _pearson(average_ranks(x), average_ranks(y))


# ---------------------------------------------------------------------------------------------
# Task 1: winner tendency


def winner_from_p(p: float | None) -> Literal["affirmative", "negative"] | None:
    """The side a winner tendency predicts: ``p > 0.5`` affirmative, ``p < 0.5`` negative, and
    ``None`` for exactly 0.5 (no side) or a missing ``p`` (paper 2.3, Task 1)."""
    if p is None or not math.isfinite(p):
        return None
    if p > 0.5:
        return "affirmative"
    if p < 0.5:
        return "negative"
    return None


def winner_correct(pred_p: Numbers, gold_winner: Sequence[GoldWinner]) -> np.ndarray:
    """Per-match correctness of a winner tendency: 1.0 correct, 0.0 incorrect, NaN not applicable.

    Shapes: ``pred_p`` (M,) floats in [0, 1], NaN/None = missing prediction; ``gold_winner`` (M,) of
    ``"affirmative" | "negative" | "tie" | None``. An exact ``p == 0.5`` is *incorrect* (judges may
    not tie; paper 2.3 and A.5). NaN where the prediction is missing or the gold is ``"tie"``/None
    (a tie has no binary winner to predict, e.g. a drawn PanelBench audience vote).
    """
    p = vector(pred_p, "pred_p")
    gold = gold_winners(gold_winner)
    same_length(("pred_p", p), ("gold_winner", gold))
    check_p(p)
    out = np.full(p.shape, np.nan)
    for i, (pi, g) in enumerate(zip(p, gold)):
        if g in ("affirmative", "negative") and math.isfinite(pi):
            out[i] = 1.0 if winner_from_p(pi) == g else 0.0
    return out


def winner_accuracy(pred_p: Numbers, gold_winner: Sequence[GoldWinner]) -> MetricResult:
    """Task 1 winner accuracy (paper 2.3; protocol 001 Task 1).

    ``accuracy = #{i : side(p_i) == gold_i} / n`` over the n matches with a prediction and a decisive
    gold winner. ``side(p)`` is affirmative for p > 0.5, negative for p < 0.5; p == 0.5 counts as
    incorrect (it stays in n). Excluded (``n_excluded``): missing predictions (NaN/None) and gold
    ``"tie"``/None, which are not applicable. NaN when n == 0.
    Shapes: (M,) and (M,). Raises InputError on misaligned inputs, p outside [0, 1], unknown gold.
    """
    c = winner_correct(pred_p, gold_winner)
    ok = np.isfinite(c)
    n = int(ok.sum())
    return _result(c[ok].mean() if n else math.nan, n, c.size)


# ---------------------------------------------------------------------------------------------
# Task 2: stage scores


def _stage_pairs(pred: Numbers, gold_mean: Numbers) -> tuple[np.ndarray, np.ndarray, int]:
    x = vector(pred, "pred")
    y = vector(gold_mean, "gold_mean")
    total = same_length(("pred", x), ("gold_mean", y))
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok], total


def stage_mse(pred: Numbers, gold_mean: Numbers) -> MetricResult:
    """Task 2 mean squared error against the 3-judge mean (paper 2.3): ``mean_s (yhat_s - y_s)^2``.

    Shapes: (S,) and (S,), one entry per scored (stage, side); ``y_s = (r_s1 + r_s2 + r_s3) / 3``.
    Pairs with a NaN on either side are excluded. NaN when no pair remains.
    """
    x, y, total = _stage_pairs(pred, gold_mean)
    return _result(np.mean((x - y) ** 2) if x.size else math.nan, x.size, total)


def stage_pearson(pred: Numbers, gold_mean: Numbers) -> MetricResult:
    """Task 2 Pearson r between predicted scores and the 3-judge mean (paper 2.3).

    ``r = sum (x - xbar)(y - ybar) / sqrt(sum (x - xbar)^2 * sum (y - ybar)^2)``. Shapes (S,), (S,);
    NaN pairs excluded. NaN when n < 2 or either side has zero variance (e.g. a constant predictor).
    """
    x, y, total = _stage_pairs(pred, gold_mean)
    return _result(_pearson(x, y), x.size, total)


def stage_spearman(pred: Numbers, gold_mean: Numbers) -> MetricResult:
    """Task 2 Spearman rho (paper 2.3): Pearson r of the average ranks (tied values share the mean of
    the ranks they span, as ``scipy.stats.rankdata(method="average")``). Shapes (S,), (S,); NaN pairs
    excluded; NaN when n < 2 or either side's ranks are constant."""
    x, y, total = _stage_pairs(pred, gold_mean)
    return _result(_spearman(x, y), x.size, total)


def tendency_sign(affirmative: Numbers, negative: Numbers) -> np.ndarray:
    """Sign of ``affirmative - negative`` per paired stage: +1 affirmative ahead, -1 negative ahead,
    0 tie (|difference| <= TIE_TOLERANCE), NaN when either value is missing. Shapes (P,), (P,)."""
    a = vector(affirmative, "affirmative")
    b = vector(negative, "negative")
    same_length(("affirmative", a), ("negative", b))
    d = a - b
    out = np.where(np.abs(d) <= TIE_TOLERANCE, 0.0, np.sign(d))
    out[~np.isfinite(d)] = np.nan
    return out


def tendency_agreement(
    pred_aff: Numbers,
    pred_neg: Numbers,
    human_aff_mean: Numbers,
    human_neg_mean: Numbers,
) -> TendencyAgreement:
    """Task 2 stage-tendency agreement (paper 2.3 "tendency accuracy"; A.5; protocol 001 Task 2).

    Inputs are aligned per *paired stage*, i.e. a stage scored for both sides (asymmetric and
    alternating stages): shapes (P,) each. The model's tendency is ``sign(pred_aff - pred_neg)``, the
    judges' tendency ``sign(human_aff_mean - human_neg_mean)`` from the 3-judge means; each is +1, 0
    (tie) or -1.

    Rule: a pair agrees when the two signs are equal, ties included (a model tie on a judges' tie
    agrees; a model tie on a decisive human tendency disagrees). ``all_pairs`` is the agreement rate
    over every pair with all four values present; ``non_tie`` the rate over those pairs whose human
    tendency is not a tie (a model tie there counts as a disagreement). Pairs missing any value are
    excluded from both (``n_excluded``); ``non_tie.n_excluded`` also counts the human-tie pairs.
    NaN when the relevant set is empty.
    """
    m = tendency_sign(pred_aff, pred_neg)
    h = tendency_sign(human_aff_mean, human_neg_mean)
    total = same_length(("pred_aff", m), ("human_aff_mean", h))
    ok = np.isfinite(m) & np.isfinite(h)
    agree = (m == h)[ok]
    decisive = (h != 0)[ok]
    n_all = int(ok.sum())
    n_nt = int(decisive.sum())
    return TendencyAgreement(
        all_pairs=_result(agree.mean() if n_all else math.nan, n_all, total),
        non_tie=_result(agree[decisive].mean() if n_nt else math.nan, n_nt, total),
    )


def tendency_all_pairs(pred_aff: Numbers, pred_neg: Numbers, human_aff_mean: Numbers, human_neg_mean: Numbers) -> MetricResult:
    """:func:`tendency_agreement` over all pairs, as one metric (shapes (P,) each)."""
    return tendency_agreement(pred_aff, pred_neg, human_aff_mean, human_neg_mean).all_pairs


def tendency_non_tie(pred_aff: Numbers, pred_neg: Numbers, human_aff_mean: Numbers, human_neg_mean: Numbers) -> MetricResult:
    """:func:`tendency_agreement` over the pairs with a non-tie human tendency, as one metric."""
    return tendency_agreement(pred_aff, pred_neg, human_aff_mean, human_neg_mean).non_tie


# ---------------------------------------------------------------------------------------------
# Task 3: best debater and vote shares

VoteVector = Numbers | None


def _vote_vector(v: Any, name: str) -> np.ndarray | None:
    """One vote vector validated item by item (the slow path, used to name a bad entry)."""
    if v is None:
        return None
    arr = vector(v, name)
    if arr.size == 0:
        raise InputError(f"{name}: a vote vector needs one entry per debater; got none")
    total = float(arr.sum())
    if not math.isfinite(total):
        return None  # a NaN entry: missing
    if arr.min() < 0:
        raise InputError(f"{name}: vote counts must be non-negative")
    if total <= 0:
        return None  # no vote cast: names no debater
    return arr


class VotePairs(NamedTuple):
    """The included matches' vote vectors laid end to end: ``pred``/``human`` (sum K_m,), ``starts``
    the offset of each match, ``k`` (n,) its debater count, ``seg`` the match of each element,
    ``kept`` (n,) each included match's position in the inputs; ``n`` included of ``total``."""

    pred: np.ndarray
    human: np.ndarray
    starts: np.ndarray
    k: np.ndarray
    seg: np.ndarray
    n: int
    total: int
    kept: np.ndarray


def _flat(vectors: list[Any]) -> np.ndarray:
    arr = np.concatenate([np.asarray(v, dtype=float) for v in vectors]) if vectors else np.empty(0)
    if arr.ndim != 1:
        raise ValueError("not 1-D")
    return arr


def vote_pairs(pred_votes: Sequence[VoteVector], human_votes: Sequence[VoteVector]) -> VotePairs:
    """Aligned (pred, human) vote vectors of the matches where both are present, finite and not all 0
    (the matches every Task 3 metric includes).

    Validates all matches at once; on a malformed entry falls back to item-by-item checks to name it.
    """
    total = same_length(("pred_votes", pred_votes), ("human_votes", human_votes))
    kept = [(i, p, h) for i, (p, h) in enumerate(zip(pred_votes, human_votes)) if p is not None and h is not None]
    keep = [i for i, _, _ in kept]
    try:
        kp = np.array([len(p) for _, p, _ in kept], dtype=np.int64)
        kh = np.array([len(h) for _, _, h in kept], dtype=np.int64)
        P = _flat([p for _, p, _ in kept])
        H = _flat([h for _, _, h in kept])
        if P.size != kp.sum() or H.size != kh.sum() or np.any(kp == 0) or np.any(kh == 0):
            raise ValueError("ragged")
    except (TypeError, ValueError):
        for i in keep:
            _vote_vector(pred_votes[i], f"pred_votes[{i}]")
            _vote_vector(human_votes[i], f"human_votes[{i}]")
        raise InputError("pred_votes/human_votes: every entry must be a 1-D vector of vote counts or None") from None
    if np.any(kp != kh):
        bad = int(np.flatnonzero(kp != kh)[0])
        j = keep[bad]
        raise InputError(f"pred_votes[{j}] has {kp[bad]} debaters but human_votes[{j}] has {kh[bad]}; align them by debater")
    if not keep:
        e = np.empty(0)
        return VotePairs(e, e, np.empty(0, int), np.empty(0, int), np.empty(0, int), 0, total, np.empty(0, int))
    starts = np.concatenate(([0], np.cumsum(kp)[:-1]))
    sp, sh = np.add.reduceat(P, starts), np.add.reduceat(H, starts)
    finite = np.isfinite(sp) & np.isfinite(sh)
    for name, flat in (("pred_votes", P), ("human_votes", H)):
        neg = finite & (np.minimum.reduceat(flat, starts) < 0)
        if neg.any():
            raise InputError(f"{name}[{keep[int(np.flatnonzero(neg)[0])]}]: vote counts must be non-negative")
    ok = finite & (sp > 0) & (sh > 0)
    index = np.asarray(keep, dtype=int)[ok]
    if not ok.all():
        elem = np.repeat(ok, kp)
        P, H, kp = P[elem], H[elem], kp[ok]
        starts = np.concatenate(([0], np.cumsum(kp)[:-1])) if kp.size else np.empty(0, int)
    n = int(kp.size)
    return VotePairs(P, H, starts.astype(int), kp, np.repeat(np.arange(n), kp), n, total, index)


def _segment_sum(x: np.ndarray, v: VotePairs) -> np.ndarray:
    return np.add.reduceat(x, v.starts) if v.n else np.empty(0)


def _shares(v: VotePairs) -> tuple[np.ndarray, np.ndarray]:
    """Vote shares of the flat vectors: each element over its match's total (see vote_shares)."""
    return v.pred / _segment_sum(v.pred, v)[v.seg], v.human / _segment_sum(v.human, v)[v.seg]


def top_set(votes: Numbers) -> np.ndarray:
    """Indices of the debaters tied for the most votes (``D*`` in paper 2.3). Shape (K,) -> (|D*|,)."""
    v = np.asarray(votes, dtype=float)
    return np.flatnonzero(v >= v.max() - TIE_TOLERANCE)


def top1_credit(pred: Numbers, human: Numbers) -> float:
    """Top-1 credit of one match: ``|argmax(pred) ∩ D*| / |argmax(pred)|``.

    ``D*`` is the set tied for the human maximum (a prediction anywhere in it is correct, paper 2.3).
    When the prediction's own maximum is tied, the credit is the share of its tied debaters that are
    in ``D*``: the expected accuracy of breaking the model's tie uniformly at random. With a unique
    model maximum this is 1 or 0, the paper's rule.
    """
    mine = top_set(pred)
    gold = top_set(human)
    return float(np.isin(mine, gold).sum() / mine.size)


def best_debater_top1(pred_votes: Sequence[VoteVector], human_votes: Sequence[VoteVector]) -> MetricResult:
    """Task 3 best-debater top-1 accuracy (paper 2.3; protocol 001 Task 3): mean of
    :func:`top1_credit` over matches.

    Shapes: two sequences of M vote vectors, vector m of length K_m (debaters of match m in a fixed
    order; K may differ between matches). Correct when the predicted argmax is in the set tied for the
    human maximum; a tied *model* maximum earns the fraction of its tied debaters inside that set
    (expected accuracy of a uniform tie-break; documented rule, not in the paper). Excluded: matches
    whose prediction or gold is None, contains NaN, or has no vote at all. NaN when n == 0.
    """
    v = vote_pairs(pred_votes, human_votes)
    if not v.n:
        return _result(math.nan, 0, v.total)
    return _result(top1_credits(v).mean(), v.n, v.total)


def best_debater_top1_strict(pred_votes: Sequence[VoteVector], human_votes: Sequence[VoteVector]) -> MetricResult:
    """Task 3 top-1 accuracy, strict variant: a match counts 1 only when the model's maximum is unique
    and inside the set tied for the human maximum; a tie in the model's own maximum counts 0 (where
    :func:`best_debater_top1` gives the share of the tied debaters inside that set). Same shapes and
    exclusions as :func:`best_debater_top1`; NaN when n == 0. Example: model votes (4, 4, 1) against
    human (5, 3, 1): fractional 1/2, strict 0."""
    v = vote_pairs(pred_votes, human_votes)
    if not v.n:
        return _result(math.nan, 0, v.total)
    credits = top1_credits(v)
    top_p = v.pred >= np.maximum.reduceat(v.pred, v.starts)[v.seg] - TIE_TOLERANCE
    unique = _segment_sum(top_p.astype(float), v) == 1
    return _result(float(np.where(unique, credits, 0.0).mean()), v.n, v.total)


def top1_credits(v: VotePairs) -> np.ndarray:
    """(n,) the :func:`top1_credit` of every included match of ``v``, computed for all at once."""
    if not v.n:
        return np.empty(0)
    top_p = v.pred >= np.maximum.reduceat(v.pred, v.starts)[v.seg] - TIE_TOLERANCE
    top_h = v.human >= np.maximum.reduceat(v.human, v.starts)[v.seg] - TIE_TOLERANCE
    return _segment_sum((top_p & top_h).astype(float), v) / _segment_sum(top_p.astype(float), v)


def vote_shares(votes: Numbers) -> np.ndarray:
    """Vote shares ``q_i = v_i / sum_j v_j`` (paper 2.3 normalises by 9, the total of a full CCDB
    ballot; dividing by the actual total is the same for 9-vote vectors and also serves a single
    judge's 3 votes or a 2-judge 6-vote leave-one-out reference). Shape (K,) -> (K,)."""
    v = np.asarray(votes, dtype=float)
    return v / v.sum()


def vote_share_mae(pred_votes: Sequence[VoteVector], human_votes: Sequence[VoteVector]) -> MetricResult:
    """Task 3 normalised vote-share MAE (paper 2.3): ``MAE_vote = (1/K) sum_i |qhat_i - q_i|`` per
    match, averaged over matches.

    Shares are votes over their total (see :func:`vote_shares`); fractional predictions (uniform 9/K)
    are allowed. Shapes and exclusions as :func:`best_debater_top1`. NaN when n == 0.
    """
    v = vote_pairs(pred_votes, human_votes)
    if not v.n:
        return _result(math.nan, 0, v.total)
    return _result(vote_share_errors(v).mean(), v.n, v.total)


def vote_share_errors(v: VotePairs) -> np.ndarray:
    """(n,) the vote-share MAE ``(1/K) sum_i |qhat_i - q_i|`` of every included match of ``v``."""
    if not v.n:
        return np.empty(0)
    qp, qh = _shares(v)
    return _segment_sum(np.abs(qp - qh), v) / v.k


def pooled_shares(v: VotePairs, centre: bool) -> tuple[np.ndarray, np.ndarray]:
    """The (predicted, human) vote share of every debater of the included matches of ``v``, laid end
    to end as ``v.pred`` (sum K_m,); with ``centre`` each minus 1/K of its match."""
    qp, qh = _shares(v)
    if centre:  # both share vectors of a match sum to 1, so each has mean exactly 1/K
        qp, qh = qp - 1.0 / v.k[v.seg], qh - 1.0 / v.k[v.seg]
    return qp, qh


def _pooled_shares(pred_votes: Sequence[VoteVector], human_votes: Sequence[VoteVector], centre: bool) -> tuple[np.ndarray, np.ndarray, int, int]:
    v = vote_pairs(pred_votes, human_votes)
    qp, qh = pooled_shares(v, centre)
    return qp, qh, v.n, v.total


def vote_share_pearson(
    pred_votes: Sequence[VoteVector], human_votes: Sequence[VoteVector], *, centre_within_match: bool = False
) -> MetricResult:
    """Task 3 vote-share Pearson r, **pooled**: one (predicted share, human share) point per debater
    of every included match, a single r over all points (protocol 001 Task 3).

    ``n`` counts matches (the resampling unit); the number of points is ``sum_m K_m``. NaN when fewer
    than 2 points or a side is constant (e.g. uniform votes within a single format).

    Caveat: with formats of different K pooled (4v4: K = 8, share mean 1/8; 2v2: K = 4, mean 1/4) the
    between-format difference in mean share alone produces a positive r, even for uniform votes.
    ``centre_within_match=True`` subtracts 1/K from every share first, which removes that artefact
    (uniform votes then have zero variance and r is NaN). The default follows the pooled definition.
    """
    x, y, n, total = _pooled_shares(pred_votes, human_votes, centre_within_match)
    return _result(_pearson(x, y), n, total)


def vote_share_spearman(
    pred_votes: Sequence[VoteVector], human_votes: Sequence[VoteVector], *, centre_within_match: bool = False
) -> MetricResult:
    """Task 3 vote-share Spearman rho, pooled over all debaters of all included matches (average
    ranks for ties, which are frequent: most debaters get 0 votes). Same shapes, ``n``, exclusions
    and caveat as :func:`vote_share_pearson`."""
    x, y, n, total = _pooled_shares(pred_votes, human_votes, centre_within_match)
    return _result(_spearman(x, y), n, total)
