"""The live verdict report (adjudicator.live.tournament.report_html) is the CLI report page
(adjudicator.verdict.report.render_html) with the live sections in its blocks (issue 40, step 4): the
same sections to the byte, a tournament room's counted result in place of the panel's, the turning
points, the counted scores column; and what it says of a void room and of a result a person
confirmed (issue 41, item 8). Expected values worked by hand from the recording judges of
tests/graph_fakes.py (7 per affirmative unit, 6 per negative unit, 9 votes to Affirmative Speaker 1,
p 0.70, 3:0) and the offline judge on the bundled synthetic 2v2 match.
"""

from __future__ import annotations

from graph_fakes import RecordingBackend, tiny_match

from adjudicator import __version__
from adjudicator.api import adjudicate, adjudicate_with_context
from adjudicator.input.match_file import load_match
from adjudicator.live.tournament import lifecycle
from adjudicator.live.tournament.lifecycle import Actor, Override
from adjudicator.live.tournament.report_html import report_html
from adjudicator.verdict.labels import labels
from adjudicator.verdict.report import verdict_html
from adjudicator.workflow.context import AdjudicationContext

KEY = ("t", "r1", "a")
CHAIR = Actor(role="chair", room="t.r1.a", name="Ms Li")
ORGANISER = Actor(role="organiser", name="Tab director")
TEAMS = {"affirmative": "Aff A", "negative": "Neg A"}
TURN = {"stage_display_name": "正方一辩开篇立论", "toward": "negative", "p_before": 0.55, "p_after": 0.42, "driver": "clash",
        "clash_title": "**交通**", "clash_events": ["negative advanced", "affirmative conceded"], "score_gap_before": 0.0, "score_gap_after": 0.0}


def test_a_stand_alone_live_report_is_the_cli_report_page_with_the_turning_points():
    # before: the live page had its own template (no reason for decision, no dissent, a clash table without history)
    m = load_match("adjudicator/data/matches/synthetic/synthetic_2v2_01.json")
    v = adjudicate(m)
    cli, live = verdict_html(v, m.view()), report_html(m.view(), v, timeline=[TURN])
    L = labels("zh")
    top = cli[cli.index("</h1>"):cli.index(f"<h2>{L['read.result']}</h2>")]  # what the offline judge is, the review, the match
    result = cli[cli.index(f"<h2>{L['read.result']}</h2>"):cli.index(f"<h2>{L['read.reason']}</h2>")]
    rest = cli[cli.index(f"<h2>{L['read.reason']}</h2>"):cli.index("</body>")]  # reason, dissent, clashes, scores, feedback, ballots, provenance
    assert top in live and result in live and rest in live
    assert cli[cli.index("<style>") + 7:cli.index("</style>")].rstrip() in live  # the CLI page's style, the live page's after it
    assert "<h1>裁决报告: synthetic_2v2_01</h1>" in live and "<title>裁决报告: synthetic_2v2_01</title>" in live
    turns = live[live.index("<h2>转折点</h2>"):live.index(f"<h2>{L['read.reason']}</h2>")]
    assert "<li><b>正方一辩开篇立论</b>: 转向反方：0.55 → 0.42; 由战场“交通”推动（反方 推进; 正方 让步）</li>" in turns  # the title's markup removed
    assert live.index(result) < live.index("<h2>转折点</h2>") < live.index(rest)
    assert live[live.index(rest) + len(rest):] == f'<p class="muted">由 adjudicator {__version__} 生成。</p>\n</body></html>\n'  # the version, last


def _room():
    v = adjudicate_with_context(tiny_match(4), AdjudicationContext.single(RecordingBackend()))
    d, _ = lifecycle.draft(KEY, v, "2025-01-01T10:00:00+00:00")
    return v, d


