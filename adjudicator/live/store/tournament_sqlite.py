"""The SQLite :class:`~adjudicator.live.store.tournament_store.TournamentStore`: ``STATE_DIR/tournaments.sqlite``.

One connection shared by the server's threads under a lock; each write is one ``BEGIN IMMEDIATE`` ...
``COMMIT`` transaction (rolled back on any error), in SQLite's default rollback-journal mode with
``synchronous=FULL``, so a committed change survives ``kill -9`` and a power cut, and a change cut off
midway leaves nothing behind. Rows keep their model as JSON in ``body`` beside the key columns the
queries use (the same layout fits PostgreSQL with ``jsonb``)::

    tournaments    (tournament_id PK, created_seq, body)
    rounds         (tournament_id, round_id, created_seq, body)                      PK (t, r)
    rooms          (tournament_id, round_id, room_id, match_id UNIQUE,
                    chair_token_digest UNIQUE, created_seq, body)                      PK (t, r, room)
    decisions      (tournament_id, round_id, room_id, version, state, body)          PK (t, r, room)
    lifecycle_log  (seq PK AUTOINCREMENT, tournament_id, round_id, room_id, kind, at, body)
    person_tokens  (token_id PK, token_digest UNIQUE, tournament_id, created_seq, body)
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adjudicator.files import private_file
from adjudicator.live.store.tournament_store import DuplicateId, StaleDecision
from adjudicator.live.tournament.lifecycle import Decision, LogEntry
from adjudicator.live.tournament.model import Room, Round, Tournament, stored_tournament
from adjudicator.live.tournament.people import PersonToken

DB_NAME = "tournaments.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    created_seq   INTEGER NOT NULL,
    body          TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    round_id      TEXT NOT NULL,
    created_seq   INTEGER NOT NULL,
    body          TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round_id)
);
CREATE TABLE IF NOT EXISTS rooms (
    tournament_id      TEXT NOT NULL,
    round_id           TEXT NOT NULL,
    room_id            TEXT NOT NULL,
    match_id           TEXT NOT NULL UNIQUE,
    chair_token_digest TEXT NOT NULL UNIQUE,
    created_seq        INTEGER NOT NULL,
    body               TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round_id, room_id),
    FOREIGN KEY (tournament_id, round_id) REFERENCES rounds(tournament_id, round_id)
);
CREATE TABLE IF NOT EXISTS decisions (
    tournament_id TEXT NOT NULL,
    round_id      TEXT NOT NULL,
    room_id       TEXT NOT NULL,
    version       INTEGER NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('draft', 'confirmed', 'released')),
    body          TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round_id, room_id),
    FOREIGN KEY (tournament_id, round_id, room_id) REFERENCES rooms(tournament_id, round_id, room_id)
);
CREATE TABLE IF NOT EXISTS lifecycle_log (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id TEXT NOT NULL,
    round_id      TEXT,
    room_id       TEXT,
    kind          TEXT NOT NULL,
    at            TEXT NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS lifecycle_log_room ON lifecycle_log (tournament_id, round_id, room_id, seq);
CREATE TABLE IF NOT EXISTS person_tokens (
    token_id      TEXT PRIMARY KEY,
    token_digest  TEXT NOT NULL UNIQUE,
    tournament_id TEXT,
    created_seq   INTEGER NOT NULL,
    body          TEXT NOT NULL
);
"""


