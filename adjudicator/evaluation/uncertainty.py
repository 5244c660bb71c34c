"""Uncertainty, paired comparisons and calibration for benchmark metrics (beyond the CCDB paper).

* :func:`bootstrap_ci`: match-level (cluster) percentile bootstrap confidence interval for any metric.
* :func:`mcnemar_exact`: exact McNemar test of two arms' winner accuracy on the common subset.
* :func:`paired_bootstrap`: paired match-level bootstrap of the difference of a metric between two arms
  on the common subset (MSE, correlations, MAE, ...).
* :func:`brier_score`, :func:`reliability_curve`, :func:`expected_calibration_error`: calibration of
  the winner tendency p read as P(affirmative wins).

The unit of resampling is the match: stage-level (Task 2) instances of one match share context and
judges, so they are resampled together (pass ``match_ids``). All randomness is seeded
(``numpy.random.default_rng(seed)``): an interval draws all its resamples at once, an (R, M) array
whose rows are the draws one resample at a time would make. The metrics of
:mod:`adjudicator.evaluation.resampling` (every CCDB metric and the Brier score) are then computed over
all resamples together, with the same numbers as one call per resample; any other metric is called
once per resample.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydantic import Field

from adjudicator.errors import InputError
from adjudicator.evaluation import resampling as R
from adjudicator.evaluation.inputs import GoldWinner, Numbers, check_p, gold_winners, vector
from adjudicator.evaluation.metrics import MetricResult
from adjudicator.frozen import FrozenModel

DEFAULT_RESAMPLES = 2000
DEFAULT_CONFIDENCE = 0.95


def _value(x: Any) -> float:
    """A metric's value: a MetricResult's ``.value`` or a plain number."""
    if isinstance(x, MetricResult):
        return x.value
    try:
        return float(x)
    except (TypeError, ValueError):
        raise InputError("metric: must return a MetricResult or a number (wrap tendency_agreement in a lambda picking .all_pairs or .non_tie)") from None


# ---------------------------------------------------------------------------------------------
# availability and indexing of aligned inputs


def _present(x: Any) -> bool:
    if x is None:
        return False
    if isinstance(x, str):
        return True
    if isinstance(x, (float, np.floating)):
        return math.isfinite(x)
    if isinstance(x, (int, np.integer, bool, np.bool_)):
        return True
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return True
    return bool(np.all(np.isfinite(arr)))


def available(array: Any) -> np.ndarray:
    """Boolean mask (N,) of the items of one aligned input that are present: not None and not NaN
    (for a vector item, no NaN inside). Strings such as a gold ``"tie"`` count as present."""
    if isinstance(array, np.ndarray) and array.dtype.kind in "fiub":
        if array.ndim == 1:
            return np.isfinite(array) if array.dtype.kind == "f" else np.ones(array.size, bool)
        return np.all(np.isfinite(array.reshape(array.shape[0], -1)), axis=1)
    return np.array([_present(x) for x in array], dtype=bool)


def common_subset(*arrays: Any) -> np.ndarray:
    """Mask (N,) of the items present in *every* given aligned input: the protocol's common subset of
    instances that all compared arms parsed (A.5). Raises InputError on unequal lengths."""
    if not arrays:
        raise InputError("common_subset: give at least one aligned input")
    lengths = {len(a) for a in arrays}
    if len(lengths) != 1:
        raise InputError(f"common_subset: inputs must be aligned item by item, got lengths {sorted(lengths)}")
    mask = np.ones(lengths.pop(), dtype=bool)
    for a in arrays:
        mask &= available(a)
    return mask


def _take(a: Any, idx: np.ndarray) -> Any:
    if isinstance(a, np.ndarray):
        return a[idx]
    return [a[i] for i in idx]


def _clusters(match_ids: Sequence[Any] | None, n: int) -> list[np.ndarray] | None:
    """Index arrays of the items of each match (first-appearance order); None = one item per match."""
    if match_ids is None:
        return None
    ids = list(match_ids)
    if len(ids) != n:
        raise InputError(f"match_ids has {len(ids)} entries but the inputs have {n}; give one match id per item")
    groups: dict[Any, list[int]] = {}
    for i, m in enumerate(ids):
        groups.setdefault(m, []).append(i)
    return [np.array(g, dtype=int) for g in groups.values()]


def _check_args(arrays: Sequence[Any], n_resamples: int, confidence: float) -> int:
    if not arrays:
        raise InputError("give the metric's aligned inputs")
    lengths = {len(a) for a in arrays}
    if len(lengths) != 1:
        raise InputError(f"inputs must be aligned item by item, got lengths {sorted(lengths)}")
    if n_resamples < 1:
        raise InputError(f"n_resamples: must be at least 1, got {n_resamples}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must be strictly between 0 and 1, got {confidence}")
    return lengths.pop()


def _draw(clusters: list[np.ndarray] | None, n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, M) the matches every resample draws: M draws with replacement among the M
    matches (the items when ``clusters`` is None), row r the r-th ``rng.integers(0, M, size=M)``."""
    m = n if clusters is None else len(clusters)
    return rng.integers(0, m, size=(n_resamples, m)) if m else np.empty((n_resamples, 0), dtype=np.int64)


