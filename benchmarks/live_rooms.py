"""Where a live push's time goes, per room count: the offline tracker, its kept reading, and each kind of
checkpoint operation, measured inside one process (no HTTP) on the live store itself.

    .venv/bin/python benchmarks/live_rooms.py [--rooms 12] [--stages 14] [--target-chars 20000]
                                              [--store postgresql://...] [--processes 1|2] [--cached 64] [--quick]

``--rooms`` rooms of ``synthetic_4v4_01.json`` (ccdb-4v4, zh, 14 stages, stretched to ``--target-chars``
characters as in ``benchmarks/live.py``) are created on one store and pushed in turn: stage k of every
room, then stage k+1 (so with more rooms than a process keeps readings for, every push meets a room
whose reading it dropped). ``--store URL`` uses a PostgreSQL database instead of a SQLite state folder;
``--processes 2`` then opens two stores on it (two processes' worth: pools, caches, shelves) and
sends stage k of room r to store (r + k) mod 2, so every push lands on the store that did not take the
room's last stage. ``--cached N`` is the store's ``cached_matches`` (its memory for tracking states,
boards and readings).

Per push it reports CPU time of the pushing thread (``time.thread_time``: other processes' load does
not count) and wall time:

- ``push``: the whole ``LiveStore.push`` (receive, analysis, board snapshot);
- ``tracker``: the offline tracker's call, and inside it the kept reading: ``reading save`` (the state
  packed and written to its row) and ``reading restore`` (read back from the row when the process
  did not hold the room's reading);
- ``checkpoint get_tuple / put / put_writes / prune``: each kind of checkpointer call, how many per
  push, CPU and wall (wall minus CPU is mostly waiting for the disk: SQLite fsyncs at each commit in
  its default ``synchronous = FULL``), and ``serde dumps / loads``: the serializer's own CPU inside them;
- ``commits`` (SQLite): transactions committed per push, from SQLite's statement trace.

``--quick`` (CI): two rooms, three stages, the match at its own length.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from adjudicator.input.match import Match  # noqa: E402
from adjudicator.input.match_file import load_match  # noqa: E402
from adjudicator.live.rooms.tracking import LiveStore  # noqa: E402
from adjudicator.workflow.context import AdjudicationContext  # noqa: E402

DEFAULT_MATCH = REPO / "adjudicator/data/matches/synthetic/synthetic_4v4_01.json"


def full_length(match: Match, target_chars: int) -> Match:
    """``match`` with each stage's utterances repeated to reach about ``target_chars`` characters."""
    current = sum(len(u.text) for s in match.stages for u in s.utterances)
    k = max(1, math.ceil(target_chars / max(1, current)))
    stages = [s.model_copy(update={"utterances": list(s.utterances) * k}) for s in match.stages]
    return Match.model_validate(match.model_copy(update={"stages": stages}).model_dump())


class Meter:
    """CPU (this thread) and wall seconds and call counts per named operation."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def wrap(self, obj: Any, attr: str, name: str) -> None:
        """Replace ``obj.attr`` (a method) by a timed call of it."""
        inner = getattr(obj, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            c0, w0 = time.thread_time(), time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.cpu[name] += time.thread_time() - c0
                self.wall[name] += time.perf_counter() - w0
                self.calls[name] += 1

        setattr(obj, attr, timed)


class TimedTracker:
    """The offline tracker, timed; passes the live store's reading shelf through (``with_readings``)."""

    def __init__(self, inner: Any, meter: Meter) -> None:
        self.inner, self.meter = inner, meter
        meter.wrap(self.inner, "analyse_stage", "tracker")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def with_readings(self, readings: Any) -> Any:
        bind = getattr(self.inner, "with_readings", None)
        return TimedTracker(bind(readings), self.meter) if bind is not None else self


def open_store(state_dir: Path, store_url: str | None, meter: Meter, cached: int) -> LiveStore:
    from adjudicator.api import build_context
    from adjudicator.config import resolve_config
    from adjudicator.live.store.storage import open_storage

    base = build_context(resolve_config(model="offline"))
    context = AdjudicationContext(tracker=TimedTracker(base.tracker, meter), judges=dict(base.judges))
    store = LiveStore(state_dir, context, storage=open_storage(store_url, state_dir), cached_matches=cached)
    for attr in ("get_tuple", "put", "put_writes"):
        meter.wrap(store.saver, attr, f"checkpoint {attr}")
    meter.wrap(store.storage, "prune", "checkpoint prune")
    meter.wrap(store.saver.serde, "dumps_typed", "serde dumps")
    meter.wrap(store.saver.serde, "loads_typed", "serde loads")
    readings = getattr(store, "readings", None)
    if readings is not None:
        meter.wrap(readings.table, "save", "reading save (write)")
        meter.wrap(readings, "advanced", "reading save")
        meter.wrap(readings, "_restore", "reading restore")
    return store


