"""Live mode on PostgreSQL with several server processes: what only a shared database has to get right.

- pushes of the same stage to two processes at once are analysed once, and a room's stages stay in
  order when every stage is pushed to both processes at the same time;
- a board connected to one process follows pushes made through another (LISTEN/NOTIFY);
- rooms do not wait for each other (no process-wide lock): two analyses of different rooms in one
  process meet at a barrier, which a serialising lock would never let them reach;
- ``kill -9`` of a server in the middle of a push: the push is committed once (killed during the
  analysis: the retry of the same stage id on another process is a duplicate and finishes the
  analysis) or not at all (killed while waiting for the room's lock: the retry is a fresh push), and a
  second retry is a no-op;
- three processes starting at once migrate the database once.

The whole live API and tournament suites also run on PostgreSQL (``live_store`` in conftest.py); these
tests need the throwaway cluster and are skipped only where PostgreSQL's binaries are absent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, header_body, online_match, stage_body, start_server, wait_until

from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.live.store.pgconn import lock_key
from adjudicator.live.store.postgres import PostgresStorage
from adjudicator.live.store.schema import migrations_for
from adjudicator.workflow.context import AdjudicationContext

pytestmark = pytest.mark.postgres

AUTH = {"Authorization": f"Bearer {TOKEN}"}
REPO = Path(__file__).resolve().parents[1]


def _http(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30, trust_env=False)


@pytest.fixture
def two_servers(tmp_path, pg_url):
    """Two in-process servers (separate apps, stores and pools, as two processes) over one database."""
    b1, b2 = RecordingBackend(), RecordingBackend()
    s1 = start_server(tmp_path / "a", AdjudicationContext.single(b1), store=pg_url)
    s2 = start_server(tmp_path / "b", AdjudicationContext.single(b2), store=pg_url)
    try:
        yield (s1, b1), (s2, b2)
    finally:
        s1.stop()
        s2.stop()


def _analysed_ids(*backends: RecordingBackend) -> list[str]:
    return sorted(q.stage.stage_id for b in backends for q in b.stage_requests)


def test_the_same_stage_pushed_to_two_processes_at_once_is_analysed_once(two_servers):
    (s1, b1), (s2, b2) = two_servers
    m = online_match("r", 4)
    with _http(s1.url) as h1, _http(s2.url) as h2:
        assert h1.post("/api/matches", json=header_body(m), headers=AUTH).status_code == 201
        # the id is taken in the shared registry: the other process refuses it too
        assert h2.post("/api/matches", json=header_body(m), headers=AUTH).status_code == 409
        clients = [h1, h2] * 4
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda h: h.post("/api/matches/r/stages", json=stage_body(m, 0), headers=AUTH), clients))
        assert [r.status_code for r in replies] == [200] * 8, [r.text for r in replies]
        # one push recorded the stage; the seven others found it by its stage id
        assert sorted(r.json()["duplicate"] for r in replies) == [False] + [True] * 7
        assert all(r.json()["analysed"] == 1 for r in replies)
        assert _analysed_ids(b1, b2) == ["s1"]
        # each later stage pushed to both processes at the same moment: appended once, in order
        for i in range(1, 4):
            with ThreadPoolExecutor(2) as pool:
                pair = list(pool.map(lambda h: h.post("/api/matches/r/stages", json=stage_body(m, i), headers=AUTH), [h1, h2]))  # noqa: B023 (used at once)
            assert sorted(r.json()["duplicate"] for r in pair) == [False, True]
        assert _analysed_ids(b1, b2) == ["s1", "s2", "s3", "s4"]
        snap1, snap2 = h1.get("/api/matches/r").json(), h2.get("/api/matches/r").json()
        assert [s["stage_id"] for s in snap1["stages"]] == ["s1", "s2", "s3", "s4"] and snap1["analysed"] == 4
        assert snap2["revision"] == snap1["revision"] and snap2["stages"] == snap1["stages"]
        # close through one process, read the verdict through the other
        verdict = h2.post("/api/matches/r/close", headers=AUTH).json()
        assert h1.get("/api/matches/r/verdict").json() == verdict and h1.get("/api/matches/r").json()["status"] == "closed"
        assert len(b1.judge_requests) + len(b2.judge_requests) == 3


def test_a_board_on_one_process_follows_pushes_made_through_another(two_servers):
    (s1, _), (s2, _) = two_servers
    m = online_match("v", 2)
    got: list = []
    done = threading.Event()

    def follow():
        with _http(s2.url) as http, http.stream("GET", "/api/matches/v/events") as resp:
            event = None
            for line in resp.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "board":
                    got.append(json.loads(line[6:]))
                    if got[-1]["analysed"] == 2:
                        done.set()
                        return

    with _http(s1.url) as h1:
        assert h1.post("/api/matches", json=header_body(m), headers=AUTH).status_code == 201
        t = threading.Thread(target=follow, daemon=True)
        t.start()
        wait_until(lambda: s2.app.state.hub.subscribers("v") == 1)
        for i in range(2):
            assert h1.post("/api/matches/v/stages", json=stage_body(m, i), headers=AUTH).status_code == 200
        assert done.wait(20), got
    # the snapshot at connection, then changes made by the other process, revisions never going back
    assert got[0]["analysed"] == 0 and got[-1]["analysed"] == 2 and got[-1]["latest"]["stage_id"] == "s2"
    assert [e["revision"] for e in got] == sorted(e["revision"] for e in got)


class BarrierBackend(RecordingBackend):
    """Each stage analysis waits (at most 20 s) until two analyses are inside it at once."""

    def __init__(self) -> None:
        super().__init__()
        self.barrier = threading.Barrier(2, timeout=20)

    def analyse_stage(self, request):
        self.barrier.wait()
        return super().analyse_stage(request)


def test_two_rooms_are_analysed_at_the_same_time_in_one_process(tmp_path, pg_url):
    backend = BarrierBackend()
    store = LiveStore(tmp_path / "s", AdjudicationContext.single(backend), storage=PostgresStorage(pg_url))
    try:
        a, b = online_match("a", 1), online_match("b", 1, topic="space travel")
        store.create(header_body(a))
        store.create(header_body(b))
        with ThreadPoolExecutor(2) as pool:
            replies = list(pool.map(lambda mb: store.push(mb[0], stage_body(mb[1], 0)), [("a", a), ("b", b)]))
        # had one lock serialised the rooms, the first analysis would have waited at the barrier alone and failed
        assert [(r["match_id"], r["analysed"]) for r in replies] == [("a", 1), ("b", 1)] and not backend.barrier.broken
    finally:
        store.close()


def test_three_processes_starting_at_once_migrate_once(pg_url):
    with ThreadPoolExecutor(3) as pool:
        stores = list(pool.map(lambda _: PostgresStorage(pg_url, pool_size=2, lock_pool_size=2), range(3)))
    for s in stores:
        s.close()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT component, version FROM adjudicator_migrations ORDER BY component, version").fetchall()
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()}
    assert rows == sorted((m.component, m.version) for m in migrations_for("postgresql"))
    assert {"live_matches", "live_verdicts", "tournaments", "rooms", "decisions", "lifecycle_log", "checkpoints", "checkpoint_blobs", "checkpoint_writes"} <= tables


# ---------------------------------------------------------------------------------------------
# kill -9 in the middle of a push


def _serve(state: Path, url: str, log: Path, block: str | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent), "LIVE_FAKE_LOG": str(log), "ADJUDICATOR_LIVE_TOKEN": TOKEN}
    env.pop("LIVE_FAKE_BLOCK", None)
    if block:
        env["LIVE_FAKE_BLOCK"] = block
    return subprocess.Popen(
        [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state), "--store", url,
         "--context-factory", "live_fakes:logging_context", "--log-level", "warning"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )


def _url_of(state: Path, proc: subprocess.Popen) -> str:
    def ready():
        assert proc.poll() is None, proc.stderr.read()
        try:
            url = json.loads((state / "access.json").read_text())["url"]
            return url if httpx.get(f"{url}/api/health", timeout=2, trust_env=False).json()["recovered"] else None
        except (OSError, ValueError, KeyError, httpx.TransportError):
            return None

    return wait_until(ready, timeout_s=30)


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(20)


def _push_in_background(url: str, match_id: str, body: dict) -> threading.Thread:
    def run():
        try:
            with httpx.Client(base_url=url, timeout=60, trust_env=False) as http:
                http.post(f"/api/matches/{match_id}/stages", json=body, headers=AUTH)
        except httpx.TransportError:  # the server died under the request: what a client sees
            pass

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _stored(url: str, match_id: str) -> tuple[list[str], list[str]]:
    """(stage ids received, stage ids pending) as the database has them, read by a fresh store."""
    probe = LiveStore(Path("/nonexistent-unused"), AdjudicationContext.single(RecordingBackend()), storage=PostgresStorage(url, pool_size=2, lock_pool_size=2))
    try:
        return [s.stage_id for s in probe.stages(match_id)], probe.pending(match_id)
    finally:
        probe.close()


def test_kill_9_during_a_push_commits_it_once_or_not_at_all_and_a_retry_is_a_no_op(tmp_path, pg_url):
    log = tmp_path / "analyses.log"
    m, n = online_match("k", 3), online_match("n", 2, topic="space travel")
    procs = [_serve(tmp_path / "a", pg_url, log, block="s3"), _serve(tmp_path / "b", pg_url, log)]
    try:
        url_a, url_b = _url_of(tmp_path / "a", procs[0]), _url_of(tmp_path / "b", procs[1])
        with _http(url_a) as ha:
            assert ha.post("/api/matches", json=header_body(m), headers=AUTH).status_code == 201
            assert ha.post("/api/matches", json=header_body(n), headers=AUTH).status_code == 201
            for i in range(2):
                assert ha.post("/api/matches/k/stages", json=stage_body(m, i), headers=AUTH).json()["analysed"] == i + 1

        # 1. killed during the analysis: the stage was committed before it was analysed
        t = _push_in_background(url_a, "k", stage_body(m, 2))
        wait_until(lambda: Path(f"{log}.blocked").exists())
        _kill(procs[0])
        t.join(20)
        assert _stored(pg_url, "k") == (["s1", "s2", "s3"], ["s3"])
        with _http(url_b) as hb:
            # the client retries on another process: a duplicate, whose analysis that process finishes
            r = hb.post("/api/matches/k/stages", json=stage_body(m, 2), headers=AUTH).json()
            assert (r["duplicate"], r["received"], r["analysed"], r["pending"]) == (True, 3, 3, [])
            revision = hb.get("/api/matches/k").json()["revision"]
            again = hb.post("/api/matches/k/stages", json=stage_body(m, 2), headers=AUTH).json()
            assert (again["duplicate"], again["analysed"]) == (True, 3)
            assert hb.get("/api/matches/k").json()["revision"] == revision  # a no-op: nothing committed, nothing announced
        # s3 was started by the killed process and analysed again by the other; the second retry analysed nothing
        assert log.read_text().split("\n")[:-1] == ["k s1", "k s2", "k s3", "k s3"]

        # 2. killed while waiting for the room's lock (here held by the test): nothing was committed
        with psycopg.connect(pg_url, autocommit=True) as holder:
            holder.execute("SELECT pg_advisory_lock(%s)", (lock_key("live:n"),))
            t = _push_in_background(url_b, "n", stage_body(n, 0))
            with psycopg.connect(pg_url, autocommit=True) as watch:
                wait_until(lambda: watch.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchone()[0] == 1)
            _kill(procs[1])
            t.join(20)
            holder.execute("SELECT pg_advisory_unlock(%s)", (lock_key("live:n"),))
        assert _stored(pg_url, "n") == ([], [])
        procs.append(_serve(tmp_path / "c", pg_url, log))
        with _http(_url_of(tmp_path / "c", procs[2])) as hc:
            first = hc.post("/api/matches/n/stages", json=stage_body(n, 0), headers=AUTH).json()
            retry = hc.post("/api/matches/n/stages", json=stage_body(n, 0), headers=AUTH).json()
            assert (first["duplicate"], first["analysed"], retry["duplicate"], retry["analysed"]) == (False, 1, True, 1)
            # the room of the killed push in part 1 goes on normally on this third process
            # three speeches of four: closed with force (the missing speech is not what this test is about)
            assert hc.post("/api/matches/k/close?force=true", headers=AUTH).json()["winner"] == "affirmative"
        assert log.read_text().split("\n")[:-1] == ["k s1", "k s2", "k s3", "k s3", "n s1"]
        assert _stored(pg_url, "n") == (["s1"], [])
    finally:
        for p in procs:
            _kill(p)
