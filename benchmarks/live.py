"""Latency of live adjudication per pushed stage, through the real HTTP API, with the offline judge.

    .venv/bin/python benchmarks/live.py [--runs 3] [--match PATH] [--target-chars 20000] [--tournament] [--quick]

For each run it starts nothing new: one live server (uvicorn on 127.0.0.1, a free port, a fresh state
directory with its SQLite checkpointer) serves every run; each run creates a new match and pushes its
14 stages one at a time (``POST /api/matches/{id}/stages``, waiting for the analysis), then closes it.
Measured per push:

- ``push``: from sending the POST to receiving its response (validation, durable receipt, the
  clash tracker, the checkpoint after it, the board snapshot): the framework's latency per stage;
- ``board``: from sending the POST to a board client (an SSE subscriber in another thread) receiving
  the snapshot with that stage analysed;
- ``tracker``: the offline tracker's own compute inside the push (measured around the backend call),
  so ``push - tracker`` is the framework's overhead.

The match: ``synthetic_4v4_01.json`` (synthetic, ccdb-4v4, 14 stages; not real data), its utterances
repeated within each stage until the match reaches ``--target-chars`` characters (default 20,000: the
CCDB paper reports about three million characters over 148 matches, ~20k a match), so the text and
the checkpointed state have real-match size. Target (issue 6): p95 ``push`` under 0.5 s.

With ``--tournament`` each run's match is a room of a tournament round (``bench.r1.room<k>``), pushed
and closed with the room's chair token; every board snapshot then also passes through the tab room's
visibility filter (a few reads of ``tournaments.sqlite``). After each close it also measures the
chair's ``confirm`` (with an override of one stage score) and the organiser's ``release`` of the room,
each one compare-and-set transaction plus the republished board.

``--quick`` (CI, so the script cannot rot): one run of the match at its own length; the exit code
then says only that every step ran (the target is printed, not enforced).

It also reports the SQLite state left by the runs: the database file, the WAL (whose file keeps its
high-water mark, about 4 MB with SQLite's default auto-checkpoint of 1000 pages, whatever the number
of matches), and the checkpoints and pending writes it holds. The store keeps only each thread's latest
checkpoint (:func:`adjudicator.live.store.checkpoints.prune_thread`), so the state grows by about one final
tracking checkpoint and one final panel checkpoint per match.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from adjudicator.input.match import Match  # noqa: E402
from adjudicator.input.match_file import load_match  # noqa: E402
from adjudicator.live.server.app import create_app  # noqa: E402
from adjudicator.live.server.serving import LiveServer  # noqa: E402
from adjudicator.workflow.context import AdjudicationContext  # noqa: E402

DEFAULT_MATCH = REPO / "adjudicator/data/matches/synthetic/synthetic_4v4_01.json"
TARGET_P95_S = 0.5


def full_length(match: Match, target_chars: int) -> Match:
    """``match`` with each stage's utterances repeated k times, k = ceil(target / current characters);
    exchanges keep pointing at the first copy (valid indices)."""
    current = sum(len(u.text) for s in match.stages for u in s.utterances)
    k = max(1, math.ceil(target_chars / max(1, current)))
    stages = [s.model_copy(update={"utterances": list(s.utterances) * k}) for s in match.stages]
    return Match.model_validate(match.model_copy(update={"stages": stages}).model_dump())


class TimedBackend:
    """Wraps a backend and records the seconds each ``analyse_stage`` call takes; every other attribute
    (``judge``, ``prompt_hashes(format_name, panel)``, ...) is the inner backend's own, so the wrapper
    keeps its signatures as they change (a hand-written ``prompt_hashes()`` without arguments made the
    first close fail with a TypeError)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.tracker_s: list[float] = []

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def with_readings(self, readings):
        """The inner tracker over the live store's reading shelf (:mod:`adjudicator.live.store.readings`),
        still timed into this wrapper's list."""
        timed = TimedBackend(self.inner.with_readings(readings))
        timed.tracker_s = self.tracker_s
        return timed

    def analyse_stage(self, request):
        t0 = time.perf_counter()
        try:
            return self.inner.analyse_stage(request)
        finally:
            self.tracker_s.append(time.perf_counter() - t0)


