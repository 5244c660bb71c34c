"""A real headless Chromium opens the live board and watches it update (over SSE) while stages are
pushed; the final page is saved as test-artifacts/live_board.png.

Needs Debian's ``chromium`` at /usr/bin/chromium (``.ci/run`` installs it); skipped otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from cdp_chromium import CHROMIUM, Chromium
from live_fakes import TOKEN, start_server

from adjudicator.context import AdjudicationContext
from adjudicator.match import load_match

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)")

REPO = Path(__file__).resolve().parents[1]
ARTIFACT = REPO / "test-artifacts" / "live_board.png"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
MATCH = REPO / "adjudicator/data/matches/panelbench/debateart_0750.json"


def _text(selector: str) -> str:
    return f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent"


def test_board_updates_live_while_stages_are_pushed(tmp_path):
    from adjudicator.offline import OfflineBackend

    match = load_match(MATCH)
    mid = match.match_id
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            header = match.view().model_dump(mode="json", exclude={"stages"})
            assert http.post("/api/matches", json=header, headers=AUTH).status_code == 201
            with Chromium(f"{server.url}/board/{mid}") as page:
                page.wait_for("document.body.dataset.analysed === '0'")
                assert page.eval(_text("#m-motion")) == match.motion
                assert page.eval(_text("#tendency-p")) == "–"
                page.eval("window.__sameDocument = 1")  # survives only if the page never reloads

                for i, stage in enumerate(match.stages):
                    r = http.post(f"/api/matches/{mid}/stages", json=stage.model_dump(mode="json"), headers=AUTH)
                    assert r.status_code == 200, r.text
                    page.wait_for(f"document.body.dataset.analysed === '{i + 1}'")
                    assert page.eval("document.querySelectorAll('#score-table tbody tr.score-row').length") == i + 1
                    assert page.eval(_text("#latest-name")).startswith(f"{stage.stage_id} · ")
                    snap = http.get(f"/api/matches/{mid}").json()
                    assert page.eval(_text("#tendency-p")) == f"{snap['tendency']['p']:.2f}"
                    assert page.eval(_text("#stage-progress")) == f"{i + 1} stages analysed · {i + 1} received"
                assert page.eval("window.__sameDocument") == 1

                # the battlefield map shows every clash of the API snapshot, with one column per stage
                assert snap["clashes"], "the offline tracker found no clash in this debate"
                assert page.eval("document.querySelectorAll('#clash-table tbody tr.clash-row').length") == len(snap["clashes"])
                assert page.eval("document.querySelectorAll('#clash-table thead th.stagehead').length") == len(match.stages)
                first = snap["clashes"][0]
                assert page.eval(_text(f"tr[data-clash='{first['clash_id']}'] .clash-title")) == first["title"]
                chips = page.eval(f"document.querySelectorAll(\"tr[data-clash='{first['clash_id']}'] .chip\").length")
                assert chips == len(first["events"])
                assert page.eval("document.getElementById('push-panel').hidden") is True  # read-only board

                verdict = http.post(f"/api/matches/{mid}/close", headers=AUTH).json()
                page.wait_for("document.body.dataset.status === 'closed'")
                assert page.eval("document.getElementById('verdict-panel').hidden") is False
                assert page.eval(_text("#verdict-winner")) == f"Winner: {verdict['winner']}"
                assert page.eval(_text("#verdict-p")) == f"winner tendency p = {verdict['p']:.2f}"
                assert page.eval("window.__sameDocument") == 1
                page.screenshot(ARTIFACT)
    finally:
        server.stop()
    data = ARTIFACT.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_organiser_page_pushes_with_the_token_from_its_url(tmp_path):
    from adjudicator.offline import OfflineBackend

    match = load_match(MATCH)
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            header = match.view().model_dump(mode="json", exclude={"stages"}) | {"match_id": "org"}
            assert http.post("/api/matches", json=header, headers=AUTH).status_code == 201
            with Chromium(f"{server.url}/board/org?token={TOKEN}") as page:
                page.wait_for("document.body.dataset.analysed === '0'")
                assert "token" not in page.eval("location.href")  # taken out of the address bar
                assert page.eval("document.getElementById('push-panel').hidden") is False
                # the push form is prefilled with the next stage's template
                template = json.loads(page.eval("document.getElementById('push-body').value"))
                assert template["sides"] == ["affirmative"] and template["type"] == "constructive"
                body = json.dumps(match.stages[0].model_dump(mode="json"))
                page.eval(f"document.getElementById('push-body').value = {json.dumps(body)}; document.getElementById('push-btn').click()")
                page.wait_for("document.body.dataset.analysed === '1'")
                page.wait_for(f"{_text('#push-msg')} === '{match.stages[0].stage_id}: analysed'")
                # a bad push shows the server's one-line error with the field path
                page.eval("document.getElementById('push-body').value = '{\"stage_id\": \"s2\"}'; document.getElementById('push-btn').click()")
                msg = page.wait_for(f"({_text('#push-msg')}.startsWith('stage: field') ? {_text('#push-msg')} : '')")
                assert msg.startswith("stage: field stages.1.name is missing")
            assert http.get("/api/matches/org").json()["analysed"] == 1
    finally:
        server.stop()
