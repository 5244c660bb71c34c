"""Issue 41 item 6: a low-point win refused by Tabbycat's winner declaration says how far behind the
winner is in stage-score units (1-10), and the docs' override example works as pasted.

The room: every judge of the scripted panel scores every stage 7 for both sides, except the negative's
constructive speech (s03) 6, and votes for the affirmative. Negative Speaker 1 spoke in s03, s04 and s08
(the affirmative cross-examination names no negative debater, so it counts for all four): raw (6 + 7 + 7)
/ 3 = 6.667; every other debater 7. On Tabbycat's default 68-82 step 1, calibrated (gain (2.69 / 50) *
14 / 0.33 = 2.28242, raw 6.66 -> 75): raw 7 -> 75.7762, 6.667 -> 75.0152; the affirmative 303.10 -> 303,
the negative 302.34 -> 302. Raw sums 28.00 and 27.67: the negative is 0.33 behind, 0.083 a debater, so
+0.09 on every negative stage score puts it ahead.

The docs' line (docs/tournaments.md) raises s12 (the free debate; the test's stage names Negative
Speaker 2, whose units are s07, s08, s12) and s13 (the negative closing; Negative Speaker 4: s02, s05, s08,
s13) to 8: Negative Speaker 2 (7 + 7 + 8) / 3 = 7.333 -> 76.5368, Negative Speaker 4 (7 * 3 + 8) / 4 = 7.25
-> 76.3466; with 75.0152 and 75.7762: 303.67 -> 304 to the affirmative's 303.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import httpx
import pytest
from fake_tabbycat import BASE, FakeTabbycat
from fake_tabbycat import TOKEN as TC_TOKEN
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, ccdb_stage, start_server

from adjudicator.cli import main
from adjudicator.input.formats import CCDB_4V4
from adjudicator.judges.base import NodeResult
from adjudicator.verdict.ballots import BallotScore
from adjudicator.workflow.context import AdjudicationContext

ROOT = Path(__file__).resolve().parents[1]
ORG = {"Authorization": f"Bearer {TOKEN}"}
NAMES = {"复旦大学": ["An", "Bai", "Chen", "Du"], "南京大学": ["Fang", "Gao", "Han", "Jin"]}


class CloseRoom(RecordingBackend):
    """The recording panel, every judge scoring every unit 7 but the negative's s03 6 (module docstring)."""

    def judge(self, request):
        got = super().judge(request)
        scores = [BallotScore(stage_id=s.stage_id, side=s.side, score=6 if (s.stage_id, s.side) == ("s03", "negative") else 7) for s in got.value.stage_scores]
        return NodeResult(value=got.value.model_copy(update={"stage_scores": scores}), calls=got.calls)


@pytest.fixture
def room(tmp_path):
    """Tournament spring, round r1 (ccdb-4v4, Tabbycat round 1), room a judged and closed; (server, http,
    Tabbycat, chair token)."""
    tb = FakeTabbycat({"substantive_speakers": 4, "reply_scores_enabled": False}, rooms=1, team_names=[tuple(NAMES)], speaker_names=NAMES)
    srv = start_server(tmp_path / "state", AdjudicationContext.single(CloseRoom()), tabbycat_transport=tb.transport, tabbycat_token=TC_TOKEN, store=None)
    http = httpx.Client(base_url=srv.url, timeout=60, trust_env=False)
    try:
        assert http.post("/api/tournaments", json={"tournament_id": "spring", "tabbycat_url": BASE}, headers=ORG).status_code == 201
        body = {"round_id": "r1", "format": "ccdb-4v4", "motion": "人工智能利大于弊", "affirmative_position": "利大于弊", "negative_position": "弊大于利", "tabbycat_round": 1}
        assert http.post("/api/tournaments/spring/rounds", json=body, headers=ORG).status_code == 201
        debaters = [{"side": side, "position": i, "name": n} for side, team in zip(("affirmative", "negative"), NAMES, strict=True) for i, n in enumerate(NAMES[team], 1)]
        r = http.post("/api/tournaments/spring/rounds/r1/rooms", json={"room_id": "a", "teams": dict(zip(("affirmative", "negative"), NAMES, strict=True)), "debaters": debaters}, headers=ORG)
        assert r.status_code == 201, r.text
        for k in range(len(CCDB_4V4.order)):
            assert http.post("/api/matches/spring.r1.a/stages", json=ccdb_stage(k), headers=ORG).status_code == 200
        assert http.post("/api/matches/spring.r1.a/close", headers=ORG).status_code == 200
        yield srv, http, tb, r.json()["chair_token"]
    finally:
        http.close()
        srv.stop()


def docs_confirm_line() -> list[str]:
    """The docs' `live confirm spring r1 a --winner negative ...` command (continuation lines joined), as words."""
    text = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(m.group(1) for m in re.finditer(r"^\.venv/bin/adjudicate (live confirm spring r1 a --winner negative .*)$", text, re.M))
    return shlex.split(line)


def push(http):
    return http.post("/api/tournaments/spring/rounds/r1/tabbycat/push", json={}, headers=ORG).json()["rooms"][0]


def test_a_low_point_win_is_refused_with_the_gap_in_stage_score_units(room):
    _, http, tb, _ = room
    assert http.post("/api/tournaments/spring/rounds/r1/rooms/a/confirm", json={"winner": "negative"}, headers=ORG).status_code == 200
    o = push(http)
    assert o["status"] == "refused" and "has 302 points to the affirmative's 303 (a low-point win)" in o["reason"]
    assert ("on the stage scores (1-10) the negative is 0.33 behind (its debaters' mean stage scores add up to 27.67, the affirmative's to 28.00): "
            "+0.09 on every negative stage score (0.33 over 4 debaters, and a little more) puts it ahead") in o["reason"]
    assert tb.ballots == []


def test_the_docs_override_example_works_as_pasted(room, tmp_path, monkeypatch):
    srv, http, tb, chair = room
    words = docs_confirm_line()
    assert words[:6] == ["live", "confirm", "spring", "r1", "a", "--winner"] and words[-2:] == ["--token-file", "chair-a.token"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chair-a.token").write_text(chair + "\n", encoding="utf-8")
    (tmp_path / "chair-a.token").chmod(0o600)
    assert main([*words, "--url", srv.url]) == 0
    o = push(http)
    assert o["status"] == "posted", o["reason"]
    stored = tb.result(10)
    assert stored is not None and stored["neg"]["win"] and (stored["aff"]["score"], stored["neg"]["score"]) == (303.0, 304.0)
