"""The organiser's round end to end against a real Tabbycat: two rooms judged live, confirmed (one with an
override), pushed with ``adjudicate live tabbycat push``, and the standings Tabbycat stored printed.

    .venv/bin/python benchmarks/tabbycat_round.py --tabbycat http://127.0.0.1:PORT --tabbycat-token-file FILE
    .venv/bin/python benchmarks/tabbycat_round.py --spread      # the speaker-score spread only (no Tabbycat)
    .venv/bin/python benchmarks/tabbycat_round.py --quick       # CI: the spread, and the round skipped (no Tabbycat)

It needs a running Tabbycat (docs/tabbycat.md, "Checking against a real Tabbycat", sets one up: its
repository at a release tag, its pinned requirements in their own venv, a throwaway PostgreSQL,
``manage.py migrate``, an administrator and its API token); when none answers at ``--tabbycat`` it says
so and exits 0. Every run makes fresh Tabbycat tournaments through Tabbycat's own API (slugs
``adj-<run>-...``) and a fresh ``adjudicate live serve`` (offline judge, a temporary state folder, the
token from ``--tabbycat-token-file``), and drives the rest with the ``adjudicate live`` commands.

Part 1, Tabbycat left on its defaults (one ballot per voting adjudicator, two voting adjudicators per
debate, no separate winner declaration, speaker scores 68-82 in whole points):

1. the first push is refused naming 'Substantive speakers' and 'Reply scores' (3 speakers and a reply,
   not ccdb-4v4's 4 and none); the script then sets just those two, as any 4v4 tournament must;
2. room A (confirmed as is) is posted; room B, whose chair overrode the winner to the automated loser,
   is refused naming 'Winner Declaration in ballot(s)' (a low-point win Tabbycat would turn round);
3. room B is confirmed again with stage-score overrides that give its winner the higher total, and
   posted; a third push posts nothing (both unchanged).

Part 2, a tournament set to consensus ballots and 'Require winner selection, overriding scores', whose
results are pushed when released (``--tabbycat-push on-release``): room B's winner-only override is
stored as a low-point win.

Then it reads back what Tabbycat stored -- each debate's confirmed result from the speaker round scores
and team standings -- prints it, checks winners, speakers and speaker positions against the rooms, and
exits 1 on a mismatch. Room B's transcript is ``synthetic_4v4_02.json`` under round 1's motion (a round
has one motion; the offline judge reads structure and text, not the motion's topic).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MATCHES = ROOT / "adjudicator" / "data" / "matches" / "synthetic"
NAMES = {"A": (("Fudan", ["An", "Bai", "Chen", "Du"]), ("Wuhan", ["Fang", "Gao", "Han", "Jin"])),
         "B": (("Nanjing", ["Kong", "Li", "Ma", "Niu"]), ("Xiamen", ["Ou", "Pan", "Qiu", "Ren"]))}
SIDES = ("affirmative", "negative")


# ---------------------------------------------------------------------------------------------
# Tabbycat, through its own API


class Tabbycat:
    """A Tabbycat server at ``root`` (``http://HOST:PORT``) with an administrator's API token."""

    def __init__(self, root: str, token: str) -> None:
        self.root = root.rstrip("/")
        self.http = httpx.Client(headers={"Authorization": f"Token {token}"}, timeout=60, trust_env=False)

    def call(self, method: str, path: str, body: object = None) -> dict:
        r = self.http.request(method, path if path.startswith("http") else f"{self.root}/api/v1{path}", json=body)
        if r.status_code >= 400:
            raise SystemExit(f"Tabbycat {method} {path}: HTTP {r.status_code}: {r.text[:300]}")
        return r.json() if r.text else {}

    def tournament(self, slug: str, prefs: dict[str, object], *, panel: int = 2) -> str:
        """A two-debate tournament (round 1, a motion, panels of ``panel`` voting adjudicators) with
        the preferences ``prefs`` changed (identifier -> value); returns its API base."""
        self.call("POST", "/tournaments", {"name": slug, "short_name": slug[:25], "slug": slug})
        base = f"{self.root}/api/v1/tournaments/{slug}"
        for ident, value in prefs.items():
            self.call("PATCH", f"{base}/preferences/{ident}", {"value": value})
        inst = self.call("POST", "/institutions", {"name": f"{slug} institution", "code": slug[-10:]})["url"]
        teams = {}
        for pair in NAMES.values():
            for team, speakers in pair:
                t = self.call("POST", f"{base}/teams", {"reference": team, "short_reference": team, "institution": inst, "use_institution_prefix": False,
                                                       "break_categories": [], "speakers": [{"name": n, "categories": []} for n in speakers]})
                teams[team] = t["url"]
        self.call("POST", f"{base}/rounds", {"seq": 1, "name": "Round 1", "abbreviation": "R1", "stage": "P", "draw_type": "M", "draw_status": "C",
                                             "break_category": None, "motions": []})
        rnd = f"{base}/rounds/1"
        self.call("POST", f"{base}/motions", {"text": "University coursework should allow AI writing tools", "reference": "AI", "rounds": [{"round": rnd, "seq": 1}]})
        for room, pair in NAMES.items():
            adjs = [self.call("POST", f"{base}/adjudicators", {"name": f"Judge {room}{i}", "institution": inst, "base_score": 3.0,
                                                               "institution_conflicts": [], "team_conflicts": [], "adjudicator_conflicts": []})["url"] for i in range(panel)]
            self.call("POST", f"{rnd}/pairings", {"teams": [{"team": teams[pair[0][0]], "side": "aff"}, {"team": teams[pair[1][0]], "side": "neg"}],
                                                  "adjudicators": {"chair": adjs[0], "panellists": adjs[1:], "trainees": []}})
        return base

    def stored(self, base: str) -> dict[str, dict]:
        """Team name -> what Tabbycat counts for it: wins, total speaks, and its speakers' round-1
        speeches (position -> (name, score)), from the team standings and the speaker round scores."""
        names = {t["url"]: t["short_name"] for t in self.call("GET", f"{base}/teams")}
        speakers = {s["url"]: (s["name"], s["team"]) for s in self.call("GET", f"{base}/speakers")}
        out: dict[str, dict] = {n: {"wins": None, "speaks": None, "speeches": {}} for n in names.values()}
        for row in self.call("GET", f"{base}/teams/standings"):
            metrics = {m["metric"]: m["value"] for m in row["metrics"]}
            out[names[row["team"]]] |= {"wins": metrics.get("wins"), "speaks": metrics.get("speaks_avg"), "rank": row["rank"]}
        for row in self.call("GET", f"{base}/speakers/standings/rounds"):
            name, team = speakers[row["speaker"]]
            for rnd in row.get("rounds") or []:
                for sp in rnd.get("speeches") or []:
                    out[names[team]]["speeches"][sp["position"]] = (name, sp["score"], sp.get("ghost", False))
        return out


# ---------------------------------------------------------------------------------------------
# adjudicate live, as the organiser runs it


class Live:
    """``adjudicate live serve`` in a temporary state folder, and the client commands against it."""

    def __init__(self, state: Path, token_file: Path) -> None:
        self.state = state
        state.mkdir(parents=True)
        self.log = (state.parent / "serve.log").open("w")
        self.proc = subprocess.Popen([sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state), "--model", "offline",
                                      "--tabbycat-token-file", str(token_file), "--log-level", "warning"],
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log, text=True)
        lines = [self.proc.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
        self.url = next(x.split()[1] for x in lines if x.startswith("organiser:")).split("/board")[0]

    def run(self, *args: str, token: str | None = None, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "adjudicator.cli", "live", *args, "--state-dir", str(self.state)]
        # a token goes in the environment, never on the command line (ps would show it)
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=os.environ | {"ADJUDICATOR_LIVE_TOKEN": token or "", "ADJUDICATOR_LIVE_TOKEN_FILE": ""})
        if r.returncode not in ok:
            tail = (self.state.parent / "serve.log").read_text(encoding="utf-8")[-3000:]
            raise SystemExit(f"`adjudicate live {' '.join(args)}` exited {r.returncode}: {r.stderr.strip()[-600:]}\nserver log:\n{tail}")
        return r

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log.close()


