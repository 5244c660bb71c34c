"""The PostgreSQL :class:`~adjudicator.live.store.tournament_store.TournamentStore`: the tables of
:mod:`.tournament_sqlite` in the live database (:class:`~adjudicator.live.store.postgres.PostgresStorage`),
with each row's model as ``jsonb`` beside its key columns.

Every write is one transaction on a pool connection. Creation order comes from identity columns.
Lifecycle log entries take a transaction-level advisory lock before they are appended, so their
``seq`` numbers increase in commit order even when several processes write at once (an identity value
is drawn at insert, not at commit). :meth:`PostgresTournamentStore.save_decisions` locks the rooms'
decision rows (``SELECT ... FOR UPDATE``) before comparing versions; two first decisions for one room
collide on its primary key, and the loser gets :class:`StaleDecision` too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from adjudicator.live.store.pgconn import connect_pool, migrate
from adjudicator.live.store.tournament_store import DuplicateId, StaleDecision
from adjudicator.live.tournament.lifecycle import Decision, LogEntry
from adjudicator.live.tournament.model import Room, Round, Tournament, stored_tournament
from adjudicator.live.tournament.people import PersonToken

MIGRATIONS: list[tuple[str, int, str]] = [
    ("tournaments", 1, """
CREATE TABLE tournaments (
    tournament_id TEXT PRIMARY KEY,
    created_seq   BIGINT GENERATED ALWAYS AS IDENTITY,
    body          JSONB NOT NULL
);
CREATE TABLE rounds (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    round_id      TEXT NOT NULL,
    created_seq   BIGINT GENERATED ALWAYS AS IDENTITY,
    body          JSONB NOT NULL,
    PRIMARY KEY (tournament_id, round_id)
);
CREATE TABLE rooms (
    tournament_id      TEXT NOT NULL,
    round_id           TEXT NOT NULL,
    room_id            TEXT NOT NULL,
    match_id           TEXT NOT NULL UNIQUE,
    chair_token_digest TEXT NOT NULL UNIQUE,
    created_seq        BIGINT GENERATED ALWAYS AS IDENTITY,
    body               JSONB NOT NULL,
    PRIMARY KEY (tournament_id, round_id, room_id),
    FOREIGN KEY (tournament_id, round_id) REFERENCES rounds(tournament_id, round_id)
);
CREATE TABLE decisions (
    tournament_id TEXT NOT NULL,
    round_id      TEXT NOT NULL,
    room_id       TEXT NOT NULL,
    version       INTEGER NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('draft', 'confirmed', 'released')),
    body          JSONB NOT NULL,
    PRIMARY KEY (tournament_id, round_id, room_id),
    FOREIGN KEY (tournament_id, round_id, room_id) REFERENCES rooms(tournament_id, round_id, room_id)
);
CREATE TABLE lifecycle_log (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tournament_id TEXT NOT NULL,
    round_id      TEXT,
    room_id       TEXT,
    kind          TEXT NOT NULL,
    at            TEXT NOT NULL,
    body          JSONB NOT NULL
);
CREATE INDEX lifecycle_log_room ON lifecycle_log (tournament_id, round_id, room_id, seq);
"""),
    ("tournaments", 2, """
