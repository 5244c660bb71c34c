"""Live mode at tournament scale: server processes over one PostgreSQL database, rooms pushed at once,
one process killed with SIGKILL mid-run and restarted, and an exactly-once check read from the database.

    .venv/bin/python benchmarks/live_scale.py [--rooms 50] [--processes 3] [--baseline] [--no-kill]
                                              [--pace-s 0] [--saver-lock] [--store postgresql://...] [--target-chars 20000]
                                              [--quick]

What it does (offline judge; every server is ``adjudicate live serve --store URL --model offline``):

1. starts a throwaway PostgreSQL 15 cluster (``tests/pg_cluster.py``, durable: fsync on) unless
   ``--store`` names a database (which must be empty);
2. starts ``--processes`` server processes on loopback ports, sharing one token;
3. creates ``--rooms`` rooms of ``synthetic_4v4_01.json`` (ccdb-4v4, 14 stages, stretched to
   ``--target-chars`` characters like ``benchmarks/live.py``) and pushes them all at once, one client
   thread per room: stage k of room r goes to process (r + k) mod P, so every room hops between
   processes. By default each room pushes its next stage as soon as the last one is answered (the
   load saturates the machine: this measures throughput); with ``--pace-s S`` each room pushes one
   stage every S seconds from a random offset (an offered load of rooms / S pushes per second: this
   measures latency at a given pace; a real debate finishes a stage every few minutes). A push that fails (the connection drops, or the process is down) is retried, with the
   same body and stage id, on the next process;
4. when half of all pushes have completed, kills one process with SIGKILL and restarts it on its port
   (not with ``--no-kill``);
5. closes every room (through the processes in turn) and reads the database back: every room has its 14
   stages in order, each analysed exactly once (one analysis per stage id in the committed state,
   ``next_stage`` = 14), status closed, one verdict; no room lost, none duplicated.

It prints push latency (p50/p95/p99 of the time from a push's first attempt to its successful reply,
retries included), throughput (pushes per second of wall time from the first push to the last reply),
the retries and the check. ``--baseline`` first runs the same load through one process on a fresh
database (killed and restarted at half-way too, unless ``--no-kill``: both arms get the same
treatment) and prints the throughput ratio.

Queueing and service time are told apart, and the client is kept off the servers' budget, by measuring
each instead of sharing one clock (issue 32):

- *in the server*: every answer carries ``Server-Timing: app;dur=...`` (:mod:`adjudicator.live.server.timing`),
  the server's own wall time for the push (its room's lock, worker thread and interpreter lock
  included); the client's latency minus it is the time outside the server (the client, loopback and
  the accept queue);
- *service*: the CPU seconds the servers and PostgreSQL spent over the push phase (``/proc/PID/stat``
  of each server and of the cluster's postmaster with its children), per push: what one push costs
  the machine, whatever it waited for;
- *the client*: its own CPU seconds (``getrusage``) over the same phase, reported apart; it keeps one
  HTTP connection pool per server (a new client per request cost about 29 ms of CPU a push). The
  throughput bounds printed after the table divide the cores left after the client's share by the
  servers' and PostgreSQL's CPU per push. ``--saver-lock`` keeps LangGraph's per-saver lock
(``--keep-saver-lock``, see :mod:`adjudicator.live.store.postgres`) to measure what dropping it buys.

Targets (issue 17): nothing lost or duplicated; push p95 at most 0.5 s; three processes at least 2x
the throughput of one. The machine has 2 cores shared by the servers, PostgreSQL and this client.

``--quick`` (CI, so the script cannot rot): 2 rooms of the match at its own length on 2 processes,
the kill and restart included; give ``--store`` (the test suite passes a fresh database of its
PostgreSQL cluster) or the script starts its own cluster. The exit code is the exactly-once check's.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from pg_cluster import PgCluster, new_database  # noqa: E402

from adjudicator.input.match import Match  # noqa: E402
from adjudicator.input.match_file import load_match  # noqa: E402

DEFAULT_MATCH = REPO / "adjudicator/data/matches/synthetic/synthetic_4v4_01.json"
TOKEN = "live-scale-benchmark-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TARGET_P95_S = 0.5
TARGET_SPEEDUP = 2.0


def full_length(match: Match, target_chars: int) -> Match:
    """``match`` with each stage's utterances repeated to reach about ``target_chars`` characters."""
    current = sum(len(u.text) for s in match.stages for u in s.utterances)
    k = max(1, math.ceil(target_chars / max(1, current)))
    stages = [s.model_copy(update={"utterances": list(s.utterances) * k}) for s in match.stages]
    return Match.model_validate(match.model_copy(update={"stages": stages}).model_dump())


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (linear interpolation)."""
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


class Server:
    """One ``adjudicate live serve`` process on a fixed loopback port."""

    def __init__(self, url: str, port: int, state: Path, keep_saver_lock: bool) -> None:
        self.store_url, self.port, self.state, self.keep_saver_lock = url, port, state, keep_saver_lock
        self.proc: subprocess.Popen | None = None
        self.dead_cpu_s = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, wait_recovered: bool = True) -> Server:
        """Start the process; return once it answers (and, ``wait_recovered``, has finished its
        start-up recovery). Raises RuntimeError with the end of its stderr (``STATE/serve.log``)."""
        self.state.mkdir(parents=True, exist_ok=True)
        log = self.state / "serve.log"
        cmd = [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", str(self.port), "--state-dir", str(self.state),
               "--store", self.store_url, "--model", "offline", "--log-level", "warning"]
        if self.keep_saver_lock:
            cmd.append("--keep-saver-lock")
        with log.open("a", encoding="utf-8") as err:
            self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err, env=os.environ | {"ADJUDICATOR_LIVE_TOKEN": TOKEN})
        deadline = time.monotonic() + 180
        while True:
            try:
                health = httpx.get(f"{self.url}/api/health", timeout=5, trust_env=False).json()
                if health.get("recovered") or not wait_recovered:
                    return self
            except (httpx.TransportError, ValueError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(encoding="utf-8", errors="replace")[-600:]
                raise RuntimeError(f"server on port {self.port} did not start: {tail}")
            time.sleep(0.2)

    def cpu_s(self) -> float:
        """CPU seconds of this server: its processes so far (killed ones) plus the running one."""
        live = proc_cpu_s(self.proc.pid) if self.proc is not None and self.proc.poll() is None else 0.0
        return self.dead_cpu_s + live

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.dead_cpu_s += proc_cpu_s(self.proc.pid)
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(20)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


TICKS = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int, children: bool = False) -> float:
    """CPU seconds (user + system) of process ``pid`` from ``/proc/PID/stat``; with ``children``, plus
    those of its children that ended and were waited for (cutime, cstime). 0 for a process gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / TICKS


