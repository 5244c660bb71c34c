"""Metrics of ranking formats (BP): DebateBench's three tasks (seed 002 section 3.2) and PanelBench
BP's advancing teams. Pure numpy functions of aligned predictions and gold references.

Conventions as in :mod:`adjudicator.evaluation.metrics`: every function returns a
:class:`~adjudicator.evaluation.metrics.MetricResult` ``(value, n, n_excluded)``; a missing
prediction or gold value is NaN (or None for a ranking) and is excluded, never scored as 0; ``value``
is NaN when no item is left. Rankings are arrays of ranks per unit in a fixed unit order (BP: OG, OO,
CG, CO), speeches in speaking order.

- House-order error (DebateBench "verdict prediction"): per match Delta = sum over the four houses of
  |predicted rank - gold rank| (0 = the ranking is exactly right; at most 8); the value is the mean
  over matches.
- Speaker-score MAE: mean over speeches of |predicted score - gold score| (WUDC points).
- Speaker-score accuracy within a tolerance eps: share of speeches with |predicted - gold| <= eps
  (DebateBench ablates eps = 2 ... 9).
- Speaker-rank error: per match Delta_rank = sum over the eight speeches of |predicted rank - gold
  rank|; the value is the mean over matches.
- Advancing-team accuracy (PanelBench BP): per match, the predicted top k (k = the number of houses
  that advanced: 2 from a quarter- or semi-final, 1 from a final) equals the gold set exactly; and
  per team, advance/eliminate correct (predicted rank <= k iff the house advanced), over 4 teams a
  match. Teams of one match are not independent, so the per-team value's effective n is the number
  of matches.
- Strength correlations (the pairwise panel, seed 004 section 5.1): Kendall tau-b and Spearman rho
  between fitted Bradley-Terry strengths and a gold measure (:func:`strength_correlations`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from adjudicator.errors import InputError
from adjudicator.evaluation.metrics import MetricResult

Ranks = Sequence[Sequence[float] | None]


def _rank_rows(pred: Ranks, gold: Ranks, what: str) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    if len(pred) != len(gold):
        raise InputError(f"{what}: predictions ({len(pred)}) and gold ({len(gold)}) must be aligned per match")
    ps, gs = [], []
    for p, g in zip(pred, gold):
        if p is None or g is None:
            continue
        pa, ga = np.asarray(p, dtype=float), np.asarray(g, dtype=float)
        if pa.shape != ga.shape:
            raise InputError(f"{what}: a predicted ranking has {pa.size} entries, its gold {ga.size}")
        if np.isnan(pa).any() or np.isnan(ga).any():
            continue
        ps.append(pa)
        gs.append(ga)
    return ps, gs, len(pred)


def rank_error(pred: Ranks, gold: Ranks, what: str = "rank error") -> MetricResult:
    """Mean over matches of sum_i |pred_i - gold_i| (DebateBench Delta, Delta_rank). ``pred`` and
    ``gold`` (M,) rank vectors (or None = missing) in the same unit order; a match with a missing or
    NaN-holding vector is excluded. Example: pred (1,2,3,4), gold (2,1,3,4) -> 2."""
    ps, gs, total = _rank_rows(pred, gold, what)
    if not ps:
        return MetricResult(value=float("nan"), n=0, n_excluded=total)
    errors = [float(np.abs(p - g).sum()) for p, g in zip(ps, gs)]
    return MetricResult(value=float(np.mean(errors)), n=len(errors), n_excluded=total - len(errors))


def house_order_error(pred: Ranks, gold: Ranks) -> MetricResult:
    """DebateBench's verdict-prediction error: :func:`rank_error` over the four houses (0-8)."""
    return rank_error(pred, gold, "house order")


def speaker_rank_error(pred: Ranks, gold: Ranks) -> MetricResult:
    """DebateBench's speaker-rank error: :func:`rank_error` over the eight speeches (0-32)."""
    return rank_error(pred, gold, "speaker ranks")


def _score_pairs(pred: Sequence[float], gold: Sequence[float]) -> tuple[np.ndarray, int]:
    p = np.asarray(pred, dtype=float)
    g = np.asarray(gold, dtype=float)
    if p.shape != g.shape:
        raise InputError(f"speaker scores: predictions ({p.size}) and gold ({g.size}) must be aligned per speech")
    ok = ~(np.isnan(p) | np.isnan(g))
    return np.abs(p[ok] - g[ok]), int(p.size)


def speaker_score_mae(pred: Sequence[float], gold: Sequence[float]) -> MetricResult:
    """Mean absolute error (points) of speaker scores, (S,) aligned per speech; NaN pairs excluded.
    Example: pred (80, 75), gold (82, 75) -> 1.0."""
    diff, total = _score_pairs(pred, gold)
    if diff.size == 0:
        return MetricResult(value=float("nan"), n=0, n_excluded=total)
    return MetricResult(value=float(diff.mean()), n=int(diff.size), n_excluded=total - int(diff.size))


