"""People behind the tokens (issue 27, item 7): one token per person and role, so that who did what is
the token's person, never a name typed beside it.

Roles of a person token (:class:`PersonToken`, issued by the organiser, ``POST /api/tokens``):

- ``tabroom``: a named person of the tab room, with the organiser's rights on every tournament of the
  server (its :class:`~adjudicator.live.tournament.lifecycle.Actor` has role "organiser"). Two tab-room people
  are told apart by their tokens (``person_id``), even under one name.
- ``chair``: the chair of one room -- what the room's own chair token may do (push, close, confirm,
  export its ballot), under the person's name.
- ``panellist``: a panellist of one room. Reads that room's whole analysis and draft before release
  (as the chair does); writes nothing and confirms nothing (403): the panel's word reaches the result
  through the chair or the tab room.
- ``board``: reads one tournament's boards when the tournament keeps them private
  (``board_private``); writes nothing.

The organiser's shared token (``STATE_DIR/access.json``) keeps working as the person "organiser"; a
``by`` sent with it is still taken as a label of which tab-room member acted (older scripts pass one),
but for identity -- Tabbycat's rule -- every use of the shared token is one person. A person token's
``by``, if given, must be its person (422 otherwise; :func:`~adjudicator.live.tournament.lifecycle.confirmer`,
:func:`~adjudicator.live.tournament.lifecycle.person_key`).

A token is printed once, when issued; the stores keep only its SHA-256 digest
(:func:`~adjudicator.live.tournament.access.token_digest`) and the :class:`PersonToken` record (no secret).
Revoking (``POST /api/tokens/{token_id}/revoke``) stops it at once, on every server process. Issues
and revocations of a tournament's tokens are lines of its lifecycle log; a tab-room token (of no one
tournament) is recorded in the token list itself (issued and revoked by whom, when).

A **private board** (the tournament's ``board_private``): the boards, their event streams, the round
overview, the rooms' views, verdicts and reports of its rooms, and the tournament itself answer 401
without a token and 403 with a token of another tournament (:func:`check_board_access`); a board
token of the tournament, any of its rooms' chair or panellist tokens, or an organiser-level token read
them.
"""

from __future__ import annotations

import secrets
from typing import Any, Literal

from pydantic import Field, model_validator

from adjudicator.frozen import FrozenModel
from adjudicator.input.match import MAX_NAME_CHARS
from adjudicator.live.errors import NotFound, Unauthorized
from adjudicator.live.tournament.access import Forbidden, new_chair_token, require_organiser, token_digest
from adjudicator.live.tournament.lifecycle import Actor, LogEntry
from adjudicator.live.tournament.model import SLUG_PATTERN, Tournament, now_utc, parse_body, room_match_id

TokenRole = Literal["tabroom", "chair", "panellist", "board"]

#: The lifecycle-log ``kind`` s of a tournament's token changes.
TOKEN_ISSUED, TOKEN_REVOKED = "token_issued", "token_revoked"


class PersonToken(FrozenModel):
    """One issued token, without its secret: ``token_id`` (public handle, ``tk_`` + 12 characters),
    ``role``, ``person`` (the name the log, the CSV, the board and the exports show), its scope
    (``tournament_id`` for a board token; tournament, round and room for a chair or panellist; none
    for the tab room), who issued it and when (UTC ISO 8601), and whether and when it was revoked."""

    token_id: str
    role: TokenRole
    person: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    tournament_id: str | None = None
    round_id: str | None = None
    room_id: str | None = None
    issued_at: str
    issued_by: str
    revoked_at: str | None = None
    revoked_by: str | None = None

    @property
    def match_id(self) -> str | None:
        """The live match id of the token's room (chair and panellist tokens), else None."""
        if self.tournament_id and self.round_id and self.room_id:
            return room_match_id(self.tournament_id, self.round_id, self.room_id)
        return None

    def actor(self) -> Actor:
        """Who this token acts as: a tab-room person is an organiser; the name is the person's, the
        ``person_id`` the token's id."""
        role = "organiser" if self.role == "tabroom" else self.role
        return Actor(role=role, room=self.match_id, name=self.person, person_id=self.token_id,
                     tournament_id=self.tournament_id if self.role == "board" else None)