class SqliteTournamentStore:
    """:class:`~adjudicator.live.store.tournament_store.TournamentStore` on the SQLite file ``db_path``
    (created with its tables if missing)."""

    def __init__(self, db_path: str | Path) -> None:
        self.db_path = Path(db_path)
        private_file(self.db_path)  # it holds chair tokens and verdicts: 0600, like live.sqlite
        self._conn = sqlite3.connect(str(self.db_path), check_same_thread=False, timeout=30, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.executescript(SCHEMA)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``), committed on success, rolled back on any error."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    @staticmethod
    def _next_seq(conn: sqlite3.Connection, table: str) -> int:
        return int(conn.execute(f"SELECT COALESCE(MAX(created_seq), 0) + 1 FROM {table}").fetchone()[0])  # noqa: S608 (table is a constant)

    @staticmethod
    def _append(conn: sqlite3.Connection, entries: list[LogEntry]) -> None:
        for e in entries:
            conn.execute(
                "INSERT INTO lifecycle_log (tournament_id, round_id, room_id, kind, at, body) VALUES (?, ?, ?, ?, ?, ?)",
                (e.tournament_id, e.round_id, e.room_id, e.kind, e.at, e.model_dump_json(exclude={"seq"})),
            )

    # ---- registry: writes

    def add_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        try:
            with self._tx() as conn:
                conn.execute("INSERT INTO tournaments (tournament_id, created_seq, body) VALUES (?, ?, ?)",
                             (tournament.tournament_id, self._next_seq(conn, "tournaments"), tournament.model_dump_json()))
                self._append(conn, [entry])
        except sqlite3.IntegrityError:
            raise DuplicateId(f"tournament {tournament.tournament_id!r} already exists", "choose another tournament id", field="tournament_id") from None

    def update_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE tournaments SET body = ? WHERE tournament_id = ?", (tournament.model_dump_json(), tournament.tournament_id))
            self._append(conn, [entry])

    def add_round(self, rnd: Round, entry: LogEntry) -> None:
        try:
            with self._tx() as conn:
                conn.execute("INSERT INTO rounds (tournament_id, round_id, created_seq, body) VALUES (?, ?, ?, ?)",
                             (rnd.tournament_id, rnd.round_id, self._next_seq(conn, "rounds"), rnd.model_dump_json()))
                self._append(conn, [entry])
        except sqlite3.IntegrityError:
            raise DuplicateId(f"round {rnd.round_id!r} already exists in {rnd.tournament_id!r}", "choose another round id", field="round_id") from None

    def add_room(self, room: Room, chair_token_digest: str, entries: list[LogEntry]) -> None:
        try:
            with self._tx() as conn:
                conn.execute(
                    "INSERT INTO rooms (tournament_id, round_id, room_id, match_id, chair_token_digest, created_seq, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (room.tournament_id, room.round_id, room.room_id, room.match_id, chair_token_digest, self._next_seq(conn, "rooms"), room.model_dump_json()),
                )
                self._append(conn, entries)
        except sqlite3.IntegrityError:
            raise DuplicateId(f"room {room.room_id!r} already exists in round {room.round_id!r}", "choose another room id", field="room_id") from None

    def remove_room(self, key: tuple[str, str, str], entry: LogEntry) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM rooms WHERE tournament_id = ? AND round_id = ? AND room_id = ?", key)
            self._append(conn, [entry])

    def set_chair_token(self, key: tuple[str, str, str], chair_token_digest: str, entry: LogEntry) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE rooms SET chair_token_digest = ? WHERE tournament_id = ? AND round_id = ? AND room_id = ?", (chair_token_digest, *key))
            self._append(conn, [entry])

    # ---- registry: reads

    def tournaments(self) -> list[Tournament]:
        return [stored_tournament(b) for (b,) in self._rows("SELECT body FROM tournaments ORDER BY created_seq")]

    def tournament(self, tournament_id: str) -> Tournament | None:
        rows = self._rows("SELECT body FROM tournaments WHERE tournament_id = ?", (tournament_id,))
        return stored_tournament(rows[0][0]) if rows else None

    def rounds(self, tournament_id: str) -> list[Round]:
        return [Round.model_validate_json(b) for (b,) in self._rows("SELECT body FROM rounds WHERE tournament_id = ? ORDER BY created_seq", (tournament_id,))]

    def round(self, tournament_id: str, round_id: str) -> Round | None:
        rows = self._rows("SELECT body FROM rounds WHERE tournament_id = ? AND round_id = ?", (tournament_id, round_id))
        return Round.model_validate_json(rows[0][0]) if rows else None

    def rooms(self, tournament_id: str, round_id: str | None = None) -> list[Room]:
        if round_id is None:
            rows = self._rows("SELECT body FROM rooms WHERE tournament_id = ? ORDER BY created_seq", (tournament_id,))
        else:
            rows = self._rows("SELECT body FROM rooms WHERE tournament_id = ? AND round_id = ? ORDER BY created_seq", (tournament_id, round_id))
        return [Room.model_validate_json(b) for (b,) in rows]

    def room(self, key: tuple[str, str, str]) -> Room | None:
        rows = self._rows("SELECT body FROM rooms WHERE tournament_id = ? AND round_id = ? AND room_id = ?", key)
        return Room.model_validate_json(rows[0][0]) if rows else None

    def room_of_match(self, match_id: str) -> Room | None:
        rows = self._rows("SELECT body FROM rooms WHERE match_id = ?", (match_id,))
        return Room.model_validate_json(rows[0][0]) if rows else None

    def room_of_token(self, chair_token_digest: str) -> Room | None:
        rows = self._rows("SELECT body FROM rooms WHERE chair_token_digest = ?", (chair_token_digest,))
        return Room.model_validate_json(rows[0][0]) if rows else None

    # ---- person tokens

    def add_token(self, token: PersonToken, token_digest: str, entries: list[LogEntry]) -> None:
        with self._tx() as conn:
            conn.execute("INSERT INTO person_tokens (token_id, token_digest, tournament_id, created_seq, body) VALUES (?, ?, ?, ?, ?)",
                         (token.token_id, token_digest, token.tournament_id, self._next_seq(conn, "person_tokens"), token.model_dump_json()))
            self._append(conn, entries)

    def revoke_token(self, token: PersonToken, entries: list[LogEntry]) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE person_tokens SET body = ? WHERE token_id = ?", (token.model_dump_json(), token.token_id))
            self._append(conn, entries)

    def tokens(self, tournament_id: str | None = None) -> list[PersonToken]:
        if tournament_id is None:
            rows = self._rows("SELECT body FROM person_tokens ORDER BY created_seq")
        else:
            rows = self._rows("SELECT body FROM person_tokens WHERE tournament_id = ? ORDER BY created_seq", (tournament_id,))
        return [PersonToken.model_validate_json(b) for (b,) in rows]

    def token_of_digest(self, token_digest: str) -> PersonToken | None:
        rows = self._rows("SELECT body FROM person_tokens WHERE token_digest = ?", (token_digest,))
        return PersonToken.model_validate_json(rows[0][0]) if rows else None

    # ---- verdict states and the log

    def decision(self, key: tuple[str, str, str]) -> Decision | None:
        rows = self._rows("SELECT body FROM decisions WHERE tournament_id = ? AND round_id = ? AND room_id = ?", key)
        return Decision.model_validate_json(rows[0][0]) if rows else None

    def decisions(self, tournament_id: str, round_id: str) -> dict[str, Decision]:
        rows = self._rows("SELECT room_id, body FROM decisions WHERE tournament_id = ? AND round_id = ?", (tournament_id, round_id))
        return {room_id: Decision.model_validate_json(b) for room_id, b in rows}

    def save_decisions(self, changes: list[tuple[Decision, int | None]], entries: list[LogEntry]) -> None:
        with self._tx() as conn:
            for d, expected in changes:
                row = conn.execute("SELECT version FROM decisions WHERE tournament_id = ? AND round_id = ? AND room_id = ?", d.key).fetchone()
                stored = None if row is None else int(row[0])
                if stored != expected:
                    raise StaleDecision(
                        f"room {d.room_id!r}: its verdict changed meanwhile (version {stored}, expected {expected})",
                        "reload the room and act again",
                    )
                if row is None:
                    conn.execute("INSERT INTO decisions (tournament_id, round_id, room_id, version, state, body) VALUES (?, ?, ?, ?, ?, ?)",
                                 (*d.key, d.version, d.state, d.model_dump_json()))
                else:
                    conn.execute("UPDATE decisions SET version = ?, state = ?, body = ? WHERE tournament_id = ? AND round_id = ? AND room_id = ?",
                                 (d.version, d.state, d.model_dump_json(), *d.key))
            self._append(conn, entries)

    def log(self, tournament_id: str, round_id: str | None = None, room_id: str | None = None) -> list[LogEntry]:
        sql, args = "SELECT seq, body FROM lifecycle_log WHERE tournament_id = ?", [tournament_id]
        if round_id is not None:
            sql += " AND round_id = ?"
            args.append(round_id)
        if room_id is not None:
            sql += " AND room_id = ?"
            args.append(room_id)
        rows = self._rows(sql + " ORDER BY seq", tuple(args))
        return [LogEntry.model_validate_json(b).model_copy(update={"seq": int(seq)}) for seq, b in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
