"""Replays the attacks of issue 27 against ``adjudicate live`` and prints one line per attack: held or not.

    .venv/bin/python benchmarks/live_attacks.py            # SQLite, about a minute on a loaded machine
    .venv/bin/python benchmarks/live_attacks.py --only 3 6  # some of them
    .venv/bin/python benchmarks/live_attacks.py --quick     # CI: attacks 2 and 5, a second or two each

Every attack runs against a fresh server on 127.0.0.1 (a free port, a temporary state folder, the
offline judge: a deterministic baseline, not a judge) and is bounded in count (at most 120 connections,
a handful of rooms) and in time (each request times out within 15 s; a hang is "not held"). Attacks 3
and 4 run a real ``adjudicate live serve`` process; the others an in-process server
(:class:`adjudicator.live.server.serving.LiveServer`), because attack 1 needs a close that stores no draft,
as when a process is killed between the two. Exit code 1 when any attack is not held.

1 deadlock: a room closed without its draft, then confirm and release (before: every confirm hung);
2 Infinity: a speaker scale of 1e309 in the settings (before: every tournament read then 500);
3 connections: 120 idle board streams against a server whose open-files limit is 128, then a chair pushes;
4 secrets: ``--token`` on the command line, the token in the access log, a store password printed;
5 orphan room: a room refused by ``--max-matches`` (before: the round overview was 404 from then on);
6 board leak: a closed, unreleased room's public board, stream and round overview;
7 identity: a chair confirms with ``by: "organiser"`` (the name is the token's person or refused); two
  tab-room people of one name, the shared token entering as "A" and confirming as "B" under Tabbycat's
  rule; a panellist's token confirming; a private board read without its token; a revoked token;
8 formula: the organiser's ``by: "=HYPERLINK(...)"`` in the results CSV (a chair's ``by`` is its own name);
9 correction: a released room's result reopened, a stage re-pushed (before: no way to correct a stage's
  text) and the result judged again, each step in the lifecycle log and its log.csv;
10 names and pages: a lone surrogate, an over-long name, security headers, raw HTML in the Markdown report.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
MATCH = REPO / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_0020.json"
TOKEN = "attack-bench-organiser-token-0123456789"
ORG = {"Authorization": f"Bearer {TOKEN}"}
TIMEOUT_S = 15.0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Desk:
    """An in-process server (offline judge, SQLite) with tournament ``cup`` and its round ``r1``."""

    def __init__(self, folder: Path, **app_kw) -> None:
        from adjudicator.input.match_file import load_match
        from adjudicator.judges.offline.backend import OfflineBackend
        from adjudicator.live.server.app import create_app
        from adjudicator.live.server.serving import LiveServer
        from adjudicator.workflow.context import AdjudicationContext

        self.match = load_match(MATCH)
        app = create_app(folder / "state", AdjudicationContext.single(OfflineBackend()), TOKEN, store="sqlite", **app_kw)
        self.server = LiveServer(app).start()
        self.http = httpx.Client(base_url=self.server.url, timeout=TIMEOUT_S, trust_env=False)
        m = self.match
        self.ok(self.http.post("/api/tournaments", json={"tournament_id": "cup"}, headers=ORG))
        self.ok(self.http.post("/api/tournaments/cup/rounds", json={"round_id": "r1", "format": m.format, "motion": m.motion,
                                                                   "affirmative_position": m.affirmative_position, "negative_position": m.negative_position}, headers=ORG))

    @staticmethod
    def ok(r: httpx.Response) -> httpx.Response:
        if r.status_code >= 300:
            raise RuntimeError(f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text[:200]}")
        return r

    def room(self, room_id: str, *, debate: bool = True, **body) -> str:
        """Create room ``room_id`` (and push its stages with its chair token); returns the chair token."""
        r = self.http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": room_id, "teams": {"affirmative": "Aff", "negative": "Neg"}} | body, headers=ORG)
        chair = self.ok(r).json()["chair_token"]
        for s in self.match.stages if debate else []:
            self.ok(self.http.post(f"/api/matches/cup.r1.{room_id}/stages", json=s.model_dump(mode="json"), headers=bearer(chair)))
        return chair

    def close(self) -> None:
        self.http.close()
        self.server.stop()


# ---------------------------------------------------------------------------------------------
# The attacks: each returns (held, what happened)


def deadlock(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder)
    try:
        chair = desk.room("a")
        desk.server.app.state.store.on_closed = None  # the close stores the verdict, not the draft
        desk.ok(desk.http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)))
        started = time.monotonic()
        c = desk.http.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={}, headers=bearer(chair)).status_code
        r = desk.http.post("/api/tournaments/cup/rounds/r1/rooms/a/release", json={}, headers=ORG).status_code
        h = desk.http.get("/api/health").status_code
        return (c, r, h) == (200, 200, 200), f"confirm {c}, release {r}, health {h} in {time.monotonic() - started:.1f} s"
    except httpx.TimeoutException:
        return False, f"no answer within {TIMEOUT_S:.0f} s"
    finally:
        desk.close()


def infinity(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder)
    try:
        body = '{"speaker_scale": {"low": 1, "high": 1e309}}'
        s = desk.http.post("/api/tournaments/cup/settings", content=body, headers=ORG | {"content-type": "application/json"}).status_code
        n = desk.http.post("/api/tournaments/cup/settings", content='{"speaker_scale": {"low": NaN, "high": 10}}', headers=ORG | {"content-type": "application/json"}).status_code
        t = desk.http.get("/api/tournaments/cup").status_code
        return s in (400, 422) and n in (400, 422) and t == 200, f"1e309 -> {s}, NaN -> {n}; the tournament then reads {t}"
    finally:
        desk.close()


def _serve(folder: Path, *args: str, open_files: int | None = None, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """A real ``adjudicate live serve`` (offline judge) on a free port; (process, base URL)."""
    def limit() -> None:
        if open_files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    log = (folder / "serve.log").open("w", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(folder / "state"), "--model", "offline", *args],
                            cwd=REPO, env=os.environ | {"ADJUDICATOR_LIVE_TOKEN": TOKEN} | (env or {}), stdout=subprocess.PIPE, stderr=log, text=True, preexec_fn=limit)
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("organiser:"):
        proc.kill()
        raise RuntimeError(f"live serve did not start: {(folder / 'serve.log').read_text()[-400:]}")
    return proc, line.split()[1].split("/organiser")[0]


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def connections(folder: Path) -> tuple[bool, str]:
    proc, url = _serve(folder, "--log-level", "warning", open_files=256)
    socks: list[socket.socket] = []
    try:
        with httpx.Client(base_url=url, timeout=TIMEOUT_S, trust_env=False) as http:
            http.post("/api/tournaments", json={"tournament_id": "cup"}, headers=ORG)
            m = json.loads(MATCH.read_text(encoding="utf-8"))
            http.post("/api/tournaments/cup/rounds", json={"round_id": "r1", "format": m["format"], "motion": m["motion"],
                                                          "affirmative_position": m["affirmative_position"], "negative_position": m["negative_position"]}, headers=ORG)
            chair = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "a", "teams": {"affirmative": "A", "negative": "N"}}, headers=ORG).json()["chair_token"]
            host, port = url.removeprefix("http://").rsplit(":", 1)
            codes: list[int] = []
            for _ in range(120):  # twice the streams cap of 256 open files (64)
                s = socket.create_connection((host, int(port)), timeout=TIMEOUT_S)
                s.sendall(b"GET /api/matches/cup.r1.a/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
                head = s.recv(4096).split(b"\r\n", 1)[0].split()
                codes.append(int(head[1]) if len(head) > 1 else 0)
                socks.append(s)
            push = http.post("/api/matches/cup.r1.a/stages", json=m["stages"][0], headers=bearer(chair)).status_code
        open_, refused = codes.count(200), codes.count(503)
        return push == 200 and refused > 0 and open_ + refused == len(codes), f"120 idle streams: {open_} open, {refused} refused 503; the chair's push {push}"
    except (httpx.TransportError, OSError) as exc:
        return False, f"{type(exc).__name__}: {exc}"
    finally:
        for s in socks:
            s.close()
        _stop(proc)


def secrets(folder: Path) -> tuple[bool, str]:
    argv = subprocess.run([sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(folder / "x"), "--token", TOKEN],
                          cwd=REPO, capture_output=True, text=True, timeout=60, env=os.environ | {"ADJUDICATOR_LIVE_TOKEN": ""})
    pw = subprocess.run([sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(folder / "y"), "--store", "postgresql://u:pw-leak-123@127.0.0.1:1/db"],
                        cwd=REPO, capture_output=True, text=True, timeout=60)
    proc, url = _serve(folder, "--log-level", "info")
    try:
        with httpx.Client(base_url=url, timeout=TIMEOUT_S, trust_env=False) as http:
            page = http.get(f"/organiser?token={TOKEN}").status_code
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode(errors="replace")
    finally:
        _stop(proc)
    log = (folder / "serve.log").read_text(encoding="utf-8")
    found = {"--token accepted": argv.returncode != 2, "password printed": "pw-leak-123" in pw.stdout + pw.stderr,
             "token in access log": TOKEN in log, "token in ps": TOKEN in cmdline, "request not logged": "/organiser?token=***" not in log or page != 200}
    bad = [k for k, v in found.items() if v]
    return not bad, "; ".join(bad) if bad else "--token refused (exit 2), password shown as ***, access log and ps without the token"


def orphan(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder, max_matches=1)
    try:
        desk.room("a", debate=False)
        refused = desk.http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "b", "teams": {"affirmative": "A", "negative": "N"}}, headers=ORG).status_code
        overview = desk.http.get("/api/tournaments/cup/rounds/r1").status_code
        rooms = [r["room_id"] for r in desk.http.get("/api/tournaments/cup/rounds/r1").json().get("rooms", [])] if overview == 200 else []
        return refused == 409 and overview == 200 and rooms == ["a"], f"second room {refused}; overview {overview}, rooms {rooms}"
    finally:
        desk.close()


def board_leak(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder)
    try:
        chair = desk.room("a")
        desk.ok(desk.http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)))
        board = desk.http.get("/api/matches/cup.r1.a").json()
        row = desk.http.get("/api/tournaments/cup/rounds/r1").json()["rooms"][0]
        with desk.http.stream("GET", "/api/matches/cup.r1.a/events") as r:
            stream = next(json.loads(line[5:]) for line in r.iter_lines() if line.startswith("data:"))
        files = [p for p in ("verdict", "report", "report.html") if desk.http.get(f"/api/matches/cup.r1.a/{p}").status_code != 403]
        leaks = [name for name, snap in (("board", board), ("stream", stream)) if snap["tendency"]["p"] is not None or snap["scores"] or snap["verdict"]]
        leaks += ["overview"] if row["tendency"] is not None or row["winner"] is not None else []
        return not leaks and not files, f"leaks: {', '.join(leaks + files)}" if leaks or files else "board, stream, overview and verdict files give nothing before release"
    finally:
        desk.close()


def identity(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder)
    try:
        room = "/api/tournaments/cup/rounds/r1/rooms"
        chairs = {r: desk.room(r, chair=f"Chair {r}") for r in ("a", "b")}
        for r, chair in chairs.items():
            desk.ok(desk.http.post(f"/api/matches/cup.r1.{r}/close", headers=bearer(chair)))
        impersonate = desk.http.post(f"{room}/a/confirm", json={"by": "organiser"}, headers=bearer(chairs["a"])).status_code
        desk.ok(desk.http.post(f"{room}/a/confirm", json={"winner": "negative"}, headers=ORG))
        reverse = desk.http.post(f"{room}/a/confirm", json={"winner": "affirmative"}, headers=bearer(chairs["a"])).status_code
        desk.ok(desk.http.post("/api/tournaments/cup/settings", json={"second_person_confirms": True}, headers=ORG))
        desk.ok(desk.http.post(f"{room}/b/confirm", json={"winner": "negative"}, headers=bearer(chairs["b"])))
        alone = desk.http.post(f"{room}/b/confirm", json={}, headers=bearer(chairs["b"])).status_code
        people = _people(desk, room)
        held = (impersonate, reverse, alone) == (422, 403, 403) and all(ok for ok, _ in people.values())
        return held, (f"a chair's by 'organiser' {impersonate}; a chair reversing the organiser {reverse}; one person overriding and confirming "
                      f"under Tabbycat's rule {alone}; " + "; ".join(f"{k} {v}" for k, (_, v) in people.items()))
    finally:
        desk.close()


def _people(desk: Desk, room: str) -> dict[str, tuple[bool, str]]:
    """Person tokens (room c, under Tabbycat's rule): what each attempt answered, and whether it held."""
    def token(**body) -> str:
        return desk.ok(desk.http.post("/api/tokens", json=body, headers=ORG)).json()["token"]

    chair = desk.room("c")
    desk.ok(desk.http.post("/api/matches/cup.r1.c/close", headers=bearer(chair)))
    kim1, kim2 = token(role="tabroom", person="Kim"), token(role="tabroom", person="Kim")
    desk.ok(desk.http.post(f"{room}/c/confirm", json={"winner": "negative"}, headers=bearer(kim1)))
    same = desk.http.post(f"{room}/c/confirm", json={}, headers=bearer(kim1)).status_code
    other = desk.http.post(f"{room}/c/confirm", json={}, headers=bearer(kim2)).status_code
    desk.ok(desk.http.post(f"{room}/c/reopen", json={"reason": "bench"}, headers=ORG))
    desk.ok(desk.http.post(f"{room}/c/confirm", json={"winner": "negative", "by": "A"}, headers=ORG))
    shared = desk.http.post(f"{room}/c/confirm", json={"by": "B"}, headers=ORG).status_code
    panel = token(role="panellist", person="Dr Roe", tournament_id="cup", round_id="r1", room_id="c")
    panel_confirm = desk.http.post(f"{room}/c/confirm", json={}, headers=bearer(panel)).status_code
    desk.ok(desk.http.post("/api/tournaments/cup/settings", json={"board_private": True}, headers=ORG))
    board = token(role="board", person="hall screen", tournament_id="cup")
    public, with_board = desk.http.get("/api/matches/cup.r1.c").status_code, desk.http.get("/api/matches/cup.r1.c", headers=bearer(board)).status_code
    rec = desk.ok(desk.http.get("/api/tokens", headers=ORG)).json()["tokens"][-1]
    desk.ok(desk.http.post(f"/api/tokens/{rec['token_id']}/revoke", headers=ORG))
    revoked = desk.http.get("/api/matches/cup.r1.c", headers=bearer(board)).status_code
    return {"two tab-room Kims (same token, other token)": ((same, other) == (403, 200), f"{same}, {other}"),
            "the shared token entering as A, confirming as B": (shared == 403, str(shared)),
            "a panellist confirming": (panel_confirm == 403, str(panel_confirm)),
            "a private board (no token, board token, revoked)": ((public, with_board, revoked) == (401, 200, 401), f"{public}, {with_board}, {revoked}")}


def formula(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder)
    try:
        chair = desk.room("a")
        desk.ok(desk.http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)))
        desk.ok(desk.http.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={"by": '=HYPERLINK("http://x","y")'}, headers=ORG))  # the tab room names its person
        text = desk.http.get("/api/tournaments/cup/rounds/r1/results.csv", headers=ORG).text
        live = [c for line in text.splitlines() for c in line.split(",") if c.lstrip('"').startswith("=")]
        return not live, f"{len(live)} cell(s) start with '='" if live else "the cell starts with an apostrophe: text, not a formula"
    finally:
        desk.close()


