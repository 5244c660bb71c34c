"""A fake Tabbycat v2.9.3 tournament API, as an ``httpx.MockTransport``: what the push reads, and the
ballot rules Tabbycat applies when one is posted, so that the contract tests run with no network.

The GET answers are Tabbycat's own, recorded from a real v2.9.3 (``tests/tabbycat/v2.9.3/answers.json``,
written by ``benchmarks/tabbycat_round.py --record``), with this fake's objects put in. ``POST
.../pairings/<debate>/ballots`` follows Tabbycat v2.9.3's code, in its order:

- ``api/serializers.py`` ``BallotSerializer``: hyperlinks resolve into the tournament; a team's score is
  the sum of its speeches; speakers are in their team; the adjudicator is in the debate; one team per
  side, in the debate's order; the same speaker order on every sheet. Then ``create``: under one ballot
  per voting adjudicator with more than one voting adjudicator, a single sheet becomes that adjudicator's
  own ballot (``single_adj``) and a sheet without an ``adjudicator`` key is a server error
  (``KeyError: 'adjudicator'``, HTTP 500, nothing stored); otherwise every voting adjudicator needs a
  sheet. A consensus ballot has one sheet. Speeches on a sheet that names its adjudicator in a consensus
  result (a consensus tournament, or that single adjudicator's ballot), on a voting sheet that does not,
  or in a round without speaker scores are a server error after the ballot is stored (the result's
  ``set_score`` / ``set_speaker`` get the wrong arguments; seen on the real v2.9.3).
- The ballot is stored (a new version; a confirmed one unconfirms the others) *before* its result, and
  ``results/result.py`` ``save`` then raises for an invalid result, so a 400 "Tried to save an invalid
  result." leaves an empty ballot behind -- confirmed if it was posted confirmed (seen on the real
  v2.9.3: the debate's standing fell to no result).
- ``results/result.py`` / ``scoresheet.py``: the k-th speech is position k; positions are 1..substantive
  speakers plus the reply when replies are on (a speech beyond them is dropped); the result is complete
  only with a speaker and score in every position; the winner is the higher total under 'none' and
  'high-points' (a tie is invalid), the declared winner with an equal or higher total under
  'tied-points', the declared winner under 'low-points'; without speaker scores, the declared winner.
- The API sets nothing on the debate (``result_status`` stays as it was); ``GET`` of a debate's ballots,
  and ``PATCH`` / ``DELETE`` of one ballot, are server errors (``BallotViewSet.get_queryset`` reads
  ``participant_requester``); ``ballot_api=True`` makes a Tabbycat where the update works.
- ``GET /teams/standings/rounds`` and ``/speakers/standings/rounds``: what the standings count per team
  and speaker per round, from the debate's newest confirmed ballot (shapes of ``TeamRoundScoresSerializer``,
  ``SpeakerRoundScoresSerializer``).

Fault injection and the tab room: ``fail_mid_post = n`` makes the next n ballot posts fail with HTTP 500
after the team scores are stored and before the speeches (the ballot stays confirmed, as seen on the real
v2.9.3, issue 41); :meth:`FakeTabbycat.enter` is a confirmed ballot entered in Tabbycat's own form.

What it keeps of a stored ballot is what standings read: per team the win, the total and the speeches
(position -> speaker, score), from the newest confirmed ballot (:meth:`FakeTabbycat.result`).
"""

from __future__ import annotations

import copy
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ANSWERS = json.loads((Path(__file__).parent / "tabbycat" / "v2.9.3" / "answers.json").read_text(encoding="utf-8"))
ROOT = "http://tabbycat.test"
SLUG = "cup"
BASE = f"{ROOT}/api/v1/tournaments/{SLUG}"
TOKEN = "tabbycat-test-token-0123456789"
SIDE_CODES = {"aff": 0, "neg": 1}
SIDE_NAMES = ["aff", "neg"]


@dataclass
class Debate:
    id: int
    teams: list[int]
    chair: int | None
    panellists: list[int]
    trainees: list[int] = field(default_factory=list)
    sides_confirmed: bool = True
    result_status: str = "N"


