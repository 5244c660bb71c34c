"""One statistic, one interval (issue 42, item 4): the scoring resamples the matches in the order of
their sample ids, so the same predictions given in another order (a dataset's file order, a pooled
report's fold order) get the same bootstrap intervals and the same seeded baseline draws.

Data: twelve online-1v1 matches m01..m12 with audience outcomes (odd i affirmative, even negative);
the arm's p is 0.8 for i <= 8 and 0.3 above, so it is right on m01, m03, m05, m07 (affirmative, p 0.8),
m10, m12 (negative, p 0.3) and wrong on the other six: accuracy 6/12 = 0.5; Brier (4 x 0.2² + 4 x 0.8²
+ 2 x 0.7² + 2 x 0.3²) / 12 = 3.88 / 12.
"""

from __future__ import annotations

import numpy as np
from bench_helpers import online

from adjudicator.bench.results import SampleResult
from adjudicator.bench.scoring.leaves import ScoreSettings
from adjudicator.bench.scoring.run import score_run
from adjudicator.evaluation import metrics as M
from adjudicator.evaluation import uncertainty as S

ST = ScoreSettings(n_bootstrap=400, seed=3)


def _data():
    ms = [online(i, "affirmative" if i % 2 else "negative") for i in range(1, 13)]
    res = {m.match_id: SampleResult(sample_id=m.match_id, arm="agentic", sample_sha256="x", status="ok", verdict={"match_id": m.match_id, "p": 0.8 if i <= 8 else 0.3})
           for i, m in enumerate(ms, start=1)}  # fmt: skip
    return ms, {"agentic": res}


def _intervals(out):
    rows = {r["predictor"]: r["metrics"]["winner_accuracy"] for r in out["tasks"]["task1"]["rows"]}
    return {k: (v["value"], v["ci"]["low"], v["ci"]["high"]) for k, v in rows.items()}, out["calibration"]["agentic"]["brier"]


def test_canonical_order_is_by_sample_id():
    from adjudicator.bench.scoring.run import canonical_order

    ms, _ = _data()
    assert [m.match_id for m in canonical_order(ms[::-1])] == [f"m{i:02d}" for i in range(1, 13)]


def test_the_same_predictions_in_another_order_get_the_same_intervals():
    ms, res = _data()
    a = score_run(ms, res, {"agentic": "agentic"}, ST)
    shuffled = [ms[k] for k in (7, 2, 11, 0, 5, 9, 1, 4, 10, 3, 8, 6)]
    b = score_run(shuffled, res, {"agentic": "agentic"}, ST)
    c = score_run(ms[::-1], res, {"agentic": "agentic"}, ST)
    assert _intervals(a) == _intervals(b) == _intervals(c)  # the random baseline's draws too
    rows, brier = _intervals(a)
    assert rows["agentic"][0] == 0.5
    # worked independently: the bootstrap of the id-ordered arrays with the run's seed
    p = np.array([0.8] * 8 + [0.3] * 4)
    gold = ["affirmative" if i % 2 else "negative" for i in range(1, 13)]
    want = S.bootstrap_ci(M.winner_accuracy, p, gold, n_resamples=400, seed=3)
    assert rows["agentic"][1:] == (want.low, want.high)
    # the Brier score resamples its own instances (the decisive matches), as the fold and pooled reports do
    want_b = S.bootstrap_ci(S.brier_score, p, gold, n_resamples=400, seed=3)
    assert abs(brier["value"] - (4 * 0.2**2 + 4 * 0.8**2 + 2 * 0.7**2 + 2 * 0.3**2) / 12) < 1e-12
    assert (brier["ci"]["low"], brier["ci"]["high"]) == (want_b.low, want_b.high)
