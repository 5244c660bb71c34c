"""Who may do what on the live server: the organiser's token, each room's chair token, and public reads.

- The **organiser's token** (``STATE_DIR/access.json``) may do everything: create tournaments, rounds,
  rooms and stand-alone matches, push, close, confirm, release, export, read drafts.
- A **chair token** belongs to one tournament room. It may push stages to that room's match, close it,
  read its draft, confirm it (with an override) and export its ballot -- nothing else, and nothing in
  any other room (403).
- **Precedence** (:func:`check_precedence`): before release the organiser's confirmation stands over a
  chair's; a chair's confirmation is recorded under the room's chair name, whatever ``by`` says
  (:func:`~adjudicator.live.tournament.lifecycle.confirmer`).
- **Person tokens** (:mod:`adjudicator.live.tournament.people`): a tab-room person (the organiser's rights, under
  the person's name), a room's chair or panellist, or a private board's reader. A panellist and a
  board token write nothing (403).
- **Board links** carry no token: they read what the public boards show and cannot write (401).

A token is sent as ``Authorization: Bearer <token>`` or ``X-Adjudicator-Token: <token>``. Chair tokens
are random (32 bytes of entropy) and stored only as their SHA-256 digest; the organiser's token is
compared in constant time.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping

from adjudicator.live.errors import LiveRequestError, Unauthorized
from adjudicator.live.tournament.lifecycle import Actor, Decision
from adjudicator.live.tournament.model import Room


class Forbidden(LiveRequestError):
    """A valid token without the right for this action or room (403)."""

    status_code = 403


def new_chair_token() -> str:
    """A fresh chair token (URL-safe, 32 random bytes)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """The SHA-256 hex digest under which a chair token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def presented_token(headers: Mapping[str, str]) -> str:
    """The token a request carries (``Authorization: Bearer``, else ``X-Adjudicator-Token``), or ""."""
    given = headers.get("x-adjudicator-token") or ""
    auth = headers.get("authorization") or ""
    if auth.lower().startswith("bearer "):
        given = auth[7:].strip()
    return given


class Gate:
    """Resolves tokens to :class:`~adjudicator.live.tournament.lifecycle.Actor` s: the organiser's ``token``, a
    room's chair token found by its digest through ``room_of_token``, or a person token found by its
    digest through ``actor_of_token`` (store lookups; a revoked token finds nothing)."""

    def __init__(self, token: str, room_of_token: Callable[[str], Room | None], actor_of_token: Callable[[str], Actor | None] | None = None) -> None:
        if not token:
            raise ValueError("an access token is required")
        self._token = token
        self._room_of_token = room_of_token
        self._actor_of_token = actor_of_token

    def actor(self, given: str) -> Actor | None:
        """The actor a token stands for, or None (no token, or an unknown one)."""
        if not given:
            return None
        if secrets.compare_digest(given.encode(), self._token.encode()):
            return Actor(role="organiser", name="organiser")
        digest = token_digest(given)
        room = self._room_of_token(digest)
        if room is None:
            return self._actor_of_token(digest) if self._actor_of_token is not None else None
        return Actor(role="chair", room=room.match_id, name=room.chair or f"chair of {room.room_id}")

    def require(self, headers: Mapping[str, str]) -> Actor:
        """The actor of a write request. Raises :class:`Unauthorized` (401) without a valid token."""
        given = presented_token(headers)
        actor = self.actor(given)
        if actor is None:
            raise Unauthorized(
                "writes need the organiser's access token (or, for one room, its chair token)" if not given else "the access token is wrong",
                "send it as 'Authorization: Bearer <token>'; `adjudicate live serve` prints the organiser's and `live room create` each chair's",
                field=None,
            )
        return actor

    def optional(self, headers: Mapping[str, str]) -> Actor | None:
        """The actor of a read request, or None for a public read (no token). Raises
        :class:`Unauthorized` (401) for a token the server does not know (wrong, or revoked): a person
        checking their token learns it is wrong instead of silently getting the public view."""
        given = presented_token(headers)
        actor = self.actor(given)
        if given and actor is None:
            raise Unauthorized("the access token is wrong (or revoked)",
                               "send no token for the public view, or the token `live token add` or `live serve` gave you", field=None)
        return actor


def require_organiser(actor: Actor, what: str) -> None:
    """Raises :class:`Forbidden` (403) unless ``actor`` is the organiser."""
    if actor.role != "organiser":
        raise Forbidden(f"{what} needs the organiser's token; {_scope_of(actor)}", "ask the organiser", field=None)


def require_room(actor: Actor, match_id: str, what: str) -> None:
    """Raises :class:`Forbidden` (403) unless ``actor`` is the organiser or the chair of the room whose
    live match is ``match_id``."""
    if actor.role == "organiser" or (actor.role == "chair" and actor.room == match_id):
        return
    why = "this chair token belongs to another room" if actor.role == "chair" else _scope_of(actor)
    raise Forbidden(f"{what}: {why}", "use the chair token of this room, or the organiser's", field=None)


def _scope_of(actor: Actor) -> str:
    """What ``actor``'s token may do, for a 403's message."""
    if actor.role == "panellist":
        return "a panellist's token reads its room and writes nothing"
    if actor.role == "board":
        return "a board token only reads the boards"
    return "a chair token acts on its own room only"


def may_read_room(actor: Actor | None, match_id: str) -> bool:
    """Whether ``actor`` sees a room's unreleased analysis and verdict: the organiser (or a tab-room
    person), or that room's chair or panellist."""
    return actor is not None and (actor.role == "organiser" or actor.room == match_id)


def check_precedence(d: Decision, actor: Actor) -> None:
    """Before release the organiser's confirmation stands over a chair's: raises :class:`Forbidden`
    (403) when a chair would confirm over a result the organiser confirmed (before, a chair silently
    reversed the organiser's override). The organiser may always confirm over a chair's."""
    if actor.role == "chair" and d.state == "confirmed" and d.confirmed_by is not None and d.confirmed_by.role == "organiser":
        raise Forbidden(f"room {d.room_id!r}: the organiser ({d.confirmed_by.name}) confirmed this result at {d.confirmed_at}; before release the organiser's confirmation stands",
                        "ask the organiser to change it", field=None)