def _over_resamples(metric: Callable[..., MetricResult | float], arrays: Sequence[Any], chosen: np.ndarray, clusters: list[np.ndarray] | None, n: int) -> np.ndarray:
    """(R,) ``metric`` on every resample, in one pass over all of them when it has a batched form
    (:mod:`adjudicator.evaluation.resampling`; the same numbers as one call per resample)."""
    return R.evaluate(metric, arrays, R.Resamples(chosen, clusters, n), BATCHED, value=_value)


def _percentiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    if values.size == 0:
        return math.nan, math.nan
    alpha = 1.0 - confidence
    lo, hi = np.quantile(values, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(lo), float(hi)


# ---------------------------------------------------------------------------------------------
# bootstrap confidence intervals


class BootstrapCI(FrozenModel):
    """A metric with a percentile bootstrap interval.

    ``value``: the metric on all the data. ``low``/``high``: the (1-c)/2 and (1+c)/2 quantiles of the
    resampled values (linear interpolation). ``n_valid``: resamples whose metric was defined (a
    resample can make a correlation undefined); NaN bounds when none was. ``n_matches``: resampling
    units.
    """

    value: float
    low: float
    high: float
    confidence: float
    n_resamples: int = Field(ge=1)
    n_valid: int = Field(ge=0)
    n_matches: int = Field(ge=0)
    seed: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict with NaN as None."""
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self.model_dump().items()}


def bootstrap_ci(
    metric: Callable[..., MetricResult | float],
    *arrays: Any,
    match_ids: Sequence[Any] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
) -> BootstrapCI:
    """Match-level percentile bootstrap CI of ``metric(*arrays)``.

    ``arrays``: the metric's aligned inputs, each of length N (numpy arrays or lists, e.g. a list of
    vote vectors). ``match_ids`` (N,): the match of each item; the matches are resampled with
    replacement (all items of a drawn match come along, repeated as often as it is drawn). None means
    every item is its own match (Tasks 1 and 3). Each of ``n_resamples`` resamples draws as many
    matches as there are, recomputes the metric, and the interval is the percentile interval of the
    defined (finite) values. Deterministic for a given ``seed``. Raises InputError on bad arguments.
    """
    n = _check_args(arrays, n_resamples, confidence)
    clusters = _clusters(match_ids, n)
    rng = np.random.default_rng(seed)
    point = _value(metric(*arrays))
    vals = _over_resamples(metric, arrays, _draw(clusters, n, n_resamples, rng), clusters, n)
    ok = vals[np.isfinite(vals)]
    lo, hi = _percentiles(ok, confidence)
    return BootstrapCI(
        value=point, low=lo, high=hi, confidence=confidence, n_resamples=n_resamples, n_valid=int(ok.size),
        n_matches=n if clusters is None else len(clusters), seed=seed,
    )


# ---------------------------------------------------------------------------------------------
# paired comparisons


class PairedBootstrap(FrozenModel):
    """Difference of a metric between arm A and arm B on their common subset, with a paired
    bootstrap interval and a two-sided bootstrap p-value.

    ``difference = value_a - value_b``; ``low``/``high`` the percentile interval of the resampled
    differences; ``p_value = min(1, 2 * min(P*(d <= 0), P*(d >= 0)))`` over the defined resampled
    differences d (an approximate test of "no difference"). ``n``: items in the common subset,
    ``n_matches``: its matches.
    """

    value_a: float
    value_b: float
    difference: float
    low: float
    high: float
    p_value: float
    confidence: float
    n: int = Field(ge=0)
    n_matches: int = Field(ge=0)
    n_resamples: int = Field(ge=1)
    n_valid: int = Field(ge=0)
    seed: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict with NaN as None."""
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self.model_dump().items()}