def speaker_score_accuracy(pred: Sequence[float], gold: Sequence[float], tolerance: float) -> MetricResult:
    """Share in [0, 1] of speeches whose predicted score is within ``tolerance`` points of the gold
    (|pred - gold| <= tolerance; DebateBench's tolerance ablation). Example: pred (80, 75, 90), gold
    (82, 75, 80), tolerance 2 -> 2/3."""
    if tolerance < 0:
        raise InputError(f"tolerance: {tolerance} must not be negative")
    diff, total = _score_pairs(pred, gold)
    if diff.size == 0:
        return MetricResult(value=float("nan"), n=0, n_excluded=total)
    return MetricResult(value=float((diff <= tolerance).mean()), n=int(diff.size), n_excluded=total - int(diff.size))


def advancing_sets(pred: Ranks, gold_advanced: Sequence[Sequence[int] | None]) -> MetricResult:
    """Share of matches whose predicted top k equals the gold advancing set exactly. ``pred`` (M,)
    rank vectors in unit order; ``gold_advanced`` (M,) the indices of the units that advanced (k =
    its length) or None. Example: pred ranks (2,1,4,3) (top two OO, OG) vs gold {OG, OO} -> 1."""
    if len(pred) != len(gold_advanced):
        raise InputError("advancing teams: predictions and gold must be aligned per match")
    hits = []
    for p, g in zip(pred, gold_advanced):
        if p is None or g is None or not len(g):
            continue
        ranks = np.asarray(p, dtype=float)
        if np.isnan(ranks).any():
            continue
        top = set(np.flatnonzero(ranks <= len(g)).tolist())
        hits.append(1.0 if top == set(g) else 0.0)
    if not hits:
        return MetricResult(value=float("nan"), n=0, n_excluded=len(pred))
    return MetricResult(value=float(np.mean(hits)), n=len(hits), n_excluded=len(pred) - len(hits))


def advancing_teams(pred: Ranks, gold_advanced: Sequence[Sequence[int] | None]) -> MetricResult:
    """Per-team advance/eliminate accuracy: share of (match, unit) decisions where "predicted rank <=
    k" agrees with "the unit advanced" (k = the number that advanced). ``n`` counts team decisions;
    their effective n is the number of matches (teams of one match are dependent). Example: pred
    ranks (1,2,3,4) vs gold {OO, CG} -> OG wrong, OO right, CG wrong, CO right -> 0.5."""
    if len(pred) != len(gold_advanced):
        raise InputError("advancing teams: predictions and gold must be aligned per match")
    hits: list[float] = []
    skipped = 0
    for p, g in zip(pred, gold_advanced):
        if p is None or g is None or not len(g):
            skipped += 1
            continue
        ranks = np.asarray(p, dtype=float)
        if np.isnan(ranks).any():
            skipped += 1
            continue
        went = np.zeros(ranks.size, dtype=bool)
        went[list(g)] = True
        hits.extend(((ranks <= len(g)) == went).astype(float).tolist())
    if not hits:
        return MetricResult(value=float("nan"), n=0, n_excluded=len(pred))
    return MetricResult(value=float(np.mean(hits)), n=len(hits), n_excluded=skipped)


# ---------------------------------------------------------------------------------------------
# exact expectations of a uniformly random ranking


def expected_random_rank_error(n_units: int) -> float:
    """Expected sum_i |pi(i) - g_i| of a uniformly random permutation pi of 1..n against any fixed
    ranking g: each pi(i) is uniform on 1..n, so the sum is sum_g sum_u |u - g| / n = (n^2 - 1) / 3.
    n = 4 (houses) -> 5; n = 8 (speeches) -> 21."""
    return (n_units * n_units - 1) / 3


def expected_random_advancing_set(n_units: int, k: int) -> float:
    """Chance that a uniformly random ranking's top k is the gold set: 1 / C(n, k). n = 4: k = 2 ->
    1/6, k = 1 -> 1/4."""
    from math import comb

    return 1.0 / comb(n_units, k)


def expected_random_advancing_team(n_units: int, k: int) -> float:
    """Expected per-team advance/eliminate accuracy of a uniformly random ranking: a unit that
    advanced is predicted to advance with chance k/n, one that did not is predicted out with chance
    (n-k)/n, so the mean over units is (k^2 + (n-k)^2) / n^2. n = 4: k = 2 -> 0.5, k = 1 -> 0.625."""
    return (k * k + (n_units - k) ** 2) / (n_units * n_units)


def strength_correlations(strengths: Sequence[float], gold: Sequence[float]) -> tuple[float, float]:
    """Kendall's tau-b and Spearman's rho between fitted strengths and a gold measure of the same
    competitors (both "higher is better": a gold rank must be negated first), as seed 004 section
    5.1 compares Bradley-Terry scores with human ones. Ties in either list are handled (tau-b;
    Spearman on mid-ranks), so a partial gold ranking such as PanelBench's advanced / eliminated
    split works. Returns (NaN, NaN) when fewer than 3 competitors or either list is constant.
    Raises InputError when the lengths differ."""
    from scipy.stats import kendalltau, spearmanr

    x = np.asarray(strengths, dtype=float)
    y = np.asarray(gold, dtype=float)
    if x.shape != y.shape:
        raise InputError(f"strength correlations: {x.size} strengths and {y.size} gold values")
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    return float(kendalltau(x, y).statistic), float(spearmanr(x, y).statistic)