def correction(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder)
    try:
        chair = desk.room("a")
        desk.ok(desk.http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)))
        desk.ok(desk.http.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={}, headers=bearer(chair)))
        desk.ok(desk.http.post("/api/tournaments/cup/rounds/r1/rooms/a/release", json={}, headers=ORG))
        r = desk.http.post("/api/tournaments/cup/rounds/r1/rooms/a/reopen", json={"reason": "wrong winner announced"}, headers=ORG)
        if r.status_code == 404 or r.status_code == 405:
            return False, f"no reopen ({r.status_code})"
        stage = desk.match.stages[1].model_dump(mode="json")
        stage["utterances"] = [u | {"text": "The corrected transcript: I concede every point my opponent made."} for u in stage["utterances"]]
        p = desk.http.post("/api/tournaments/cup/rounds/r1/rooms/a/repush", json={"stage": stage, "reason": "another room's transcript"}, headers=ORG)
        entries = desk.http.get("/api/tournaments/cup/log?round=r1", headers=ORG).json()["log"]
        kinds = [e["kind"] for e in entries]
        logged = desk.http.get("/api/tournaments/cup/rounds/r1/log.csv", headers=ORG).text
        want = ["stage_pushed", "match_closed", "confirmed", "released", "reopened", "stage_repushed"]
        rep = next((e["detail"] for e in entries if e["kind"] == "stage_repushed"), None)
        trail = (f"; re-push {p.status_code}: winner {rep['before']['automated_winner']} (p={rep['before']['p']:.2f}) -> {rep['after']['automated_winner']} "
                 f"(p={rep['after']['p']:.2f}), stage sha256 {rep['before']['stage_sha256'][:8]} -> {rep['after']['stage_sha256'][:8]}, in log.csv: {'stage_repushed' in logged}") if rep else f"; re-push {p.status_code}"
        held = r.status_code == 200 and p.status_code == 200 and all(k in kinds for k in want) and "stage_repushed" in logged
        return held, f"reopen {r.status_code}{trail}; log kinds {sorted(set(kinds))}"
    finally:
        desk.close()