def postgres_cpu_s(data_dir: Path | None) -> float:
    """CPU seconds of a PostgreSQL cluster: its postmaster (``DATA/postmaster.pid``), the backends that
    ended, and every running child. 0 when the cluster is not ours (``--store``)."""
    if data_dir is None:
        return 0.0
    try:
        master = int((data_dir / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    total = proc_cpu_s(master, children=True)
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == master:
                    total += proc_cpu_s(int(d.name))
            except (OSError, ValueError, IndexError):
                continue
    return total


def _free_ports(n: int) -> list[int]:
    import socket

    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def run_load(store_url: str, n_procs: int, n_rooms: int, match: Match, *, kill: bool, keep_saver_lock: bool, workdir: Path, pace_s: float = 0.0,
             pg_data: Path | None = None) -> dict:
    """One load run on the empty database ``store_url``; returns its measurements and check."""
    servers = [Server(store_url, port, workdir / f"state-{port}", keep_saver_lock) for port in _free_ports(n_procs)]
    for s in servers:
        s.start()
    clients = [httpx.Client(base_url=srv.url, timeout=120, trust_env=False, limits=httpx.Limits(max_connections=n_rooms + 8)) for srv in servers]
    server_ms: list[float] = []
    header = match.view().model_dump(mode="json", exclude={"stages"})
    bodies = [s.model_dump(mode="json") for s in match.stages]
    total = n_rooms * len(bodies)
    done = [0]
    lock = threading.Lock()
    half = threading.Event()
    latencies: list[float] = []
    retries = [0]
    retry_reasons: dict[str, int] = {}
    errors: list[str] = []

    def post(path: str, body: dict | None, first: int, create: bool = False) -> httpx.Response | None:
        """POST to server ``first``, then each next one, until one answers 2xx (4xx: an error, except
        a 409 to a retried create, whose first attempt committed)."""
        k = first
        for attempt in range(60):
            try:
                r = clients[k % n_procs].post(path, json=body, headers=AUTH)
                if r.status_code < 300:
                    return r
                if create and attempt > 0 and r.status_code == 409:
                    return None
                if r.status_code < 500:
                    raise RuntimeError(f"{path}: {r.status_code} {r.text[:200]}")
                reason = f"HTTP {r.status_code}"
            except httpx.TransportError as exc:
                reason = type(exc).__name__
            with lock:
                retries[0] += 1
                retry_reasons[reason] = retry_reasons.get(reason, 0) + 1
            k += 1
            time.sleep(0.1)
        raise RuntimeError(f"{path}: no server answered")

    def room(r: int) -> None:
        mid = f"scale-{r + 1:03d}"
        try:
            post("/api/matches", {**header, "match_id": mid}, r, create=True)
            start.wait()
            offset = random.Random(r).uniform(0, pace_s) if pace_s > 0 else 0.0
            for i, body in enumerate(bodies):
                if pace_s > 0:
                    time.sleep(max(0.0, t_start + offset + i * pace_s - time.perf_counter()))
                t0 = time.perf_counter()
                resp = post(f"/api/matches/{mid}/stages", body, r + i)
                assert resp is not None
                reply = resp.json()
                dt = time.perf_counter() - t0
                timing = resp.headers.get("server-timing", "")
                in_server = float(timing.split("dur=")[1]) / 1e3 if "dur=" in timing else float("nan")
                if reply["received"] != i + 1 or reply["analysed"] != i + 1:
                    errors.append(f"{mid} stage {i + 1}: received {reply['received']}, analysed {reply['analysed']}")
                with lock:
                    latencies.append(dt)
                    server_ms.append(in_server)
                    done[0] += 1
                    if done[0] * 2 >= total:
                        half.set()
        except Exception as exc:  # reported in the check, never hidden
            errors.append(f"{mid}: {exc}")

    start = threading.Event()
    t_start = 0.0
    threads = [threading.Thread(target=room, args=(r,), daemon=True) for r in range(n_rooms)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # let every room be created before the clock starts
    cpu0 = _cpu_sample(servers, pg_data)
    t_start = time.perf_counter()
    start.set()
    killed = None
    if kill:
        half.wait()
        victim = servers[n_procs - 1]
        victim.kill()
        killed = victim.port
        try:
            victim.start(wait_recovered=False)  # its recovery runs in the background, as in production
        except RuntimeError as exc:
            errors.append(f"restart: {exc}")
    for t in threads:
        t.join()
    wall_s = time.perf_counter() - t_start
    cpu = {k: b - a for k, a, b in zip(("servers", "postgres", "client"), cpu0, _cpu_sample(servers, pg_data))}

    t_close = time.perf_counter()
    for r in range(n_rooms):
        try:
            post(f"/api/matches/scale-{r + 1:03d}/close", None, r)
        except Exception as exc:
            errors.append(f"close scale-{r + 1:03d}: {exc}")
    close_s = time.perf_counter() - t_close
    for c in clients:
        c.close()
    for s in servers:
        s.stop()
    check = check_database(store_url, n_rooms, [b["stage_id"] for b in bodies])
    return {"pace_s": pace_s, "processes": n_procs, "latencies": latencies, "server_s": server_ms, "wall_s": wall_s, "pushes": len(latencies), "retries": retries[0],
            "retry_reasons": retry_reasons, "errors": errors, "killed": killed, "close_s": close_s, "check": check, "cpu": cpu}


def _cpu_sample(servers: list[Server], pg_data: Path | None) -> tuple[float, float, float]:
    """CPU seconds so far of the servers, the PostgreSQL cluster and this client."""
    return sum(s.cpu_s() for s in servers), postgres_cpu_s(pg_data), _client_cpu_s()


def _client_cpu_s() -> float:
    """CPU seconds of this (client) process, every thread, children excluded."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def check_database(store_url: str, n_rooms: int, stage_ids: list[str]) -> dict:
    """Read every room back from the database (a fresh store, nothing cached): counts of rooms whose
    committed state has exactly ``stage_ids`` received and analysed once each, closed with a verdict."""
    import psycopg

    from adjudicator.judges.offline import OfflineBackend
    from adjudicator.live.rooms.tracking import LiveStore
    from adjudicator.live.store.checkpoints import thread_config
    from adjudicator.live.store.postgres import PostgresStorage
    from adjudicator.workflow.context import AdjudicationContext

    with psycopg.connect(store_url) as conn:
        n_matches = conn.execute("SELECT count(*) FROM live_matches").fetchone()[0]
        n_closed = conn.execute("SELECT count(*) FROM live_matches WHERE status = 'closed'").fetchone()[0]
        n_verdicts = conn.execute("SELECT count(*) FROM live_verdicts v JOIN live_matches m USING (match_id)").fetchone()[0]
        verdict_ids = {r[0] for r in conn.execute("SELECT match_id FROM live_verdicts").fetchall()}
    probe = LiveStore(Path(tempfile.gettempdir()), AdjudicationContext.single(OfflineBackend()), storage=PostgresStorage(store_url, pool_size=2, lock_pool_size=1))
    exact, bad = 0, []
    try:
        for r in range(n_rooms):
            mid = f"scale-{r + 1:03d}"
            vals = probe.tracking.get_state(thread_config(mid)).values
            received = [s.stage_id for s in vals.get("stages") or []]
            analysed = [a.stage_id for a in vals.get("analyses") or []]
            ok = received == stage_ids and analysed == stage_ids and int(vals.get("next_stage") or 0) == len(stage_ids) and mid in verdict_ids
            exact += ok
            if not ok:
                bad.append(f"{mid}: received {len(received)} ({len(set(received))} distinct), analysed {len(analysed)} ({len(set(analysed))} distinct), verdict {mid in verdict_ids}")
    finally:
        probe.close()
    return {"rooms": n_rooms, "matches": n_matches, "closed": n_closed, "verdicts": n_verdicts, "exactly_once": exact, "bad": bad}


def print_run(label: str, res: dict, n_stages: int) -> None:
    lat = res["latencies"]
    c = res["check"]
    pace = f", each room one push every {res['pace_s']:g} s" if res["pace_s"] else ", each room pushing as fast as answered"
    print(f"\n{label}: {res['processes']} process(es), {c['rooms']} rooms x {n_stages} stages{pace}" + (f", port {res['killed']} killed with SIGKILL at half-way and restarted" if res["killed"] else ""))
    print(f"{'metric':<44} {'value':>12}")
    print(f"{'pushes completed':<44} {res['pushes']:>12}")
    print(f"{'push p50 ms':<44} {pct(lat, 50) * 1e3:>12.1f}")
    print(f"{'push p95 ms (target <= 500)':<44} {pct(lat, 95) * 1e3:>12.1f}")
    print(f"{'push p99 ms':<44} {pct(lat, 99) * 1e3:>12.1f}")
    print(f"{'push max ms':<44} {max(lat) * 1e3 if lat else float('nan'):>12.1f}")
    inside = [x for x in res["server_s"] if x == x]
    outside = [lt - x for lt, x in zip(lat, res["server_s"]) if x == x]
    print(f"{'  in the server p50 / p95 ms (Server-Timing)':<44} {pct(inside, 50) * 1e3:>12.1f} {pct(inside, 95) * 1e3:>8.1f}")
    print(f"{'  outside it p50 / p95 ms (client, queue)':<44} {pct(outside, 50) * 1e3:>12.1f} {pct(outside, 95) * 1e3:>8.1f}")
    n, cpu = max(1, res["pushes"]), res["cpu"]
    print(f"{'CPU ms per push: servers':<44} {cpu['servers'] / n * 1e3:>12.1f}")
    print(f"{'CPU ms per push: PostgreSQL':<44} {cpu['postgres'] / n * 1e3:>12.1f}")
    print(f"{'CPU ms per push: this client (apart)':<44} {cpu['client'] / n * 1e3:>12.1f}")
    print(f"{'cores busy: servers + PostgreSQL / client':<44} {(cpu['servers'] + cpu['postgres']) / res['wall_s']:>12.2f} {cpu['client'] / res['wall_s']:>8.2f}")
    print(f"{'throughput pushes/s':<44} {res['pushes'] / res['wall_s']:>12.1f}")
    print(f"{'push phase wall s':<44} {res['wall_s']:>12.1f}")
    why = ", ".join(f"{k} {v}" for k, v in sorted(res["retry_reasons"].items()))
    print(f"{'retried requests':<44} {res['retries']:>12}" + (f"  ({why})" if why else ""))
    print(f"{'close all rooms s':<44} {res['close_s']:>12.1f}")
    print(f"{'rooms in the database':<44} {c['matches']:>12}")
    print(f"{'rooms closed':<44} {c['closed']:>12}")
    print(f"{'verdicts stored':<44} {c['verdicts']:>12}")
    print(f"{'rooms: every stage received+analysed once':<44} {c['exactly_once']:>12}")
    for line in res["errors"][:10] + c["bad"][:10]:
        print(f"  ! {line}")


def print_bounds(results: list[tuple[str, dict]]) -> None:
    """What the measured CPU per push allows on this machine: the cores left after the client's share
    over the servers' and PostgreSQL's CPU per push, and one process's one-core (GIL) bound."""
    cores = os.cpu_count() or 1
    for label, res in results:  # what the measured CPU per push allows on this machine
        n, cpu = max(1, res["pushes"]), res["cpu"]
        service = (cpu["servers"] + cpu["postgres"]) / n
        left = cores - cpu["client"] / res["wall_s"]
        one_core = 1.0 / (cpu["servers"] / n / res["processes"]) if res["processes"] == 1 and cpu["servers"] else float("nan")
        print(f"{label}: {service * 1e3:.0f} ms of server + PostgreSQL CPU per push; {cores} cores less the client's {cpu['client'] / res['wall_s']:.2f} "
              f"allow at most {left / service if service else float('nan'):.1f} pushes/s" + (f"; one process, held to one core by the GIL, at most {one_core:.1f}" if one_core == one_core else ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rooms", type=int, default=50)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--baseline", action="store_true", help="also run the load through one process first, and print the ratio")
    ap.add_argument("--no-kill", action="store_true", help="do not kill a process mid-run")
    ap.add_argument("--pace-s", type=float, default=0.0, help="each room pushes one stage every this many seconds (0: as fast as answered)")
    ap.add_argument("--saver-lock", action="store_true", help="keep LangGraph's per-saver lock in every process")
    ap.add_argument("--store", help="an empty PostgreSQL database to use instead of a throwaway cluster (one run only)")
    ap.add_argument("--match", type=Path, default=DEFAULT_MATCH)
    ap.add_argument("--target-chars", type=int, default=20000)
    ap.add_argument("--quick", action="store_true", help="2 rooms at the match's own length on 2 processes, one killed (CI: the script still runs)")
    args = ap.parse_args(argv)
    if args.quick:
        args.rooms, args.processes, args.target_chars, args.baseline = 2, 2, 0, False
    match = full_length(load_match(args.match), args.target_chars)
    n_stages = len(match.stages)
    chars = sum(len(u.text) for s in match.stages for u in s.utterances)
    print(f"load average {os.getloadavg()[0]:.1f} at start; live scale: {match.format}, {n_stages} stages, {chars} characters per room, offline judge, PostgreSQL, "
          f"{os.cpu_count()} cores; LangGraph saver lock {'kept' if args.saver_lock else 'dropped'}")
    cluster = None if args.store else PgCluster(durable=True, max_connections=300).start()
    pg_data = cluster.data if cluster is not None else None
    try:
        with tempfile.TemporaryDirectory(prefix="live-scale-") as tmp:
            work = Path(tmp)
            db_no = [0]

            def database() -> str:
                if args.store:
                    return args.store
                db_no[0] += 1
                return new_database(cluster.url, f"scale{db_no[0]}")

            results = []
            if args.baseline and not args.store:
                results.append(("one process", run_load(database(), 1, args.rooms, match, kill=not args.no_kill, keep_saver_lock=args.saver_lock, workdir=work,
                                                        pace_s=args.pace_s, pg_data=pg_data)))
            results.append((f"{args.processes} processes", run_load(database(), args.processes, args.rooms, match, kill=not args.no_kill, pg_data=pg_data,
                                                                    keep_saver_lock=args.saver_lock, workdir=work, pace_s=args.pace_s)))
    finally:
        if cluster is not None:
            cluster.stop()
    for label, res in results:
        print_run(label, res, n_stages)
    main_res = results[-1][1]
    ok = (not main_res["errors"] and main_res["check"]["exactly_once"] == args.rooms and main_res["check"]["matches"] == args.rooms
          and main_res["check"]["verdicts"] == args.rooms)
    print(f"\nexactly-once check: {'PASS' if ok else 'FAIL'} ({main_res['check']['exactly_once']}/{args.rooms} rooms with every stage "
          f"received and analysed once, {main_res['check']['verdicts']} verdicts, {main_res['check']['matches']} rooms stored)")
    p95 = pct(main_res["latencies"], 95)
    print(f"push p95: {p95 * 1e3:.0f} ms ({'meets' if p95 <= TARGET_P95_S else 'misses'} the {TARGET_P95_S * 1e3:.0f} ms target)")
    if len(results) == 2:
        ratio = (main_res["pushes"] / main_res["wall_s"]) / (results[0][1]["pushes"] / results[0][1]["wall_s"])
        print(f"throughput {args.processes} processes / 1 process: {ratio:.2f}x ({'meets' if ratio >= TARGET_SPEEDUP else 'misses'} the {TARGET_SPEEDUP:.0f}x target)")
    print_bounds(results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
