"""Stored data written by commit 0cefc6c opens, migrates and reads back as it was written
(tests/stored_0cefc6c/README.md says how the fixtures were made): a SQLite state folder and a
PostgreSQL database (a plain-SQL dump), each holding a closed and an open stand-alone match and a
tournament round of three rooms (released with an override, reopened, still open), a person token and
the lifecycle log. ``expected.json`` is what 0cefc6c's server answered about them; the server of this
checkout must answer the same, then take further writes (a push and close, a confirmation)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from live_fakes import TOKEN, start_server
from stored_0cefc6c.make import expected, pg_tool

from adjudicator.judges.offline.backend import OfflineBackend
from adjudicator.workflow.context import AdjudicationContext

FIXTURES = Path(__file__).resolve().parent / "stored_0cefc6c"
WRITTEN = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
ORG = {"Authorization": f"Bearer {TOKEN}"}


def load_dump(url: str) -> None:
    """Restore ``postgres.sql`` into the (empty) database at ``url`` with psql."""
    subprocess.run([pg_tool("psql"), "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", str(FIXTURES / "postgres.sql")],
                   check=True, capture_output=True, text=True)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def stored(request, tmp_path):
    """(backend name, the state folder, the store URL or None) holding 0cefc6c's data."""
    state = tmp_path / "state"
    if request.param == "sqlite":
        shutil.copytree(FIXTURES / "sqlite", state)
        return request.param, state, None
    url = request.getfixturevalue("pg_url")
    load_dump(url)
    state.mkdir()
    return request.param, state, url


def test_stored_data_of_0cefc6c_opens_and_reads_back_as_written(stored):
    name, state, url = stored
    server = start_server(state, AdjudicationContext.single(OfflineBackend()), store=url)
    try:
        assert expected(server.url, TOKEN) == WRITTEN[name]
    finally:
        server.stop()


def test_stored_data_of_0cefc6c_takes_further_writes(stored):
    name, state, url = stored
    written = WRITTEN[name]
    server = start_server(state, AdjudicationContext.single(OfflineBackend()), store=url)
    try:
        with httpx.Client(base_url=server.url, headers=ORG, timeout=60, trust_env=False) as http:
            match = json.loads((Path(__file__).resolve().parents[1] / "adjudicator/data/matches/panelbench/debateart_4739.json").read_text(encoding="utf-8"))
            for k in range(2, 6):  # the open match held s01 and s02 of its six stages
                r = http.post("/api/matches/debateart_4739/stages", json=match["stages"][k])
                assert r.status_code == 200, r.text
                assert r.json()["received"] == k + 1 and r.json()["duplicate"] is False
            r = http.post("/api/matches/debateart_4739/close")
            assert r.status_code == 200, r.text
            r = http.post("/api/tournaments/spring/rounds/r1/rooms/b/confirm", json={"by": "Tab director"})
            assert r.status_code == 200, r.text
            log = http.get("/api/tournaments/spring/log").json()["log"]
        old_seq = max(e["seq"] for e in written["log"]["log"])
        new = [e for e in log if e["seq"] > old_seq]
        assert log[: len(written["log"]["log"])] == written["log"]["log"]
        assert [e["kind"] for e in new] == ["confirmed"] and new[0]["room_id"] == "b"
    finally:
        server.stop()
    again = start_server(state, AdjudicationContext.single(OfflineBackend()), store=url)
    try:
        now = expected(again.url, TOKEN)
        assert now["matches"]["debateart_4739"]["status"] == "closed" and now["matches"]["debateart_4739"]["stage_ids"] == [f"s0{k}" for k in range(1, 7)]
        assert {k: v for k, v in now["matches"].items() if k != "debateart_4739"} == {k: v for k, v in written["matches"].items() if k != "debateart_4739"}
        states = [(r["decision"] or {}).get("state") for r in now["rooms"]]
        assert states == ["released", "confirmed", None] and now["rooms"][1]["decision"]["version"] == written["rooms"][1]["decision"]["version"] + 1
    finally:
        again.stop()