def names_and_pages(folder: Path) -> tuple[bool, str]:
    desk = Desk(folder)
    try:
        raw = '{"room_id": "s", "teams": {"affirmative": "A", "negative": "N"}, "chair": "\\ud800"}'
        surrogate = desk.http.post("/api/tournaments/cup/rounds/r1/rooms", content=raw, headers=ORG | {"content-type": "application/json"}).status_code
        long_name = desk.http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "l", "teams": {"affirmative": "A" * 5000, "negative": "N"}}, headers=ORG).status_code
        page = desk.http.get("/board")
        heads = {h: page.headers.get(h, "") for h in ("content-security-policy", "x-content-type-options", "referrer-policy")}
        headers_ok = "frame-ancestors" in heads["content-security-policy"] and heads["x-content-type-options"] == "nosniff" and heads["referrer-policy"]
        script = "<script>alert(1)</script>"
        m = desk.match
        desk.ok(desk.http.post("/api/tournaments/cup/rounds", json={"round_id": "r2", "format": m.format, "motion": f"{m.motion} {script}",
                                                                   "affirmative_position": m.affirmative_position, "negative_position": m.negative_position}, headers=ORG))
        r = desk.http.post("/api/tournaments/cup/rounds/r2/rooms", json={"room_id": "h", "teams": {"affirmative": "A", "negative": "N"}}, headers=ORG)
        chair = bearer(desk.ok(r).json()["chair_token"])
        for st in m.stages:
            desk.ok(desk.http.post("/api/matches/cup.r2.h/stages", json=st.model_dump(mode="json"), headers=chair))
        desk.ok(desk.http.post("/api/matches/cup.r2.h/close", headers=chair))
        report = desk.http.get("/api/matches/cup.r2.h/report", headers=ORG).text
        raw_html, escaped = "<script" in report.lower(), "&lt;script>" in report
        held = surrogate == 400 and long_name in (400, 422) and bool(headers_ok) and not raw_html and escaped
        return held, (f"lone surrogate {surrogate}, 5,000-character name {long_name}, headers {'present' if headers_ok else 'missing'}, "
                      f"a motion holding <script> in the Markdown report: {'raw HTML' if raw_html else 'escaped' if escaped else 'absent'}")
    finally:
        desk.close()