def setup_round(live: Live, tid: str, base: str, work: Path, on_release: bool) -> dict[str, str]:
    """Our tournament, round 1 and rooms A and B (names only, no Tabbycat ids), both matches replayed and
    closed. Returns room -> chair token."""
    live.run("tournament", "create", tid, "--tabbycat-url", base, *(["--tabbycat-push", "on-release"] if on_release else []))
    first = MATCHES / "synthetic_4v4_01.json"
    live.run("round", "create", tid, "r1", "--from-match", str(first), "--name", "Round 1", "--tabbycat-round", "1")
    second = json.loads((MATCHES / "synthetic_4v4_02.json").read_text(encoding="utf-8"))
    head = json.loads(first.read_text(encoding="utf-8"))
    second |= {k: head[k] for k in ("motion", "affirmative_position", "negative_position", "info") if k in head}
    files = {"A": first, "B": work / "room_b.json"}
    files["B"].write_text(json.dumps(second, ensure_ascii=False), encoding="utf-8")
    chairs = {}
    for room, ((aff, aff_sp), (neg, neg_sp)) in NAMES.items():
        debaters = [f"{side} {i}={n}" for side, names in (("affirmative", aff_sp), ("negative", neg_sp)) for i, n in enumerate(names, 1)]
        r = live.run("room", "create", tid, "r1", room, "--affirmative-team", aff, "--negative-team", neg, "--chair", f"Judge {room}0",
                     *[a for d in debaters for a in ("--debater", d)])
        chairs[room] = json.loads(r.stdout)["chair_token"]
        live.run("replay", str(files[room]), "--speed", "0", "--match-id", f"{tid}.r1.{room}")
    return chairs


