"""Write the stored-data fixtures of this folder with the code of commit 0cefc6c (README.md says why).

Run from a checkout of 0cefc6c with its own venv (the command is in README.md)::

    .venv/bin/python /path/to/tests/stored_0cefc6c/make.py OUT_DIR

It serves that checkout's ``adjudicate live serve`` twice, once on SQLite (a state folder) and once on a
throwaway PostgreSQL database (tests/pg_cluster.py), runs the same live session and tournament against
each through the command line, records what the server then answers (``expected.json``), stops it, and
keeps the state folder (``sqlite/``) and a plain-SQL dump of the database (``postgres.sql``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from pg_cluster import PgCluster, find_bin_dir, new_database  # noqa: E402

ROOT = Path.cwd()  # the 0cefc6c checkout
ADJ = str(ROOT / ".venv" / "bin" / "adjudicate")
MATCH = ROOT / "adjudicator/data/matches/panelbench/debateart_4395.json"  # online-1v1, 4 stages
OPEN_MATCH = ROOT / "adjudicator/data/matches/panelbench/debateart_4739.json"


def pg_tool(name: str) -> str:
    """A PostgreSQL client program: beside the server's binaries (their real folder), else on PATH."""
    found = find_bin_dir()
    beside = Path(os.path.realpath(found / "postgres")).parent / name if found else None
    return str(beside) if beside and beside.exists() else (shutil.which(name) or name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def live(state: Path, *args: str) -> str:
    out = subprocess.run([ADJ, "live", *args, "--state-dir", str(state)], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    if out.returncode != 0:
        raise SystemExit(f"adjudicate live {' '.join(args)}: exit {out.returncode}\n{out.stderr}")
    return out.stdout


def one_stage(path: Path, k: int, tmp: Path) -> Path:
    stage = json.loads(path.read_text(encoding="utf-8"))["stages"][k]
    out = tmp / f"stage{k}.json"
    out.write_text(json.dumps(stage, ensure_ascii=False), encoding="utf-8")
    return out


def session(state: Path, tmp: Path) -> None:
    """The same session on either store: two stand-alone matches, a tournament round of three rooms."""
    open_id = json.loads(OPEN_MATCH.read_text(encoding="utf-8"))["match_id"]
    live(state, "replay", str(MATCH), "--speed", "0")  # created, 4 stages pushed, closed: a verdict
    live(state, "create", str(OPEN_MATCH))
    for k in (0, 1):
        live(state, "push", open_id, str(one_stage(OPEN_MATCH, k, tmp)))  # open, 2 of its stages
    live(state, "tournament", "create", "spring", "--name", "Spring Open", "--speaker-scale", "70:80:0.5")
    live(state, "round", "create", "spring", "r1", "--name", "Round 1", "--from-match", str(MATCH), "--tabbycat-round", "1")
    chairs = {}
    for room in ("a", "b", "c"):
        made = json.loads(live(state, "room", "create", "spring", "r1", room, "--affirmative-team", f"Aff {room}", "--negative-team", f"Neg {room}",
                               "--chair", f"Chair {room}", "--debater", "affirmative 1=Ann", "--debater", "negative 1=Bo"))
        chairs[room] = tmp / f"chair-{room}.token"
        chairs[room].write_text(made["chair_token"] + "\n", encoding="utf-8")
        chairs[room].chmod(0o600)
    for room in ("a", "b"):
        live(state, "replay", str(MATCH), "--speed", "0", "--match-id", f"spring.r1.{room}", "--token-file", str(chairs[room]))
    live(state, "push", "spring.r1.c", str(one_stage(MATCH, 0, tmp)), "--token-file", str(chairs["c"]))  # room c stays open
    live(state, "confirm", "spring", "r1", "a", "--winner", "negative", "--note", "the negative answered the key question", "--token-file", str(chairs["a"]))
    live(state, "confirm", "spring", "r1", "b", "--token-file", str(chairs["b"]))
    live(state, "release", "spring", "r1", "a")
    live(state, "reopen", "spring", "r1", "b", "--reason", "a score was entered wrongly")
    live(state, "token", "add", "--role", "board", "--person", "Hall screen", "--tournament", "spring", "--token-out", str(tmp / "board.token"))


def expected(url: str, token: str) -> dict:
    """What the server answers about the stored data (not how it renders it): each match's status,
    stages and the SHA-256 of its verdict JSON and Markdown report; the tournament's settings, each
    room's record and decision, the person tokens and the whole lifecycle log."""
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=auth, timeout=30, trust_env=False) as http:
        matches = {}
        for m in http.get("/api/matches").raise_for_status().json()["matches"]:
            mid = m["match_id"]
            snap = http.get(f"/api/matches/{mid}").raise_for_status().json()
            v = http.get(f"/api/matches/{mid}/verdict")
            closed = v.status_code == 200
            matches[mid] = {"status": snap["status"], "received": snap["received"], "analysed": snap["analysed"],
                            "stage_ids": [s["stage_id"] for s in snap["stages"]],
                            "winner": v.json()["winner"] if closed else None,
                            "verdict_sha256": hashlib.sha256(v.content).hexdigest() if closed else None,
                            "report_sha256": hashlib.sha256(http.get(f"/api/matches/{mid}/report").content).hexdigest() if closed else None}
        rnd = http.get("/api/tournaments/spring/rounds/r1").raise_for_status().json()
        keep = ("room_id", "match_id", "name", "chair", "teams", "debaters", "status", "received", "analysed", "decision", "tabbycat")
        rooms = [{k: room.get(k) for k in keep} for room in rnd["rooms"]]
        tokens = http.get("/api/tokens").raise_for_status().json()
        log = http.get("/api/tournaments/spring/log").raise_for_status().json()
    return {"matches": matches, "match_ids": list(matches), "tournament": rnd["tournament"], "round": rnd["round"], "rooms": rooms,
            "tokens": tokens, "log": log}


def serve(state: Path, store: str | None) -> tuple[subprocess.Popen, str, str]:
    port = free_port()
    args = [ADJ, "live", "serve", "--port", str(port), "--state-dir", str(state), "--log-level", "warning"]
    if store:
        args += ["--store", store]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/api/health", timeout=1, trust_env=False).status_code == 200 and (state / "access.json").exists():
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"live serve exited {proc.returncode}: {proc.stderr.read()}")
        time.sleep(0.1)
    token = json.loads((state / "access.json").read_text(encoding="utf-8"))["token"]
    return proc, url, token


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)


def run(out: Path, store: str | None, name: str, tmp: Path) -> dict:
    state = tmp / name
    proc, url, token = serve(state, store)
    try:
        session(state, tmp)
        seen = expected(url, token)
    finally:
        stop(proc)
    if store is None:
        shutil.rmtree(out / "sqlite", ignore_errors=True)
        shutil.copytree(state, out / "sqlite", ignore=shutil.ignore_patterns("live.lock"))
    return seen


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="adj-0cefc6c-") as t:
        tmp = Path(t)
        seen = {"sqlite": run(out, None, "sqlite-state", tmp)}
        cluster = PgCluster().start()
        try:
            url = new_database(cluster.url, "live_0cefc6c")
            seen["postgres"] = run(out, url, "pg-state", tmp)
            dump = subprocess.run([pg_tool("pg_dump"), "--no-owner", "--no-privileges", url],
                                  capture_output=True, text=True, check=True).stdout
            (out / "postgres.sql").write_text(dump, encoding="utf-8")
        finally:
            cluster.stop()
    (out / "expected.json").write_text(json.dumps(seen, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}: sqlite/, postgres.sql, expected.json")


if __name__ == "__main__":
    main()
