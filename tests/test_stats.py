"""Bootstrap CIs, paired tests and calibration (adjudicator.evaluation.uncertainty) against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from adjudicator.errors import InputError
from adjudicator.evaluation.metrics import stage_mse, stage_pearson, vote_share_mae, winner_accuracy, winner_correct
from adjudicator.evaluation.uncertainty import (
    available,
    binomial_two_sided_p,
    bootstrap_ci,
    brier_score,
    common_subset,
    expected_calibration_error,
    mcnemar_exact,
    paired_bootstrap,
    reliability_curve,
)

A, N = "affirmative", "negative"
NAN = float("nan")


def test_mcnemar_exact_by_hand():
    # 5 both right, 1 only A right, 9 only B right, 3 both wrong, 2 not scored for one arm
    # discordant n = 10, k = 1: two-sided exact p = P(X<=1) + P(X>=9) = (1 + 10 + 10 + 1)/1024 = 22/1024
    a = [1] * 5 + [1] * 1 + [0] * 9 + [0] * 3 + [NAN, 1]
    b = [1] * 5 + [0] * 1 + [1] * 9 + [0] * 3 + [1, NAN]
    r = mcnemar_exact(a, b)
    assert (r.n, r.both_correct, r.a_only, r.b_only, r.both_wrong) == (18, 5, 1, 9, 3)
    assert r.p_value == pytest.approx(22 / 1024)
    assert r.accuracy_a == pytest.approx(6 / 18) and r.accuracy_b == pytest.approx(14 / 18)


def test_mcnemar_no_discordance_and_from_winner_correct():
    gold = [A, N, A, "tie"]
    ca = winner_correct([0.9, 0.1, 0.2, 0.5], gold)  # right, right, wrong, n/a
    cb = winner_correct([0.6, 0.4, 0.3, 0.7], gold)  # right, right, wrong, n/a
    r = mcnemar_exact(ca, cb)
    assert r.n == 3 and r.a_only == r.b_only == 0 and r.p_value == 1.0
    with pytest.raises(InputError):
        mcnemar_exact([1, 2], [1, 0])


def test_the_binomial_test_is_scipys_bit_for_bit_without_importing_scipy_stats():
    """Every k at n <= 60 and a spread at larger n (where float rounding of the two tails differs
    from the exact sum: n = 15, k = 4 is 0.11846923828124999 in scipy, 3882/32768 exactly)."""
    from scipy.stats import binomtest

    cases = [(k, n) for n in range(1, 61) for k in range(n + 1)]
    cases += [(k, n) for n in (99, 100, 257, 1000, 4321) for k in (0, 1, n // 3, n // 2 - 1, n // 2, (n + 1) // 2, n - 7, n)]
    for k, n in cases:
        assert binomial_two_sided_p(k, n) == float(binomtest(k, n, 0.5).pvalue), (k, n)
    assert binomial_two_sided_p(1, 10) == pytest.approx(22 / 1024) and binomial_two_sided_p(5, 10) == 1.0
    with pytest.raises(InputError, match="k=3 .* n=2"):
        binomial_two_sided_p(3, 2)


def test_the_mcnemar_test_imports_no_scipy_stats():
    import subprocess
    import sys

    code = "import sys; from adjudicator.evaluation.uncertainty import mcnemar_exact; r = mcnemar_exact([1, 0, 1, 1], [0, 1, 0, 0]); print(r.p_value, 'scipy.stats' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout.split()
    assert out == ["0.625", "False"]  # k = 1 of n = 4 discordant: P(X <= 1) + P(X >= 3) = (1 + 4 + 4 + 1) / 16


def test_brier_by_hand():
    # used: (0.8-1)^2 = .04, (0.3-1)^2 = .49, (0.5-0)^2 = .25 -> .78/3 = .26 ; tie and NaN excluded
    r = brier_score([0.8, 0.3, 0.5, 1.0, NAN], [A, A, N, "tie", N])
    assert r.value == pytest.approx(0.26) and r.n == 3 and r.n_excluded == 2


def test_reliability_curve_and_ece_by_hand():
    # 2 bins. [0, .5): p .1 (N), .3 (A) -> count 2, mean p .2, observed .5
    # [.5, 1]: p .6 (A), .8 (A), .5 (N) -> count 3, mean p 1.9/3, observed 2/3
    # ECE = 2/5 * |.5 - .2| + 3/5 * |2/3 - 1.9/3| = .12 + .6 * (.1/3) = .12 + .02 = .14
    p = [0.1, 0.3, 0.6, 0.8, 0.5]
    g = [N, A, A, A, N]
    bins = reliability_curve(p, g, n_bins=2)
    assert [b.count for b in bins] == [2, 3]
    assert bins[0].mean_p == pytest.approx(0.2) and bins[0].observed == 0.5
    assert bins[1].mean_p == pytest.approx(1.9 / 3) and bins[1].observed == pytest.approx(2 / 3)
    assert expected_calibration_error(p, g, n_bins=2).value == pytest.approx(0.14)


def test_reliability_curve_edges_and_empty_bins():
    # 10 bins: 0.3 starts bin 3 (despite 0.3*10 = 2.9999...), 1.0 joins the last bin
    bins = reliability_curve([0.3, 1.0], [A, N], n_bins=10)
    assert bins[3].count == 1 and bins[9].count == 1 and bins[9].observed == 0.0
    assert bins[0].count == 0 and math.isnan(bins[0].mean_p)


def test_bootstrap_ci_accuracy_close_to_normal_approximation():
    # 60 of 100 right: sd = sqrt(.6*.4/100) = .049 -> 95 % interval about .60 +- .096 = [.504, .696]
    gold = [A] * 100
    p = [0.9] * 60 + [0.1] * 40
    ci = bootstrap_ci(winner_accuracy, p, gold, n_resamples=2000, seed=1)
    assert ci.value == 0.6 and ci.n_matches == 100 and ci.n_valid == 2000
    assert ci.low == pytest.approx(0.504, abs=0.02) and ci.high == pytest.approx(0.696, abs=0.02)
    again = bootstrap_ci(winner_accuracy, p, gold, n_resamples=2000, seed=1)
    assert (again.low, again.high) == (ci.low, ci.high)


def test_bootstrap_resamples_whole_matches():
    # match x has 1 stage with error 0, match y 3 stages with error 2 (squared 4): MSE = 12/4 = 3
    # match-level resamples are {x,x} -> 0 (p = 1/4), {y,y} -> 4 (1/4), {x,y} -> 3 (1/2):
    # the 2.5 % quantile is 0 and the 97.5 % quantile 4.
    # Item-level resampling would give low = 1: P(no error-4 item among 4 draws) = (1/4)^4 = .004 < .025.
    pred = [6, 8, 8, 8]
    gold = [6, 6, 6, 6]
    ci = bootstrap_ci(stage_mse, pred, gold, match_ids=["x", "y", "y", "y"], n_resamples=2000, seed=0)
    assert ci.value == 3.0 and ci.n_matches == 2
    assert ci.low == 0.0 and ci.high == 4.0
    item = bootstrap_ci(stage_mse, pred, gold, n_resamples=2000, seed=0)
    assert item.low == 1.0


def test_bootstrap_skips_undefined_resamples_and_takes_lists():
    # 3 points: many resamples repeat one point and make r undefined; those are not counted
    ci = bootstrap_ci(stage_pearson, [1, 2, 3], [1, 3, 2], n_resamples=500, seed=2)
    assert 0 < ci.n_valid < 500
    # ragged vote vectors go through as lists
    ci2 = bootstrap_ci(vote_share_mae, [[9, 0], [0, 9, 0]], [[9, 0], [0, 9, 0]], n_resamples=50, seed=0)
    assert (ci2.value, ci2.low, ci2.high) == (0.0, 0.0, 0.0)
    with pytest.raises(InputError):
        bootstrap_ci(stage_mse, [1, 2], [1], n_resamples=10)


def test_common_subset_and_available():
    assert available(np.array([1.0, NAN])).tolist() == [True, False]
    assert available([None, "tie", [9, 0], [NAN, 1]]).tolist() == [False, True, True, False]
    assert common_subset([1.0, NAN, 3.0, 4.0], [None, 2, 3, 4], [A, A, "tie", A]).tolist() == [False, False, True, True]


def test_paired_bootstrap_on_common_subset_by_hand():
    # common subset: items 0 and 1 (item 2 missing in A, item 3 missing in B)
    # A: errors 0, 1 -> MSE .5 ; B: errors 1, 1 -> MSE 1 ; difference -.5 on n = 2
    gold = [6, 6, 6, 6]
    r = paired_bootstrap(stage_mse, ([6, 7, NAN, 8], gold), ([7, 5, 7, NAN], gold), n_resamples=200, seed=0)
    assert (r.value_a, r.value_b, r.difference, r.n) == (0.5, 1.0, -0.5, 2)
    # identical arms: every resampled difference is 0 -> interval [0, 0], p = 1
    same = paired_bootstrap(stage_mse, ([6, 7], gold[:2]), ([6, 7], gold[:2]), n_resamples=100, seed=0)
    assert (same.low, same.high, same.p_value) == (0.0, 0.0, 1.0)


def test_paired_bootstrap_detects_a_clear_difference():
    rng = np.random.default_rng(0)
    gold = rng.uniform(4, 8, size=60)
    good = gold + rng.normal(0, 0.5, size=60)
    bad = gold + rng.normal(0, 2.0, size=60)
    r = paired_bootstrap(stage_mse, (good, gold), (bad, gold), match_ids=np.repeat(np.arange(20), 3), n_resamples=500, seed=0)
    assert r.difference < 0 and r.high < 0 and r.p_value < 0.01 and r.n_matches == 20


# ---------------------------------------------------------------------------------------------
# the batched bootstrap gives the numbers of one call per resample, bit for bit


def _scores(rng, n):
    """Means of three integer judge scores (k/3, many ties), with a few missing."""
    x = rng.integers(3, 31, size=n) / 3.0
    x[rng.random(n) < 0.1] = np.nan
    return x


def _votes(rng, m):
    """Vote vectors of 4 or 8 debaters summing to 9, with a missing one, an all-zero one and fractional uniform votes."""
    out = []
    for i in range(m):
        k = 8 if i % 3 else 4
        v = np.bincount(rng.integers(0, k, size=9), minlength=k).astype(float)
        out.append(v)
    out[1] = None
    out[2] = np.zeros(len(out[2]))
    out[4] = np.full(len(out[4]), 9 / len(out[4]))
    return out


def _metric_cases(rng):
    """(metric, arrays, match ids or None) for every metric with a batched form."""
    from adjudicator.evaluation import metrics as M

    n_units, n_matches = 57, 9
    ids = [f"m{i}" for i in sorted(rng.integers(0, n_matches, size=n_units))]
    ids[3], ids[40] = ids[40], ids[3]  # one match's items not side by side
    x, y = _scores(rng, n_units), _scores(rng, n_units)
    pa, pn, ha, hn = (_scores(rng, n_units) for _ in range(4))
    p = np.round(rng.random(23), 2)
    p[[2, 7]] = [np.nan, 0.5]
    gold = [[A, N, "tie", None][i] for i in rng.integers(0, 4, size=23)]
    votes_p, votes_h = _votes(rng, 17), _votes(rng, 17)
    return [
        (M.winner_accuracy, [p, gold], None),
        (brier_score, [p, gold], None),
        (M.stage_mse, [x, y], ids),
        (M.stage_pearson, [x, y], ids),
        (M.stage_spearman, [x, y], ids),
        (M.stage_spearman, [x, y], None),
        (M.tendency_all_pairs, [pa, pn, ha, hn], ids),
        (M.tendency_non_tie, [pa, pn, ha, hn], ids),
        (M.best_debater_top1, [votes_p, votes_h], None),
        (M.vote_share_mae, [votes_p, votes_h], None),
        (M.vote_share_pearson, [votes_p, votes_h], None),
        (M.vote_share_spearman, [votes_p, votes_h], None),
    ]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batched_bootstrap_equals_one_call_per_resample_exactly(seed):
    from adjudicator.evaluation import resampling as R
    from adjudicator.evaluation.uncertainty import BATCHED, _clusters, _draw

    rng = np.random.default_rng(100 + seed)
    cases = _metric_cases(rng)
    assert {c[0] for c in cases} == set(BATCHED)  # every batched form is checked
    for metric, arrays, ids in cases:
        n = len(arrays[0])
        clusters = _clusters(ids, n)
        res = R.Resamples(_draw(clusters, n, 300, np.random.default_rng(seed)), clusters, n)
        batched = R.evaluate(metric, arrays, res, BATCHED)
        looped = R.evaluate_each(metric, arrays, res)
        assert np.isfinite(looped).sum() > 100, metric.__name__  # mostly defined, so the comparison means something
        # NaN in the same places, every other value identical to the last bit
        assert np.array_equal(batched, looped, equal_nan=True), metric.__name__


def test_batched_bootstrap_interval_equals_the_loop_interval():
    # The same seed gives the same draw (one (R, M) draw is the R draws of M in a row), so the
    # batched interval and a loop over resamples agree exactly.
    from adjudicator.evaluation import resampling as R
    from adjudicator.evaluation.metrics import stage_spearman

    rng = np.random.default_rng(7)
    x, y = _scores(rng, 40), _scores(rng, 40)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    ids = [f"m{i // 4}" for i in range(x.size)]
    ci = bootstrap_ci(stage_spearman, x, y, match_ids=ids, n_resamples=500, seed=3)
    g = np.random.default_rng(3)
    groups: dict[str, list[int]] = {}
    for i, m in enumerate(ids):
        groups.setdefault(m, []).append(i)
    clusters = list(groups.values())
    vals = []
    for _ in range(500):
        idx = np.concatenate([clusters[c] for c in g.integers(0, len(clusters), size=len(clusters))])
        vals.append(stage_spearman(x[idx], y[idx]).value)
    v = np.array(vals)
    v = v[np.isfinite(v)]
    lo, hi = np.quantile(v, [0.025, 0.975])
    assert (ci.low, ci.high, ci.n_valid) == (float(lo), float(hi), v.size)
    res = R.Resamples(np.array([[1, 0], [0, 0]]), [np.array([0, 2]), np.array([1])], 3)
    assert [s.tolist() for s in res.item_sequences()] == [[1, 0, 2], [0, 2, 0, 2]]
