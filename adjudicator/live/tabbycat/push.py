"""Pushing a round's confirmed results into Tabbycat: read the round and what Tabbycat counts, map each
room, build its ballot, refuse what Tabbycat would store wrongly or what would replace a result we did not
post, post the rest, and check what Tabbycat stored.

Per room, one :class:`PushOutcome`:

- ``skipped``: no confirmed result yet (an automated draft is never posted: a person confirms first), or
  void, with nothing of this room counting in Tabbycat;
- ``refused``: a Tabbycat setting, or the room's identities, would make the ballot wrong
  (:mod:`~adjudicator.live.tabbycat.rules`, :mod:`~adjudicator.live.tabbycat.mapping`); nothing posted,
  and the reason says what Tabbycat still counts for the debate, if anything;
- ``conflict``: Tabbycat counts a result for the debate that this room did not post there (the tab room's
  own ballot, another of our rounds or tournaments pushing to the same Tabbycat round, a ballot edited in
  Tabbycat); nothing posted; ``tabbycat`` is that result, beside ours. A tab-room person resolves it for
  one room: ``resolve="ours"`` posts ours over it, ``resolve="theirs"`` keeps it (``kept``), each with a
  reason, logged;
- ``unchanged``: this exact ballot was posted before and Tabbycat still counts exactly it (or already
  counts this very result); nothing posted again, so retries make no second version;
- ``posted``: Tabbycat answered 201; ``ballot_id`` / ``ballot_version`` are its, ``stored`` what its
  answer says it stored, checked against what was sent;
- ``retracted``: the room is void (or reopened for correction) and the ballot it posted no longer counts
  in Tabbycat: unconfirmed and discarded through the API where Tabbycat allows it;
- ``failed``: Tabbycat refused or did not answer, or stored something else than was sent; after a failed
  post Tabbycat's count is read again and the reason says what it now counts (a post Tabbycat v2.9.3 fails
  half-way leaves a confirmed ballot with team scores and no speeches, which counts); a void or reopened
  room whose ballot Tabbycat still counts and will not let go of through its API fails too, saying
  where to untick it in Tabbycat.

"What this room posted" is the push log the caller keeps (``previous``: target URL -> the detail of the
last outcome there, so posting to Tabbycat X, then Y, then X again finds X's own), compared with what
Tabbycat counts now (:mod:`~adjudicator.live.tabbycat.counted`): Tabbycat v2.9.3 cannot list a debate's
ballots through its API. After a post the debate's ``result_status`` is set as Tabbycat's own ballot form
sets it (``C``; ``results/dbutils.py``, ``results/forms.py``): its API does not, and its results pages read it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from adjudicator.input.formats import SIDES, get_format
from adjudicator.live.tabbycat.ballot import SIDE_CODE, build_ballot
from adjudicator.live.tabbycat.client import TabbycatClient, TabbycatError
from adjudicator.live.tabbycat.counted import Counted, counted_from_detail, expected, read_counted
from adjudicator.live.tabbycat.mapping import MappingRefused, map_room
from adjudicator.live.tabbycat.outcome import TRACKED, PushOutcome, Resolution, dump_counted, ours_counts
from adjudicator.live.tabbycat.reading import SIDE_OF_CODE, TabbycatRound, read_round
from adjudicator.live.tabbycat.retract import retract
from adjudicator.live.tabbycat.rules import Refusal, round_refusals
from adjudicator.live.tabbycat.source import RoomSource


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


def push_room(client: TabbycatClient, tc: TabbycatRound, src: RoomSource, previous: dict[str, dict[str, Any]] | None, *,
              counts: dict[int, Counted | None] | None = None, dry_run: bool = False, resolution: Resolution | None = None) -> PushOutcome:
    """Push one room (module docstring). ``previous``: target URL -> the detail of this room's last
    tracked outcome there (:data:`TRACKED`); ``counts``: debate id -> what Tabbycat counts (read when
    None). Never raises for Tabbycat's answers: they become the outcome."""
    previous = previous or {}
    if counts is None:
        counts = read_counted(client, tc)
    if src.state in ("draft", "void"):
        return retract(client, tc, src, previous, counts, dry_run=dry_run)
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
    body, refusals, moved = build_ballot(src, tc, m, confirmed=True)
    url = f"{tc.base}/rounds/{tc.seq}/pairings/{m.debate.id}/ballots"
    d = digest(url, body)
    common: dict[str, Any] = {"debate": m.debate.id, "url": url, "digest": d, "decision_version": src.decision_version, "confirmed": True,
                              "sheets": len(body["result"]["sheets"]), "body": body} | ({"moved": moved} if moved else {})
    prev, now, ours = previous.get(url), counts.get(m.debate.id), expected(body)
    if refusals:
        if now is not None:
            whose = f"the older ballot this room posted (version {prev.get('decision_version')})" if prev and ours_counts(prev, now) else "a result this room did not post"
            refusals = [*refusals, Refusal(reason=f"Tabbycat still counts {whose} for debate {m.debate.id}: {now.describe()}")]
        return _refused(src, refusals, tabbycat=dump_counted(now), **common)
    if now is not None and not ours_counts(prev, now):
        if now.same(ours):
            return PushOutcome(room_id=src.room_id, status="unchanged", reason="Tabbycat already counts this very result (a ballot this room did not post)", attempted=True, counts=dump_counted(now), **common)
        if prev is not None and prev.get("status") == "kept" and now.same(counted_from_detail(prev)) and prev.get("digest") == d:
            return PushOutcome(room_id=src.room_id, status="kept", reason=f"Tabbycat's own result stands, as resolved before: {now.describe()}", attempted=True, counts=dump_counted(now), tabbycat=dump_counted(now), **common)
        if resolution is None or dry_run:
            return PushOutcome(room_id=src.room_id, status="conflict", tabbycat=dump_counted(now), **common, reason=(
                f"Tabbycat counts a result for debate {m.debate.id} that this room did not post there -- Tabbycat: {now.describe()}; "
                f"ours (version {src.decision_version}): {ours.describe()}; nothing posted: a tab-room person decides, for this room, "
                "`--resolve ours --reason TEXT` (post ours over it) or `--resolve theirs --reason TEXT` (keep Tabbycat's)"))
        if resolution.resolve == "theirs":
            return PushOutcome(room_id=src.room_id, status="kept", reason=f"Tabbycat's own result stands ({resolution.by}: {resolution.reason}): {now.describe()}",
                               attempted=True, counts=dump_counted(now), tabbycat=dump_counted(now), resolution=resolution, **common)
        common |= {"tabbycat": dump_counted(now), "resolution": resolution}
    elif prev is not None and prev.get("status") in ("posted", "unchanged") and prev.get("digest") == d and now is not None:
        return PushOutcome(room_id=src.room_id, status="unchanged", reason=f"already in Tabbycat as ballot {prev.get('ballot_id')} (version {prev.get('ballot_version')})",
                           ballot_id=prev.get("ballot_id"), ballot_version=prev.get("ballot_version"), attempted=True, counts=dump_counted(now), **common)
    if dry_run:
        return PushOutcome(room_id=src.room_id, status="ready", reason="dry run: not posted", **common)
    return _post(client, tc, src, m.debate.id, body, ours, now, prev, common)