@dataclass
class Ballot:
    id: int
    debate: int
    version: int
    confirmed: bool
    result: dict[str, Any] | None  # None: the result failed to save (an empty ballot)
    single_adj: bool = False


class Invalid(Exception):
    """A 400 answer with this body."""

    def __init__(self, body: Any) -> None:
        super().__init__(str(body))
        self.body = body


class ServerError(Exception):
    """A 500 answer (Tabbycat's HTML error page)."""


class FakeTabbycat:
    """One tournament (``SLUG``) with ``rooms`` debates in round 1 (stage "P" or "E"), two teams of
    ``speakers`` speakers each, ``panel`` voting adjudicators a debate; ``prefs`` overrides v2.9.3's
    defaults (names as in options/preferences.py). ``requests`` records every request."""

    def __init__(self, prefs: dict[str, Any] | None = None, *, rooms: int = 2, speakers: int = 4, panel: int = 2, stage: str = "P",
                 team_names: list[tuple[str, str]] | None = None, speaker_names: dict[str, list[str]] | None = None, criteria: bool = False,
                 ballot_api: bool = False, slug: str = SLUG) -> None:
        self.base = f"{ROOT}/api/v1/tournaments/{slug}"
        self.prefs = {p["name"]: p["value"] for p in ANSWERS["preferences"]} | {
            "teams_in_debate": 2, "ballots_per_debate_prelim": "per-adj", "ballots_per_debate_elim": "per-adj", "winners_in_ballots": "none",
            "speakers_in_ballots": "always", "substantive_speakers": 3, "reply_scores_enabled": True, "speaker_ranks": "none",
            "score_min": 68.0, "score_max": 82.0, "score_step": 1.0, "maximum_margin": 0.0} | (prefs or {})
        self.stage = stage
        self.criteria = criteria
        names = team_names or [(f"Aff{k}", f"Neg{k}") for k in range(rooms)]
        self.teams: dict[int, dict[str, Any]] = {}
        self.speakers: dict[int, tuple[str, int]] = {}
        self.adjudicators: dict[int, str] = {}
        self.debates: dict[int, Debate] = {}
        for k, pair in enumerate(names):
            ids = []
            for name in pair:
                tid = 100 + len(self.teams)
                own = (speaker_names or {}).get(name) or [f"{name} speaker {i}" for i in range(1, speakers + 1)]
                for sname in own:
                    self.speakers[200 + len(self.speakers)] = (sname, tid)
                self.teams[tid] = {"name": name}
                ids.append(tid)
            adjs = []
            for i in range(panel):
                aid = 300 + len(self.adjudicators)
                self.adjudicators[aid] = f"Judge {k}.{i}"
                adjs.append(aid)
            self.debates[10 + k] = Debate(id=10 + k, teams=ids, chair=adjs[0] if adjs else None, panellists=adjs[1:])
        self.ballots: list[Ballot] = []
        self.requests: list[httpx.Request] = []
        self.ballot_api = ballot_api  # True: a Tabbycat whose ballot detail endpoint works (v2.9.3's answers 500)
        self.fail_mid_post = 0  # > 0: that many ballot posts fail with HTTP 500 after the team scores are stored, before the speeches
        self.transport = httpx.MockTransport(self.handle)

    # ------------------------------------------------------------------ lookups

    def speakers_of(self, team: int) -> list[int]:
        return [sid for sid, (_, t) in self.speakers.items() if t == team]

    def _id(self, url: Any, kind: str) -> int:
        prefix = f"{self.base}/{kind}/"
        if not isinstance(url, str) or not url.startswith(prefix) or not url[len(prefix):].isdigit():
            raise Invalid({"detail": f"Invalid hyperlink - No URL match. ({url})"})
        return int(url[len(prefix):])

    def result(self, debate: int) -> dict[str, Any] | None:
        """What standings count for the debate: the newest confirmed ballot's result (None: none, or an
        empty one): ``{side: {"win", "score", "speeches": {position: (speaker id, score)}}}``."""
        confirmed = [b for b in self.ballots if b.debate == debate and b.confirmed]
        return confirmed[-1].result if confirmed else None

    # ------------------------------------------------------------------ the HTTP side

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.headers.get("authorization") != f"Token {TOKEN}":
            return httpx.Response(401, json={"detail": "Invalid token."})
        path = str(request.url).split("?")[0]
        if not path.startswith(self.base + "/") or path == self.base:
            return httpx.Response(404, text="<h1>Not Found</h1>")
        rest = path[len(self.base):]
        try:
            if request.method == "GET":
                return self._get(rest)
            if request.method == "POST" and rest.startswith("/rounds/1/pairings/") and rest.endswith("/ballots"):
                return self._post_ballot(int(rest.split("/")[4]), json.loads(request.content))
            if request.method in ("PATCH", "DELETE") and rest.startswith("/rounds/1/pairings/") and "/ballots/" in rest:
                return self._edit_ballot(int(rest.split("/")[-1]), json.loads(request.content) if request.content else {"discarded": True})
            if request.method == "PATCH" and rest.startswith("/rounds/1/pairings/"):
                d = self.debates[int(rest.split("/")[4])]
                d.result_status = json.loads(request.content).get("result_status", d.result_status)
                return httpx.Response(200, json=self._pairing(d))
        except Invalid as exc:
            return httpx.Response(400, json=exc.body)
        except (ServerError, KeyError, TypeError):
            return httpx.Response(500, text="<!DOCTYPE html>\n<title>Server Error (500)</title>")
        return httpx.Response(404, json={"detail": "Not found."})

    def _get(self, rest: str) -> httpx.Response:
        if rest == "/preferences":
            prefs = copy.deepcopy(ANSWERS["preferences"])
            for p in prefs:
                p["value"] = self.prefs.get(p["name"], p["value"])
            return httpx.Response(200, json=prefs)
        if rest == "/rounds/1":
            return httpx.Response(200, json=ANSWERS["round"] | {"url": f"{self.base}/rounds/1", "stage": self.stage})
        if rest == "/rounds/1/pairings":
            return httpx.Response(200, json=[self._pairing(d) for d in self.debates.values()])
        if rest == "/teams":
            shape = ANSWERS["teams"][0]
            return httpx.Response(200, json=[shape | {"id": tid, "url": f"{self.base}/teams/{tid}", "short_name": t["name"], "long_name": t["name"], "reference": t["name"],
                                                     "speakers": [ANSWERS["teams"][0]["speakers"][0] | {"id": sid, "url": f"{self.base}/speakers/{sid}", "name": self.speakers[sid][0]}
                                                                  for sid in self.speakers_of(tid)]} for tid, t in self.teams.items()])
        if rest == "/adjudicators":
            shape = ANSWERS["adjudicators"][0]
            return httpx.Response(200, json=[shape | {"id": aid, "url": f"{self.base}/adjudicators/{aid}", "name": n} for aid, n in self.adjudicators.items()])
        if rest == "/motions":
            return httpx.Response(200, json=[ANSWERS["motions"][0] | {"url": f"{self.base}/motions/5", "rounds": [{"round": f"{self.base}/rounds/1", "seq": 1}]}])
        if rest == "/score-criteria":
            return httpx.Response(200, json=[{"url": f"{self.base}/score-criteria/1", "name": "Matter", "weight": 1.0}] if self.criteria else [])
        if rest == "/teams/standings/rounds":
            return httpx.Response(200, json=self._team_rounds())
        if rest == "/speakers/standings/rounds":
            return httpx.Response(200, json=self._speaker_rounds())
        if rest.endswith("/ballots") or "/ballots/" in rest:
            raise ServerError  # v2.9.3: BallotViewSet.get_queryset reads participant_requester, which nothing sets
        return httpx.Response(404, json={"detail": "Not found."})

    def _pairing(self, d: Debate) -> dict[str, Any]:
        shape = ANSWERS["pairings"][0]
        return shape | {"id": d.id, "url": f"{self.base}/rounds/1/pairings/{d.id}", "sides_confirmed": d.sides_confirmed, "result_status": d.result_status,
                        "teams": [{"team": f"{self.base}/teams/{t}", "side": SIDE_NAMES[i]} for i, t in enumerate(d.teams)],
                        "adjudicators": {"chair": f"{self.base}/adjudicators/{d.chair}" if d.chair else None, "panellists": [f"{self.base}/adjudicators/{a}" for a in d.panellists],
                                         "trainees": [f"{self.base}/adjudicators/{a}" for a in d.trainees]},
                        "_links": {"ballots": f"{self.base}/rounds/1/pairings/{d.id}/ballots"}}

    def _team_rounds(self) -> list[dict[str, Any]]:
        """``GET /teams/standings/rounds`` (``TeamRoundScoresSerializer``): per team, per debate's round,
        the confirmed ballot's team score (``points``/``score`` null without one)."""
        out = []
        for tid in self.teams:
            rounds = []
            for d in self.debates.values():
                if tid in d.teams:
                    r = (self.result(d.id) or {}).get(SIDE_NAMES[d.teams.index(tid)])
                    rounds.append({"round": f"{self.base}/rounds/1", "points": (int(r["win"]) if r else None), "score": (r["score"] if r else None),
                                   "has_ghost": (False if r else None)})
            out.append({"team": f"{self.base}/teams/{tid}", "rounds": rounds})
        return out

    def _speaker_rounds(self) -> list[dict[str, Any]]:
        """``GET /speakers/standings/rounds`` (``SpeakerRoundScoresSerializer``): per speaker, per round of
        their team, the substantive speeches of confirmed ballots."""
        last = int(self.prefs["substantive_speakers"])
        out = []
        for sid, (_, tid) in self.speakers.items():
            rounds = []
            for d in self.debates.values():
                if tid in d.teams:
                    r = (self.result(d.id) or {}).get(SIDE_NAMES[d.teams.index(tid)]) or {"speeches": {}}
                    rounds.append({"round": f"{self.base}/rounds/1", "speeches": [{"score": sc, "position": pos, "ghost": False}
                                                                            for pos, (who, sc) in sorted(r["speeches"].items()) if who == sid and pos <= last]})
            out.append({"speaker": f"{self.base}/speakers/{sid}", "rounds": rounds})
        return out

    def _edit_ballot(self, ballot_id: int, body: dict[str, Any]) -> httpx.Response:
        """``PATCH``/``DELETE .../ballots/<id>``: HTTP 500 on v2.9.3 (``get_queryset``, as every ballot read);
        with ``ballot_api`` what ``BallotSerializer.update`` / ``destroy`` do."""
        if not self.ballot_api:
            raise ServerError
        b = next(b for b in self.ballots if b.id == ballot_id)
        b.confirmed = bool(body.get("confirmed", b.confirmed))
        return httpx.Response(200, json={"id": b.id, "version": b.version, "confirmed": b.confirmed, "discarded": bool(body.get("discarded", False))})

    def enter(self, debate: int, aff_wins: bool, aff: list[float], neg: list[float]) -> Ballot:
        """A confirmed ballot entered by the tab room in Tabbycat's own form (any version before it unconfirmed)."""
        d = self.debates[debate]
        for b in self.ballots:
            if b.debate == debate:
                b.confirmed = False
        res = {}
        for side, tid, sc in (("aff", d.teams[0], aff), ("neg", d.teams[1], neg)):
            res[side] = {"win": (side == "aff") == aff_wins, "score": sum(sc), "speeches": {i: (sid, x) for i, (sid, x) in enumerate(zip(self.speakers_of(tid), sc, strict=False), 1)}}
        ballot = Ballot(id=len(self.ballots) + 1, debate=debate, version=1 + max((b.version for b in self.ballots if b.debate == debate), default=0), confirmed=True, result=res)
        self.ballots.append(ballot)
        d.result_status = "C"
        return ballot

    # ------------------------------------------------------------------ the ballot rules (module docstring)

    def _validate(self, debate: Debate, body: dict[str, Any]) -> list[dict[str, Any]]:
        sheets = (body.get("result") or {}).get("sheets")
        if not sheets:
            raise Invalid({"result": {"sheets": ["This field is required."]}} if sheets is None else {"result": {"non_field_errors": ["Must have at least one sheet"]}})
        out = []
        for sheet in sheets:
            teams = []
            for t in sheet["teams"]:
                team = self._id(t["team"], "teams")
                speeches = [(self._id(s["speaker"], "speakers"), float(s["score"])) for s in t.get("speeches", [])]
                score = t.get("score")
                if not speeches and score is not None:
                    raise Invalid({"result": {"sheets": [{"teams": [{"non_field_errors": ["Speeches are required to assign scores."]}]}]}})
                if speeches and score is not None and score != sum(s for _, s in speeches):
                    raise Invalid({"result": {"sheets": [{"teams": [{"non_field_errors": ["Score must be the sum of speech scores."]}]}]}})
                if len({self.speakers[sid][1] for sid, _ in speeches} | {team}) > 1:
                    raise Invalid({"result": {"sheets": [{"teams": [{"non_field_errors": ["Speakers must be in their team."]}]}]}})
                teams.append({"team": team, "side": SIDE_CODES.get(t.get("side")) if isinstance(t.get("side"), str) else t.get("side"),
                              "win": bool(t.get("win", False)), "speeches": speeches})
            adj = self._id(sheet["adjudicator"], "adjudicators") if sheet.get("adjudicator") else None
            if adj is not None and adj not in [debate.chair, *debate.panellists, *debate.trainees]:
                raise Invalid({"result": {"sheets": [{"adjudicator": ["Adjudicator must be in debate"]}]}})
            if len(teams) != len(debate.teams):
                raise Invalid({"result": {"sheets": [{"teams": ["Incorrect number of teams"]}]}})
            if [t["team"] for t in teams] != debate.teams:
                raise Invalid({"result": {"sheets": [{"teams": ["Inconsistent team"]}]}})
            out.append({"raw": sheet, "adjudicator": adj, "teams": teams})
        order = [sid for t in out[0]["teams"] for sid, _ in t["speeches"]]
        for sheet in out:
            for i, sid in enumerate(sid for t in sheet["teams"] for sid, _ in t["speeches"]):
                if i >= len(order):
                    raise ServerError  # v2.9.3 indexes the first sheet's order: IndexError
                if sid != order[i]:
                    raise Invalid({"result": {"non_field_errors": ["Inconsistant speaker order"]}})
        return out

    def _post_ballot(self, debate_id: int, body: dict[str, Any]) -> httpx.Response:
        if debate_id not in self.debates:
            return httpx.Response(404, json={"detail": "Not found."})
        debate = self.debates[debate_id]
        sheets = self._validate(debate, body)
        elim = self.stage == "E"
        per_adj = self.prefs["ballots_per_debate_elim" if elim else "ballots_per_debate_prelim"] == "per-adj"
        voting = [a for a in [debate.chair, *debate.panellists] if a is not None]
        single = False
        if per_adj and len(voting) > 1:
            if len(body["result"]["sheets"]) == 1:
                body["result"]["sheets"][0]["adjudicator"]  # noqa: B018 -- v2.9.3 indexes it: KeyError, HTTP 500, no ballot stored
                single = True
            elif len(sheets) != len(voting):
                raise Invalid({"result": "Voting ballots must either have one scoresheet or ballots from all voting adjudicators"})
        elif not per_adj and len(sheets) > 1:
            raise Invalid({"result": "Consensus ballots can only have one scoresheet"})
        consensus = not per_adj or single
        confirmed = bool(body.get("confirmed", False))
        if confirmed:
            for b in self.ballots:
                if b.debate == debate_id:
                    b.confirmed = False
        ballot = Ballot(id=len(self.ballots) + 1, debate=debate_id, version=1 + max((b.version for b in self.ballots if b.debate == debate_id), default=0),
                        confirmed=confirmed, result=None, single_adj=single)
        self.ballots.append(ballot)  # stored before its result, as BallotSerializer.create does
        scores = self.prefs["speakers_in_ballots"] == "always" or (self.prefs["speakers_in_ballots"] == "prelim" and not elim)
        for s in sheets:  # the result classes' method signatures (results/result.py): TypeError or AttributeError, HTTP 500, the empty ballot stays
            speeches = any(t["speeches"] for t in s["teams"])
            if speeches and (not scores or (consensus and s["adjudicator"] is not None) or (not consensus and s["adjudicator"] is None)):
                raise ServerError
        result = self._result(debate, sheets, consensus, elim)
        if result is None:
            raise Invalid(["Tried to save an invalid result."])
        if self.fail_mid_post > 0:  # the team scores saved, the speaker scores not (seen on the real v2.9.3: issue 41, item 9)
            self.fail_mid_post -= 1
            ballot.result = {side: r | {"speeches": {}} for side, r in result.items()}
            raise ServerError
        ballot.result = result
        return httpx.Response(201, json=self._representation(ballot, sheets, consensus))

    def _positions(self) -> list[int]:
        n = int(self.prefs["substantive_speakers"])
        return list(range(1, n + 1)) + ([n + 1] if self.prefs["reply_scores_enabled"] else [])

    def _result(self, debate: Debate, sheets: list[dict[str, Any]], consensus: bool, elim: bool) -> dict[str, Any] | None:
        """The stored result, or None where Tabbycat's result is invalid (module docstring)."""
        if not debate.sides_confirmed:
            return None
        scores = self.prefs["speakers_in_ballots"] == "always" or (self.prefs["speakers_in_ballots"] == "prelim" and not elim)
        decl = self.prefs["winners_in_ballots"]
        positions = self._positions() if scores else []
        per_sheet = []
        for s in sheets:
            by_side = {}
            for i, t in enumerate(s["teams"]):
                side = t["side"] if t["side"] is not None else i
                speeches = {pos: sp for pos, sp in enumerate(t["speeches"], 1) if pos in positions}
                if set(speeches) != set(positions):
                    return None
                by_side[side] = {"declared": t["win"], "speeches": speeches, "score": sum(x for _, x in speeches.values())}
            totals = [by_side[0]["score"], by_side[1]["score"]]
            declared = [side for side in (0, 1) if by_side[side]["declared"]]
            if not scores or decl == "low-points":
                winner = declared[0] if len(declared) == 1 else None
            elif decl == "tied-points":
                winner = next((side for side in declared if totals[side] >= totals[1 - side]), None) if len(declared) == 1 else None
            else:  # 'none', 'high-points': the higher total, whatever is declared
                winner = 0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else None
            if winner is None:
                return None
            per_sheet.append((winner, by_side))
        votes = [w for w, _ in per_sheet]
        winner = max((0, 1), key=lambda side: (votes.count(side), votes[0] == side))  # the chair (first sheet) breaks a tie
        majority = [bs for w, bs in per_sheet if w == winner]
        out = {}
        for side in (0, 1):
            speeches = {pos: (majority[0][side]["speeches"][pos][0], statistics.mean(bs[side]["speeches"][pos][1] for bs in majority)) for pos in positions}
            out[SIDE_NAMES[side]] = {"win": side == winner, "score": sum(x for _, x in speeches.values()) if scores else None, "speeches": speeches}
        return out

    def _representation(self, ballot: Ballot, sheets: list[dict[str, Any]], consensus: bool) -> dict[str, Any]:
        """The 201 answer, in the recorded shape: one sheet per voting adjudicator (or the consensus one)."""
        shape = ANSWERS["ballot_201"]["answer"]
        res = ballot.result or {}

        def team(side: str) -> dict[str, Any]:
            r = res[side]
            return {"side": side, "points": int(r["win"]), "win": r["win"], "score": r["score"], "team": f"{self.base}/teams/{self.debates[ballot.debate].teams[SIDE_NAMES.index(side)]}",
                    "speeches": [{"ghost": False, "score": sc, "speaker": f"{self.base}/speakers/{sid}"} for _, (sid, sc) in sorted(r["speeches"].items())]}

        sheet_list = [{"teams": [team("aff"), team("neg")]} | ({} if consensus else {"adjudicator": f"{self.base}/adjudicators/{s['adjudicator']}"}) for s in sheets]
        return shape | {"id": ballot.id, "version": ballot.version, "confirmed": ballot.confirmed, "single_adj": ballot.single_adj,
                        "url": f"{self.base}/rounds/1/pairings/{ballot.debate}/ballots/{ballot.id}", "result": {"sheets": sheet_list}}