class TokenBody(FrozenModel):
    """``POST /api/tokens``: ``role``, ``person`` (1-120 characters), and the scope the role needs:
    ``tournament_id`` (board), ``tournament_id``, ``round_id`` and ``room_id`` (chair, panellist),
    none (tabroom)."""

    role: TokenRole
    person: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    tournament_id: str | None = Field(default=None, pattern=SLUG_PATTERN)
    round_id: str | None = Field(default=None, pattern=SLUG_PATTERN)
    room_id: str | None = Field(default=None, pattern=SLUG_PATTERN)

    @model_validator(mode="after")
    def _scope(self) -> TokenBody:
        needs = {"tabroom": (), "board": ("tournament_id",), "chair": ("tournament_id", "round_id", "room_id"), "panellist": ("tournament_id", "round_id", "room_id")}[self.role]
        for name in ("tournament_id", "round_id", "room_id"):
            given = getattr(self, name) is not None
            if given != (name in needs):
                option = {"tournament_id": "--tournament", "round_id": "--round", "room_id": "--room"}[name]  # `live token add`'s
                raise ValueError(f"a {self.role} token {'needs' if not given else 'takes no'} {name} ({option})"
                                 + ("" if needs else " (a tab-room token is for every tournament)"))
        if not self.person.strip():
            raise ValueError("person: give the person's name")
        return self


def may_read_tournament(t: Tournament, actor: Actor | None) -> bool:
    """Whether ``actor`` reads tournament ``t``'s boards: anyone while they are public; when
    ``board_private``, an organiser-level token, a chair or panellist token of one of its rooms, or its
    board token."""
    if not t.board_private:
        return True
    if actor is None:
        return False
    if actor.role == "organiser":
        return True
    if actor.role == "board":
        return actor.tournament_id == t.tournament_id
    return bool(actor.room) and actor.room.split(".", 1)[0] == t.tournament_id  # type: ignore[union-attr]


def check_board_access(t: Tournament | None, actor: Actor | None) -> None:
    """Raises :class:`Unauthorized` (401, no or an unknown token) or :class:`Forbidden` (403, a token
    of another tournament) when ``t`` keeps its boards private and ``actor`` may not read them."""
    if t is None or may_read_tournament(t, actor):
        return
    if actor is None:
        raise Unauthorized(f"tournament {t.tournament_id!r} keeps its boards private", "open the board link with the tournament's board token (`adjudicate live token add --role board`)", field=None)
    raise Forbidden(f"tournament {t.tournament_id!r} keeps its boards private; this token is of another tournament", "use this tournament's board token", field=None)


