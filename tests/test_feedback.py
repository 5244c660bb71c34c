"""Feedback per debater (issue 25, item 4): in the verdict schema, written by the LLM judges to an
exact schema (one required entry per debater, each point on a real stage and clash) and checked like
any field, derived by the offline judge from its features, one judge's chosen for the verdict, shown in
the reports, absent from the single-call arm, and counted by the bench (filled, grounded)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import feedback_for, online_match, schema_responder, tracker_json

from adjudicator.api import adjudicate, adjudicate_single_call
from adjudicator.cli.run import schema_document
from adjudicator.config import ModelConfig
from adjudicator.input.match_file import load_match
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.llm.ballot_recovery import read_feedback
from adjudicator.judges.llm.recovery import read_stage_analysis
from adjudicator.judges.offline.feedback import debater_feedback
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import parse_output
from adjudicator.model.validators import OutputInvalid
from adjudicator.verdict.ballots import Ballot, BallotScore
from adjudicator.verdict.battlefield import Clash, ClashEvent, SideAnalysis
from adjudicator.verdict.feedback import DebaterFeedback, FeedbackPoint, feedback_stats, panel_feedback, run_feedback_stats
from adjudicator.verdict.report import verdict_markdown

BUNDLED = Path(__file__).resolve().parents[1] / "adjudicator/data/matches"
VIEW = online_match().view()
LABELS = ["Affirmative Speaker 1", "Negative Speaker 1"]
CLASH = Clash(clash_id="c1", title="sleep against discipline", opened_in="s1",
              events=[ClashEvent(stage_id="s1", side="affirmative", kind="opened", debater="Affirmative Speaker 1"),
                      ClashEvent(stage_id="s2", side="negative", kind="advanced", debater="Negative Speaker 1")])


def judge_request(clashes: dict[str, Clash] | None = None) -> JudgeRequest:
    analyses = [
        parse_output(tracker_json(st.evaluated_sides()), validate=partial(read_stage_analysis, request=StageRequest(match=VIEW, stage=st, index=i))).value
        for i, st in enumerate(VIEW.stages)
    ]
    return JudgeRequest(judge_id="judge-1", perspective="task", match=VIEW, clashes=clashes if clashes is not None else {"c1": CLASH}, analyses=analyses)


def test_the_verdict_schema_has_feedback_per_debater():
    doc = schema_document("verdict")
    assert "feedback" in doc["properties"] and "feedback_from" in doc["properties"]
    defs = doc["$defs"]
    assert list(defs["DebaterFeedback"]["properties"]) == ["debater", "worked", "missed", "work_on"]
    # a point still invalid after its repair is dropped (issue 38), so only the debater is required
    assert set(defs["DebaterFeedback"]["required"]) == {"debater"}
    assert list(defs["FeedbackPoint"]["properties"]) == ["text", "stage_id", "clash_id"]
    assert "feedback" in defs["Ballot"]["properties"]


def test_an_llm_judges_feedback_is_read_and_checked_per_debater():
    good = feedback_for(LABELS, "s2", "c1")
    got = read_feedback(good, judge_request())
    assert [(f.debater, f.worked.stage_id, f.missed.clash_id) for f in got] == [("Affirmative Speaker 1", "s2", "c1"), ("Negative Speaker 1", "s2", "c1")]
    bad = json.loads(json.dumps(good))
    bad["Negative Speaker 1"]["missed"]["clash_id"] = "c9"  # no such clash in the ledger
    del bad["Affirmative Speaker 1"]  # a debater left out
    with pytest.raises(OutputInvalid) as info:
        read_feedback(bad, judge_request())
    assert info.value.fields == (("feedback", "Affirmative Speaker 1"), ("feedback", "Negative Speaker 1"))
    assert "feedback.Negative Speaker 1.missed.clash_id: 'c9' is not a clash of the ledger" in str(info.value)
    empty = json.loads(json.dumps(good))
    empty["Affirmative Speaker 1"]["work_on"]["text"] = " "
    with pytest.raises(OutputInvalid, match=r"feedback.Affirmative Speaker 1.work_on.text: empty"):
        read_feedback(empty, judge_request())


def test_a_judge_missing_one_debaters_feedback_is_asked_for_it_alone(fake_openai):
    answer = json.loads(schema_responder_for_judge())
    del answer["feedback"]["Negative Speaker 1"]
    fake_openai.push(json.dumps(answer), json.dumps({"feedback": {"Negative Speaker 1": feedback_for(["Negative Speaker 1"], "s4")["Negative Speaker 1"]}}))
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test-0123456789", json_mode="object")
    result = LLMBackend(client).judge(judge_request(clashes={}))
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "failed"), ("repair", "strict")]
    assert result.calls[1].repair_fields == ["feedback.Negative Speaker 1"]
    assert [(f.debater, f.worked.stage_id) for f in result.value.feedback] == [("Affirmative Speaker 1", "s1"), ("Negative Speaker 1", "s4")]


def schema_responder_for_judge() -> str:
    client = LLMClient("openai/test-model", api_base="http://127.0.0.1:9/v1", api_key="sk-test-0123456789", json_mode="object")
    chat = LLMBackend(client).judge_prompt(judge_request(clashes={}))
    return schema_responder({"response_format": {"schema": chat.schema}})


def rated(stage_id: str, side: str, task: str, battlefield: str, advancement: str, label: str) -> SideAnalysis:
    return SideAnalysis.rated(stage_id, side, None, task, battlefield, advancement, contributions={label: 1.0})


def test_the_offline_feedback_comes_from_the_features():
    # the affirmative's best unit is s1, where it opened c1; the negative pushed c1 in s2 and the
    # affirmative never came back to it (s3 has no c1 event); the affirmative's weakest unit is s3,
    # whose lowest level (on its own scale) is its advancement
    by_unit = {
        ("s1", "affirmative"): rated("s1", "affirmative", "perfect", "correct_important", "major", "Affirmative Speaker 1"),
        ("s2", "negative"): rated("s2", "negative", "well", "correct_important", "substantial", "Negative Speaker 1"),
        ("s3", "affirmative"): rated("s3", "affirmative", "well", "correct_secondary", "none", "Affirmative Speaker 1"),
        ("s4", "negative"): rated("s4", "negative", "well", "correct_important", "effective", "Negative Speaker 1"),
    }
    values = {("s1", "affirmative"): 8.5, ("s2", "negative"): 7.0, ("s3", "affirmative"): 5.0, ("s4", "negative"): 6.5}
    aff, neg = debater_feedback(judge_request(), by_unit, values)
    assert aff.debater == "Affirmative Speaker 1"
    assert (aff.worked.stage_id, aff.worked.clash_id) == ("s1", "c1")
    assert aff.worked.text == "Speech 1 was your strongest stage: there you raised the clash “sleep against discipline”."
    assert (aff.missed.stage_id, aff.missed.clash_id) == ("s3", "c1")
    assert aff.missed.text == "After the negative pushed forward the clash “sleep against discipline” in Speech 2, your side never came back to it, starting with Speech 3."
    assert (aff.work_on.stage_id, aff.work_on.clash_id) == ("s3", "")  # no clash moved in s3
    # "none" is the 6th of the 7 advancement levels (decisive, major, substantial, effective, attempt, none, counterproductive)
    assert aff.work_on.text.startswith("Work on moving your clashes forward") and aff.work_on.text.endswith("(the tracker's rating in Speech 3: no advancement, level 6 of 7 from the top).")
    # the negative answered everything after its moves: no unanswered attack, so its weakest advancement
    assert (neg.worked.stage_id, neg.worked.clash_id) == ("s2", "c1") and neg.missed.clash_id == ""
    # its weakest unit s4: well (1 of 3 steps down the task scale), correct_important (top), effective (3 of 6 steps
    # down): advancement, whose middle level reads as praise without its place on the scale
    assert neg.work_on.stage_id == "s4" and neg.work_on.text.endswith("level 4 of 7 from the top).")
    # a debater whose weakest unit is at the top of every scale is told to keep it, not to work on it
    top = by_unit | {("s3", "affirmative"): rated("s3", "affirmative", "perfect", "correct_important", "decisive", "Affirmative Speaker 1"),
                     ("s1", "affirmative"): rated("s1", "affirmative", "perfect", "correct_important", "decisive", "Affirmative Speaker 1")}
    aff, _ = debater_feedback(judge_request(), top, values)
    assert aff.work_on.stage_id == "s3"
    assert aff.work_on.text == "Keep the standard of Speech 3 in every stage: the tracker rated each of its measures at the top of its scale."


def ballot(judge_id: str, p: float, feedback_stage: str) -> Ballot:
    return Ballot(judge_id=judge_id, perspective="task", model="m", winner="affirmative" if p > 0.5 else "negative", p=p,
                  stage_scores=[BallotScore(stage_id="s1", side="affirmative", score=6)], best_debater_votes={"Affirmative Speaker 1": 3},
                  reasoning="r", feedback=[DebaterFeedback(debater="Affirmative Speaker 1", **{k: FeedbackPoint(text="t", stage_id=feedback_stage) for k in ("worked", "missed", "work_on")})])


def test_the_verdict_shows_the_majority_judge_nearest_the_panel_p():
    ballots = [ballot("judge-1", 0.30, "s1"), ballot("judge-2", 0.62, "s2"), ballot("judge-3", 0.58, "s3")]
    # panel: affirmative at p = 0.51 (judge-1 dissents); of judge-2 (|0.62 - 0.51| = 0.11) and judge-3 (0.07), judge-3
    judge, feedback = panel_feedback(ballots, "affirmative", 0.51)
    assert judge == "judge-3" and feedback[0].worked.stage_id == "s3"
    assert panel_feedback([b.model_copy(update={"feedback": []}) for b in ballots], "affirmative", 0.51) == ("", [])


def test_the_offline_verdict_and_report_carry_it_and_the_single_call_arm_does_not(fake_openai):
    v = adjudicate(load_match(BUNDLED / "panelbench/debateart_4395.json"))
    assert [f.debater for f in v.feedback] == ["Affirmative Speaker 1", "Negative Speaker 1"] and v.feedback_from in {b.judge_id for b in v.ballots}
    report = verdict_markdown(v, load_match(BUNDLED / "panelbench/debateart_4395.json").view())
    section = report.split("## Feedback for each debater")[1].split("\n## ")[0]
    assert "### Affirmative Speaker 1 (Mast3rDebater)" in section and section.count("- **What worked** (") == 2
    assert section.count("- **The response missed** (") == 2 and section.count("- **One thing to work on** (") == 2
    zh = adjudicate(load_match(BUNDLED / "synthetic/synthetic_2v2_01.json"))
    zh_report = verdict_markdown(zh, load_match(BUNDLED / "synthetic/synthetic_2v2_01.json").view())
    assert "## 给每位辩手的反馈" in zh_report and "- **做得好的** (" in zh_report
    fake_openai.respond_with(schema_responder)
    single = adjudicate_single_call(online_match(), ModelConfig(model="openai/test-model", api_base=fake_openai.base_url, json_mode="object", no_cache=True))
    assert single.feedback == [] and "feedback" not in json.loads(single.model_dump_json())


def test_the_bench_counts_how_often_it_is_filled_and_grounded():
    point = {"text": "t", "stage_id": "s1", "clash_id": "c1"}
    verdict = {"battlefields": [{"clash_id": "c1"}], "feedback": [
        {"debater": "Affirmative Speaker 1", "worked": point, "missed": {**point, "stage_id": "s9"}, "work_on": {**point, "clash_id": ""}},
    ]}
    stats = feedback_stats([DebaterFeedback.model_validate(verdict["feedback"][0])], LABELS, ["s1", "s2", "s3", "s4"], ["c1"])
    # one of two debaters filled; of its 3 points, 2 on a real stage (s9 is none), 2 on the real clash c1, 1 on none
    assert (stats.debaters, stats.filled, stats.points, stats.real_stage, stats.real_clash, stats.no_clash) == (2, 1, 3, 2, 2, 1)
    summary = run_feedback_stats([(VIEW, verdict), (VIEW, None)])
    assert summary["verdicts"] == 1 and summary["filled_rate"] == pytest.approx(1 / 2)
    assert summary["stage_rate"] == pytest.approx(2 / 3) and summary["clash_rate"] == pytest.approx(2 / 3)
    assert run_feedback_stats([])["filled_rate"] is None


def test_the_bench_viewer_lists_the_feedback():
    from adjudicator.bench.report_samples import _feedback

    v = json.loads(adjudicate(load_match(BUNDLED / "panelbench/debateart_4395.json")).model_dump_json())
    rows = _feedback(v, {"s01": "Round 1 (s01)"}, {"Affirmative Speaker 1": "Mast3rDebater"})
    assert len(rows) == 6 and [r["kind"] for r in rows[:3]] == ["what worked", "the response missed", "one thing to work on"]
    assert rows[0]["debater"] == "Affirmative Speaker 1 (Mast3rDebater)" and rows[0]["text"] == v["feedback"][0]["worked"]["text"]
