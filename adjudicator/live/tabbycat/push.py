"""Pushing a round's confirmed results into Tabbycat: read the round, map each room, build its ballot,
refuse what Tabbycat would store wrongly, post the rest, and check what Tabbycat says it stored.

Per room, one :class:`PushOutcome`:

- ``skipped``: no confirmed result yet (an automated draft is never posted: a person confirms first);
- ``refused``: a Tabbycat setting, or the room's identities, would make the ballot wrong
  (:mod:`~adjudicator.live.tabbycat.rules`, :mod:`~adjudicator.live.tabbycat.mapping`); nothing posted;
- ``unchanged``: this exact ballot (same request, same body) was posted before and Tabbycat still shows
  the debate's result as posted; nothing posted again, so retries make no second version;
- ``posted``: Tabbycat answered 201; ``ballot_id`` / ``ballot_version`` are its, ``stored`` what its
  answer says it stored (winner, speakers in positions, scores), checked against what was sent;
- ``failed``: Tabbycat refused or did not answer, or stored something else than was sent.

After a post, the debate's ``result_status`` is set as Tabbycat's own ballot form sets it (``C`` for a
confirmed ballot, else ``D``; ``results/dbutils.py``, ``results/forms.py``): Tabbycat's API does not, and
its results pages and draw checks read that status. Tabbycat v2.9.3 cannot list a debate's ballots
through the API (``BallotViewSet.get_queryset`` reads ``participant_requester``, which nothing sets:
HTTP 500), so "posted before" is the push log the caller keeps (``previous``), not Tabbycat's list.
A 201 whose answer was lost on the way back is therefore posted again, as a new version of the same
ballot (Tabbycat keeps the newest confirmed one).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import SIDES, get_format
from adjudicator.live.tabbycat.ballot import SIDE_CODE, build_ballot
from adjudicator.live.tabbycat.client import TabbycatClient, TabbycatError
from adjudicator.live.tabbycat.mapping import MappingRefused, map_room
from adjudicator.live.tabbycat.reading import SIDE_OF_CODE, TabbycatRound, read_round
from adjudicator.live.tabbycat.rules import Refusal, round_refusals
from adjudicator.live.tabbycat.source import RoomSource

Status = Literal["posted", "unchanged", "refused", "failed", "skipped", "ready"]


class PushOutcome(FrozenModel):
    """What happened to one room (module docstring). ``ready``: a dry run found nothing to refuse."""

    room_id: str
    status: Status
    reason: str = ""
    setting: str = ""
    debate: int | None = None
    url: str = ""
    digest: str = ""
    decision_version: int | None = None
    confirmed: bool | None = None
    ballot_id: int | None = None
    ballot_version: int | None = None
    sheets: int | None = None
    stored: dict[str, Any] | None = None
    body: dict[str, Any] | None = None


def digest(url: str, body: dict[str, Any]) -> str:
    """SHA-256 of the request (URL and canonical JSON body): equal for the same ballot, to the bit."""
    return hashlib.sha256(json.dumps({"url": url, "body": body}, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def stored_result(answer: dict[str, Any]) -> dict[str, Any]:
    """What Tabbycat's answer to a ballot post says it stored, from its first sheet: ``{"winner": side or
    None, "speeches": {side: [[speaker URL, score], ...]}}`` (positions in order)."""
    sheet = ((answer.get("result") or {}).get("sheets") or [{}])[0]
    out: dict[str, Any] = {"winner": None, "speeches": {}}
    for t in sheet.get("teams") or []:
        side = SIDE_OF_CODE.get(t.get("side"), str(t.get("side")))
        if t.get("win"):
            out["winner"] = side
        out["speeches"][side] = [[s.get("speaker"), s.get("score")] for s in t.get("speeches") or []]
    return out


def _sent(body: dict[str, Any]) -> dict[str, Any]:
    sheet = body["result"]["sheets"][0]
    return {"winner": next(SIDE_OF_CODE[t["side"]] for t in sheet["teams"] if t["win"]),
            "speeches": {SIDE_OF_CODE[t["side"]]: [[s["speaker"], s["score"]] for s in t.get("speeches", [])] for t in sheet["teams"]}}


def _refused(src: RoomSource, refusals: list[Refusal], **kw: Any) -> PushOutcome:
    kw.setdefault("decision_version", src.decision_version)
    return PushOutcome(room_id=src.room_id, status="refused", reason="; ".join(r.line() for r in refusals), setting=",".join(r.setting for r in refusals if r.setting), **kw)


def push_room(client: TabbycatClient, tc: TabbycatRound, src: RoomSource, previous: dict[str, Any] | None, *, dry_run: bool = False) -> PushOutcome:
    """Push one room (module docstring). ``previous``: the detail of this room's last ``posted`` outcome
    (``digest``, ``ballot_id``, ...), or None. Never raises for Tabbycat's answers: they become the outcome."""
    if src.state == "draft":
        return PushOutcome(room_id=src.room_id, status="skipped", reason="an unconfirmed automated draft: confirm it first (`adjudicate live confirm`)", decision_version=src.decision_version)
    if src.state == "void":
        return PushOutcome(room_id=src.room_id, status="skipped", reason="voided by the organiser: it counts for nothing (`adjudicate live reopen` to count it again)", decision_version=src.decision_version)
    spec = get_format(src.format)
    if len(spec.units) != 2:
        return _refused(src, [Refusal(reason=f"{src.format} has {len(spec.units)} teams a debate; this push posts two-team ballots only",
                                      hint="enter these ballots in Tabbycat's own form")])
    refusals = round_refusals(tc.rules, src.format, spec.debaters_per_side, tc.elimination)
    if refusals:
        return _refused(src, refusals)
    per_adj = tc.rules.ballots_per_debate(tc.elimination) == "per-adj"
    try:
        m = map_room(src, tc, needs_speakers=tc.rules.uses_scores(tc.elimination), needs_chair=per_adj)
    except MappingRefused as exc:
        return _refused(src, [exc.refusal])
    body, refusals = build_ballot(src, tc, m, confirmed=True)
    url = f"{tc.base}/rounds/{tc.seq}/pairings/{m.debate.id}/ballots"
    d = digest(url, body)
    common: dict[str, Any] = {"debate": m.debate.id, "url": url, "digest": d, "decision_version": src.decision_version, "confirmed": True,
                              "sheets": len(body["result"]["sheets"]), "body": body}
    if refusals:
        return _refused(src, refusals, **common)
    if previous and previous.get("digest") == d and m.debate.result_status == "C":
        return PushOutcome(room_id=src.room_id, status="unchanged", reason=f"already in Tabbycat as ballot {previous.get('ballot_id')} (version {previous.get('ballot_version')})",
                           ballot_id=previous.get("ballot_id"), ballot_version=previous.get("ballot_version"), **common)
    if dry_run:
        return PushOutcome(room_id=src.room_id, status="ready", reason="dry run: not posted", **common)
    try:
        answer = client.post(url, body)
    except TabbycatError as exc:
        return PushOutcome(room_id=src.room_id, status="failed", reason=exc.message, **common)
    stored = stored_result(answer or {})
    ids: dict[str, Any] = {"ballot_id": (answer or {}).get("id"), "ballot_version": (answer or {}).get("version")}
    if stored != _sent(body):
        return PushOutcome(room_id=src.room_id, status="failed", stored=stored, reason=f"Tabbycat stored another result than was sent: {_describe(stored)}", **ids, **common)
    try:
        client.patch(f"{tc.base}/rounds/{tc.seq}/pairings/{m.debate.id}", {"result_status": "C"})
    except TabbycatError as exc:
        return PushOutcome(room_id=src.room_id, status="failed", stored=stored, reason=f"the ballot is stored, but marking the debate's result as confirmed failed: {exc.message}", **ids, **common)
    return PushOutcome(room_id=src.room_id, status="posted", stored=stored, reason=f"stored as ballot {ids['ballot_id']} (version {ids['ballot_version']})", **ids, **common)


def _describe(stored: dict[str, Any]) -> str:
    sp = "; ".join(f"{side}: " + ", ".join(f"{i}. {score}" for i, (_, score) in enumerate(stored["speeches"].get(side, []), 1)) for side in SIDES)
    return f"winner {stored['winner']}; {sp}"


def push_round(client: TabbycatClient, seq: int, sources: list[RoomSource], previous: dict[str, dict[str, Any]], *, dry_run: bool = False) -> list[PushOutcome]:
    """Push every room of ``sources`` (one Tabbycat round ``seq``). ``previous``: room id -> the detail of
    its last posted outcome. Raises :class:`~adjudicator.live.tabbycat.client.TabbycatError` when the
    round cannot be read at all (then nothing was posted)."""
    tc = read_round(client, seq)
    return [push_room(client, tc, src, previous.get(src.room_id), dry_run=dry_run) for src in sources]


__all__ = ["SIDE_CODE", "PushOutcome", "digest", "push_room", "push_round", "stored_result"]