def test_a_rooms_report_shows_the_counted_result_the_change_and_the_counted_scores():
    v, d = _room()
    note = "the panel missed the concession in s3"
    d, _ = lifecycle.confirm(d, Override(winner="negative", stage_scores={"s2|negative": 8.5}, note=note), CHAIR, "2025-01-01T11:00:00+00:00")
    d, _ = lifecycle.release(d, ORGANISER, "2025-01-01T12:00:00+00:00")
    html = report_html(tiny_match(4).view(), v, timeline=[], decision=d, teams=TEAMS, title="Round 1 · A")
    result = html[html.index("<h2>Result</h2>"):html.index("<h2>Turning points</h2>")]
    assert "<h1>Verdict report: Round 1 · A</h1>" in html
    assert "<p><b>Status:</b> released</p>" in result and '<p class="big neg">Winner: negative (Neg A)</p>' in result
    # p 0.70 and 3:0 describe the automated winner (the affirmative): not shown beside the counted negative win
    assert "p = 0.70" not in result and "3:0" not in result
    assert "Best debater: Affirmative Speaker 1 Ann (votes: Affirmative Speaker 1 Ann 9)" in result
    assert "<p>Confirmed by Ms Li at 2025-01-01 11:00 UTC. Released at 2025-01-01 12:00 UTC.</p>" in result
    assert "<p>Changed when confirmed: the automated result had affirmative winning.</p>" in result and f"<p>Note: {note}</p>" in result
    assert '<tr><td>Winner</td><td class="num">affirmative</td><td class="num">negative</td></tr>' in result
    assert '<tr><td>Speech 2 · negative</td><td class="num">6.00</td><td class="num">8.50</td></tr>' in result
    # the scores table: the panel's mean, the counted score (8.5: changed), the band of the counted score (round(8.5) = 8: 6-8)
    assert "<th>Mean</th><th>Counted</th><th>Rubric band</th>" in html
    assert "<td>6.00</td><td>8.50 (changed)</td><td>did the job well (6-8)</td>" in html and "<td>7.00</td><td>7.00</td><td>did the job well (6-8)</td>" in html
    # the teams beside the debaters, as the CLI report names a match's teams
    assert "Affirmative Speaker 1 (Ann) (team Aff A)" in html and "Negative Speaker 1 (Ned) (team Neg A)" in html
    # a person confirmed it: no "review before use" box (the state line says who checked it)
    assert v.review is not None and v.review.escalate and 'class="review' not in html


def test_a_draft_keeps_the_review_and_says_it_is_a_draft():
    v, d = _room()
    html = report_html(tiny_match(4).view(), v, timeline=[], decision=d, teams=TEAMS)
    assert 'class="review escalate"' in html and "<p><b>Status:</b> automated draft, not yet confirmed</p>" in html
    assert '<p class="banner draft">Automated draft: not confirmed by a person yet, so not final.</p>' in html
    assert '<p class="big aff">Winner: affirmative (Aff A)</p>' in html and "<p>winner tendency p = 0.70 · panel split 3:0<br>" in html


def test_a_void_rooms_report_says_void():
    # before: the state of the decision under the void ("released") and no word of the void
    v, d = _room()
    d, _ = lifecycle.confirm(d, Override(), CHAIR, "2025-01-01T11:00:00+00:00")
    d, _ = lifecycle.release(d, ORGANISER, "2025-01-01T12:00:00+00:00")
    d, _ = lifecycle.void(d, ORGANISER, "wrong motion", "2025-01-01T13:00:00+00:00")
    html = report_html(tiny_match(4).view(), v, timeline=[], decision=d, teams=TEAMS)
    assert "<p><b>Status:</b> void</p>" in html and "state.void" not in html
    assert '<p class="banner void">Void: the organiser voided this room&#39;s result, so it counts for nothing until it is reopened.</p>' in html  # jinja2 escapes the apostrophe
    zh = labels("zh")
    assert (zh["state.void"], labels("en")["state.void"]) == ("已作废", "void")