class People:
    """Issues, lists and revokes person tokens in ``tabs.store`` (a
    :class:`~adjudicator.live.store.tournament_store.TournamentStore`), the organiser's (any
    organiser-level token)."""

    def __init__(self, tabs: Any) -> None:
        self.tabs = tabs

    def issue(self, data: object, actor: Actor) -> dict[str, Any]:
        """Issue a token from a :class:`TokenBody`. Returns its record plus ``token`` (shown this once)
        and, for a board or a room, the page URL carrying it. Raises 403, 404 (unknown tournament or
        room), 422."""
        require_organiser(actor, "issuing a token")
        body = parse_body(TokenBody, data, "token")
        if body.role == "board":
            self.tabs.tournament(body.tournament_id)
        elif body.role in ("chair", "panellist"):
            self.tabs.room((body.tournament_id, body.round_id, body.room_id))
        token = new_chair_token()
        rec = PersonToken(token_id="tk_" + secrets.token_hex(6), role=body.role, person=body.person.strip(), tournament_id=body.tournament_id,
                          round_id=body.round_id, room_id=body.room_id, issued_at=now_utc(), issued_by=actor.name)
        self.tabs.store.add_token(rec, token_digest(token), self._entries(rec, TOKEN_ISSUED, actor, rec.issued_at))
        return rec.model_dump(mode="json") | {"token": token, "url": self._url(rec, token)}

    def records(self, actor: Actor, tournament_id: str | None = None) -> list[dict[str, Any]]:
        """Every issued token's record (no secret), oldest first; of one tournament when given."""
        require_organiser(actor, "listing tokens")
        return [t.model_dump(mode="json") for t in self.tabs.store.tokens(tournament_id)]

    def revoke(self, token_id: str, actor: Actor) -> dict[str, Any]:
        """Revoke token ``token_id`` (it stops working at once). Returns its record. Raises 403, 404;
        revoking a revoked token changes nothing."""
        require_organiser(actor, "revoking a token")
        rec = next((t for t in self.tabs.store.tokens(None) if t.token_id == token_id), None)
        if rec is None:
            raise NotFound(f"token {token_id!r}: no such token", "see `adjudicate live token list`")
        if rec.revoked_at is None:
            at = now_utc()
            rec = rec.model_copy(update={"revoked_at": at, "revoked_by": actor.name})
            self.tabs.store.revoke_token(rec, self._entries(rec, TOKEN_REVOKED, actor, at))
        return rec.model_dump(mode="json")

    @staticmethod
    def _entries(rec: PersonToken, kind: str, actor: Actor, at: str) -> list[LogEntry]:
        if rec.tournament_id is None:  # a tab-room token belongs to no tournament's log; its record says who and when
            return []
        detail = {"token_id": rec.token_id, "role": rec.role, "person": rec.person}
        return [LogEntry(at=at, tournament_id=rec.tournament_id, round_id=rec.round_id, room_id=rec.room_id, kind=kind, actor=actor, detail=detail)]  # type: ignore[arg-type]

    @staticmethod
    def _url(rec: PersonToken, token: str) -> str | None:
        if rec.match_id:
            return f"/board/{rec.match_id}?token={token}"
        if rec.role == "board":
            return f"/board?token={token}"
        return None


def actor_lookup(store: Any) -> Any:
    """The :class:`~adjudicator.live.tournament.access.Gate`'s person-token lookup over a tournament store:
    digest -> the token's :class:`~adjudicator.live.tournament.lifecycle.Actor`, or None (unknown or revoked)."""

    def actor_of_token(digest: str) -> Actor | None:
        rec = store.token_of_digest(digest)
        return rec.actor() if rec is not None and rec.revoked_at is None else None

    return actor_of_token


def check_match_board(tabs: Any, match_id: str, actor: Actor | None) -> None:
    """:func:`check_board_access` for the tournament of the room whose match is ``match_id`` (nothing
    for a stand-alone match or an unknown id)."""
    room = tabs.room_of_match(match_id)
    if room is not None:
        check_board_access(tabs.store.tournament(room.tournament_id), actor)


def check_tournament_board(tabs: Any, tournament_id: str, actor: Actor | None) -> None:
    """:func:`check_board_access` for tournament ``tournament_id`` (nothing for an unknown id: the
    read then answers 404)."""
    check_board_access(tabs.store.tournament(tournament_id), actor)


def readable_matches(tabs: Any, listing: dict[str, Any], actor: Actor | None) -> dict[str, Any]:
    """A ``GET /api/matches`` page without the rooms of private tournaments ``actor`` may not read
    (``total`` still counts every match)."""
    hidden: dict[str, bool] = {}

    def shown(match_id: str) -> bool:
        t_id = match_id.split(".", 1)[0] if "." in match_id else None
        if t_id is None:
            return True
        if t_id not in hidden:
            t = tabs.store.tournament(t_id)
            hidden[t_id] = t is not None and not may_read_tournament(t, actor)
        return not hidden[t_id]

    return listing | {"matches": [m for m in listing["matches"] if shown(m["match_id"])]}
