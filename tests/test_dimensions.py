"""Per-dimension judging (issue 13): a judge's votes from stage ratings, the panel's per-dimension
results, the decisions the rubrics derive from them, and the offline judge end to end."""

from __future__ import annotations

import json
from pathlib import Path

from adjudicator.cli import main
from adjudicator.input.rubric import load_rubric
from adjudicator.verdict.dimensions import NO_EVIDENCE, DimensionRating, DimensionResult, DimensionVote, dimension_decision, panel_dimensions, votes_from_ratings

MATCHES = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches"
REAL = MATCHES / "panelbench" / "debateart_4395.json"


def R(dim: str, score: float | None, checked: int = 0, passed: int = 0) -> DimensionRating:
    return DimensionRating(dimension=dim, score=score, checked=checked, passed=passed)


def test_votes_average_ratings_and_pool_objective_counts() -> None:
    ins = load_rubric("inspire")  # tie_margin 0.02 on the unit scale = 0.18 points on 1-10
    ratings = {
        "affirmative": [R("emotional_appeal", 6), R("emotional_appeal", 8), R("logical_validity", 0.5, 2, 1), R("logical_validity", 1.0, 2, 2), R("argument_clarity", 5)],
        "negative": [R("emotional_appeal", 7.1), R("logical_validity", 0.0, 4, 0), R("logical_validity", None, 0, 0), R("argument_clarity", 5.1)],
    }
    votes = {v.dimension: v for v in votes_from_ratings(ins, ratings)}
    # emotional appeal: aff mean (6 + 8) / 2 = 7.0, neg 7.1: 0.1 points = 0.011 on [0, 1] <= 0.02 -> tie
    assert votes["emotional_appeal"].scores == {"affirmative": 7.0, "negative": 7.1} and votes["emotional_appeal"].winner == "tie"
    # logical validity pooled: aff (1 + 2) / (2 + 2) = 0.75, neg 0 / 4 = 0 -> affirmative
    assert votes["logical_validity"].scores == {"affirmative": 0.75, "negative": 0.0} and votes["logical_validity"].winner == "affirmative"
    # clarity 5 vs 5.1 is a tie; relevance has no ratings on either side: not assessed
    assert votes["argument_clarity"].winner == "tie"
    assert votes["topic_relevance"].winner is None and votes["topic_relevance"].scores == {}
    # fact authenticity: no ratings at all -> not assessed with a reason, never a score
    assert votes["fact_authenticity"].winner is None and votes["fact_authenticity"].note.startswith("not assessed")


def test_no_evidence_is_not_assessed_in_the_panel_and_out_of_the_decision() -> None:
    ins = load_rubric("inspire")
    vote = DimensionVote(dimension="fact_authenticity", note=NO_EVIDENCE)
    results = panel_dimensions(ins, {"judge-1": [vote], "judge-2": [vote], "judge-3": [vote]})
    fa = next(r for r in results if r.dimension == "fact_authenticity")
    assert fa.assessed is False and fa.winner is None and fa.mean_scores == {} and fa.note == NO_EVIDENCE
    # nothing assessed at all: the decision has no winner
    assert dimension_decision(ins, results).winner is None


def test_panel_majority_split_and_means() -> None:
    da = load_rubric("debateart")

    def V(dim, a, n, w):
        return DimensionVote(dimension=dim, scores={"affirmative": a, "negative": n}, winner=w)

    votes = {
        "judge-1": [V("argument", 7, 5, "affirmative"), V("source", 3, 3, "tie"), V("language", 8, 6, "affirmative")],
        "judge-2": [V("argument", 6, 6, "tie"), V("source", 2, 6, "negative"), V("language", 7, 9, "negative")],
        "judge-3": [V("argument", 8, 4, "affirmative"), V("source", 1, 5, "negative")],  # judge-3 did not vote on language
    }
    res = {r.dimension: r for r in panel_dimensions(da, votes)}
    # argument: affirmative 2, tie 1 -> affirmative "2-0-1"; means aff (7+6+8)/3 = 7.0, neg (5+6+4)/3 = 5.0
    assert (res["argument"].winner, res["argument"].split, res["argument"].mean_scores) == ("affirmative", "2-0-1", {"affirmative": 7.0, "negative": 5.0})
    # source: negative 2, tie 1 -> negative; means aff 2.0, neg 4.667
    assert (res["source"].winner, res["source"].split, res["source"].mean_scores) == ("negative", "0-2-1", {"affirmative": 2.0, "negative": 4.667})
    # language: one each from two judges -> no outcome leads -> tie "1-1-0"
    assert (res["language"].winner, res["language"].split) == ("tie", "1-1-0")
    # debateart points: argument (3) to aff, source (2) to neg, language tied -> 3 : 2, affirmative
    dd = dimension_decision(da, list(res.values()))
    assert dd.points == {"affirmative": 3.0, "negative": 2.0} and dd.winner == "affirmative" and dd.rule == "weighted_points"


