"""The verdict report a coach reads (adjudicator.verdict.reading, adjudicator.verdict.report): names beside position
labels, clash histories in words, momentum explained once, a reason for decision from the ballots,
dissent in words, in the match's language, as Markdown and as a self-contained HTML page."""

from __future__ import annotations

import json
import re
from pathlib import Path

from markupsafe import escape

from adjudicator.api import adjudicate
from adjudicator.cli import main
from adjudicator.input.match_file import load_match
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.labels import TABLES
from adjudicator.verdict.reading import clash_positions, readable_verdict
from adjudicator.verdict.report import verdict_html, verdict_markdown

MATCHES = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches"
EN = MATCHES / "panelbench" / "debateart_0750.json"  # debaters K_Michael (pro) and Chitty-Chitty (con)
ZH = MATCHES / "synthetic" / "synthetic_4v4_01.json"
EN_WORDS, ZH_WORDS = TABLES["en"], TABLES["zh"]


def _sections(md: str) -> dict[str, str]:
    """Level-2 heading -> its text (up to the next level-2 heading)."""
    parts = re.split(r"^## (.+)$", md, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def _split_verdict(v: Verdict) -> Verdict:
    """``v`` made a 2:1 decision: judge-3 votes the other way, and one unit's scores spread 4 / 6 / 7."""
    data = json.loads(v.model_dump_json())
    other = "negative" if data["winner"] == "affirmative" else "affirmative"
    b3 = data["ballots"][2]
    b3.update(winner=other, p=0.41 if other == "negative" else 0.59, reasoning="The <b>cost</b> clash went the **other way (3 < 4 & rising).")
    data["dissent"] = {"winner_split": "2:1", "dissenting_judges": ["judge-3"], "max_score_range": 3, "units_with_range_ge_3": 1}
    data["stage_scores"][0]["judge_scores"] = [4, 6, 7]
    return Verdict.model_validate(data)


def test_english_report_names_debaters_explains_momentum_once_and_gives_reasons():
    match = load_match(EN)
    v = adjudicate(match)
    md = verdict_markdown(v, match.view())
    assert md.startswith(f"# Verdict: {match.match_id}")
    sec = _sections(md)
    assert list(sec) == ["Result", "Reason for decision", "Dissent", "Battlefield map", "Scores by stage", "Feedback for each debater", "Ballots", "How this verdict was made"]
    # debater names beside their position labels, wherever a debater is named
    assert "Affirmative Speaker 1 (K_Michael)" in md and "Negative Speaker 1 (Chitty-Chitty)" in md
    assert not re.search(r"Speaker 1(?! \()", sec["Battlefield map"] + sec["Ballots"])
    # the reason for decision: which judge said what, one bullet per judge of the majority
    reasons = sec["Reason for decision"]
    assert reasons.strip().startswith(f"The panel gave the win to the {v.winner} ({v.dissent.winner_split}).")
    for b in v.ballots:
        persp = EN_WORDS[f"perspective.{b.perspective}"]
        assert f"- {b.judge_id} ({persp}) voted for the {b.winner}, p = {b.p:.2f}: “{b.reasoning}”" in reasons
    # momentum: one sentence, once, in the section where the word first appears
    note = EN_WORDS["read.momentum"]
    assert md.count(note) == 1
    first = next(name for name, text in sec.items() if "omentum" in text)
    assert note in sec[first]
    # each clash's history: stage name, side, debater, move and note, one row per event
    stage_names = {s.stage_id: s.name for s in match.stages}
    for c in v.battlefields:
        for e in c.events:
            debater = {"Affirmative Speaker 1": "Affirmative Speaker 1 (K_Michael)", "Negative Speaker 1": "Negative Speaker 1 (Chitty-Chitty)"}[e.debater]
            row = f"| {stage_names[e.stage_id]} | {e.side} | {debater} | {EN_WORDS['kind.' + e.kind]} | {e.note} |"
            assert row in md, row
    assert "Unanimous: all 3 judges voted for the" in sec["Dissent"]


def test_chinese_match_gets_a_chinese_report():
    match = load_match(ZH)
    v = adjudicate(match)
    md = verdict_markdown(v, match.view())
    assert md.startswith(f"# 裁决报告: {match.match_id}")
    assert list(_sections(md)) == ["结果", "裁决理由", "分歧", "战场地图", "各环节得分", "给每位辩手的反馈", "评委裁决单", "裁决如何得出"]
    assert "正方三辩" in md and "Affirmative Speaker" not in md  # position labels in Chinese
    assert "| 正方一辩开篇立论 | 立论 | 正方 |" in md  # stage name, type and side in Chinese
    assert ZH_WORDS["read.momentum"] in md and md.count(ZH_WORDS["read.momentum"]) == 1
    assert f"评审团判{ZH_WORDS['side.' + v.winner]}获胜" in md


def test_dissent_in_words_and_the_dissenters_reasons_kept_apart():
    match = load_match(EN)
    v = _split_verdict(adjudicate(match))
    md = verdict_markdown(v, match.view())
    sec = _sections(md)
    other = v.ballots[2].winner
    assert f"- Split decision 2:1: judge-3 voted for the {other}, against the majority." in sec["Dissent"]
    assert "The cost clash went the other way (3 &lt; 4 & rising)." in sec["Dissent"]  # markup removed, the text kept, and a bare < still written as &lt;
    assert "judge-3" not in sec["Reason for decision"]  # the reasons are the majority's
    first = match.stages[0].name
    assert f"the widest was {first} · {v.stage_scores[0].side} (4 / 6 / 7)" in sec["Dissent"]


def test_markdown_report_escapes_raw_html_in_names_motion_and_model_output():
    match = load_match(EN)
    data = json.loads(match.model_dump_json())
    data["motion"] = "Motion <script>alert(1)</script>"
    data["debaters"][0]["name"] = "<img src=x onerror=alert(1)>"
    hostile = type(match).model_validate(data)
    md = verdict_markdown(_split_verdict(adjudicate(hostile)), hostile.view())
    assert "<img" not in md and "<script" not in md and "<b>" not in md  # before: each passed through to any Markdown renderer as HTML
    assert "&lt;img src=x onerror=alert(1)>" in md and "&lt;script>alert(1)&lt;/script>" in md


def test_html_report_is_self_contained_escaped_and_in_the_matchs_language(tmp_path, capsys):
    match = load_match(EN)
    v = _split_verdict(adjudicate(match))
    page = verdict_html(v, match.view())
    assert page.startswith("<!DOCTYPE html>") and '<html lang="en">' in page
    assert "<script" not in page and "<link" not in page and "src=" not in page
    # model output never becomes markup: its tags and emphasis are removed, any other < or & is escaped
    assert "The cost clash went the other way (3 &lt; 4 &amp; rising)." in page and "<b>cost" not in page and "&lt;b&gt;" not in page
    assert page.count(str(escape(EN_WORDS["read.momentum"]))) == 1 and "Affirmative Speaker 1 (K_Michael)" in page
    zh = load_match(ZH)
    assert '<html lang="zh-CN">' in verdict_html(adjudicate(zh), zh.view())
    # the command line: --report html beside --out, and --report-out NAME.html implies html
    out = tmp_path / "v.json"
    assert main([str(EN), "--out", str(out), "--report", "html", "--quiet"]) == 0
    assert out.with_suffix(".html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main([str(ZH), "--out", str(out), "--report-out", str(tmp_path / "r.html"), "--quiet"]) == 0
    assert "裁决理由" in (tmp_path / "r.html").read_text(encoding="utf-8")
    capsys.readouterr()


def test_units_and_positions_come_from_the_data():
    class HouseClash:  # a clash of a format with four units, as a verdict generalised to houses could carry it
        positions = {"OG": "tax it", "CO": "ban it"}

    assert clash_positions(HouseClash(), ["OG", "OO", "CG", "CO"]) == [("OG", "tax it"), ("OO", ""), ("CG", ""), ("CO", "ban it")]
    match = load_match(EN)
    r = readable_verdict(adjudicate(match))  # no match view: labels without names, the format's language
    assert r.language == "en" and r.debaters == [] and "Affirmative Speaker 1" in " ".join(r.result)


def test_a_house_format_reads_its_ranking_from_the_verdict(tmp_path):
    from bp_helpers import bp_data, write_bp

    match = load_match(write_bp(tmp_path, bp_data()))
    v = adjudicate(match)
    md = verdict_markdown(v, match.view())
    sec = _sections(md)
    assert list(sec) == ["Result", "Reason for decision", "Dissent", "Battlefield map", "Ranking", "Speaker scores", "Ballots", "How this verdict was made"]
    order = " > ".join(EN_WORDS[f"side.{r.unit}"] for r in sorted(v.ranking, key=lambda r: r.rank))
    assert sec["Result"].strip() == f"Ranking: {order}."
    for b in v.ballots:
        ranked = " > ".join(EN_WORDS[f"side.{u}"] for u in sorted(b.ranking, key=lambda u: b.ranking[u]))
        assert f"{b.judge_id} ({EN_WORDS['perspective.' + b.perspective]}) ranked {ranked}" in md
    for r in v.ranking:
        assert f"| {r.rank} | {EN_WORDS['side.' + r.unit]} ({r.unit}) | {' / '.join(map(str, r.judge_ranks))} | {r.mean_rank:.2f} |" in sec["Ranking"]
    assert [line.split(" | ")[0].split("(")[-1].rstrip(")") for line in sec["Speaker scores"].splitlines() if line.startswith("| ") and "(" in line] == [
        s.speech for s in v.speaker_scores
    ]
    assert "- Government: " in md and "Scores by stage" not in md  # the benches' positions under their BP names; no 1-10 stage table


def test_failures_are_listed_with_their_node_key_and_reason():
    from adjudicator.records import FailureKind, NodeFailure

    match = load_match(EN)
    v = adjudicate(match)
    failed = v.model_copy(update={"failures": [NodeFailure(node="judge", key="judge-2", kind=FailureKind.UNPARSEABLE, reason="no JSON object found", raw_outputs=["x", "y"])]})
    sec = _sections(verdict_markdown(failed, match.view()))
    assert sec["Failures"].strip() == "- judge judge-2: no JSON object found (2 raw outputs kept in the verdict file)"