CREATE TABLE person_tokens (
    token_id      TEXT PRIMARY KEY,
    token_digest  TEXT NOT NULL UNIQUE,
    tournament_id TEXT,
    created_seq   BIGINT GENERATED ALWAYS AS IDENTITY,
    body          JSONB NOT NULL
);
"""),
]

LOG_KEY = 0x61646A6C6F67  # the advisory lock that orders lifecycle log appends ("adjlog")


class PostgresTournamentStore:
    """:class:`~adjudicator.live.store.tournament_store.TournamentStore` over ``pool`` (the tables exist:
    :class:`~adjudicator.live.store.postgres.PostgresStorage` migrates them). ``close`` closes the pool only
    when the store opened it (:meth:`open`)."""

    def __init__(self, pool: ConnectionPool[Any], *, owns_pool: bool = False) -> None:
        self._pool = pool
        self._owns_pool = owns_pool

    @classmethod
    def open(cls, url: str, pool_size: int = 4) -> PostgresTournamentStore:
        """A store with a pool of its own on the database at ``url``, its tables migrated. Raises
        :class:`~adjudicator.errors.InputError` when the database cannot be reached."""
        pool = connect_pool(url, pool_size, "adjudicator-tournaments")
        migrate(pool, None, MIGRATIONS)
        return cls(pool, owns_pool=True)

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        with self._pool.connection() as conn, conn.transaction():
            yield conn

    def _rows(self, sql: str, args: tuple = ()) -> list[dict[str, Any]]:
        with self._pool.connection() as conn:
            return conn.execute(sql, args).fetchall()

    @staticmethod
    def _append(conn: Any, entries: list[LogEntry]) -> None:
        if not entries:
            return
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOG_KEY,))
        for e in entries:
            conn.execute(
                "INSERT INTO lifecycle_log (tournament_id, round_id, room_id, kind, at, body) VALUES (%s, %s, %s, %s, %s, %s)",
                (e.tournament_id, e.round_id, e.room_id, e.kind, e.at, Jsonb(e.model_dump(mode="json", exclude={"seq"}))),
            )

    @staticmethod
    def _body(model: Any) -> Jsonb:
        return Jsonb(model.model_dump(mode="json"))

    # ---- registry: writes

    def add_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        try:
            with self._tx() as conn:
                conn.execute("INSERT INTO tournaments (tournament_id, body) VALUES (%s, %s)", (tournament.tournament_id, self._body(tournament)))
                self._append(conn, [entry])
        except psycopg.errors.UniqueViolation:
            raise DuplicateId(f"tournament {tournament.tournament_id!r} already exists", "choose another tournament id", field="tournament_id") from None

    def update_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE tournaments SET body = %s WHERE tournament_id = %s", (self._body(tournament), tournament.tournament_id))
            self._append(conn, [entry])

    def add_round(self, rnd: Round, entry: LogEntry) -> None:
        try:
            with self._tx() as conn:
                conn.execute("INSERT INTO rounds (tournament_id, round_id, body) VALUES (%s, %s, %s)", (rnd.tournament_id, rnd.round_id, self._body(rnd)))
                self._append(conn, [entry])
        except (psycopg.errors.UniqueViolation, psycopg.errors.ForeignKeyViolation):
            raise DuplicateId(f"round {rnd.round_id!r} already exists in {rnd.tournament_id!r}", "choose another round id", field="round_id") from None

    def add_room(self, room: Room, chair_token_digest: str, entries: list[LogEntry]) -> None:
        try:
            with self._tx() as conn:
                conn.execute(
                    "INSERT INTO rooms (tournament_id, round_id, room_id, match_id, chair_token_digest, body) VALUES (%s, %s, %s, %s, %s, %s)",
                    (room.tournament_id, room.round_id, room.room_id, room.match_id, chair_token_digest, self._body(room)),
                )
                self._append(conn, entries)
        except (psycopg.errors.UniqueViolation, psycopg.errors.ForeignKeyViolation):
            raise DuplicateId(f"room {room.room_id!r} already exists in round {room.round_id!r}", "choose another room id", field="room_id") from None

    def remove_room(self, key: tuple[str, str, str], entry: LogEntry) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM rooms WHERE tournament_id = %s AND round_id = %s AND room_id = %s", key)
            self._append(conn, [entry])

    def set_chair_token(self, key: tuple[str, str, str], chair_token_digest: str, entry: LogEntry) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE rooms SET chair_token_digest = %s WHERE tournament_id = %s AND round_id = %s AND room_id = %s", (chair_token_digest, *key))
            self._append(conn, [entry])

    # ---- registry: reads

    def tournaments(self) -> list[Tournament]:
        return [stored_tournament(r["body"]) for r in self._rows("SELECT body FROM tournaments ORDER BY created_seq")]

    def tournament(self, tournament_id: str) -> Tournament | None:
        rows = self._rows("SELECT body FROM tournaments WHERE tournament_id = %s", (tournament_id,))
        return stored_tournament(rows[0]["body"]) if rows else None

    def rounds(self, tournament_id: str) -> list[Round]:
        return [Round.model_validate(r["body"]) for r in self._rows("SELECT body FROM rounds WHERE tournament_id = %s ORDER BY created_seq", (tournament_id,))]

    def round(self, tournament_id: str, round_id: str) -> Round | None:
        rows = self._rows("SELECT body FROM rounds WHERE tournament_id = %s AND round_id = %s", (tournament_id, round_id))
        return Round.model_validate(rows[0]["body"]) if rows else None

    def rooms(self, tournament_id: str, round_id: str | None = None) -> list[Room]:
        if round_id is None:
            rows = self._rows("SELECT body FROM rooms WHERE tournament_id = %s ORDER BY created_seq", (tournament_id,))
        else:
            rows = self._rows("SELECT body FROM rooms WHERE tournament_id = %s AND round_id = %s ORDER BY created_seq", (tournament_id, round_id))
        return [Room.model_validate(r["body"]) for r in rows]

    def room(self, key: tuple[str, str, str]) -> Room | None:
        rows = self._rows("SELECT body FROM rooms WHERE tournament_id = %s AND round_id = %s AND room_id = %s", key)
        return Room.model_validate(rows[0]["body"]) if rows else None

    def room_of_match(self, match_id: str) -> Room | None:
        rows = self._rows("SELECT body FROM rooms WHERE match_id = %s", (match_id,))
        return Room.model_validate(rows[0]["body"]) if rows else None

    def room_of_token(self, chair_token_digest: str) -> Room | None:
        rows = self._rows("SELECT body FROM rooms WHERE chair_token_digest = %s", (chair_token_digest,))
        return Room.model_validate(rows[0]["body"]) if rows else None

    # ---- person tokens

    def add_token(self, token: PersonToken, token_digest: str, entries: list[LogEntry]) -> None:
        with self._tx() as conn:
            conn.execute("INSERT INTO person_tokens (token_id, token_digest, tournament_id, body) VALUES (%s, %s, %s, %s)",
                         (token.token_id, token_digest, token.tournament_id, self._body(token)))
            self._append(conn, entries)

    def revoke_token(self, token: PersonToken, entries: list[LogEntry]) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE person_tokens SET body = %s WHERE token_id = %s", (self._body(token), token.token_id))
            self._append(conn, entries)

    def tokens(self, tournament_id: str | None = None) -> list[PersonToken]:
        if tournament_id is None:
            rows = self._rows("SELECT body FROM person_tokens ORDER BY created_seq")
        else:
            rows = self._rows("SELECT body FROM person_tokens WHERE tournament_id = %s ORDER BY created_seq", (tournament_id,))
        return [PersonToken.model_validate(r["body"]) for r in rows]

    def token_of_digest(self, token_digest: str) -> PersonToken | None:
        rows = self._rows("SELECT body FROM person_tokens WHERE token_digest = %s", (token_digest,))
        return PersonToken.model_validate(rows[0]["body"]) if rows else None

    # ---- verdict states and the log

    def decision(self, key: tuple[str, str, str]) -> Decision | None:
        rows = self._rows("SELECT body FROM decisions WHERE tournament_id = %s AND round_id = %s AND room_id = %s", key)
        return Decision.model_validate(rows[0]["body"]) if rows else None

    def decisions(self, tournament_id: str, round_id: str) -> dict[str, Decision]:
        rows = self._rows("SELECT room_id, body FROM decisions WHERE tournament_id = %s AND round_id = %s", (tournament_id, round_id))
        return {r["room_id"]: Decision.model_validate(r["body"]) for r in rows}

    def save_decisions(self, changes: list[tuple[Decision, int | None]], entries: list[LogEntry]) -> None:
        try:
            with self._tx() as conn:
                for d, expected in changes:
                    row = conn.execute("SELECT version FROM decisions WHERE tournament_id = %s AND round_id = %s AND room_id = %s FOR UPDATE", d.key).fetchone()
                    stored = None if row is None else int(row["version"])
                    if stored != expected:
                        raise StaleDecision(
                            f"room {d.room_id!r}: its verdict changed meanwhile (version {stored}, expected {expected})",
                            "reload the room and act again",
                        )
                    if row is None:
                        conn.execute("INSERT INTO decisions (tournament_id, round_id, room_id, version, state, body) VALUES (%s, %s, %s, %s, %s, %s)",
                                     (*d.key, d.version, d.state, self._body(d)))
                    else:
                        conn.execute("UPDATE decisions SET version = %s, state = %s, body = %s WHERE tournament_id = %s AND round_id = %s AND room_id = %s",
                                     (d.version, d.state, self._body(d), *d.key))
                self._append(conn, entries)
        except psycopg.errors.UniqueViolation:
            d = changes[0][0]
            raise StaleDecision(f"room {d.room_id!r}: its verdict was recorded meanwhile", "reload the room and act again") from None

    def log(self, tournament_id: str, round_id: str | None = None, room_id: str | None = None) -> list[LogEntry]:
        sql, args = "SELECT seq, body FROM lifecycle_log WHERE tournament_id = %s", [tournament_id]
        if round_id is not None:
            sql += " AND round_id = %s"
            args.append(round_id)
        if room_id is not None:
            sql += " AND room_id = %s"
            args.append(room_id)
        rows = self._rows(sql + " ORDER BY seq", tuple(args))
        return [LogEntry.model_validate(r["body"]).model_copy(update={"seq": int(r["seq"])}) for r in rows]

    def close(self) -> None:
        if self._owns_pool:
            self._pool.close()
