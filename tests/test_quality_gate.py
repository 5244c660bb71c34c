"""The quality gate (issue 25, item 2): each check of adjudicator/verdict/review.py on inputs built by
hand, the sentences in both languages, and a junk verdict -- what a 0.5B model gave: no clash map,
one short reason copied by all three judges -- escalated with its reasons on stderr, at the top of the
Markdown and HTML reports, on the live board and in the bench's per-sample viewer, with no
"Unanimous" in its dissent."""

from __future__ import annotations

import json
import re

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match, schema_responder

from adjudicator.cli import main
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.verdict.ballots import Ballot, BallotScore
from adjudicator.verdict.battlefield import Clash, ClashEvent
from adjudicator.verdict.review import MIN_SPEECH_WORDS, real_speech_stages, review_of, review_sentences

SPEECH = " ".join(["word"] * MIN_SPEECH_WORDS)  # exactly the minimum: real speech
VIEW = online_match(texts=[f"Homework steals sleep. {SPEECH}", f"Homework builds discipline. {SPEECH}", "I forfeit.", f"Feedback matters. {SPEECH}"]).view()
ANCHORED = "The affirmative lost the sleep clash c1 in s2 when Negative Speaker 1 showed that discipline outweighs it"


def ballot(judge_id: str, p: float = 0.36, scores: tuple[int, ...] = (6, 7, 5, 7), votes: dict[str, int] | None = None, reasoning: str = ANCHORED) -> Ballot:
    units = VIEW.scored_units()
    return Ballot(
        judge_id=judge_id, perspective="task", model="m", winner="affirmative" if p > 0.5 else "negative", p=p,
        stage_scores=[BallotScore(stage_id=sid, side=side, score=x) for (sid, side), x in zip(units, scores)],
        best_debater_votes=votes or {"Negative Speaker 1": 2, "Affirmative Speaker 1": 1}, reasoning=reasoning,
    )


def clash(events: int = 3) -> Clash:
    sides = ["affirmative", "negative", "negative"]
    return Clash(clash_id="c1", title="sleep against discipline", opened_in="s1",
                 events=[ClashEvent(stage_id=f"s{i + 1}", side=sides[i % 3], kind="advanced") for i in range(events)])


def panel(*ballots: Ballot) -> list[Ballot]:
    return list(ballots) or [ballot("judge-1"), ballot("judge-2", p=0.3), ballot("judge-3", p=0.41, votes={"Negative Speaker 1": 3})]


def test_a_sound_verdict_passes_the_gate():
    r = review_of(0.36, "3:0", [], ballots=panel(), match=VIEW, battlefields=[clash()])
    assert (r.escalate, r.reasons, r.detail) == (False, [], [])
    assert r.line() == "review: no reason to escalate"


def test_real_speech_leaves_out_a_forfeit():
    assert real_speech_stages(VIEW) == ["s1", "s2", "s4"]  # "I forfeit." is no speech


def test_the_battlefield_checks():
    empty = review_of(0.36, "3:0", [], ballots=panel(), match=VIEW, battlefields=[])
    assert empty.reasons == ["empty_battlefield"] and empty.detail == ["the battlefield map is empty: no clash was recorded over 4 stages"]
    thin = review_of(0.36, "3:0", [], ballots=panel(), match=VIEW, battlefields=[clash(events=2)])
    assert thin.detail == ["the battlefield map records 2 clash move(s) over 3 stages of real speech (at least one per stage expected)"]
    # the single-call arm keeps no map (battlefields None): not checked
    assert review_of(0.36, None, [], match=VIEW).reasons == []


def test_the_reasoning_checks():
    r = review_of(0.36, "3:0", [], match=VIEW, battlefields=[clash()], ballots=panel(
        ballot("judge-1", reasoning=""),
        ballot("judge-2", p=0.3, reasoning="The other one was better."),
        ballot("judge-3", p=0.41, votes={"Negative Speaker 1": 3}, reasoning="The better case was made by the side that argued more clearly and answered more of the questions put to it"),
    ))
    assert r.reasons == ["empty_reasoning", "short_reasoning", "unanchored_reasoning"]
    assert r.detail == [
        "the reasoning of judge-1 is empty",
        "the reasoning of judge-2 (25) is shorter than 80 characters",  # "The other one was better." is 25 characters
        "the reasoning of judge-2 and judge-3 names no clash, stage or debater",
    ]


