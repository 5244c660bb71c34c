"""The live server's side of a Tabbycat push: which rooms, with which token, what the push log says was
posted before, and the push when a result is released.

- ``POST /api/tournaments/{t}/rounds/{r}/tabbycat/push`` (and ``.../rooms/{room}/tabbycat/push``), the
  organiser's, runs :meth:`TabbycatPusher.push`; ``adjudicate live tabbycat push T R [ROOM]`` calls it.
- A tournament whose ``tabbycat_push`` is ``on_release`` is pushed by :meth:`TabbycatPusher.after_release`
  when the organiser releases rooms; the release stands whatever Tabbycat answers.

The Tabbycat token: the one the server was started with (``live serve --tabbycat-token-file``, or
``ADJUDICATOR_TABBYCAT_TOKEN`` / ``ADJUDICATOR_TABBYCAT_TOKEN_FILE``), else the one a push request carries
in its ``X-Tabbycat-Token`` header (the CLI reads it from a file or the environment). It is used for
that request only, never stored or logged.

Every push outcome but a dry run's is one ``tabbycat_push`` entry of the lifecycle log (status, reason,
the Tabbycat setting refused on, debate, ballot id and version, the request's digest): the log is what
makes a second push of the same ballot post nothing (:mod:`~adjudicator.live.tabbycat.push`).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import httpx
from pydantic import Field, model_validator

from adjudicator.errors import AdjudicationFailed
from adjudicator.frozen import FrozenModel
from adjudicator.live.errors import Conflict
from adjudicator.live.tabbycat.client import TabbycatClient, TabbycatError
from adjudicator.live.tabbycat.outcome import Resolve
from adjudicator.live.tabbycat.push import TRACKED, PushOutcome, Resolution, push_round
from adjudicator.live.tabbycat.source import RoomSource, room_source
from adjudicator.live.tournament.access import require_organiser
from adjudicator.live.tournament.lifecycle import Actor, LogEntry
from adjudicator.live.tournament.model import Room, now_utc

log = logging.getLogger("adjudicator.live")

HINT_SETUP = "see docs/tabbycat.md ('Pushing a round')"


class PushBody(FrozenModel):
    """``POST .../tabbycat/push``: ``dry_run`` checks everything and posts nothing; ``resolve`` ("ours"
    or "theirs", with a ``reason``, one room only) answers a conflict with a result Tabbycat counts that
    the room did not post (:mod:`~adjudicator.live.tabbycat.push`)."""

    dry_run: bool = False
    resolve: Literal["ours", "theirs"] | None = None
    reason: str = Field(default="", max_length=500)

    @model_validator(mode="after")
    def _reasoned(self) -> PushBody:
        if self.resolve and not self.reason.strip():
            raise ValueError("resolving a conflict needs a reason (it is logged)")
        return self


class TabbycatUnavailable(AdjudicationFailed):
    """Tabbycat could not be read (unreachable, refused the token, not a Tabbycat API): 502, nothing posted."""


class TabbycatPusher:
    """Pushes rooms of ``tabroom`` (a :class:`~adjudicator.live.tournament.tabroom.TabRoom`) with ``token`` (the
    server's, or None); ``transport`` replaces the network (tests)."""

    def __init__(self, tabroom: Any, token: str | None = None, transport: httpx.BaseTransport | None = None) -> None:
        self.tabroom = tabroom
        self.token = token
        self.transport = transport

    def push(self, tournament_id: str, round_id: str, room_id: str | None, actor: Actor, *, token: str | None = None, dry_run: bool = False,
             resolve: Resolve | None = None, reason: str = "") -> dict[str, Any]:
        """Push one room, or every room of the round. Returns ``{"tournament_id", "round_id",
        "tabbycat_url", "tabbycat_round", "dry_run", "rooms": [outcome, ...]}`` (outcomes without their
        request bodies unless ``dry_run``). Raises 403 (not the organiser), 404, 409 (no Tabbycat URL,
        round number or token, a resolution for a whole round), :class:`TabbycatUnavailable` (502)."""
        require_organiser(actor, "pushing results to Tabbycat")
        if resolve and not room_id:
            raise Conflict("a conflict is resolved for one room at a time, not a whole round", "name the room: `adjudicate live tabbycat push T R ROOM --resolve ours|theirs --reason TEXT`")
        resolution = Resolution(resolve=resolve, reason=reason.strip(), by=actor.name or actor.role) if resolve else None
        t = self.tabroom.tournament(tournament_id)
        rnd = self.tabroom.round(tournament_id, round_id)
        rooms = [self.tabroom.room((tournament_id, round_id, room_id))] if room_id else self.tabroom.store.rooms(tournament_id, round_id)
        if not t.tabbycat_url:
            raise Conflict(f"tournament {tournament_id!r}: no Tabbycat API base (tabbycat_url)", "set it: `adjudicate live tournament settings T --tabbycat-url https://HOST/api/v1/tournaments/SLUG`")
        if rnd.tabbycat_round is None:
            raise Conflict(f"round {round_id!r}: no Tabbycat round number (tabbycat_round)", "create the round with --tabbycat-round N")
        key = token or self.token
        if not key:
            raise Conflict("no Tabbycat token: the server has none and the request sent none",
                           "put the token in a file and pass --tabbycat-token-file FILE (or set ADJUDICATOR_TABBYCAT_TOKEN); " + HINT_SETUP)
        outcomes = self._push(t.tabbycat_url, rnd.tabbycat_round, rooms, key, dry_run, resolution)
        return {"tournament_id": tournament_id, "round_id": round_id, "tabbycat_url": t.tabbycat_url, "tabbycat_round": rnd.tabbycat_round,
                "dry_run": dry_run, "rooms": [o.model_dump(mode="json", exclude_none=True, exclude=None if dry_run else {"body"}) for o in outcomes]}

    def _sources(self, rooms: list[Room]) -> tuple[list[RoomSource], list[PushOutcome]]:
        sources, skipped = [], []
        for room in rooms:
            d = self.tabroom.current_decision(room)
            if d is None:
                skipped.append(PushOutcome(room_id=room.room_id, status="skipped", reason="its match is not closed yet"))
                continue
            t = self.tabroom.tournament(room.tournament_id)
            rnd = self.tabroom.round(room.tournament_id, room.round_id)
            sources.append(room_source(t, rnd, room, d, self.tabroom.live.stages(room.match_id)))
        return sources, skipped

    def _previous(self, tournament_id: str, round_id: str) -> dict[str, dict[str, dict[str, Any]]]:
        """Room id -> Tabbycat target URL -> the detail of the room's last tracked push there (posted,
        unchanged, kept, retracted, or a failed post), from the lifecycle log: each target keeps its own."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for e in self.tabroom.store.log(tournament_id, round_id):
            if e.kind != "tabbycat_push" or not e.room_id or e.detail.get("status") not in TRACKED or not e.detail.get("url"):
                continue
            if e.detail.get("status") == "failed" and not e.detail.get("attempted"):
                continue
            out.setdefault(e.room_id, {}).pop(e.detail["url"], None)  # re-inserted last: the room's latest target comes last
            out[e.room_id][e.detail["url"]] = e.detail
        return out

    def _push(self, base: str, seq: int, rooms: list[Room], token: str, dry_run: bool, resolution: Resolution | None = None) -> list[PushOutcome]:
        if not rooms:
            return []
        sources, skipped = self._sources(rooms)
        previous = self._previous(rooms[0].tournament_id, rooms[0].round_id)
        try:
            with TabbycatClient(base, token, transport=self.transport) as client:
                outcomes = push_round(client, seq, sources, previous, dry_run=dry_run, resolution=resolution) if sources else []
        except TabbycatError as exc:
            raise TabbycatUnavailable(f"Tabbycat round {seq} could not be read: {exc.message.rstrip('.')}", "check the tournament's tabbycat_url and the token; " + HINT_SETUP) from None
        outcomes = skipped + outcomes
        if not dry_run:
            self._log(rooms[0], outcomes)
        return outcomes

    def _log(self, any_room: Room, outcomes: list[PushOutcome]) -> None:
        at = now_utc()
        entries = [LogEntry(at=at, tournament_id=any_room.tournament_id, round_id=any_room.round_id, room_id=o.room_id, kind="tabbycat_push",
                            actor=Actor(role="system", name="tabbycat push"), version=o.decision_version,
                            detail=o.model_dump(mode="json", exclude_none=True, exclude={"body", "room_id"}))
                   for o in outcomes if o.status != "skipped"]
        if entries:
            self.tabroom.store.save_decisions([], entries)  # log entries only: no decision changes

    def after_release(self, rooms: list[Room]) -> list[dict[str, Any]]:
        """Push the just-released ``rooms`` when their tournament pushes on release; their outcomes
        ([] when it does not). Never raises: a Tabbycat failure is an outcome (and a log line)."""
        if not rooms:
            return []
        t = self.tabroom.tournament(rooms[0].tournament_id)
        rnd = self.tabroom.round(rooms[0].tournament_id, rooms[0].round_id)
        if t.tabbycat_push != "on_release":
            return []
        if not (t.tabbycat_url and rnd.tabbycat_round is not None and self.token):
            why = "no Tabbycat API base" if not t.tabbycat_url else "no Tabbycat round number" if rnd.tabbycat_round is None else "the server has no Tabbycat token (--tabbycat-token-file)"
            out = [PushOutcome(room_id=r.room_id, status="failed", reason=f"not pushed on release: {why}") for r in rooms]
            self._log(rooms[0], out)
            return [o.model_dump(mode="json", exclude_none=True) for o in out]
        try:
            outcomes = self._push(t.tabbycat_url, rnd.tabbycat_round, rooms, self.token, dry_run=False)
        except TabbycatUnavailable as exc:
            log.error("live: pushing released results to Tabbycat failed: %s", exc.one_line())
            out = [PushOutcome(room_id=r.room_id, status="failed", reason=exc.message) for r in rooms]
            self._log(rooms[0], out)
            return [o.model_dump(mode="json", exclude_none=True) for o in out]
        return [o.model_dump(mode="json", exclude_none=True, exclude={"body"}) for o in outcomes]