def test_debateart_points_can_tie() -> None:
    da = load_rubric("debateart")

    def Res(dim, w, weight):
        return DimensionResult(dimension=dim, name=dim, kind="subjective", weight=weight, assessed=True, winner=w)

    # arguments (3) to the negative, sources (2) and language (1) to the affirmative: 3 : 3 -> tie
    dd = dimension_decision(da, [Res("argument", "negative", 3), Res("source", "affirmative", 2), Res("language", "affirmative", 1)])
    assert dd.points == {"affirmative": 3.0, "negative": 3.0} and dd.winner == "tie"


def test_inspire_weighted_mean_decision() -> None:
    ins = load_rubric("inspire")

    def Res(dim, a, n):
        return DimensionResult(dimension=dim, name=dim, kind="x", weight=1, assessed=True, winner="tie", mean_scores={"affirmative": a, "negative": n})

    # units: emotional appeal (7-1)/9 = 0.6667 vs (4-1)/9 = 0.3333; logical validity 0.5 vs 0.9
    # aff mean (0.6667 + 0.5) / 2 = 0.5833, neg (0.3333 + 0.9) / 2 = 0.6167 -> negative
    dd = dimension_decision(ins, [Res("emotional_appeal", 7, 4), Res("logical_validity", 0.5, 0.9)])
    assert dd.points == {"affirmative": 0.5833, "negative": 0.6167} and dd.winner == "negative"


def _run(args, capsys):
    code = main(list(map(str, args)))
    out, err = capsys.readouterr()
    return code, out, err


def test_offline_debateart_verdict_on_a_bundled_match(capsys) -> None:
    code, out, err = _run([REAL, "--rubric", "debateart"], capsys)
    assert code == 0
    v = json.loads(out)
    assert v["rubric"] == "debateart" and [d["dimension"] for d in v["dimensions"]] == ["argument", "source", "language"]
    # debateart_4395 posts no link and names no source on either side: both get the scale minimum 1,
    # so every judge calls sources a tie
    src = v["dimensions"][1]
    assert src["mean_scores"] == {"affirmative": 1.0, "negative": 1.0} and src["winner"] == "tie" and src["split"] == "0-0-3"
    # every ballot carries a vote per dimension; every stage's side analysis has the three ratings
    assert all([d["dimension"] for d in b["dimensions"]] == ["argument", "source", "language"] for b in v["ballots"])
    assert v["dimension_decision"]["rule"] == "weighted_points" and v["dimension_decision"]["winner"] in ("affirmative", "negative", "tie")
    assert "dimensions (debateart): argument " in err and "decision" in err


def test_offline_inspire_verdict_reports_fact_authenticity_not_assessed(capsys) -> None:
    code, out, err = _run([REAL, "--rubric", "inspire"], capsys)
    assert code == 0
    v = json.loads(out)
    assert len(v["dimensions"]) == 6
    fa = v["dimensions"][-1]
    assert fa["dimension"] == "fact_authenticity" and fa["assessed"] is False and fa["note"] == NO_EVIDENCE and "winner" not in fa or fa["winner"] is None
    assert "fact_authenticity not assessed" in err
    # the decision averages the five assessed dimensions only
    assert set(v["dimension_decision"]["points"]) == {"affirmative", "negative"}


def test_ccdb_rubric_leaves_the_verdict_as_it_was(capsys) -> None:
    _, plain, _ = _run([REAL], capsys)
    _, ccdb, _ = _run([REAL, "--rubric", "ccdb"], capsys)
    assert plain == ccdb and '"dimensions"' not in plain and '"rubric"' not in plain