def print_table(args: argparse.Namespace, match: Match, n_stages: int, meter: Meter, push_cpu: list[float], push_wall: list[float], commits: int, counts: dict) -> None:
    """The per-push table (module docstring)."""
    n = len(push_cpu)
    where = f"PostgreSQL, {args.processes} store(s) pushed in turn" if args.store else "SQLite state folder"
    print(f"live rooms: {args.rooms} rooms x {n_stages} stages of {match.format} ({sum(len(u.text) for s in match.stages for u in s.utterances)} characters), "
          f"offline judge, {where}, cached_matches {args.cached}; {n} pushes")
    print(f"{'per push':<34} {'calls':>6} {'CPU ms':>8} {'wall ms':>8}")
    print(f"{'push (mean)':<34} {1:>6} {np.mean(push_cpu) * 1e3:>8.1f} {np.mean(push_wall) * 1e3:>8.1f}")
    print(f"{'push (p50)':<34} {1:>6} {np.median(push_cpu) * 1e3:>8.1f} {np.median(push_wall) * 1e3:>8.1f}")
    for name in sorted(meter.calls, key=lambda x: (not x.startswith("tracker"), not x.startswith("reading"), x)):
        print(f"{name:<34} {meter.calls[name] / n:>6.2f} {meter.cpu[name] / n * 1e3:>8.2f} {meter.wall[name] / n * 1e3:>8.2f}")
    ck = [k for k in meter.calls if k.startswith("checkpoint")]
    print(f"{'checkpointing (the four above)':<34} {sum(meter.calls[k] for k in ck) / n:>6.2f} {sum(meter.cpu[k] for k in ck) / n * 1e3:>8.2f} {sum(meter.wall[k] for k in ck) / n * 1e3:>8.2f}")
    if not args.store:
        print(f"{'commits (SQLite transactions)':<34} {commits / n:>6.2f}")
    if counts:
        print("readings used: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rooms", type=int, default=12)
    ap.add_argument("--stages", type=int, default=14, help="stages pushed per room (at most the match's)")
    ap.add_argument("--target-chars", type=int, default=20000)
    ap.add_argument("--store", help="a PostgreSQL database URL (default: a SQLite state folder)")
    ap.add_argument("--processes", type=int, default=1, choices=(1, 2), help="stores over the --store database, pushed in turn")
    ap.add_argument("--cached", type=int, default=64, help="the store's cached_matches")
    ap.add_argument("--match", type=Path, default=DEFAULT_MATCH)
    ap.add_argument("--quick", action="store_true", help="two rooms, three stages, the match at its own length")
    args = ap.parse_args(argv)
    if args.quick:
        args.rooms, args.stages, args.target_chars = 2, 3, 0
    if args.processes > 1 and not args.store:
        ap.error("--processes 2 needs --store postgresql://... (one process per SQLite state folder)")
    match = full_length(load_match(args.match), args.target_chars)
    header = match.view().model_dump(mode="json", exclude={"stages"})
    bodies = [s.model_dump(mode="json") for s in match.stages][: args.stages]
    meter = Meter()
    commits = [0]
    with tempfile.TemporaryDirectory(prefix="live-rooms-") as tmp:
        stores = [open_store(Path(tmp) / f"p{k}", args.store, meter, args.cached) for k in range(args.processes)]
        for store in stores:
            conn = getattr(store.saver, "conn", None)
            if hasattr(conn, "set_trace_callback"):
                conn.set_trace_callback(lambda sql: commits.__setitem__(0, commits[0] + (sql.strip().upper() == "COMMIT")))
        rooms = [f"rooms-{r + 1:03d}" for r in range(args.rooms)]
        for mid in rooms:
            stores[0].create({**header, "match_id": mid})
        meter.cpu.clear(), meter.wall.clear(), meter.calls.clear()
        commits[0] = 0
        push_cpu, push_wall = [], []
        for k, body in enumerate(bodies):
            for r, mid in enumerate(rooms):
                store = stores[(r + k) % len(stores)]
                c0, w0 = time.thread_time(), time.perf_counter()
                store.push(mid, body)
                push_cpu.append(time.thread_time() - c0)
                push_wall.append(time.perf_counter() - w0)
        counts = {}
        for store in stores:
            readings = getattr(store, "readings", None)
            for key, v in (dict(readings.counts) if readings is not None else {}).items():
                counts[key] = counts.get(key, 0) + v
            store.close()
    print_table(args, match, len(bodies), meter, push_cpu, push_wall, commits[0], counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