def automated_winner(live: Live, tid: str, room: str) -> str:
    view = json.loads(live.run("round", "show", tid, "r1", "--json").stdout)
    return next(r for r in view["rooms"] if r["room_id"] == room)["decision"]["automated"]["winner"]


def push(live: Live, tid: str, expect: int) -> list[dict]:
    r = live.run("tabbycat", "push", tid, "r1", "--json", ok=(expect,))
    rooms = json.loads(r.stdout)["rooms"]
    for o in rooms:
        print(f"    {o['room_id']}: {o['status']:<9} {o.get('reason', '')}")
    return rooms


def confirm(live: Live, tid: str, room: str, chair: str, *extra: str) -> None:
    live.run("confirm", tid, "r1", room, *extra, token=chair)


def scores_for(live: Live, tid: str, room: str, winner: str) -> list[str]:
    """``--score`` overrides giving ``winner`` 7.5 and the other side 6.5 in every unit of the room."""
    view = json.loads(live.run("round", "show", tid, "r1", "--json").stdout)
    units = next(r for r in view["rooms"] if r["room_id"] == room)["decision"]["automated"]["stage_scores"]
    return [a for u in units for a in ("--score", f"{u.replace('|', ':')}={7.5 if u.endswith(winner) else 6.5}")]


def other(side: str) -> str:
    return "negative" if side == "affirmative" else "affirmative"


def part_defaults(tc: Tabbycat, live: Live, run: str, work: Path) -> tuple[str, dict[str, str]]:
    """Part 1 (module docstring). Returns (Tabbycat base, room -> expected winner side)."""
    slug, tid = f"adj-{run}-defaults", "defaults"
    base = tc.tournament(slug, {})
    print(f"\nPart 1: Tabbycat tournament {slug}, every setting at its default; panels of 2 voting adjudicators")
    chairs = setup_round(live, tid, base, work, on_release=False)
    upset = other(automated_winner(live, tid, "B"))
    confirm(live, tid, "A", chairs["A"])
    confirm(live, tid, "B", chairs["B"], "--winner", upset, "--note", "the chair's decision")
    print("  push 1 (Tabbycat defaults):")
    refused = push(live, tid, expect=2)
    assert all(o["status"] == "refused" and {"substantive_speakers", "reply_scores_enabled"} <= set(o["setting"].split(",")) for o in refused), refused
    for ident, value in (("debate_rules__substantive_speakers", 4), ("debate_rules__reply_scores_enabled", False)):
        tc.call("PATCH", f"{base}/preferences/{ident}", {"value": value})
    print("  push 2 (the two format settings set: 4 substantive speakers, no reply; everything else default):")
    second = {o["room_id"]: o for o in push(live, tid, expect=2)}
    assert second["A"]["status"] == "posted" and second["B"]["status"] == "refused" and second["B"]["setting"] == "winners_in_ballots", second
    confirm(live, tid, "B", chairs["B"], "--winner", upset, *scores_for(live, tid, "B", upset), "--note", "the chair's decision, with its scores")
    print("  push 3 (room B confirmed again with stage scores that give its winner the higher total):")
    third = {o["room_id"]: o for o in push(live, tid, expect=0)}
    assert third["A"]["status"] == "unchanged" and third["B"]["status"] == "posted", third
    print("  push 4 (nothing changed):")
    assert all(o["status"] == "unchanged" for o in push(live, tid, expect=0))
    return base, {"A": automated_winner(live, tid, "A"), "B": upset}


