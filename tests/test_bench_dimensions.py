"""Bench per-dimension scoring (issue 13): winner accuracy per gold dimension with ties excluded and
counted, the structural baselines, the common subset, the overall decision derived from the
dimensions against the direct winner, and the correlation's not-applicable reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from adjudicator.bench.results import SampleResult
from adjudicator.bench.scoring.dimensions import NO_SCORES, dimension_predictions, dimension_tables, gold_dimensions
from adjudicator.bench.scoring.leaves import ScoreSettings
from adjudicator.input.match import Match
from adjudicator.input.match_file import load_match

BUNDLED = sorted((Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench").glob("*.json"))
ST = ScoreSettings(n_bootstrap=0, seed=0)


def _matches(dims: list[dict], outcomes: list[str], scores: list[dict] | None = None) -> list[Match]:
    out = []
    for i, (path, d, o) in enumerate(zip(BUNDLED, dims, outcomes)):
        data = load_match(path).model_dump(mode="json")
        data["labels"] = {"outcome": o, "dimensions": d, **({"dimension_scores": scores[i]} if scores else {})}
        out.append(Match.model_validate(data))
    return out


def _result(m: Match, arm: str, winners: dict[str, str | None], p: float, decision: str | None, means: dict | None = None) -> SampleResult:
    dims = [
        {"dimension": g, "name": g, "kind": "subjective", "weight": 1.0, "gold": g, "assessed": w is not None, "winner": w, "mean_scores": (means or {}).get(g, {})}
        for g, w in winners.items()
    ]
    verdict = {"match_id": m.match_id, "p": p, "winner": "affirmative" if p > 0.5 else "negative", "dimensions": dims, "dimension_decision": {"rubric": "debateart", "rule": "weighted_points", "points": {}, "winner": decision}}
    return SampleResult(sample_id=m.match_id, arm=arm, sample_sha256="0" * 64, status="ok", verdict=verdict)


GOLD_DIMS = [
    {"argument": "affirmative", "source": "tie"},
    {"argument": "negative", "source": "negative"},
    {"argument": "negative", "source": "tie"},
    {"argument": "tie", "source": "affirmative"},
    {"argument": "affirmative", "source": "affirmative"},
]
OUTCOMES = ["affirmative", "negative", "negative", "affirmative", "tie"]


@pytest.fixture
def scored() -> dict:
    ms = _matches(GOLD_DIMS, OUTCOMES)
    # arm A: argument aff, neg, tie, aff, neg; source neg, neg, (not assessed), aff, aff
    a = {
        ms[0].match_id: _result(ms[0], "a", {"argument": "affirmative", "source": "negative"}, 0.7, "affirmative"),
        ms[1].match_id: _result(ms[1], "a", {"argument": "negative", "source": "negative"}, 0.3, "negative"),
        ms[2].match_id: _result(ms[2], "a", {"argument": "tie", "source": None}, 0.6, "tie"),
        ms[3].match_id: _result(ms[3], "a", {"argument": "affirmative", "source": "affirmative"}, 0.4, "affirmative"),
        ms[4].match_id: _result(ms[4], "a", {"argument": "negative", "source": "affirmative"}, 0.6, "negative"),
    }
    # arm B has no result for the last match (failed sample: unparsed everywhere)
    b = {m.match_id: _result(m, "b", {"argument": "negative", "source": "negative"}, 0.2, "negative") for m in ms[:4]}
    return {"matches": ms, "out": dimension_tables(ms, {"a": a, "b": b}, {"a": "arm A", "b": "arm B"}, ST)}


def _row(rows: list[dict], name: str) -> dict:
    return next(r for r in rows if r["predictor"] == name)["metrics"]["winner_accuracy"]


def test_argument_accuracy_ties_excluded_and_counted(scored) -> None:
    t = scored["out"]["dimensions"]["argument"]
    # gold argument: aff, neg, neg, tie, aff -> 4 decisive (match 4 is a gold tie, excluded and counted)
    assert (t["n_decisive"], t["n_gold_ties"], t["gold_balance"]) == (4, 1, {"affirmative": 2, "negative": 2, "tie": 1})
    # arm A on the decisive four: aff (ok), neg (ok), tie (counts as wrong), neg vs aff (wrong) -> 2 / 4
    a = _row(t["rows"], "arm A")
    assert (a["value"], a["n"]) == (0.5, 4)
    assert t["per_arm"]["a"] == {"predicted_ties": 1, "unparsed": 0}
    # arm B: neg everywhere on its four matches; decisive among them: aff, neg, neg -> 2 / 3; the fifth is unparsed
    b = _row(t["rows"], "arm B")
    assert (b["value"], b["n"]) == (pytest.approx(2 / 3), 3) and t["per_arm"]["b"]["unparsed"] == 1
    # baselines on the four decisive: always negative 2/4, always affirmative 2/4, each with its exact expectation
    neg = next(r for r in t["rows"] if r["predictor"] == "always negative")
    assert neg["metrics"]["winner_accuracy"]["value"] == 0.5 and neg["expected"] == {"winner_accuracy": 0.5}
    assert {r["predictor"] for r in t["rows"]} == {"arm A", "arm B", "always affirmative", "always negative", "random"}
    # common subset: matches both arms predicted (the first four) with a decisive gold: 3
    cs = t["common_subset"]
    assert cs["n"] == 3 and _row(cs["rows"], "arm A")["value"] == pytest.approx(2 / 3)  # aff ok, neg ok, tie wrong


def test_source_not_assessed_is_unparsed(scored) -> None:
    t = scored["out"]["dimensions"]["source"]
    # gold source: tie, neg, tie, aff, aff -> decisive matches 2, 4, 5; arm A: neg (ok), aff (ok), aff (ok) -> 3 / 3
    assert t["n_decisive"] == 3 and t["n_gold_ties"] == 2
    assert (_row(t["rows"], "arm A")["value"], _row(t["rows"], "arm A")["n"]) == (1.0, 3)
    assert t["correlation"] == {"applicable": False, "reason": f"not applicable: {NO_SCORES}"}


def test_decision_from_dimensions_against_direct_winner(scored) -> None:
    d = scored["out"]["decision"]
    # gold outcome aff, neg, neg, aff, tie -> 4 decisive. Arm A direct p: .7 ok, .3 ok, .6 wrong, .4 wrong -> 0.5;
    # derived: aff ok, neg ok, tie wrong, aff ok -> 0.75 (match 5 is a gold tie)
    assert d["n_decisive"] == 4
    assert _row(d["rows"], "arm A · direct winner")["value"] == 0.5
    assert _row(d["rows"], "arm A · decision from dimensions (weighted_points)")["value"] == 0.75
    # gold dimensions by debateart points (argument 3, source 2; no language label):
    # m1 aff 3 -> aff ok; m2 neg 5 -> neg ok; m3 neg 3 -> ok; m4 source aff 2 -> aff ok -> 4 / 4 (m5 gold tie)
    ref = next(r for r in d["rows"] if r["predictor"] == "gold dimensions → debateart points")
    assert ref["comparable"] is False and ref["metrics"]["winner_accuracy"]["value"] == 1.0 and ref["rank"] is None


def test_correlation_where_human_scores_exist() -> None:
    scores = [{"argument": {"affirmative": 1.0, "negative": 2.0}}, {"argument": {"affirmative": 3.0, "negative": 4.0}}]
    ms = _matches(GOLD_DIMS[:2], OUTCOMES[:2], scores)
    means = [{"argument": {"affirmative": 2.0, "negative": 4.0}}, {"argument": {"affirmative": 6.0, "negative": 8.0}}]
    res = {m.match_id: _result(m, "a", {"argument": "negative"}, 0.3, "negative", means[i]) for i, m in enumerate(ms)}
    corr = dimension_tables(ms, {"a": res}, {"a": "A"}, ST)["dimensions"]["argument"]["correlation"]
    # predicted 2, 4, 6, 8 against human 1, 2, 3, 4: a linear map, r = 1 and rho = 1 over 4 (match, side) pairs
    assert corr["applicable"] and corr["n_pairs"] == 4
    assert corr["arms"]["a"]["pearson"]["value"] == pytest.approx(1.0) and corr["arms"]["a"]["spearman"]["value"] == pytest.approx(1.0)


def test_no_dimension_labels_no_section() -> None:
    ms = [load_match(p) for p in BUNDLED]
    plain = [Match.model_validate({**m.model_dump(mode="json"), "labels": {"outcome": "affirmative"}}) for m in ms]
    assert gold_dimensions(plain) == [] and dimension_tables(plain, {}, {}, ST) is None
    assert gold_dimensions(ms) == ["argument", "language", "source"]
    # a verdict without dimensions (the ccdb rubric) predicts nothing
    r = SampleResult(sample_id=ms[0].match_id, arm="a", sample_sha256="0" * 64, status="ok", verdict={"p": 0.7})
    assert np.isnan(dimension_predictions(ms[:1], {ms[0].match_id: r}, "argument")).all()


def test_one_interval_for_the_direct_winner_accuracy() -> None:
    # The direct winner's accuracy is Task 1's statistic: the decision table gives it the same interval as
    # the winner table (both resample only the matches with a decisive gold; the gold tie of match 5 is no
    # instance). Before, the decision table resampled the tie too and printed a second, different interval.
    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.scoring.winner import task1_metrics

    st = ScoreSettings(n_bootstrap=500, seed=3)
    ms = _matches(GOLD_DIMS, OUTCOMES)
    ps = [0.7, 0.3, 0.6, 0.4, 0.6]
    a = {m.match_id: _result(m, "a", {"argument": "affirmative", "source": "negative"}, p, "affirmative") for m, p in zip(ms, ps)}
    d = dimension_tables(ms, {"a": a}, {"a": "arm A"}, st)
    assert d is not None
    direct = _row(d["decision"]["rows"], "arm A · direct winner")
    gold = gold_from_matches(ms)
    task1 = task1_metrics(np.array(ps), gold, np.ones(len(ms), bool), st)["winner_accuracy"]
    assert (direct["value"], direct["n"]) == (task1["value"], task1["n"]) == (0.5, 4)
    assert direct["ci"] is not None and direct["ci"] == task1["ci"]
