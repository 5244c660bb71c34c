"""The pages a chair uses with recordings, in headless Chromium: the board shows a machine-made stage's
transcript under the stage with its times, and the turn marker records a key per turn.

No model is needed: the machine-made stage is pushed as the JSON ``adjudicate transcribe`` writes.
Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from cdp_chromium import CHROMIUM, Chromium
from live_fakes import TOKEN, start_server

from adjudicator.judges.offline import OfflineBackend
from adjudicator.workflow.context import AdjudicationContext

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)")

AUTH = {"Authorization": f"Bearer {TOKEN}"}
#: Where the board screenshot goes (a CI artefact; a temporary file by default).
ARTIFACT = Path(os.environ.get("SPEECH_BOARD_SCREENSHOT", "/tmp/adjudicator-speech-board.png"))

HEADER = {"match_id": "rec", "format": "online-1v1", "language": "en", "motion": "Homework should be banned in primary schools",
          "affirmative_position": "Ban it", "negative_position": "Keep it",
          "debaters": [{"side": "affirmative", "position": 1, "name": "Ann"}, {"side": "negative", "position": 1, "name": "Ned"}]}
STAGE = {"stage_id": "s01", "name": "Affirmative speech 1", "type": "constructive", "sides": ["affirmative"], "speakers": ["Affirmative Speaker 1"],
         "utterances": [
             {"speaker": "Affirmative Speaker 1", "side": "affirmative", "text": "Homework should be banned in primary schools.", "start_s": 0.0, "end_s": 3.1, "confidence": 0.667},
             {"speaker": "Affirmative Speaker 1", "side": "affirmative", "text": "Children need time to play and rest.", "start_s": 63.2, "end_s": 65.4, "confidence": 0.31},
         ],
         "transcript": {"made_by": "speech_to_text", "engine": "faster-whisper 1.2.1", "model": "whisper-base", "language": "en", "language_probability": None,
                        "settings": {"beam_size": 5}, "audio": "s01.ogg", "audio_sha256": "d" * 64, "duration_s": 66.0, "attribution": "speaking_order"}}


def _text(selector: str) -> str:
    return f"document.querySelector({selector!r}).textContent"


def test_the_board_shows_a_machine_transcript_under_its_stage_with_times(tmp_path):
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            assert http.post("/api/matches", json=HEADER, headers=AUTH).status_code == 201
            assert http.post("/api/matches/rec/stages", json=STAGE, headers=AUTH).status_code == 200
            with Chromium(f"{server.url}/board/rec", root=tmp_path / "chromium", height=1400) as page:
                page.wait_for("document.body.dataset.analysed === '1'")
                assert page.eval("document.querySelectorAll('#score-table tbody tr.score-row').length") == 1
                assert page.eval(_text("#score-table tr.transcript-row summary")) == "Machine transcript (whisper-base; speakers: from the speaking order): 2 lines, 1:06 of audio"
                page.eval("document.querySelector('#score-table tr.transcript-row details').open = true")
                lines = page.eval("[...document.querySelectorAll('#score-table li.transcript-line')].map((li) => li.textContent)")
                assert [line.split(": ", 1)[1] for line in lines] == [u["text"] for u in STAGE["utterances"]]
                assert lines[0].startswith("0:00–0:03 Affirmative Speaker 1") and lines[1].startswith("1:03–1:05 ")
                assert page.eval("document.querySelectorAll('#score-table li.transcript-line')[1].title") == "recogniser's confidence 0.31"
                page.screenshot(ARTIFACT)
    finally:
        server.stop()


def test_the_turn_marker_records_a_key_per_turn(tmp_path):
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with Chromium(f"{server.url}/static/turns.html", root=tmp_path / "chromium") as page:
            page.wait_for("document.body.dataset.ready === '1'")
            key = "document.dispatchEvent(new KeyboardEvent('keydown', {key: %r}))"
            for k in (" ", "n", "4", "a", "a", "Backspace", "n"):
                page.eval(key % k)
            turns = page.eval("JSON.parse(localStorage.getItem('adjudicator.turns')).turns")
            assert [(t.get("side"), t.get("speaker")) for t in turns] == [("negative", "Negative Speaker 4"), ("affirmative", None), ("negative", None)]
            assert all(isinstance(t["at_s"], (int, float)) and t["at_s"] >= 0 for t in turns)
            assert page.eval("document.querySelectorAll('#marks li').length") == 3
            assert page.eval("document.getElementById('save').disabled") is False
    finally:
        server.stop()