def paired_bootstrap(
    metric: Callable[..., MetricResult | float],
    arrays_a: Sequence[Any],
    arrays_b: Sequence[Any],
    *,
    match_ids: Sequence[Any] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
) -> PairedBootstrap:
    """Paired match-level bootstrap of ``metric(*arrays_a) - metric(*arrays_b)``.

    ``arrays_a`` / ``arrays_b``: the metric's inputs for each arm, e.g. ``(pred_a, gold_mean)`` and
    ``(pred_b, gold_mean)``, all aligned on the same N items. First both are restricted to the common
    subset: items present (not None/NaN) in every input of both arms. Then the same resampled matches
    are used for both arms in every resample, so the interval reflects the paired design.
    ``match_ids`` as in :func:`bootstrap_ci`. Use it for MSE, Pearson/Spearman, vote-share MAE, or
    accuracy (for accuracy prefer :func:`mcnemar_exact`).
    """
    arrays_a, arrays_b = tuple(arrays_a), tuple(arrays_b)
    n = _check_args(arrays_a + arrays_b, n_resamples, confidence)
    mask = common_subset(*arrays_a, *arrays_b)
    idx_keep = np.flatnonzero(mask)
    a = tuple(_take(x, idx_keep) for x in arrays_a)
    b = tuple(_take(x, idx_keep) for x in arrays_b)
    if match_ids is not None and len(match_ids) != n:
        raise InputError(f"match_ids has {len(match_ids)} entries but the inputs have {n}; give one match id per item")
    ids = None if match_ids is None else _take(list(match_ids), idx_keep)
    m = idx_keep.size
    clusters = _clusters(ids, m)
    rng = np.random.default_rng(seed)
    va, vb = _value(metric(*a)), _value(metric(*b))
    chosen = _draw(clusters, m, n_resamples, rng)
    d = _over_resamples(metric, a, chosen, clusters, m) - _over_resamples(metric, b, chosen, clusters, m)
    d = d[np.isfinite(d)]
    lo, hi = _percentiles(d, confidence)
    p = min(1.0, 2.0 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0)))) if d.size else math.nan
    return PairedBootstrap(
        value_a=va, value_b=vb, difference=va - vb, low=lo, high=hi, p_value=p, confidence=confidence, n=m,
        n_matches=m if clusters is None else len(clusters), n_resamples=n_resamples, n_valid=int(d.size), seed=seed,
    )


class McNemarResult(FrozenModel):
    """Exact McNemar test of two arms' per-match correctness on their common subset.

    ``n``: matches where both arms are scored. ``a_only``: A correct and B wrong; ``b_only``: the
    reverse; ``p_value``: two-sided exact binomial test of ``a_only`` out of ``a_only + b_only`` at
    1/2 (1.0 when there is no discordant pair).
    """

    n: int = Field(ge=0)
    both_correct: int = Field(ge=0)
    a_only: int = Field(ge=0)
    b_only: int = Field(ge=0)
    both_wrong: int = Field(ge=0)
    accuracy_a: float
    accuracy_b: float
    p_value: float


