"""``adjudicate live serve`` as a real process: the URLs it prints, the access file it writes (mode 0600,
the token kept across a restart), and the model options it takes, with every stage and judge going to the
loopback OpenAI-compatible server.

Moved out of test_live_api.py, whose every test runs once per store (``live_store``): these two start
``live serve`` without ``--store``, so their PostgreSQL runs repeated the SQLite ones exactly (29 s of
the full suite under load). A served PostgreSQL store is tested by test_live_postgres.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
from fake_openai import fake_openai  # noqa: F401 (fixture)
from live_fakes import header_body, online_match, stage_body, wait_until
from processes import stop


def test_serve_prints_urls_and_writes_the_access_file(tmp_path):
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state),
         "--context-factory", "live_fakes:logging_context", "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(4)]
        access = json.loads((state / "access.json").read_text())
        assert (state / "access.json").stat().st_mode & 0o777 == 0o600
        assert lines[0].strip() == f"organiser: {access['url']}/organiser?token={access['token']}"
        assert lines[1].strip() == f"board:     {access['url']}/board" and lines[2].strip() == f"token:     {access['token']}"
        assert access["url"].startswith("http://127.0.0.1:")
        with httpx.Client(base_url=access["url"], timeout=10, trust_env=False) as http:
            wait_until(lambda: http.get("/api/health").status_code == 200)
            assert http.post("/api/matches", json=header_body(online_match("z", 1))).status_code == 401
            assert http.post("/api/matches", json=header_body(online_match("z", 1)), headers={"Authorization": f"Bearer {access['token']}"}).status_code == 201
    finally:
        stop(proc)
    assert proc.returncode is not None
    # a restart keeps the token (organiser links stay valid)
    proc2 = subprocess.Popen(
        [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state),
         "--context-factory", "live_fakes:logging_context", "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        proc2.stdout.readline()
        proc2.stdout.readline()
        assert proc2.stdout.readline().strip() == f"token:     {access['token']}"
    finally:
        stop(proc2)


def test_serve_takes_the_cli_model_options_and_works_with_an_llm(fake_openai, tmp_path):
    """`live serve --model openai/... --api-base ...` (the same options as `adjudicate`): every stage
    and judge goes to the loopback OpenAI-compatible server, and the board says it is an LLM."""
    from llm_helpers import online_match as llm_match
    from llm_helpers import schema_responder

    fake_openai.respond_with(schema_responder)
    m = llm_match(match_id="llm1")
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent), "ADJUDICATOR_API_KEY": "sk-test-key-0123456789"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state), "--log-level", "warning",
         "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        assert proc.stdout.readline().startswith("organiser: ")
        access = json.loads((state / "access.json").read_text())
        auth = {"Authorization": f"Bearer {access['token']}"}
        with httpx.Client(base_url=access["url"], timeout=30, trust_env=False) as http:
            wait_until(lambda: http.get("/api/health").status_code == 200)
            assert http.post("/api/matches", json=header_body(m), headers=auth).status_code == 201
            for i in range(4):
                r = http.post("/api/matches/llm1/stages", json=stage_body(m, i), headers=auth)
                assert r.status_code == 200 and r.json()["analysed"] == i + 1, r.text
            snap = http.get("/api/matches/llm1").json()
            assert (snap["model"], snap["is_llm"], len(snap["scores"])) == ("openai/test-model", True, 4)
            assert fake_openai.count == 4  # one tracker request per pushed stage
            verdict = http.post("/api/matches/llm1/close", headers=auth).json()
    finally:
        stop(proc)
    assert fake_openai.count == 4 + 3  # and one per judge
    assert verdict["provenance"]["is_llm"] is True and verdict["provenance"]["model"] == "openai/test-model"
    assert len(verdict["ballots"]) == 3 and verdict["failures"] == []