@pytest.mark.parametrize("text", [
    "Everything turned on c1: the other side never came back to it, and that is where this debate was won and lost",
    "Everything turned on the question of sleep and discipline, which the other side never came back to after it was raised",
    "Everything turned on round 3, where one side simply stopped arguing and left the other side's case standing alone",
    "Everything turned on what Negative Speaker 1 did with the evidence, which the other side never answered at all",
])
def test_a_clash_a_stage_or_a_debater_anchors_a_reasoning(text):
    r = review_of(0.36, "3:0", [], match=VIEW, battlefields=[clash()], ballots=panel(ballot("judge-1", reasoning=text), ballot("judge-2", p=0.3), ballot("judge-3", p=0.41, votes={"Negative Speaker 1": 3})))
    assert "unanchored_reasoning" not in r.reasons


def test_the_ballot_checks():
    # judge-1 and judge-2: the same winner, p and votes; judge-2 scores every stage 7; judge-3's p
    # favours the affirmative while its own scores put the affirmative 2.5 points behind
    r = review_of(0.36, "2:1", [], match=VIEW, battlefields=[clash()], ballots=panel(
        ballot("judge-1"), ballot("judge-2", scores=(7, 7, 7, 7)), ballot("judge-3", p=0.64, scores=(6, 8, 6, 9), votes={"Affirmative Speaker 1": 3}),
    ))
    assert r.reasons == ["split_panel", "identical_ballots", "equal_stage_scores", "p_against_scores"]
    assert r.detail[1:] == [
        "identical ballots (the same winner, p and best-debater votes): judge-1 and judge-2; the judges may not have judged independently",
        "every stage score is the same on the ballot of judge-2 (all 7)",
        # affirmative mean (6 + 6) / 2 = 6.00, negative (8 + 9) / 2 = 8.50: 2.5 > 1.0 points behind
        "p favours the side its own stage scores put more than 1 point(s) behind: judge-3 (p = 0.64 for the affirmative, mean stage score 6.00 against 8.50)",
    ]
    # exactly 1.0 point behind is within the margin
    assert "p_against_scores" not in review_of(0.6, "3:0", [], ballots=[ballot("judge-1", p=0.6, scores=(6, 7, 6, 7))]).reasons


def test_the_record_checks():
    calls = [
        CallRecord(node="track_stage", key="s2", model="m", turn="repair", parse="strict", repair_fields=["reasoning", "sides", "summary"], repair_share=0.667),
        CallRecord(node="judge", key="judge-1", model="m", turn="repair", parse="strict", repair_fields=["reasoning"], repair_share=0.5),
        CallRecord(node="judge", key="judge-2", model="m", parse="strict", example_choices=["p", "winner"]),
        CallRecord(node="judge", key="judge-3", model="m", parse="failed", example_choices=["p"]),  # not accepted: not counted
    ]
    failures = [NodeFailure(node="track_stage", key="s3", kind=FailureKind.TRUNCATED, reason="truncated: ...")]
    r = review_of(0.36, "3:0", failures, ballots=panel(), match=VIEW, battlefields=[clash()], calls=calls)
    assert r.reasons == ["failed_stage", "repaired_fields", "example_choice"]
    assert r.detail == [
        "the tracker failed on stage(s) s3: the judges saw no analysis of them",
        "repair turns asked again for more than half of the fields of track_stage s2 (67%)",
        "answers whose closed choices equal the prompt example's: judge judge-2: p, winner",
    ]


def test_the_sentences_in_chinese():
    r = review_of(0.55, "2:1", [NodeFailure(node="judge", key="judge-2", kind=FailureKind.UNPARSEABLE, reason="x")], match=VIEW, battlefields=[],
                  ballots=[ballot("judge-1", p=0.55, reasoning="x"), ballot("judge-3", p=0.55, reasoning="x")])
    zh = review_sentences(r, "zh")
    assert zh[:3] == ["胜负倾向 p = 0.55，与 0.5 相差不超过 0.1", "评委在胜方上意见不一（2:1）", "评委 judge-2 失败：裁决不计入其选票"]
    for text in zh:  # no English word but ids (judge-1, s01) and numbers
        assert not re.search(r"[A-Za-z]{3,}", re.sub(r"judge-\d|track_stage|s\d+", "", text)), text


JUNK = "the decisive clashes, in a few sentences"  # 40 characters, the same from every judge


def junk_model(body):
    """What the 0.5B model did: a tracker that records no clash (its repair turn neither), three judges with one short copied reason."""
    answer = json.loads(schema_responder(body))
    if "clash_updates" in answer:
        answer["clash_updates"] = []
    if "stage_scores" in answer:
        answer["reasoning"] = JUNK
    return json.dumps(answer)