def _post(client: TabbycatClient, tc: TabbycatRound, src: RoomSource, debate: int, body: dict[str, Any], ours: Counted, now: Counted | None,
          prev: dict[str, Any] | None, common: dict[str, Any]) -> PushOutcome:
    url = common["url"]
    try:
        answer = client.post(url, body)
    except TabbycatError as exc:
        return _after_failure(client, tc, src, debate, exc.message, ours, now, prev, common)
    stored = stored_result(answer or {})
    ids: dict[str, Any] = {"ballot_id": (answer or {}).get("id"), "ballot_version": (answer or {}).get("version"), "attempted": True}
    if stored != _sent(body):
        got = counted_from_detail({"stored": stored})
        return PushOutcome(room_id=src.room_id, status="failed", stored=stored, counts=dump_counted(got), reason=f"Tabbycat stored another result than was sent: {_describe(stored)}", **ids, **common)
    try:
        client.patch(f"{tc.base}/rounds/{tc.seq}/pairings/{debate}", {"result_status": "C"})
    except TabbycatError as exc:
        return PushOutcome(room_id=src.room_id, status="failed", stored=stored, counts=dump_counted(ours), reason=f"the ballot is stored (and counts), but marking the debate's result as confirmed failed: {exc.message}", **ids, **common)
    return PushOutcome(room_id=src.room_id, status="posted", stored=stored, counts=dump_counted(ours), reason=f"stored as ballot {ids['ballot_id']} (version {ids['ballot_version']})", **ids, **common)


