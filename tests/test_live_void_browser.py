"""A real headless Chromium on a room's public board and its round overview (issue 41, item 8): a
result a person confirmed and released shows no automated "review before use" box, then, voided by
the organiser, the board says void and the round overview's state reads "void", not the raw key
``state.void`` (screenshots: ``test-artifacts/live_board_released_reviewed.png``,
``live_board_void.png``, ``live_round_void.png``). Needs Debian's ``chromium`` (skipped without it).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from cdp_chromium import CHROMIUM, Chromium
from graph_fakes import RecordingBackend, tiny_match
from live_fakes import TOKEN, stage_body, start_server

from adjudicator.workflow.context import AdjudicationContext

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)")

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
ORG = {"Authorization": f"Bearer {TOKEN}"}
ROOM = "/api/tournaments/cup/rounds/r1/rooms/a"


def _text(selector: str) -> str:
    return f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent"


def test_a_reviewed_result_has_no_review_box_and_a_void_room_says_void(tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    m = tiny_match(4)  # the recording panel: identical ballots, so the quality gate asks for a review
    server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), store=None)
    try:
        with httpx.Client(base_url=server.url, timeout=60, trust_env=False) as http:
            assert http.post("/api/tournaments", json={"tournament_id": "cup", "name": "Spring Cup"}, headers=ORG).status_code == 201
            body = {"round_id": "r1", "name": "Round 1", "format": "online-1v1", "motion": m.motion, "affirmative_position": m.affirmative_position, "negative_position": m.negative_position}
            assert http.post("/api/tournaments/cup/rounds", json=body, headers=ORG).status_code == 201
            room = {"room_id": "a", "teams": {"affirmative": "Owls", "negative": "Larks"}, "chair": "Ms Lee"}
            assert http.post("/api/tournaments/cup/rounds/r1/rooms", json=room, headers=ORG).status_code == 201
            for i in range(4):
                assert http.post("/api/matches/cup.r1.a/stages", json=stage_body(m, i), headers=ORG).status_code == 200
            assert http.post("/api/matches/cup.r1.a/close", headers=ORG).status_code == 200
            assert http.get(ROOM, headers=ORG).json()["verdict"]["review"]["escalate"] is True
            assert http.post(f"{ROOM}/confirm", json={"by": "Ms Lee"}, headers=ORG).status_code == 200
            assert http.post(f"{ROOM}/release", json={}, headers=ORG).status_code == 200
            with Chromium(f"{server.url}/board/cup.r1.a", root=tmp_path / "chromium") as page:
                page.wait_for("document.body.dataset.verdictState === 'released'")
                # before: the review box of the automated verdict under "Confirmed by Ms Lee"
                assert page.eval("document.getElementById('verdict-review').hidden") is True
                assert page.eval(_text("#verdict-state")).startswith("released Confirmed by Ms Lee at ")
                assert page.eval("document.getElementById('void-panel').hidden") is True
                page.screenshot(ARTIFACTS / "live_board_released_reviewed.png")
                assert http.post(f"{ROOM}/void", json={"reason": "wrong motion read out"}, headers=ORG).status_code == 200
                page.wait_for("document.body.dataset.verdictState === 'void'")
                # before: nothing on the board said void (no verdict, no notice)
                assert page.eval("document.getElementById('verdict-panel').hidden") is True
                assert page.eval("document.getElementById('void-panel').hidden") is False
                assert page.eval(_text("#void-text")) == "Void: the organiser voided this room's result, so it counts for nothing until it is reopened."
                page.screenshot(ARTIFACTS / "live_board_void.png")
                page.call("Page.navigate", url=f"{server.url}/board/round/cup/r1")
                page.wait_for("document.body.dataset.rooms === '1'")
                # before: the raw key "state.void"
                assert page.eval(_text("tr[data-room='a'] .verdict-cell")) == "void"
                page.screenshot(ARTIFACTS / "live_round_void.png")
    finally:
        server.stop()