def test_a_junk_verdict_escalates_everywhere_it_is_shown(fake_openai, tmp_path, capsys):
    match = tmp_path / "m.json"
    match.write_text(online_match(texts=[f"Homework steals sleep. {SPEECH}", f"Homework builds discipline. {SPEECH}", f"Sleep still wins. {SPEECH}", f"Feedback matters. {SPEECH}"]).model_dump_json())
    fake_openai.respond_with(junk_model)
    out, md, html = tmp_path / "v.json", tmp_path / "v.md", tmp_path / "v.html"
    args = [str(match), "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--no-cache", "--out", str(out)]
    assert main([*args, "--report-out", str(md)]) == 0
    err = capsys.readouterr().err
    verdict = json.loads(out.read_text())
    assert verdict["review"]["escalate"] is True
    # the scripted judges also keep the tracker's suggested 7 on every unit (tracker_scores)
    assert verdict["review"]["reasons"] == ["empty_battlefield", "short_reasoning", "unanchored_reasoning", "identical_ballots", "equal_stage_scores", "tracker_scores"]
    (line,) = [x for x in err.splitlines() if x.startswith("review:")]  # one review line on stderr
    assert line.startswith("review: escalate (empty_battlefield: the battlefield map is empty")
    report = md.read_text()
    head = report.split("**Motion:**")[0]  # the review comes before anything else
    assert "**Review:** A person should check this verdict before it is used (6 reason(s)):" in head
    assert "- the battlefield map is empty: no clash was recorded over 4 stages" in head
    dissent = report.split("## Dissent")[1].split("##")[0]
    assert "Unanimous" not in dissent and "Not counted as agreement" in dissent
    assert main([*args, "--report-out", str(html)]) == 0
    page = html.read_text()
    assert page.index('class="review escalate"') < page.index("<dt>")  # above the match's facts
    assert "identical ballots (the same winner, p and best-debater votes): all 3 ballots" in page


def test_the_board_the_live_report_and_the_bench_viewer_show_the_review():
    from pathlib import Path

    from adjudicator.api import adjudicate
    from adjudicator.bench.report_samples import _review
    from adjudicator.input.match_file import load_match
    from adjudicator.live.rooms.board import board_snapshot
    from adjudicator.live.tournament.report_html import report_html

    match = load_match(Path(__file__).resolve().parents[1] / "adjudicator/data/matches/synthetic/synthetic_2v2_01.json")  # a Chinese match
    view = match.view()
    v = adjudicate(match)
    assert v.review is not None and v.review.escalate
    zh = review_sentences(v.review, "zh")
    snap = board_snapshot(view, {"stages": list(view.stages), "next_stage": len(view.stages)}, status="closed", model="offline", is_llm=False, verdict=v)
    assert snap["verdict"]["review"] == {"escalate": True, "reasons": list(v.review.reasons), "sentences": zh}
    page = report_html(view, v, timeline=[])
    assert page.index('class="review escalate"') < page.index("<h2>") and all(x in page for x in zh)
    assert _review(json.loads(v.model_dump_json())) == {"escalate": True, "sentences": list(v.review.detail)}


def test_a_verdict_whose_judges_all_failed_does_not_read_as_the_single_call_arm():
    # issue 25, real 0.5B model: all three judges of debateart_4395 failed; the report said "The single-call protocol gives no reasons"
    from pathlib import Path

    from adjudicator.api import adjudicate
    from adjudicator.input.match_file import load_match
    from adjudicator.verdict.reading import readable_verdict

    match = load_match(Path(__file__).resolve().parents[1] / "adjudicator/data/matches/panelbench/debateart_4395.json")
    partial = adjudicate(match).model_copy(update={"ballots": [], "winner": None, "p": None, "dissent": None})
    reasons = readable_verdict(partial, match.view()).reasons
    assert reasons[:2] == ["The panel reached no decision.", "No judge gave a valid ballot; each judge's raw answers are under failures in the verdict file."]
    assert not any("single-call" in x for x in reasons)


# ---------------------------------------------------------------------------------------------
# tracker_scores: a judge that keeps the tracker's suggested score on every unit (issue 25)