def part_low_points(tc: Tabbycat, live: Live, run: str, work: Path) -> tuple[str, dict[str, str]]:
    """Part 2 (module docstring)."""
    slug, tid = f"adj-{run}-lowpoint", "lowpoint"
    prefs = {"debate_rules__substantive_speakers": 4, "debate_rules__reply_scores_enabled": False,
             "debate_rules__ballots_per_debate_prelim": "per-debate", "debate_rules__winners_in_ballots": "low-points"}
    base = tc.tournament(slug, prefs, panel=3)
    print(f"\nPart 2: Tabbycat tournament {slug}: consensus ballots, 'Require winner selection, overriding scores'; pushed on release")
    chairs = setup_round(live, tid, base, work, on_release=True)
    upset = other(automated_winner(live, tid, "B"))
    confirm(live, tid, "A", chairs["A"])
    confirm(live, tid, "B", chairs["B"], "--winner", upset, "--note", "the chair's decision (scores as the panel gave them)")
    r = live.run("release", tid, "r1")
    print("  " + "\n  ".join(line for line in r.stderr.splitlines() if "Tabbycat" in line or "released" in line))
    return base, {"A": automated_winner(live, tid, "A"), "B": upset}


def check(tc: Tabbycat, base: str, winners: dict[str, str]) -> list[str]:
    """Print what Tabbycat stored for the round; the mismatches against the rooms ([] when none)."""
    stored = tc.stored(base)
    problems = []
    print(f"  Tabbycat's standings ({base}/teams/standings, /speakers/standings/rounds):")
    print(f"    {'team':<9}{'rank':>5}{'wins':>6}{'speaks':>8}   speeches by position (name score)")
    for room, ((aff, aff_sp), (neg, neg_sp)) in NAMES.items():
        for team, names, side in ((aff, aff_sp, "affirmative"), (neg, neg_sp, "negative")):
            s = stored[team]
            sp = "  ".join(f"{pos}. {n} {score:g}" for pos, (n, score, _) in sorted(s["speeches"].items()))
            print(f"    {team:<9}{s.get('rank', ''):>5}{s['wins']:>6}{s['speaks'] or 0:>8g}   {sp}")
            want_win = int(winners[room] == side)
            if s["wins"] != want_win:
                problems.append(f"room {room}: {team} has {s['wins']} wins in Tabbycat, expected {want_win}")
            if [n for _, (n, _, _) in sorted(s["speeches"].items())] != names or sorted(s["speeches"]) != [1, 2, 3, 4]:
                problems.append(f"room {room}: {team}'s speakers by position are {s['speeches']}, expected {names} in positions 1-4")
    return problems


def record(tc: Tabbycat, run: str, out: Path) -> None:
    """Write Tabbycat's answers to what the push reads and posts into ``out`` (``tests/tabbycat/v2.9.3``),
    from a scratch tournament (defaults, but 4 substantive speakers and no reply): the GETs, a ballot's
    201 answer, and the answers to a tied ballot, a sheet without its adjudicator and a low-point ballot."""
    base = tc.tournament(f"adj-{run}-record", {"debate_rules__substantive_speakers": 4, "debate_rules__reply_scores_enabled": False})
    out.mkdir(parents=True, exist_ok=True)
    got = {name: tc.call("GET", f"{base}{path}") for name, path in (("preferences", "/preferences"), ("round", "/rounds/1"), ("pairings", "/rounds/1/pairings"),
                                                                       ("teams", "/teams"), ("adjudicators", "/adjudicators"), ("motions", "/motions"), ("score_criteria", "/score-criteria"))}
    got["preferences"] = [p for p in got["preferences"] if p["section"] in ("debate_rules", "scoring")]
    pairing = got["pairings"][0]
    spk = {t["url"]: [s["url"] for s in t["speakers"]] for t in got["teams"]}

    def body(aff: list[float], neg: list[float], adjudicators: list[str | None]) -> dict:
        teams = [{"side": code, "team": t["team"], "win": code == "aff", "score": sum(sc), "speeches": [{"speaker": u, "score": x} for u, x in zip(spk[t["team"]], sc, strict=True)]}
                 for code, t, sc in (("aff", pairing["teams"][0], aff), ("neg", pairing["teams"][1], neg))]
        return {"result": {"sheets": [({"adjudicator": a} if a else {}) | {"teams": teams} for a in adjudicators]}, "confirmed": True}

    adjs = [pairing["adjudicators"]["chair"], *pairing["adjudicators"]["panellists"]]
    url = f"{base}/rounds/1/pairings/{pairing['id']}/ballots"
    posts = {"ballot_201": body([76, 75, 75, 77], [74, 75, 74, 75], adjs), "tied_400": body([75] * 4, [75] * 4, adjs),
             "no_adjudicator_500": body([76, 75, 75, 77], [74, 75, 74, 75], [None]), "low_point_201": body([73, 73, 73, 73], [75, 75, 75, 75], adjs)}
    for name, b in posts.items():
        r = tc.http.post(url, json=b)
        got[name] = {"status": r.status_code, "request": b, "answer": r.json() if r.headers.get("content-type", "").startswith("application/json") else r.text.splitlines()[0][:80]}
    r = tc.http.get(url)
    got["ballots_list"] = {"status": r.status_code}
    text = json.dumps(got, ensure_ascii=False, indent=1).replace(tc.root, "http://tabbycat.test")
    (out / "answers.json").write_text(text + "\n", encoding="utf-8")
    print(f"recorded Tabbycat's answers in {out / 'answers.json'}")