def binomial_two_sided_p(k: int, n: int) -> float:
    """``scipy.stats.binomtest(k, n, 0.5).pvalue`` (two-sided), bit for bit, without importing
    scipy.stats (about a second at start-up, half of it formatting distribution docstrings).

    ``0 <= k <= n``, ``n >= 1``. The same steps as scipy 1.17's ``binomtest`` for p = 1/2 (the
    binomial probabilities below or at that of ``k``, found by its binary search on the other side
    of the mode) on the same Boost functions, ``scipy.special``'s ``_binom_pmf`` / ``_binom_cdf``
    / ``_binom_sf``, with ``binom``'s support and [0, 1] clipping. When those private ufuncs are
    missing (another scipy), ``binomtest`` itself answers. ``tests/test_stats.py`` compares the
    two for every ``k`` up to n = 60 and at larger n. Raises InputError for k or n out of range.
    """
    if not (n >= 1 and 0 <= k <= n):
        raise InputError(f"binomial test: k={k} successes out of n={n} trials is out of range; need 0 <= k <= n and n >= 1")
    try:
        from scipy.special._ufuncs import _binom_cdf, _binom_pmf, _binom_sf
    except ImportError:  # pragma: no cover - a scipy without them
        from scipy.stats import binomtest

        return float(binomtest(k, n, 0.5).pvalue)
    p = 0.5

    def pmf(x: float) -> float:
        return float(np.clip(_binom_pmf(x, n, p), 0, 1)) if 0 <= x <= n and x == math.floor(x) else 0.0

    def cdf(x: float) -> float:
        x = math.floor(x)
        return 1.0 if x >= n else float(np.clip(_binom_cdf(x, n, p), 0, 1)) if x >= 0 else 0.0

    def sf(x: float) -> float:
        x = math.floor(x)
        return 0.0 if x >= n else float(np.clip(_binom_sf(x, n, p), 0, 1)) if x >= 0 else 1.0

    def search(a: Callable[[float], float], d: float, lo: float, hi: float) -> float:
        """scipy's ``_binary_search_for_binom_tst``: i in [lo, hi] with a(i) <= d < a(i + 1)."""
        while lo < hi:
            mid = lo + (hi - lo) // 2
            midval = a(mid)
            if midval < d:
                lo = mid + 1
            elif midval > d:
                hi = mid - 1
            else:
                return mid
        return lo if a(lo) <= d else lo - 1

    d = pmf(k)
    rerr = 1 + 1e-7
    if k == p * n:
        return 1.0
    if k < p * n:
        ix = search(lambda x: -pmf(x), -d * rerr, math.ceil(p * n), n)
        y = n - ix + int(d * rerr == pmf(ix))
        pval = cdf(k) + sf(n - y)
    else:
        ix = search(pmf, d * rerr, 0, math.floor(p * n))
        pval = cdf(ix) + sf(k - 1)
    return min(1.0, pval)


def mcnemar_exact(correct_a: Numbers | Sequence[bool | None], correct_b: Numbers | Sequence[bool | None]) -> McNemarResult:
    """Exact McNemar test for paired winner accuracy (the exact binomial test of :func:`binomial_two_sided_p`, ``scipy.stats.binomtest``'s, on discordant pairs).

    ``correct_a``, ``correct_b`` (M,): per-match correctness, 1/0 (or True/False), NaN/None where not
    scored, e.g. from :func:`adjudicator.evaluation.metrics.winner_correct`. Only matches scored for both arms
    (the common subset) are used. Accuracies are NaN when n == 0. Raises InputError on misaligned
    inputs or values other than 0/1/NaN.
    """
    a = vector(correct_a, "correct_a")
    b = vector(correct_b, "correct_b")
    if a.size != b.size:
        raise InputError(f"correct_a has {a.size} entries but correct_b has {b.size}; align them by match")
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    if not np.all(np.isin(a, (0.0, 1.0))) or not np.all(np.isin(b, (0.0, 1.0))):
        raise InputError("correct_a/correct_b: per-match correctness must be 1, 0 or NaN")
    a_only = int(np.sum((a == 1) & (b == 0)))
    b_only = int(np.sum((a == 0) & (b == 1)))
    disc = a_only + b_only
    p = binomial_two_sided_p(a_only, disc) if disc else 1.0
    n = int(a.size)
    return McNemarResult(
        n=n, both_correct=int(np.sum((a == 1) & (b == 1))), a_only=a_only, b_only=b_only, both_wrong=int(np.sum((a == 0) & (b == 0))),
        accuracy_a=float(a.mean()) if n else math.nan, accuracy_b=float(b.mean()) if n else math.nan, p_value=min(1.0, p),
    )


# ---------------------------------------------------------------------------------------------
# calibration of p