def _after_failure(client: TabbycatClient, tc: TabbycatRound, src: RoomSource, debate: int, message: str, ours: Counted, now: Counted | None,
                   prev: dict[str, Any] | None, common: dict[str, Any]) -> PushOutcome:
    """A post that failed: read what Tabbycat counts now and say it (module docstring)."""
    try:
        after = read_counted(client, tc).get(debate)
    except TabbycatError as exc:
        return PushOutcome(room_id=src.room_id, status="failed", **common, reason=(
            f"{message}; and what Tabbycat now counts for debate {debate} could not be read ({exc.message}): check the debate's ballots in Tabbycat before counting on its standings"))
    if after is not None and after.same(ours):
        return PushOutcome(room_id=src.room_id, status="posted", attempted=True, counts=dump_counted(ours), reason=f"Tabbycat counts exactly this ballot although its answer failed ({message})", **common)
    if after is None:
        return PushOutcome(room_id=src.room_id, status="failed", attempted=True, reason=f"{message}; Tabbycat counts nothing for debate {debate} now: push again", **common)
    if now is not None and after.same(now):
        kept = dump_counted(now) if ours_counts(prev, now) else None
        return PushOutcome(room_id=src.room_id, status="failed", attempted=True, counts=kept, reason=f"{message}; Tabbycat still counts what it counted before for debate {debate}: {now.describe()}", **common)
    return PushOutcome(room_id=src.room_id, status="failed", attempted=True, counts=dump_counted(after), **common, reason=(
        f"{message}; TABBYCAT NOW COUNTS A HALF-STORED BALLOT for debate {debate}: {after.describe()} (ours: {ours.describe()}); "
        "push again to replace it with the whole ballot, or untick 'Confirmed' on the debate's newest ballot in Tabbycat"))


def _describe(stored: dict[str, Any]) -> str:
    sp = "; ".join(f"{side}: " + ", ".join(f"{i}. {score}" for i, (_, score) in enumerate(stored["speeches"].get(side, []), 1)) for side in SIDES)
    return f"winner {stored['winner']}; {sp}"


def push_round(client: TabbycatClient, seq: int, sources: list[RoomSource], previous: dict[str, dict[str, dict[str, Any]]], *, dry_run: bool = False,
               resolution: Resolution | None = None) -> list[PushOutcome]:
    """Push every room of ``sources`` (one Tabbycat round ``seq``). ``previous``: room id -> target URL ->
    the detail of its last tracked outcome there. Raises
    :class:`~adjudicator.live.tabbycat.client.TabbycatError` when the round or what it counts cannot be
    read at all (then nothing was posted)."""
    tc = read_round(client, seq)
    counts = read_counted(client, tc)
    return [push_room(client, tc, src, previous.get(src.room_id), counts=counts, dry_run=dry_run, resolution=resolution) for src in sources]


__all__ = ["SIDE_CODE", "TRACKED", "PushOutcome", "Resolution", "digest", "push_room", "push_round", "stored_result"]