ATTACKS: dict[int, tuple[str, Callable[[Path], tuple[bool, str]]]] = {
    1: ("deadlock", deadlock), 2: ("Infinity", infinity), 3: ("connections", connections), 4: ("secrets", secrets), 5: ("orphan room", orphan),
    6: ("board leak", board_leak), 7: ("identity", identity), 8: ("formula", formula), 9: ("correction", correction), 10: ("names and pages", names_and_pages),
}

#: ``--quick``: two cheap attacks on an in-process server (the script's server, client and report all run).
QUICK = (2, 5)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", type=int, nargs="*", choices=sorted(ATTACKS), help="attack numbers to run (default: all)")
    ap.add_argument("--quick", action="store_true", help=f"CI: attacks {' and '.join(map(str, QUICK))} only (in-process servers, a second or two each)")
    args = ap.parse_args(argv)
    failed = 0
    print(f"{'#':>2}  {'attack':<16} {'result':<9} {'s':>5}  what happened")
    for n in args.only or (QUICK if args.quick else sorted(ATTACKS)):
        name, attack = ATTACKS[n]
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"live-attack-{n}-") as tmp:
            try:
                held, what = attack(Path(tmp))
            except Exception as exc:  # an attack that breaks the script is reported, and counts as not held
                held, what = False, f"{type(exc).__name__}: {str(exc)[:200]}"
        failed += not held
        print(f"{n:>2}  {name:<16} {'held' if held else 'NOT HELD':<9} {time.monotonic() - started:5.1f}  {what}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