def analyses_suggesting(scores: dict[tuple[str, str], int], summaries: dict[str, str] | None = None):
    from adjudicator.verdict.battlefield import SideAnalysis, StageAnalysis

    def side(sid: str, s: str, score: int) -> SideAnalysis:
        return SideAnalysis(stage_id=sid, side=s, task_performance="well", battlefield_judgement="correct_important", advancement="effective", suggested_score=score, rationale="r")

    stages = sorted({sid for sid, _ in scores})
    return [StageAnalysis(stage_id=sid, stage_index=i, sides=[side(sid, s, x) for (k, s), x in scores.items() if k == sid], clash_updates=[], summary=(summaries or {}).get(sid, "s")) for i, sid in enumerate(stages)]


def test_a_ballot_keeping_every_suggested_score_is_flagged_and_one_changed_unit_is_not():
    suggested = {("s1", "affirmative"): 6, ("s2", "negative"): 7, ("s3", "affirmative"): 5, ("s4", "negative"): 8}
    analyses = analyses_suggesting(suggested)
    copied = ballot("judge-1", p=0.34, scores=[6, 7, 5, 8])
    own = ballot("judge-2", p=0.3, scores=[6, 7, 6, 8])  # one unit changed: the judge checked the table
    r = review_of(0.34, "3:0", [], ballots=[copied, own], analyses=analyses)
    assert r.reasons == ["tracker_scores"] and r.facts == [{"judges": ["judge-1"], "units": [4]}]
    assert r.detail == ["the ballot of judge-1 (4 units) gives every unit the tracker's suggested score, which the judges were told to check, not copy"]
    assert review_sentences(r, "zh") == ["judge-1（4 个单元） 的选票每个单元都照搬了战场追踪给出的建议分，而建议分是让评委核查的，不是让其照抄的"]
    assert review_of(0.34, "3:0", [], ballots=[copied, own]).reasons == []  # no analyses given (the offline judge): not checked
    two = analyses_suggesting({("s1", "affirmative"): 6, ("s2", "negative"): 7})
    assert review_of(0.34, "3:0", [], ballots=[ballot("judge-1", p=0.34, scores=[6, 7])], analyses=two).reasons == []  # fewer than 3 units


def test_a_summary_that_is_mostly_its_prompts_text_is_flagged():
    from adjudicator.records import prompt_refs

    match = online_match(texts=["Homework takes sleep from teenagers, and sleep matters more for learning than drills.", "Homework builds discipline.", "Sleep wins.", "Teachers need feedback."]).view()
    units = {("s1", "affirmative"): 6, ("s2", "negative"): 7, ("s3", "affirmative"): 5, ("s4", "negative"): 8}
    task = "Its task: open its case. Define the terms that matter, set the standard by which the motion should be decided."
    summaries = {
        # what the 0.5B model wrote on debateart_4739: the stage's task in the past tense; 12 of its 14 triples are the prompt's
        "s1": "It defined the terms that matter, set the standard by which the motion should be decided.",
        "s2": "Homework takes sleep from teenagers, and sleep matters more for learning",  # the stage before (the prompt shows it)
        "s3": "The negative answered that discipline outweighs sleep, so the sleep clash is now contested.",  # its own words
        "s4": "The negative answered that discipline outweighs sleep, so the sleep clash is contested.",  # s3's summary again
    }
    calls = [CallRecord(node="track_stage", key="s1", model="m", template_hash="t", attempt=1, messages=prompt_refs([{"role": "system", "content": task}]))]
    r = review_of(0.34, "3:0", [], ballots=[], match=match, analyses=analyses_suggesting(units, summaries), calls=calls)
    assert r.reasons == ["echoed_summary"] and r.facts == [{"stages": ["s1", "s2", "s4"], "shares": [0.86, 1.0, 0.91]}]
    assert r.detail == [
        "the tracker's summary of s1 (86% of its word triples), s2 (100% of its word triples) and s4 (91% of its word triples) is mostly text its prompt held"
        " (the stage's task, the motion, a speech, the ledger or an earlier summary), not how the battlefield changed"
    ]
    assert review_sentences(r, "zh")[0].startswith("战场追踪对 环节 s1（86% 的四字片段）、环节 s2（100% 的四字片段）、环节 s4（91% 的四字片段） 的小结")
    # without the request's text, s1's summary is its own words (the task is not in the match)
    assert review_of(0.34, "3:0", [], ballots=[], match=match, analyses=analyses_suggesting(units, summaries)).facts == [{"stages": ["s2", "s4"], "shares": [1.0, 0.91]}]
    short = analyses_suggesting(units, {"s2": "Homework builds discipline"})  # 1 triple, under 4: can match by chance
    assert review_of(0.34, "3:0", [], ballots=[], match=match, analyses=short).reasons == []