def spread() -> None:
    """The speaker-score spread: the offline judge's raw debater scores on the bundled CCDB matches, and
    the exported scores on Tabbycat's default range, linear and calibrated, against DebateBench."""
    from adjudicator.api import adjudicate
    from adjudicator.input.match_file import load_match
    from adjudicator.live.tournament.speaker_scores import HUMAN_SD_FRACTION, SpeakerScale, raw_debater_scores

    rooms = []
    for f in sorted(MATCHES.glob("*.json")):
        m = load_match(f)
        raws = raw_debater_scores(m, adjudicate(m))
        rooms.append({s: [x for x in raws[s] if x is not None] for s in raws})
    raw = [x for r in rooms for side in r.values() for x in side]
    print(f"offline judge, {len(rooms)} bundled CCDB matches, {len(raw)} debaters: raw score mean {statistics.mean(raw):.2f}, sd {statistics.pstdev(raw):.3f} (1-10)")
    print(f"DebateBench (seed 002, Table 1): sd 2.69 on 50-100 = {HUMAN_SD_FRACTION:.4f} of the scale's width")
    print(f"{'scale':<22}{'sd':>7}{'sd/width':>10}{'mean room range':>17}{'distinct scores':>17}")
    for lo, hi, step in ((68, 82, 1), (70, 80, 1), (70, 80, 0.5)):
        for mapping in ("linear", "calibrated"):
            scale = SpeakerScale(low=lo, high=hi, step=step, mapping=mapping)  # type: ignore[arg-type]
            pts = [scale.team(side) for r in rooms for side in r.values()]
            flat = [x for team in pts for x in team]
            ranges = [max(a + b) - min(a + b) for a, b in zip(pts[::2], pts[1::2], strict=True)]
            print(f"{f'{lo}-{hi} step {step:g} {mapping}':<22}{statistics.pstdev(flat):>7.2f}{statistics.pstdev(flat) / (hi - lo):>10.4f}"
                  f"{statistics.mean(ranges):>17.2f}{len(set(flat)):>17}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tabbycat", default=os.environ.get("TABBYCAT_URL", "http://127.0.0.1:8000"), help="the Tabbycat server, http://HOST:PORT")
    ap.add_argument("--tabbycat-token-file", type=Path, default=os.environ.get("ADJUDICATOR_TABBYCAT_TOKEN_FILE"), help="file holding an administrator's API token")
    ap.add_argument("--spread", action="store_true", help="print the speaker-score spread only")
    ap.add_argument("--record", type=Path, help="also write Tabbycat's answers into this folder (tests/tabbycat/v2.9.3)")
    ap.add_argument("--quick", action="store_true", help="CI: the spread only; the round needs a real Tabbycat and is skipped")
    args = ap.parse_args()
    if args.spread or args.quick:
        spread()
        if args.quick:
            print("--quick: the round itself skipped (it needs a real Tabbycat, docs/tabbycat.md)")
        return 0
    try:
        version = httpx.get(f"{args.tabbycat.rstrip('/')}/api/v1", timeout=10, trust_env=False)
        version.raise_for_status()
    except httpx.HTTPError as exc:
        print(f"no Tabbycat answers at {args.tabbycat}/api/v1 ({type(exc).__name__}); nothing run (docs/tabbycat.md sets one up)")
        return 0
    if not args.tabbycat_token_file:
        raise SystemExit("--tabbycat-token-file: give the file holding a Tabbycat administrator's API token")
    tc = Tabbycat(args.tabbycat, Path(args.tabbycat_token_file).read_text(encoding="utf-8").strip())
    run = uuid.uuid4().hex[:6]
    if args.record:
        record(tc, run, args.record)
    problems: list[str] = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="adj-tabbycat-") as tmp:
        live = Live(Path(tmp) / "state", Path(args.tabbycat_token_file))
        try:
            for part in (part_defaults, part_low_points):
                base, winners = part(tc, live, run, Path(tmp))
                problems += check(tc, base, winners)
        finally:
            live.stop()
    print(f"\n{'all stored as confirmed' if not problems else 'MISMATCH: ' + '; '.join(problems)} ({time.monotonic() - t0:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
