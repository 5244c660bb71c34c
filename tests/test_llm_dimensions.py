"""Dimensional judging through the real LLM client and the loopback server (issue 13): the tracker is
asked for dimension scores (and, under inspire, arguments and claims), the judges vote per
dimension, and the verdict carries the panel's per-dimension results; objective dimensions are
counted by code, and fact authenticity is checked against the evidence source, not by the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fake_openai import fake_openai  # noqa: F401  (pytest fixture)

from adjudicator.cli import main

REAL = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_4395.json"

#: Tracker scores per side (affirmative higher on argument, negative on language; source equal).
TRACKER = {"affirmative": {"argument": 8, "source": 4, "language": 5, "emotional_appeal": 6}, "negative": {"argument": 5, "source": 4, "language": 9, "emotional_appeal": 6}}


def _schema(body: dict[str, Any]) -> dict[str, Any]:
    rf = body.get("response_format") or {}
    return rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}


def responder(body: dict[str, Any]) -> str:
    """Answers read off the request's schema: a tracker entry per side with its dimension scores,
    two arguments (one valid) and one claim; a ballot with a vote per subjective dimension."""
    from llm_helpers import ballot_json, schema_responder, side_debaters_of, tracker_json

    props = _schema(body)["properties"]
    if "sides" in props:
        sides = list(props["sides"]["properties"])  # the exact schema: one required key per evaluated side
        item = props["sides"]["properties"][sides[0]]["properties"]
        out = json.loads(tracker_json(sides, side_debaters_of(props, body)))
        keys = item["dimension_scores"]["required"] if "dimension_scores" in item else []  # one required key per dimension
        for entry in out["sides"]:
            s = entry["side"]
            entry["dimension_scores"] = {k: {"note": "scripted", "score": TRACKER[s].get(k, 5)} for k in keys}
            if "arguments" in item:
                entry["arguments"] = [
                    {"premises": "robots do chores", "inference": "fewer chores", "conclusion": "more free time", "valid": True},
                    {"premises": "robots exist", "inference": "jump", "conclusion": "everyone is happy", "valid": s == "affirmative"},
                ]
            if "claims" in item:
                entry["claims"] = ["Robots will replace many factory jobs in the next decade."]
        return json.dumps(out)
    units = [tuple(k.split("|")) for k in props["stage_scores"]["properties"]]  # "<stage_id>|<side>" keys
    labels = props["best_debater_votes"]["items"]["enum"]
    out = json.loads(ballot_json(units, votes={labels[0]: 2, labels[-1]: 1}))
    if "feedback" in props:  # the coach's feedback, as the plain responder writes it
        out["feedback"] = json.loads(schema_responder(body))["feedback"]
    if "dimension_votes" in props:
        keys = props["dimension_votes"]["required"]
        out["dimension_votes"] = {
            k: {"affirmative": TRACKER["affirmative"].get(k, 5), "negative": TRACKER["negative"].get(k, 5), "winner": "tie" if k in ("source", "emotional_appeal") else ("affirmative" if TRACKER["affirmative"].get(k, 5) > TRACKER["negative"].get(k, 5) else "negative")}
            for k in keys
        }
    return json.dumps(out)


def _run(server, tmp_path: Path, capsys, *extra: str) -> tuple[int, dict, str]:
    server.respond_with(responder)
    args = [str(REAL), "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "schema", "--cache-dir", str(tmp_path / "cache"), *extra]
    code = main(args)
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


def test_debateart_through_the_loopback_model(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    code, v, err = _run(fake_openai, tmp_path, capsys, "--rubric", "debateart")
    assert code == 0, err
    trackers = [b for b in fake_openai.requests if "sides" in _schema(b)["properties"]]
    judges = [b for b in fake_openai.requests if "stage_scores" in _schema(b)["properties"]]
    assert len(trackers) == 4 and len(judges) == 3
    # the tracker's prompt names the rubric's dimensions and asks for their scores
    assert 'judged on the dimensions of the "debateart" rubric' in trackers[0]["messages"][0]["content"]
    res = {d["dimension"]: d for d in v["dimensions"]}
    # every judge: argument to the affirmative (8 vs 5), source a tie, language to the negative (5 vs 9)
    assert (res["argument"]["winner"], res["argument"]["split"]) == ("affirmative", "3-0-0")
    assert res["source"]["winner"] == "tie" and res["language"]["winner"] == "negative"
    assert res["argument"]["mean_scores"] == {"affirmative": 8.0, "negative": 5.0} and res["argument"]["gold"] == "argument"
    # points: argument 3 to the affirmative, language 1 to the negative -> affirmative 3 : 1
    assert v["dimension_decision"] == {"rubric": "debateart", "rule": "weighted_points", "points": {"affirmative": 3.0, "negative": 1.0}, "winner": "affirmative"}
    # each stage analysis of the side it evaluates carries the tracker's three ratings (via the judge's ballots)
    assert all({d["dimension"] for d in b["dimensions"]} == {"argument", "source", "language"} for b in v["ballots"])
    assert "dimensions (debateart): argument affirmative 3-0-0" in err


def test_inspire_objective_dimensions_are_counted_by_code(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    code, v, err = _run(fake_openai, tmp_path, capsys, "--rubric", "inspire")
    assert code == 0, err
    res = {d["dimension"]: d for d in v["dimensions"]}
    # logical validity: affirmative 2 of 2 valid per stage, negative 1 of 2 -> pooled 1.0 vs 0.5 -> affirmative
    assert res["logical_validity"]["mean_scores"] == {"affirmative": 1.0, "negative": 0.5} and res["logical_validity"]["winner"] == "affirmative"
    # no evidence source: the tracker is not asked for claims and the dimension is not assessed
    trackers = [b for b in fake_openai.requests if "sides" in _schema(b)["properties"]]
    assert all("claims" not in entry["properties"] for entry in _schema(trackers[0])["properties"]["sides"]["properties"].values())
    assert res["fact_authenticity"]["assessed"] is False and res["fact_authenticity"]["note"].startswith("not assessed: no evidence source")
    # judges vote on the four subjective dimensions only
    judge = next(b for b in fake_openai.requests if "stage_scores" in _schema(b)["properties"])
    assert _schema(judge)["properties"]["dimension_votes"]["required"] == ["emotional_appeal", "argument_clarity", "argument_arrangement", "topic_relevance"]


def test_inspire_claims_checked_against_the_evidence_folder(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "facts.md").write_text("Robots will replace many factory jobs in the next decade, a labour report says.\n", encoding="utf-8")
    code, v, err = _run(fake_openai, tmp_path, capsys, "--rubric", "inspire", "--evidence", str(pack))
    assert code == 0, err
    fa = next(d for d in v["dimensions"] if d["dimension"] == "fact_authenticity")
    # each side's one claim per stage is in the pack (all its terms) -> 1.0 for both -> a tie
    assert fa["assessed"] and fa["mean_scores"] == {"affirmative": 1.0, "negative": 1.0} and fa["winner"] == "tie"


def single_call_responder(body: dict[str, Any]) -> str:
    """The single-call arm's tasks, plus its per-dimension task (argument to the affirmative 7 vs 4,
    source tie, language 6 vs 8; under inspire 3 of 4 valid arguments against 1 of 2)."""
    from llm_helpers import schema_responder

    props = _schema(body).get("properties", {})
    if "basis" in props and ("dimensions" in props or "logical_validity" in props):
        keys = props["dimensions"]["items"]["properties"]["dimension"]["enum"] if "dimensions" in props else []
        table = {"argument": (7, 4, "affirmative"), "source": (3, 3, "tie"), "language": (6, 8, "negative")}
        out: dict[str, Any] = {"basis": "scripted", "dimensions": [{"dimension": k, "affirmative": table.get(k, (5, 5))[0], "negative": table.get(k, (5, 5))[1], "winner": table.get(k, (5, 5, "tie"))[2]} for k in keys]}
        if "logical_validity" in props:
            out["logical_validity"] = {"affirmative": {"arguments": 4, "valid": 3}, "negative": {"arguments": 2, "valid": 1}}
        return json.dumps(out)
    return schema_responder(body)


def _run_single_call(server, tmp_path: Path, capsys, rubric: str) -> tuple[int, str, str]:
    server.respond_with(single_call_responder)
    args = [str(REAL), "--arm", "single-call", "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "schema", "--cache-dir", str(tmp_path / "cache"), "--rubric", rubric]
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_single_call_arm_gets_the_per_dimension_task(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    code, out, err = _run_single_call(fake_openai, tmp_path, capsys, "debateart")
    assert code == 0, err
    v = json.loads(out)
    dim_requests = [b for b in fake_openai.requests if "basis" in _schema(b).get("properties", {}) and "dimensions" in _schema(b)["properties"]]
    assert len(dim_requests) == 1  # one request over the whole transcript
    res = {d["dimension"]: d for d in v["dimensions"]}
    assert (res["argument"]["winner"], res["argument"]["judge_winners"]) == ("affirmative", {"single-call": "affirmative"})
    assert res["source"]["winner"] == "tie" and res["language"]["winner"] == "negative" and res["language"]["mean_scores"] == {"affirmative": 6.0, "negative": 8.0}
    # argument 3 to the affirmative, language 1 to the negative
    assert v["dimension_decision"]["points"] == {"affirmative": 3.0, "negative": 1.0}
    assert any(t["task"] == "dimensions" and t["ok"] for t in v["tasks"])


def test_single_call_inspire_counts_validity_and_reports_no_evidence(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    code, out, err = _run_single_call(fake_openai, tmp_path, capsys, "inspire")
    assert code == 0, err
    res = {d["dimension"]: d for d in json.loads(out)["dimensions"]}
    # 3/4 = 0.75 against 1/2 = 0.5 -> affirmative
    assert res["logical_validity"]["mean_scores"] == {"affirmative": 0.75, "negative": 0.5} and res["logical_validity"]["winner"] == "affirmative"
    assert res["fact_authenticity"]["assessed"] is False and res["fact_authenticity"]["note"].startswith("not assessed: no evidence source")


def test_dimension_fields_are_exact_and_both_vote_shapes_read_alike() -> None:
    """The dimension fields follow the exact-schema rule (one required key per rating dimension), and
    a judge's votes read the same from the schema's object shape and the older list shape."""
    from adjudicator.input.match import Match
    from adjudicator.input.rubric import load_rubric
    from adjudicator.judges.base import JudgeRequest
    from adjudicator.judges.llm.dimensions import answer_spec, ballot_answer_fields, read_ballot_dimensions, side_answer_fields
    from adjudicator.model.schema import output_model, response_schema

    rubric = load_rubric("debateart")
    spec = answer_spec(rubric)
    assert spec is not None and spec[0] == ("argument", "source", "language")
    side = response_schema(output_model("Side", **side_answer_fields(spec)))["properties"]["dimension_scores"]
    assert side["required"] == ["argument", "source", "language"] and side["additionalProperties"] is False
    votes = response_schema(output_model("Ballot", **ballot_answer_fields(spec)))["properties"]["dimension_votes"]
    assert votes["required"] == ["argument", "source", "language"]
    view = Match.model_validate_json(REAL.read_text(encoding="utf-8")).view()
    request = JudgeRequest(judge_id="judge-1", perspective="task", match=view, clashes={}, analyses=[], rubric=rubric)
    keyed = {"argument": {"affirmative": 8, "negative": 5, "winner": "affirmative"}, "source": {"affirmative": 4, "negative": 4, "winner": "tie"}, "language": {"affirmative": 5, "negative": 11, "winner": "negative"}}
    listed = [{"dimension": k, **v} for k, v in keyed.items()]
    a = read_ballot_dimensions({"dimension_votes": keyed}, request)
    assert a == read_ballot_dimensions({"dimension_votes": listed}, request)
    by = {v.dimension: v for v in a}
    # language 11 is above the debateart scale's top and is clamped to it when read
    top = next(d.scale_max for d in rubric.dimensions if d.key == "language")
    assert by["argument"].winner == "affirmative" and by["source"].winner == "tie" and by["language"].scores == {"affirmative": 5.0, "negative": top}