def _calibration_pairs(pred_p: Numbers, gold_winner: Sequence[GoldWinner]) -> tuple[np.ndarray, np.ndarray, int]:
    """(p, y) for matches with a prediction and a decisive gold winner; y = 1 affirmative, 0 negative."""
    p = vector(pred_p, "pred_p")
    gold = gold_winners(gold_winner)
    if p.size != len(gold):
        raise InputError(f"pred_p has {p.size} entries but gold_winner has {len(gold)}; align them by match")
    check_p(p)
    y = np.array([1.0 if g == "affirmative" else 0.0 if g == "negative" else np.nan for g in gold])
    ok = np.isfinite(p) & np.isfinite(y)
    return p[ok], y[ok], p.size


def brier_score(pred_p: Numbers, gold_winner: Sequence[GoldWinner]) -> MetricResult:
    """Brier score of the winner tendency: ``mean_m (p_m - y_m)^2`` with y = 1 when the affirmative
    won, 0 when the negative won (0 is perfect, 0.25 is a constant p = 0.5). Shapes (M,), (M,);
    missing p and gold ``"tie"``/None excluded. NaN when n == 0."""
    p, y, total = _calibration_pairs(pred_p, gold_winner)
    return MetricResult(value=float(np.mean((p - y) ** 2)) if p.size else math.nan, n=int(p.size), n_excluded=int(total - p.size))


class CalibrationBin(FrozenModel):
    """One bin of a reliability curve: predictions with ``lower <= p < upper`` (the last bin includes
    1.0), their count, mean p and observed affirmative-win frequency (NaN when empty)."""

    lower: float
    upper: float
    count: int = Field(ge=0)
    mean_p: float
    observed: float


def _bin_index(p: np.ndarray, n_bins: int) -> np.ndarray:
    # +1e-9 keeps a p that sits on an edge (0.3, in steps of 0.01) in the bin that starts there.
    return np.clip(np.floor(p * n_bins + 1e-9).astype(int), 0, n_bins - 1)


def reliability_curve(pred_p: Numbers, gold_winner: Sequence[GoldWinner], n_bins: int = 10) -> list[CalibrationBin]:
    """Reliability curve of p: ``n_bins`` equal-width bins on [0, 1]; per bin the count, mean p and the
    share of matches the affirmative won. Exclusions as :func:`brier_score`. Raises InputError when
    ``n_bins < 1``."""
    if n_bins < 1:
        raise InputError(f"n_bins: must be at least 1, got {n_bins}")
    p, y, _ = _calibration_pairs(pred_p, gold_winner)
    idx = _bin_index(p, n_bins)
    bins = []
    for b in range(n_bins):
        sel = idx == b
        c = int(sel.sum())
        bins.append(
            CalibrationBin(
                lower=b / n_bins, upper=(b + 1) / n_bins, count=c,
                mean_p=float(p[sel].mean()) if c else math.nan, observed=float(y[sel].mean()) if c else math.nan,
            )
        )
    return bins


def expected_calibration_error(pred_p: Numbers, gold_winner: Sequence[GoldWinner], n_bins: int = 10) -> MetricResult:
    """Expected calibration error: ``sum_b (n_b / n) * |observed_b - mean_p_b|`` over the non-empty
    bins of :func:`reliability_curve`. NaN when n == 0."""
    bins = reliability_curve(pred_p, gold_winner, n_bins)
    n = sum(b.count for b in bins)
    _, _, total = _calibration_pairs(pred_p, gold_winner)
    ece = sum(b.count / n * abs(b.observed - b.mean_p) for b in bins if b.count) if n else math.nan
    return MetricResult(value=float(ece), n=n, n_excluded=total - n)


#: Every metric with a batched form: those of :mod:`adjudicator.evaluation.resampling` and the Brier score.
BATCHED = {**R.BATCHED, brier_score: R.BRIER_FORM}


__all__ = [
    "BootstrapCI",
    "CalibrationBin",
    "McNemarResult",
    "PairedBootstrap",
    "available",
    "bootstrap_ci",
    "brier_score",
    "common_subset",
    "expected_calibration_error",
    "binomial_two_sided_p",
    "mcnemar_exact",
    "paired_bootstrap",
    "reliability_curve",
]
