"""Bounded live state (issue 10, item 10): header fields have size limits, a server keeps at most
``max_matches`` matches, its in-memory caches evict, and the token-free match list is paginated
summaries."""

from __future__ import annotations

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, header_body, online_match, stage_body, start_server

from adjudicator.input.match import MAX_INFO_CHARS, MAX_MOTION_CHARS
from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.live.server.app import create_app
from adjudicator.live.server.serving import LiveServer
from adjudicator.workflow.context import AdjudicationContext

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def context() -> AdjudicationContext:
    return AdjudicationContext.single(RecordingBackend())


def big_header(i: int) -> dict:
    """A header at the field limits: a 1,000-character motion and a 20,000-character info."""
    body = header_body(online_match(f"m{i:03d}", 2))
    body["motion"] = (f"Motion {i:03d} " + "x" * MAX_MOTION_CHARS)[:MAX_MOTION_CHARS]
    body["info"] = "i" * MAX_INFO_CHARS
    return body


def test_a_header_field_over_its_limit_is_refused_naming_it(tmp_path):
    server = start_server(tmp_path / "state", context())
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False, headers=AUTH) as http:
            body = header_body(online_match("huge", 2)) | {"motion": "m" * 900_000}  # 0.9 MB, under the 1 MiB body limit
            r = http.post("/api/matches", json=body)
            assert r.status_code == 422 and r.json()["field"] == "motion"
            assert r.json()["detail"] == 'match: field motion has 900,000 characters, more than the 1,000 allowed; shorten it (the limits are in README, "The match format")'
            assert http.get("/api/matches").json()["total"] == 0
    finally:
        server.stop()


def test_a_flood_of_creates_stops_at_max_matches_and_the_list_is_paged_summaries(tmp_path):
    app = create_app(tmp_path / "state", context(), TOKEN, max_matches=30)
    server = LiveServer(app).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False, headers=AUTH) as http:
            for i in range(30):
                assert http.post("/api/matches", json=big_header(i)).status_code == 201
            r = http.post("/api/matches", json=big_header(30))
            assert r.status_code == 409
            assert r.json()["detail"].startswith("this server holds 30 matches, its limit (--max-matches 30)")
            page = http.get("/api/matches", params={"limit": 12}).json()
            assert (page["total"], page["offset"], page["limit"], page["next_offset"]) == (30, 0, 12, 12)
            assert [m["match_id"] for m in page["matches"]] == [f"m{i:03d}" for i in range(12)]
            assert set(page["matches"][0]) == {"match_id", "motion", "format", "status", "received", "analysed", "failed", "created_at", "board_url"}
            last = http.get("/api/matches", params={"offset": 24, "limit": 12}).json()
            assert [m["match_id"] for m in last["matches"]] == [f"m{i:03d}" for i in range(24, 30)] and last["next_offset"] is None
            # the default page is bounded: 30 summaries of a 1,000-character motion, no info, no stages
            whole = http.get("/api/matches")
            assert len(whole.json()["matches"]) == 30 and len(whole.content) < 30 * (MAX_MOTION_CHARS + 300)
            assert http.get("/api/matches", params={"limit": 501}).status_code == 422
    finally:
        server.stop()


def test_the_store_keeps_only_recently_used_matches_in_memory(tmp_path):
    store = LiveStore(tmp_path / "state", context(), cached_matches=3)
    try:
        matches = [online_match(f"c{i}", 2) for i in range(8)]
        for m in matches:
            store.create(header_body(m))
            store.push(m.match_id, stage_body(m, 0))
        assert len(store._values) <= 3 and len(store._snapshots) <= 3
        # an evicted match is read back from its checkpoint, whole
        first = store.snapshot("c0")
        assert (first["received"], first["analysed"], first["stages"][0]["stage_id"]) == (1, 1, "s1")
        store.push("c0", stage_body(matches[0], 1))
        assert store.snapshot("c0")["analysed"] == 2
        assert len(store._values) <= 3 and len(store._snapshots) <= 3
        assert store.list_matches()["total"] == 8
    finally:
        store.close()


def test_the_cache_bound_is_at_least_one():
    from adjudicator.live.rooms.cache import BoundedCache

    with pytest.raises(ValueError):
        BoundedCache(0)
    c: BoundedCache[int] = BoundedCache(2)
    c["a"], c["b"] = 1, 2
    assert c.get("a") == 1  # a is now the most recent
    c["c"] = 3  # evicts b, the least recently used
    assert ("a" in c, "b" in c, "c" in c, len(c)) == (True, False, True, 2)