def _listen(url: str, match_id: str, seen: dict[int, float], ready: threading.Event, done: threading.Event) -> None:
    with httpx.Client(timeout=httpx.Timeout(60, read=60), trust_env=False) as http:
        with http.stream("GET", f"{url}/api/matches/{match_id}/events") as resp:
            ready.set()
            for line in resp.iter_lines():
                if line.startswith("data: "):
                    n = json.loads(line[6:])["analysed"]
                    seen.setdefault(n, time.perf_counter())
                if done.is_set():
                    return


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (linear interpolation), in the values' unit."""
    return float(np.percentile(np.asarray(values), q))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="matches to push (14 stages each)")
    ap.add_argument("--match", type=Path, default=DEFAULT_MATCH, help="a ccdb-4v4 match file")
    ap.add_argument("--target-chars", type=int, default=20000, help="stretch the match to about this many characters")
    ap.add_argument("--tournament", action="store_true", help="push into tournament rooms (chair tokens), then confirm and release each")
    ap.add_argument("--quick", action="store_true", help="one run at the match's own length; exit 0 whatever the latency")
    args = ap.parse_args(argv)
    if args.quick:
        args.runs, args.target_chars = 1, 0

    from adjudicator.api import build_context
    from adjudicator.config import resolve_config

    base = build_context(resolve_config(model="offline"))
    timed = TimedBackend(base.tracker)
    context = AdjudicationContext(tracker=timed, judges=dict(base.judges))
    match = full_length(load_match(args.match), args.target_chars)
    chars = sum(len(u.text) for s in match.stages for u in s.utterances)
    header = match.view().model_dump(mode="json", exclude={"stages"})
    bodies = [s.model_dump(mode="json") for s in match.stages]
    token = "benchmark-token-0123456789"
    auth = {"Authorization": f"Bearer {token}"}

    push_s: list[float] = []
    board_s: list[float] = []
    close_s: list[float] = []
    confirm_s: list[float] = []
    release_s: list[float] = []
    with tempfile.TemporaryDirectory(prefix="live-bench-") as state:
        app = create_app(state, context, token)
        with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=60, trust_env=False) as http:
            if args.tournament:
                http.post("/api/tournaments", json={"tournament_id": "bench"}, headers=auth).raise_for_status()
                round_body = {k: header[k] for k in ("format", "language", "motion", "affirmative_position", "negative_position")} | {"round_id": "r1"}
                http.post("/api/tournaments/bench/rounds", json=round_body, headers=auth).raise_for_status()
            for run in range(args.runs):
                writer = auth
                if args.tournament:
                    r = http.post("/api/tournaments/bench/rounds/r1/rooms", json={"room_id": f"room{run + 1}", "teams": {"affirmative": "A", "negative": "N"}}, headers=auth)
                    r.raise_for_status()
                    mid, writer = r.json()["match_id"], {"Authorization": f"Bearer {r.json()['chair_token']}"}
                else:
                    mid = f"bench-{run + 1}"
                    r = http.post("/api/matches", json={**header, "match_id": mid}, headers=auth)
                    r.raise_for_status()
                seen: dict[int, float] = {}
                ready, done = threading.Event(), threading.Event()
                listener = threading.Thread(target=_listen, args=(server.url, mid, seen, ready, done), daemon=True)
                listener.start()
                ready.wait(10)
                time.sleep(0.05)
                for i, body in enumerate(bodies):
                    t0 = time.perf_counter()
                    r = http.post(f"/api/matches/{mid}/stages", json=body, headers=writer)
                    t1 = time.perf_counter()
                    r.raise_for_status()
                    assert r.json()["analysed"] == i + 1
                    push_s.append(t1 - t0)
                    deadline = time.monotonic() + 10
                    while i + 1 not in seen and time.monotonic() < deadline:
                        time.sleep(0.0005)
                    board_s.append(seen.get(i + 1, float("nan")) - t0)
                t0 = time.perf_counter()
                http.post(f"/api/matches/{mid}/close", headers=writer).raise_for_status()
                close_s.append(time.perf_counter() - t0)
                if args.tournament:
                    room = f"/api/tournaments/bench/rounds/r1/rooms/room{run + 1}"
                    t0 = time.perf_counter()
                    http.post(f"{room}/confirm", json={"stage_scores": {"s01|affirmative": 8}, "note": "benchmark"}, headers=writer).raise_for_status()
                    confirm_s.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    http.post(f"{room}/release", headers=auth).raise_for_status()
                    release_s.append(time.perf_counter() - t0)
                done.set()
            db_path = Path(state) / "live.sqlite"
            main_mb = db_path.stat().st_size / 1e6
            wal_mb = sum(extra.stat().st_size for extra in Path(state).glob("live.sqlite-*")) / 1e6
            db_mb = main_mb + wal_mb
            with sqlite3.connect(db_path) as conn:  # read-only look while the server runs (WAL mode)
                n_checkpoints, ckpt_bytes = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(checkpoint)), 0) FROM checkpoints").fetchone()
                n_writes, write_bytes = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(value)), 0) FROM writes").fetchone()

    tracker_s = timed.tracker_s
    rows = [("push (POST -> response)", push_s), ("board (POST -> SSE snapshot)", board_s), ("offline tracker compute", tracker_s),
            ("framework overhead (push - tracker)", [p - t for p, t in zip(push_s, tracker_s)]), ("close (panel + report)", close_s)]
    if args.tournament:
        rows += [("confirm with override (chair)", confirm_s), ("release one room (organiser)", release_s)]
    where = "tournament rooms, chair tokens" if args.tournament else "stand-alone matches"
    print(f"live push latency: {match.format}, {len(bodies)} stages, {chars} characters, {args.runs} run(s), {where}, offline judge, HTTP on 127.0.0.1")
    print(f"{'metric':<38} {'n':>4} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}")
    for name, vals in rows:
        print(f"{name:<38} {len(vals):>4} {pct(vals, 50) * 1e3:>9.1f} {pct(vals, 95) * 1e3:>9.1f} {max(vals) * 1e3:>9.1f}")
    p95 = pct(push_s, 95)
    print(
        f"SQLite state after the runs: {db_mb:.1f} MB (database file {main_mb:.2f} MB + WAL/shm {wal_mb:.2f} MB); "
        f"{n_checkpoints} checkpoints ({ckpt_bytes / 1e6:.2f} MB), {n_writes} pending writes ({write_bytes / 1e6:.2f} MB)"
    )
    print(f"target p95 push < {TARGET_P95_S:.1f} s: {'met' if p95 < TARGET_P95_S else 'NOT met'} (p95 = {p95:.3f} s)")
    return 0 if p95 < TARGET_P95_S or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
