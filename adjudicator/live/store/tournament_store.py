"""The storage interface of live tournaments: the registry (tournaments, rounds, rooms, chair tokens),
the verdict states (one :class:`~adjudicator.live.tournament.lifecycle.Decision` per room) and the lifecycle log.

:class:`TournamentStore` is what the rest of the live server uses; :mod:`.tournament_sql` implements
it once for SQLite (the state folder) and PostgreSQL (several stateless server processes). Any
implementation needs only these methods, with these guarantees:

- every write method is **one transaction**: the row(s) it adds or changes and the log entries it is
  given are committed together or not at all, and are durable when the method returns;
- :meth:`TournamentStore.save_decisions` is a compare-and-set: each decision is written only if the
  room's stored version is still the one the caller read (``expected_version``; None = no decision
  yet), else the whole call changes nothing and raises :class:`StaleDecision` -- two servers
  confirming the same room at once cannot both win;
- adding an id that exists raises :class:`DuplicateId`; reading never caches across calls (another
  process may have written in between);
- log entries get increasing ``seq`` numbers in commit order.

Chair tokens and person tokens (:mod:`adjudicator.live.tournament.people`) are stored only as their SHA-256 hex
digest (:func:`adjudicator.live.tournament.access.token_digest`).
"""

from __future__ import annotations

from typing import Protocol

from adjudicator.live.errors import Conflict
from adjudicator.live.tournament.lifecycle import Decision, LogEntry
from adjudicator.live.tournament.model import Room, Round, Tournament
from adjudicator.live.tournament.people import PersonToken


class DuplicateId(Conflict):
    """A tournament, round or room id (or a room's match id) that is already taken (409)."""


class StaleDecision(Conflict):
    """A room's decision changed after the caller read it (409): reload and act again."""


class TournamentStore(Protocol):
    """Tournaments, rounds, rooms, decisions and the lifecycle log (module docstring)."""

    # ---- registry: writes (one transaction each, with their log entries)

    def add_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        """Insert a tournament. Raises :class:`DuplicateId`."""
        ...

    def update_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        """Replace a tournament's settings (same id)."""
        ...

    def add_round(self, rnd: Round, entry: LogEntry) -> None:
        """Insert a round of an existing tournament. Raises :class:`DuplicateId`."""
        ...

    def add_room(self, room: Room, chair_token_digest: str, entries: list[LogEntry]) -> None:
        """Insert a room of an existing round with its chair token digest. Raises :class:`DuplicateId`
        (room id, or its match id)."""
        ...

    def remove_room(self, key: tuple[str, str, str], entry: LogEntry) -> None:
        """Delete a room that has no decision (its live match could not be created), appending
        ``entry``; its id may be used again. The log keeps its earlier entries."""
        ...

    def set_chair_token(self, key: tuple[str, str, str], chair_token_digest: str, entry: LogEntry) -> None:
        """Replace a room's chair token digest (the old token stops working)."""
        ...

    # ---- registry: reads

    def tournaments(self) -> list[Tournament]:
        """Every tournament, in creation order."""
        ...

    def tournament(self, tournament_id: str) -> Tournament | None:
        """One tournament, or None."""
        ...

    def rounds(self, tournament_id: str) -> list[Round]:
        """A tournament's rounds, in creation order."""
        ...

    def round(self, tournament_id: str, round_id: str) -> Round | None:
        """One round, or None."""
        ...

    def rooms(self, tournament_id: str, round_id: str | None = None) -> list[Room]:
        """A tournament's rooms (of one round, or all), in creation order."""
        ...

    def room(self, key: tuple[str, str, str]) -> Room | None:
        """One room by (tournament, round, room), or None."""
        ...

    def room_of_match(self, match_id: str) -> Room | None:
        """The room whose live match id is ``match_id``, or None (a stand-alone live match)."""
        ...

    def room_of_token(self, chair_token_digest: str) -> Room | None:
        """The room whose chair token has this digest, or None."""
        ...

    # ---- person tokens (adjudicator.live.tournament.people)

    def add_token(self, token: PersonToken, token_digest: str, entries: list[LogEntry]) -> None:
        """Insert an issued token's record under its digest, with its log entries."""
        ...

    def revoke_token(self, token: PersonToken, entries: list[LogEntry]) -> None:
        """Replace a token's record by its revoked one (same ``token_id``), with its log entries."""
        ...

    def tokens(self, tournament_id: str | None = None) -> list[PersonToken]:
        """Every issued token's record (of one tournament when given), revoked ones too, oldest first."""
        ...

    def token_of_digest(self, token_digest: str) -> PersonToken | None:
        """The record of the token with this digest (revoked or not), or None."""
        ...

    # ---- verdict states and the log

    def decision(self, key: tuple[str, str, str]) -> Decision | None:
        """A room's current decision, or None before its match closed."""
        ...

    def decisions(self, tournament_id: str, round_id: str) -> dict[str, Decision]:
        """Room id -> current decision, for the rooms of one round that have one."""
        ...

    def save_decisions(self, changes: list[tuple[Decision, int | None]], entries: list[LogEntry]) -> None:
        """Write each ``(decision, expected_version)`` and append ``entries``, in one transaction.
        Raises :class:`StaleDecision` (nothing written) when a room's stored version is not
        ``expected_version``."""
        ...

    def log(self, tournament_id: str, round_id: str | None = None, room_id: str | None = None) -> list[LogEntry]:
        """The lifecycle log of a tournament (or of one round, or one room), oldest first."""
        ...

    def close(self) -> None:
        """Release the connection(s)."""
        ...
