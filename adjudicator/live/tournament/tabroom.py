"""The tab room of the live server: tournaments, rounds and rooms over the live matches, the human gate
on every automated verdict, what each reader may see, and the exports.

It joins three parts: the :class:`~adjudicator.live.rooms.tracking.LiveStore` (one live match per room: stages,
analyses, the panel, the verdict files), a :class:`~adjudicator.live.store.tournament_store.TournamentStore`
(registry, verdict states, lifecycle log) and the pure rules of :mod:`adjudicator.live.tournament.lifecycle`.

- Creating a room validates its match header, stores the room with its chair token's digest, then
  creates its live match. :meth:`TabRoom.recover` (run at start-up) creates a match a crash left
  missing and records the draft of a match that closed just before a crash.
- When a room's match closes, :meth:`TabRoom.record_draft` stores its draft (the live store calls it).
- :meth:`TabRoom.confirm` and :meth:`TabRoom.release` compute the next decision version(s) and hand
  them, with their log entries, to the store in one compare-and-set transaction; then the boards of
  the rooms concerned are republished.
- :meth:`TabRoom.board_view` is what every public read of a room's match passes through: the verdict
  appears only when the tournament's ``board_shows`` allows it (released verdicts only, by default),
  and then as the counted result (the override applied), with the automated original beside it.
  Until then a closing or closed room's board (and its round overview row) tells nothing of which way
  it went: no provisional tendency, suggested score, turning point or clash event
  (:func:`~adjudicator.live.rooms.board.withheld`).

Methods raise :class:`~adjudicator.live.errors.LiveRequestError` subclasses: 401/403 from
:mod:`adjudicator.live.tournament.access`, 404 unknown ids, 409 conflicting states, 422 invalid bodies.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from adjudicator.live.errors import Conflict, NotFound
from adjudicator.live.rooms.board import withheld
from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.live.rooms.validation import validate_header
from adjudicator.live.store.tournament_store import StaleDecision, TournamentStore
from adjudicator.live.tabbycat.export import MissingTabbycatIds, ballot_export, export_json
from adjudicator.live.tabbycat.status import with_push_status
from adjudicator.live.tabbycat.targets import shared_targets
from adjudicator.live.tournament import lifecycle
from adjudicator.live.tournament.access import check_precedence, may_read_room, new_chair_token, require_organiser, require_room, token_digest
from adjudicator.live.tournament.lifecycle import Actor, ConfirmBody, Decision, LogEntry, ReleaseBody, check_override, confirmer, visible
from adjudicator.live.tournament.model import Room, RoomBody, Round, RoundBody, SettingsBody, Tournament, TournamentBody, now_utc, parse_body
from adjudicator.live.tournament.report_html import report_html
from adjudicator.live.tournament.results_csv import results_csv, room_rows
from adjudicator.verdict.ballots import Verdict

log = logging.getLogger("adjudicator.live")

Key = tuple[str, str, str]


class TabRoom:
    """Tournaments over the live matches of ``live``, stored in ``store``."""

    def __init__(self, store: TournamentStore, live: LiveStore) -> None:
        self.store = store
        self.live = live
        self.transition_lock = threading.Lock()  # serialises this process's transitions; the store's compare-and-set guards across processes
        self.after_release: Callable[[list[Room]], list[dict[str, Any]]] | None = None  # the Tabbycat push on release (adjudicator.live.tabbycat.service)

    # ---------------------------------------------------------------------------------------------
    # Lookups (404 for unknown ids)

    def tournament(self, tournament_id: str) -> Tournament:
        """The tournament. Raises :class:`NotFound`."""
        t = self.store.tournament(tournament_id)
        if t is None:
            raise NotFound(f"tournament {tournament_id!r}: no such tournament", "create it first (`adjudicate live tournament create`)")
        return t

    def round(self, tournament_id: str, round_id: str) -> Round:
        """The round. Raises :class:`NotFound`."""
        self.tournament(tournament_id)
        r = self.store.round(tournament_id, round_id)
        if r is None:
            raise NotFound(f"round {round_id!r}: no such round in {tournament_id!r}", "create it first (`adjudicate live round create`)")
        return r

    def room(self, key: Key) -> Room:
        """The room. Raises :class:`NotFound`."""
        self.round(key[0], key[1])
        room = self.store.room(key)
        if room is None:
            raise NotFound(f"room {key[2]!r}: no such room in round {key[1]!r}", "create it first (`adjudicate live room create`)")
        return room

    def room_of_match(self, match_id: str) -> Room | None:
        """The room whose live match is ``match_id``, or None for a stand-alone match."""
        return self.store.room_of_match(match_id) if "." in match_id else None

    # ---------------------------------------------------------------------------------------------
    # Creating tournaments, rounds and rooms (the organiser)

    def create_tournament(self, data: object, actor: Actor) -> dict[str, Any]:
        """Create a tournament from a :class:`TournamentBody`. Returns its view. Raises 403, 409, 422."""
        require_organiser(actor, "creating a tournament")
        t = parse_body(TournamentBody, data, "tournament").tournament()
        self.store.add_tournament(t, LogEntry(at=t.created_at, tournament_id=t.tournament_id, kind="tournament_created", actor=actor,
                                              detail={"name": t.name, "board_shows": t.board_shows}))
        return self.tournament_view(t.tournament_id, actor) | {"warnings": shared_targets(self.store, t.tournament_id)}

    def update_settings(self, tournament_id: str, data: object, actor: Actor) -> dict[str, Any]:
        """Change a tournament's ``board_shows``, ``tabbycat_url`` or ``speaker_scale``; republishes its
        rooms' boards. Raises 403, 404, 422."""
        require_organiser(actor, "changing a tournament's settings")
        t = self.tournament(tournament_id)
        body = parse_body(SettingsBody, data, "settings")
        changes = body.model_dump(exclude_none=True)
        if changes:
            new = t.model_copy(update={k: getattr(body, k) for k in changes})
            self.store.update_tournament(new, LogEntry(at=now_utc(), tournament_id=tournament_id, kind="settings_changed", actor=actor, detail=body.model_dump(mode="json", exclude_none=True)))
            for room in self.store.rooms(tournament_id):
                self.republish(room)
        return self.tournament_view(tournament_id, actor) | {"warnings": shared_targets(self.store, tournament_id) if "tabbycat_url" in changes else []}

    def create_round(self, tournament_id: str, data: object, actor: Actor) -> dict[str, Any]:
        """Create a round from a :class:`RoundBody`. Returns its view. Raises 403, 404, 409, 422."""
        require_organiser(actor, "creating a round")
        self.tournament(tournament_id)
        rnd = parse_body(RoundBody, data, "round").round(tournament_id)
        self.store.add_round(rnd, LogEntry(at=rnd.created_at, tournament_id=tournament_id, round_id=rnd.round_id, kind="round_created", actor=actor,
                                           detail={"format": rnd.format, "motion": rnd.motion}))
        return self.round_view(tournament_id, rnd.round_id, actor) | {"warnings": shared_targets(self.store, tournament_id, rnd.round_id)}

    def create_room(self, tournament_id: str, round_id: str, data: object, actor: Actor) -> dict[str, Any]:
        """Create a room from a :class:`RoomBody` and start its live match. Returns the room's view
        plus its ``chair_token`` (shown this once; :meth:`new_chair_token` issues another) and
        ``chair_url``. Raises 403, 404, 409 (room id or match id taken), 422."""
        require_organiser(actor, "creating a room")
        rnd = self.round(tournament_id, round_id)
        room = parse_body(RoomBody, data, "room").room(rnd)
        header = room.header(rnd)
        validate_header(header)
        if room.match_id in self.live.registry:
            raise Conflict(f"match {room.match_id!r} already exists", "choose another room id", field="room_id")
        token = new_chair_token()
        at = room.created_at
        entries = [
            LogEntry(at=at, tournament_id=tournament_id, round_id=round_id, room_id=room.room_id, kind="room_created", actor=actor,
                     detail={"match_id": room.match_id, "teams": dict(room.teams), "chair": room.chair}),
            LogEntry(at=at, tournament_id=tournament_id, round_id=round_id, room_id=room.room_id, kind="chair_token_issued", actor=actor),
        ]
        self.live.check_capacity()  # refused before anything is stored (a refused create left a room without its match)
        self.store.add_room(room, token_digest(token), entries)
        try:
            self.live.create(header)
        except Exception as exc:  # another create took the last place, or the store failed: no room without its match
            self.store.remove_room(room.key, LogEntry(at=now_utc(), tournament_id=tournament_id, round_id=round_id, room_id=room.room_id, kind="room_removed", actor=actor,
                                                      detail={"reason": exc.one_line() if isinstance(exc, Conflict) else type(exc).__name__}))
            raise
        view = self.room_view(room.key, actor)
        return view | {"chair_token": token, "chair_url": f"/board/{room.match_id}?token={token}"}

    def new_chair_token(self, key: Key, actor: Actor) -> dict[str, Any]:
        """Replace a room's chair token (the old one stops working). Returns ``{"match_id",
        "chair_token", "chair_url"}``. Raises 403, 404."""
        require_organiser(actor, "issuing a chair token")
        room = self.room(key)
        token = new_chair_token()
        self.store.set_chair_token(key, token_digest(token), LogEntry(at=now_utc(), tournament_id=key[0], round_id=key[1], room_id=key[2], kind="chair_token_issued", actor=actor))
        return {"match_id": room.match_id, "chair_token": token, "chair_url": f"/board/{room.match_id}?token={token}"}

    # ---------------------------------------------------------------------------------------------
    # The verdict lifecycle

    def record_draft(self, match_id: str, verdict: Verdict) -> Decision | None:
        """Record the draft of a room whose match just closed (idempotent: an existing decision is
        returned as is). None for a stand-alone match, and for a verdict without a two-team winner
        (logged; :meth:`confirm` then says why). Takes the transition lock: never call it holding it."""
        room = self.room_of_match(match_id)
        if room is None:
            return None
        with self.transition_lock:
            current = self.store.decision(room.key)
            if current is not None:
                return current
            try:
                d, entry = lifecycle.draft(room.key, verdict, now_utc())
            except ValueError as exc:  # a ranking (BP) verdict: no winner of two teams to confirm
                log.error("live: room %s has no draft: %s", match_id, exc)
                return None
            try:
                self.store.save_decisions([(d, None)], [entry])
            except StaleDecision:  # another process recorded it first
                return self.store.decision(room.key)
            return d

    def _decision(self, room: Room) -> Decision | None:
        """The room's decision; the draft is recorded now if its match closed without one (a crash
        between the verdict file and the draft). Takes the transition lock to record it, so it is
        called before a transition takes the lock, never inside (the lock is not reentrant)."""
        d = self.store.decision(room.key)
        if d is None and room.match_id in self.live.registry and self.live.row(room.match_id).status == "closed":
            v = self.live.verdict(room.match_id)
            if v is not None:
                d = self.record_draft(room.match_id, v)
        return d

    def current_decision(self, room: Room) -> Decision | None:
        """The room's decision now (the draft recorded first if its match closed without one), or None
        while its match is open."""
        return self._decision(room)

    def no_decision(self, room: Room) -> Conflict:
        """Why a room has no decision to act on: its match is still open, or its verdict has no
        two-team winner."""
        if room.match_id in self.live.registry and self.live.row(room.match_id).status == "closed":
            return Conflict(f"room {room.room_id!r}: its verdict has no winner of two teams (a ranking of houses), so there is no draft to confirm",
                            "tournament rooms take two-team formats; adjudicate a BP debate as a stand-alone match")
        return Conflict(f"room {room.room_id!r}: its match is not closed yet, so there is no verdict to confirm", "close the match first (`adjudicate live close`)")

    def confirm(self, key: Key, data: object, actor: Actor) -> dict[str, Any]:
        """Confirm a room's verdict, with an optional override (:class:`ConfirmBody`), as the room's
        chair or the organiser. Returns the room's view. Raises 403 (another room's chair), 404, 409
        (match not closed, already released, or changed since ``expected_version``), 422."""
        room = self.room(key)
        require_room(actor, room.match_id, "confirming a verdict")
        body = parse_body(ConfirmBody, data, "confirm")
        self._decision(room)  # records a draft the match's close missed, before the lock is taken
        with self.transition_lock:
            d = self.store.decision(room.key)
            if d is None:
                raise self.no_decision(room)
            if body.expected_version is not None and body.expected_version != d.version:
                raise StaleDecision(f"room {room.room_id!r}: the verdict is at version {d.version}, not {body.expected_version}", "reload the room and confirm again")
            check_precedence(d, actor)
            labels = [dd.label for dd in room.debaters]
            override = check_override(body.override(), d.automated, labels)
            rule = self.tournament(room.tournament_id).second_person_confirms
            new, entry = lifecycle.confirm(d, override, confirmer(actor, body.by), now_utc(), second_person=rule)
            self.store.save_decisions([(new, d.version)], [entry])
        self.republish(room)
        return self.room_view(key, actor)

    def release(self, tournament_id: str, round_id: str, room_id: str | None, data: object, actor: Actor) -> dict[str, Any]:
        """Release one room's confirmed verdict, or (``room_id`` None) every room of the round at once
        (all or nothing: each must be confirmed or already released). Returns the round's view.
        Raises 403 (not the organiser), 404, 409 (a room in progress or unconfirmed), 422."""
        require_organiser(actor, "releasing results")
        body = parse_body(ReleaseBody, data if data is not None else {}, "release")
        who = confirmer(actor, body.by, "release")
        self.round(tournament_id, round_id)
        rooms = [self.room((tournament_id, round_id, room_id))] if room_id else self.store.rooms(tournament_id, round_id)
        if not rooms:
            raise Conflict(f"round {round_id!r} has no rooms", "create rooms first")
        at = now_utc()
        for room in rooms:
            self._decision(room)  # records a draft a close missed, before the lock is taken
        with self.transition_lock:
            changes: list[tuple[Decision, int | None]] = []
            entries: list[LogEntry] = []
            not_ready: list[str] = []
            for room in rooms:
                d = self.store.decision(room.key)
                if d is None or d.state == "draft":
                    not_ready.append(f"{room.room_id} ({'in progress' if d is None else 'unconfirmed draft'})")
                    continue
                if d.void and not room_id:  # a voided room counts for nothing: nothing to release
                    continue
                if d.state == "released":
                    if room_id:
                        raise Conflict(f"room {room.room_id!r}: the verdict is already released", "nothing to release")
                    continue
                new, entry = lifecycle.release(d, who, at)
                changes.append((new, d.version))
                entries.append(entry)
            if not_ready:
                raise Conflict(f"round {round_id!r}: not every room is confirmed: {', '.join(not_ready)}", "confirm each room first (`adjudicate live confirm`), or release rooms one by one")
            if changes:
                self.store.save_decisions(changes, entries)
        for room in rooms:
            self.republish(room)
        view = self.round_view(tournament_id, round_id, actor)
        released = [room for room in rooms if any(d.room_id == room.room_id for d, _ in changes)]
        if self.after_release is not None and released:
            view["tabbycat_push"] = self.after_release(released)
        return view

    def republish(self, room: Room) -> None:
        """Publish the room's board again (its verdict state or visibility changed)."""
        if room.match_id in self.live.registry:
            try:
                self.live.touch(room.match_id)
            except Exception:  # the change is committed; a board that missed it catches up on its next event
                log.exception("live: republishing the board of %s failed", room.match_id)

    # ---------------------------------------------------------------------------------------------
    # What each reader sees

    def _public_state(self, d: Decision | None, shown: bool, match_status: str) -> str:
        if d is not None and (shown or d.void):
            return d.shown_state
        if d is not None or match_status != "open":
            return "awaiting"
        return "none"

    def _verdict_view(self, base: dict[str, Any] | None, room: Room, d: Decision, public: bool = False) -> dict[str, Any] | None:
        """The board's verdict block of a room: the counted result (override applied), the automated
        original beside it, who confirmed and when; ``public``: no review once a person confirmed it."""
        if base is None:
            return None
        eff = d.effective()
        scores = [s | {"counted": eff.stage_scores.get(f"{s['stage_id']}|{s['side']}", s["mean"])} for s in base["stage_scores"]]
        a = d.automated
        return base | {
            "winner": eff.winner, "best_debaters": eff.best_debaters(), "best_debater_votes": dict(eff.best_debater_votes), "stage_scores": scores,
            "state": d.shown_state, "version": d.version, "overridden": d.overridden,
            "automated": {"winner": a.winner, "best_debaters": a.best_debaters(), "best_debater_votes": dict(a.best_debater_votes), "p": a.p, "winner_split": a.winner_split},
            "override": d.override.model_dump(mode="json") if d.override else None,
            "confirmed_by": d.confirmed_by.name if d.confirmed_by else None, "confirmed_at": d.confirmed_at, "released_at": d.released_at,
            "winner_team": room.teams.get(eff.winner), "review": None if public and d.human_confirmed else base.get("review"),
        }

    def _room_block(self, room: Room, rnd: Round) -> dict[str, Any]:
        return {
            "tournament_id": room.tournament_id, "round_id": room.round_id, "room_id": room.room_id, "name": room.name, "match_id": room.match_id,
            "teams": dict(room.teams), "chair": room.chair, "round_name": rnd.name, "board_url": f"/board/{room.match_id}",
            "round_url": f"/board/round/{room.tournament_id}/{room.round_id}", "api_url": f"/api/tournaments/{room.tournament_id}/rounds/{room.round_id}/rooms/{room.room_id}",
        }

    def board_view(self, match_id: str, snapshot: dict[str, Any]) -> dict[str, Any]:
        """The public board snapshot of ``match_id``: unchanged for a stand-alone match; for a room, with
        ``room`` (ids, teams, chair, links) and ``decision`` (``state``: "none", "awaiting", or the
        shown state; ``shown``; ``board_shows``), and ``verdict`` only when the tournament shows it."""
        room = self.room_of_match(match_id)
        if room is None:
            return snapshot
        t = self.store.tournament(room.tournament_id)
        rnd = self.store.round(room.tournament_id, room.round_id)
        if t is None or rnd is None:
            return snapshot
        d = self.store.decision(room.key)
        shown = visible(d, t.board_shows)
        hold = not shown and snapshot["status"] != "open"  # closing or closed, not yet shown: nothing tells the result
        out = withheld(snapshot) if hold else dict(snapshot)
        out["room"] = self._room_block(room, rnd)
        out["decision"] = {"state": self._public_state(d, shown, snapshot["status"]), "shown": shown, "board_shows": t.board_shows}
        out["verdict"] = self._verdict_view(snapshot.get("verdict"), room, d, public=True) if (shown and d is not None) else None
        return out

    def room_view(self, key: Key, actor: Actor | None) -> dict[str, Any]:
        """A room at a glance (the round overview's row, and more): ids, teams, chair, links, match
        status, stages analysed and expected, provisional tendency, verdict state, and the counted
        winner when ``actor`` may see it -- the organiser and the room's chair always (with the
        whole ``decision`` and ``verdict``); the public as the tournament's ``board_shows`` allows."""
        room = self.room(key)
        t = self.tournament(room.tournament_id)
        rnd = self.round(room.tournament_id, room.round_id)
        snap = self.live.snapshot(room.match_id)
        d = self._decision(room)
        private = may_read_room(actor, room.match_id)
        shown = private or visible(d, t.board_shows)
        tendency = withheld(snap)["tendency"] if not shown and snap["status"] != "open" else snap["tendency"]
        out = self._room_block(room, rnd) | {
            "status": snap["status"], "received": snap["received"], "analysed": snap["analysed"], "expected_stages": snap["match"]["expected_stages"],
            "tendency": tendency["p"], "leaning": tendency["leaning"],
            "verdict_state": d.shown_state if (d is not None and shown) else self._public_state(d, False, snap["status"]),
            "winner": None, "winner_team": None, "overridden": None,
            "viewer": actor.role if private and actor is not None else "public", "viewer_name": actor.name if private and actor is not None else None,
        }
        if d is not None and shown:
            eff = d.effective()
            out |= {"winner": eff.winner, "winner_team": room.teams.get(eff.winner), "overridden": d.overridden}
        if private:
            out["decision"] = d.model_dump(mode="json") if d is not None else None
            out["effective"] = d.effective().model_dump(mode="json") if d is not None else None
            out["verdict"] = self._verdict_view(snap.get("verdict"), room, d) if d is not None else None
            out["debaters"] = [dd.model_dump(mode="json") for dd in room.debaters]
            out["tabbycat"] = room.tabbycat.model_dump(mode="json") if room.tabbycat else None
        return out

    def round_view(self, tournament_id: str, round_id: str, actor: Actor | None) -> dict[str, Any]:
        """A round and every room of it (:meth:`room_view` rows), with the tournament's name and
        ``board_shows``, and ``viewer``: who the token is ("organiser", "chair", or "public")."""
        t = self.tournament(tournament_id)
        rnd = self.round(tournament_id, round_id)
        rooms = [self.room_view(r.key, actor) for r in self.store.rooms(tournament_id, round_id)]
        rooms = with_push_status(rooms, lambda: self.store.log(tournament_id, round_id))  # the rows a reader may see whole
        return {"tournament": {"tournament_id": t.tournament_id, "name": t.name, "board_shows": t.board_shows},
                "round": rnd.model_dump(mode="json"), "language": rnd.language, "rooms": rooms,
                "round_url": f"/board/round/{tournament_id}/{round_id}", "viewer": actor.role if actor is not None else "public"}

    def tournament_view(self, tournament_id: str, actor: Actor | None) -> dict[str, Any]:
        """A tournament, its settings and its rounds (id, name, format, rooms)."""
        t = self.tournament(tournament_id)
        rounds = [{"round_id": r.round_id, "name": r.name, "format": r.format, "motion": r.motion, "rooms": len(self.store.rooms(tournament_id, r.round_id)),
                   "round_url": f"/board/round/{tournament_id}/{r.round_id}"} for r in self.store.rounds(tournament_id)]
        out: dict[str, Any] = {"tournament": t.model_dump(mode="json"), "rounds": rounds}
        if t.repaired:  # stored settings that could not be read (now their defaults): the organiser sets them again
            out["repaired"] = list(t.repaired)
        return out

    def list_tournaments(self) -> list[dict[str, Any]]:
        """Every tournament: id, name, rounds."""
        return [{"tournament_id": t.tournament_id, "name": t.name, "rounds": [r.round_id for r in self.store.rounds(t.tournament_id)]} for t in self.store.tournaments()]

    def log(self, tournament_id: str, round_id: str | None, room_id: str | None, actor: Actor) -> list[dict[str, Any]]:
        """The lifecycle log (the organiser's). Raises 403, 404."""
        require_organiser(actor, "reading the lifecycle log")
        self.tournament(tournament_id)
        return [e.model_dump(mode="json") for e in self.store.log(tournament_id, round_id, room_id)]

    def may_see_verdict(self, match_id: str, actor: Actor | None) -> bool:
        """Whether ``actor`` may read the verdict of ``match_id`` (its files and report): always for a
        stand-alone match; for a room, its chair and the organiser, or anyone once shown on the boards."""
        room = self.room_of_match(match_id)
        if room is None:
            return True
        if may_read_room(actor, match_id):
            return True
        t = self.store.tournament(room.tournament_id)
        return t is not None and visible(self.store.decision(room.key), t.board_shows)

    def report(self, match_id: str) -> str:
        """The HTML verdict report of a closed match (:func:`~adjudicator.live.tournament.report_html.report_html`);
        for a room, with its counted result. Raises :class:`NotFound` before the match is closed."""
        row = self.live.row(match_id)
        verdict = self.live.verdict(match_id)
        if row.status != "closed" or verdict is None:
            raise NotFound(f"match {match_id!r} has no report yet", "close the match first")
        snap = self.live.snapshot(match_id)
        header = row.header.model_copy(update={"stages": self.live.stages(match_id)})
        room = self.room_of_match(match_id)
        if room is None:
            return report_html(header, verdict, timeline=snap["timeline"])
        d = self._decision(room)
        rnd = self.store.round(room.tournament_id, room.round_id)
        title = f"{rnd.name if rnd else room.round_id} · {room.name}"
        return report_html(header, verdict, timeline=snap["timeline"], decision=d, teams=dict(room.teams), title=title)

    # ---------------------------------------------------------------------------------------------
    # Exports

    def ballot(self, key: Key, actor: Actor) -> dict[str, Any]:
        """The Tabbycat ballot of one room (:mod:`adjudicator.live.tabbycat`) as JSON-ready data, for
        the organiser or the room's chair. Raises 403, 404, 409 (no verdict yet, missing Tabbycat ids)."""
        room = self.room(key)
        require_room(actor, room.match_id, "exporting a ballot")
        d = self._decision(room)
        if d is None:
            raise Conflict(f"room {room.room_id!r}: its match is not closed yet, so there is no ballot", "close the match first")
        if d.void:
            raise Conflict(f"room {room.room_id!r}: its result is void, so there is no ballot", "the organiser reopens it to count it again")
        t = self.tournament(key[0])
        rnd = self.round(key[0], key[1])
        return export_json(ballot_export(t, rnd, room, d, self.live.stages(room.match_id)))

    def round_ballots(self, tournament_id: str, round_id: str, actor: Actor) -> dict[str, Any]:
        """Every room's Tabbycat ballot: ``{"ballots": [...], "skipped": [{"room_id", "reason"}]}``
        (a room in progress, or without Tabbycat ids, is skipped with the reason). The organiser's."""
        require_organiser(actor, "exporting a round")
        self.round(tournament_id, round_id)
        ballots, skipped = [], []
        for room in self.store.rooms(tournament_id, round_id):
            try:
                ballots.append(self.ballot(room.key, actor))
            except (Conflict, MissingTabbycatIds) as exc:
                skipped.append({"room_id": room.room_id, "reason": exc.one_line()})
        return {"tournament_id": tournament_id, "round_id": round_id, "ballots": ballots, "skipped": skipped}

    def round_results_csv(self, tournament_id: str, round_id: str, actor: Actor) -> str:
        """The round's results CSV (:mod:`adjudicator.live.tournament.results_csv`). The organiser's."""
        require_organiser(actor, "exporting a round")
        t = self.tournament(tournament_id)
        rnd = self.round(tournament_id, round_id)
        rows = []
        for room in self.store.rooms(tournament_id, round_id):
            rows += room_rows(t, rnd, room, self._decision(room), self.live.stages(room.match_id) if room.match_id in self.live.registry else [])
        return results_csv(rows)

    # ---------------------------------------------------------------------------------------------
    # After a (re)start

    def recover(self) -> list[str]:
        """Create the live match of any room a crash left without one, and record the draft of any room
        whose match closed without one. Returns the match ids repaired. Errors are logged, not raised."""
        repaired: list[str] = []
        for t in self.store.tournaments():
            for room in self.store.rooms(t.tournament_id):
                try:
                    if room.match_id not in self.live.registry:
                        rnd = self.store.round(room.tournament_id, room.round_id)
                        if rnd is not None:
                            self.live.create(room.header(rnd))
                            repaired.append(room.match_id)
                    elif self.store.decision(room.key) is None and self._decision(room) is not None:
                        repaired.append(room.match_id)
                except Exception as exc:
                    log.error("live: repairing room %s failed: %s", room.match_id, exc)
        return repaired
