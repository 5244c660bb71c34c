"""The :class:`~adjudicator.live.store.tournament_store.TournamentStore`, one implementation for both
engines over a :class:`~adjudicator.live.store.sql.Database` (the tables: :mod:`.schema`).

- :func:`sqlite_tournament_store`: ``STATE_DIR/tournaments.sqlite``, one connection shared by the
  server's threads under a lock; each write is one ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction
  (rolled back on any error), in SQLite's default rollback-journal mode with ``synchronous=FULL``, so a
  committed change survives ``kill -9`` and a power cut, and a change cut off midway leaves nothing.
- :class:`SqlTournamentStore` over a PostgreSQL pool (the live database's, or one of its own:
  :meth:`SqlTournamentStore.open_postgres`): every write is one transaction on a pool connection;
  creation order comes from identity columns; log entries take a transaction-level advisory lock before
  they are appended, so their ``seq`` numbers increase in commit order even when several processes
  write at once; :meth:`SqlTournamentStore.save_decisions` locks the rooms' decision rows (``SELECT ...
  FOR UPDATE``) before comparing versions, and two first decisions for one room collide on its primary
  key: the loser gets :class:`StaleDecision` too.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from adjudicator.files import private_file
from adjudicator.live.store.schema import migrate
from adjudicator.live.store.sql import Database, PostgresDatabase, SqliteDatabase, Tx, from_body
from adjudicator.live.store.tournament_store import DuplicateId, StaleDecision
from adjudicator.live.tournament.lifecycle import Decision, LogEntry
from adjudicator.live.tournament.model import Room, Round, Tournament, stored_tournament
from adjudicator.live.tournament.people import PersonToken

DB_NAME = "tournaments.sqlite"

ROOM_KEY = "tournament_id = ? AND round_id = ? AND room_id = ?"


class SqlTournamentStore:
    """:class:`~adjudicator.live.store.tournament_store.TournamentStore` on ``db`` (its tables migrated).
    ``close`` closes the database only when the store opened it (``owns_db``)."""

    def __init__(self, db: Database, *, owns_db: bool = False) -> None:
        self.db = db
        self._owns_db = owns_db
        self._d = db.dialect

    @classmethod
    def open_postgres(cls, url: str, pool_size: int = 4) -> SqlTournamentStore:
        """A store with a pool of its own on the PostgreSQL database at ``url``, its tables migrated.
        Raises :class:`~adjudicator.errors.InputError` when the database cannot be reached."""
        from adjudicator.live.store.pgconn import connect_pool

        db = PostgresDatabase(connect_pool(url, pool_size, "adjudicator-tournaments"))
        migrate(db, ["tournaments"])
        return cls(db, owns_db=True)

    def _append(self, tx: Tx, entries: list[LogEntry]) -> None:
        if not entries:
            return
        self.db.lock_log(tx)
        for e in entries:
            tx.execute("INSERT INTO lifecycle_log (tournament_id, round_id, room_id, kind, at, body) VALUES (?, ?, ?, ?, ?, ?)",
                       (e.tournament_id, e.round_id, e.room_id, e.kind, e.at, self._d.body(e, exclude={"seq"})))

    def _insert(self, table: str, columns: tuple[str, ...], values: tuple, entries: list[LogEntry], refused: DuplicateId) -> None:
        """Insert one row with a new ``created_seq`` and its log entries; ``refused`` when a key is taken."""
        sql = f"INSERT INTO {table} ({', '.join(columns)}, created_seq) VALUES ({', '.join('?' * len(columns))}, {self._d.next_seq(table)})"  # noqa: S608 (constant names)
        try:
            with self.db.tx() as tx:
                tx.execute(sql, values)
                self._append(tx, entries)
        except self._d.duplicate:
            raise refused from None

    def _write(self, sql: str, args: tuple, entries: list[LogEntry]) -> None:
        with self.db.tx() as tx:
            tx.execute(sql, args)
            self._append(tx, entries)

    def _one(self, model: Any, sql: str, args: tuple) -> Any:
        row = self.db.one(sql, args)
        return None if row is None else from_body(model, row[0])

    def _all(self, model: Any, sql: str, args: tuple = ()) -> list[Any]:
        return [from_body(model, b) for (b,) in self.db.all(sql, args)]

    # ---- registry: writes

    def add_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        self._insert("tournaments", ("tournament_id", "body"), (tournament.tournament_id, self._d.body(tournament)), [entry],
                     DuplicateId(f"tournament {tournament.tournament_id!r} already exists", "choose another tournament id", field="tournament_id"))

    def update_tournament(self, tournament: Tournament, entry: LogEntry) -> None:
        self._write("UPDATE tournaments SET body = ? WHERE tournament_id = ?", (self._d.body(tournament), tournament.tournament_id), [entry])

    def add_round(self, rnd: Round, entry: LogEntry) -> None:
        self._insert("rounds", ("tournament_id", "round_id", "body"), (rnd.tournament_id, rnd.round_id, self._d.body(rnd)), [entry],
                     DuplicateId(f"round {rnd.round_id!r} already exists in {rnd.tournament_id!r}", "choose another round id", field="round_id"))

    def add_room(self, room: Room, chair_token_digest: str, entries: list[LogEntry]) -> None:
        self._insert("rooms", ("tournament_id", "round_id", "room_id", "match_id", "chair_token_digest", "body"),
                     (room.tournament_id, room.round_id, room.room_id, room.match_id, chair_token_digest, self._d.body(room)), entries,
                     DuplicateId(f"room {room.room_id!r} already exists in round {room.round_id!r}", "choose another room id", field="room_id"))

    def remove_room(self, key: tuple[str, str, str], entry: LogEntry) -> None:
        self._write(f"DELETE FROM rooms WHERE {ROOM_KEY}", key, [entry])  # noqa: S608 (a constant clause)

    def set_chair_token(self, key: tuple[str, str, str], chair_token_digest: str, entry: LogEntry) -> None:
        self._write(f"UPDATE rooms SET chair_token_digest = ? WHERE {ROOM_KEY}", (chair_token_digest, *key), [entry])  # noqa: S608

    # ---- registry: reads

    def tournaments(self) -> list[Tournament]:
        return [stored_tournament(b) for (b,) in self.db.all("SELECT body FROM tournaments ORDER BY created_seq")]

    def tournament(self, tournament_id: str) -> Tournament | None:
        row = self.db.one("SELECT body FROM tournaments WHERE tournament_id = ?", (tournament_id,))
        return None if row is None else stored_tournament(row[0])

    def rounds(self, tournament_id: str) -> list[Round]:
        return self._all(Round, "SELECT body FROM rounds WHERE tournament_id = ? ORDER BY created_seq", (tournament_id,))

    def round(self, tournament_id: str, round_id: str) -> Round | None:
        return self._one(Round, "SELECT body FROM rounds WHERE tournament_id = ? AND round_id = ?", (tournament_id, round_id))

    def rooms(self, tournament_id: str, round_id: str | None = None) -> list[Room]:
        if round_id is None:
            return self._all(Room, "SELECT body FROM rooms WHERE tournament_id = ? ORDER BY created_seq", (tournament_id,))
        return self._all(Room, "SELECT body FROM rooms WHERE tournament_id = ? AND round_id = ? ORDER BY created_seq", (tournament_id, round_id))

    def room(self, key: tuple[str, str, str]) -> Room | None:
        return self._one(Room, f"SELECT body FROM rooms WHERE {ROOM_KEY}", key)  # noqa: S608

    def room_of_match(self, match_id: str) -> Room | None:
        return self._one(Room, "SELECT body FROM rooms WHERE match_id = ?", (match_id,))

    def room_of_token(self, chair_token_digest: str) -> Room | None:
        return self._one(Room, "SELECT body FROM rooms WHERE chair_token_digest = ?", (chair_token_digest,))

    # ---- person tokens

    def add_token(self, token: PersonToken, token_digest: str, entries: list[LogEntry]) -> None:
        self._insert("person_tokens", ("token_id", "token_digest", "tournament_id", "body"),
                     (token.token_id, token_digest, token.tournament_id, self._d.body(token)), entries,
                     DuplicateId(f"token {token.token_id!r} already exists", "issue the token again", field="token_id"))

    def revoke_token(self, token: PersonToken, entries: list[LogEntry]) -> None:
        self._write("UPDATE person_tokens SET body = ? WHERE token_id = ?", (self._d.body(token), token.token_id), entries)

    def tokens(self, tournament_id: str | None = None) -> list[PersonToken]:
        if tournament_id is None:
            return self._all(PersonToken, "SELECT body FROM person_tokens ORDER BY created_seq")
        return self._all(PersonToken, "SELECT body FROM person_tokens WHERE tournament_id = ? ORDER BY created_seq", (tournament_id,))

    def token_of_digest(self, token_digest: str) -> PersonToken | None:
        return self._one(PersonToken, "SELECT body FROM person_tokens WHERE token_digest = ?", (token_digest,))

    # ---- verdict states and the log

    def decision(self, key: tuple[str, str, str]) -> Decision | None:
        return self._one(Decision, f"SELECT body FROM decisions WHERE {ROOM_KEY}", key)  # noqa: S608

    def decisions(self, tournament_id: str, round_id: str) -> dict[str, Decision]:
        rows = self.db.all("SELECT room_id, body FROM decisions WHERE tournament_id = ? AND round_id = ?", (tournament_id, round_id))
        return {room_id: from_body(Decision, b) for room_id, b in rows}

    def save_decisions(self, changes: list[tuple[Decision, int | None]], entries: list[LogEntry]) -> None:
        try:
            with self.db.tx() as tx:
                for d, expected in changes:
                    row = tx.one(f"SELECT version FROM decisions WHERE {ROOM_KEY}{self._d.for_update}", d.key)  # noqa: S608
                    stored = None if row is None else int(row[0])
                    if stored != expected:
                        raise StaleDecision(
                            f"room {d.room_id!r}: its verdict changed meanwhile (version {stored}, expected {expected})",
                            "reload the room and act again",
                        )
                    if row is None:
                        tx.execute("INSERT INTO decisions (tournament_id, round_id, room_id, version, state, body) VALUES (?, ?, ?, ?, ?, ?)",
                                   (*d.key, d.version, d.state, self._d.body(d)))
                    else:
                        tx.execute(f"UPDATE decisions SET version = ?, state = ?, body = ? WHERE {ROOM_KEY}", (d.version, d.state, self._d.body(d), *d.key))  # noqa: S608
                self._append(tx, entries)
        except self._d.lost_race:  # another process wrote the room's first decision between our read and insert
            raise StaleDecision(f"room {changes[0][0].room_id!r}: its verdict was recorded meanwhile", "reload the room and act again") from None

    def log(self, tournament_id: str, round_id: str | None = None, room_id: str | None = None) -> list[LogEntry]:
        sql, args = "SELECT seq, body FROM lifecycle_log WHERE tournament_id = ?", [tournament_id]
        if round_id is not None:
            sql += " AND round_id = ?"
            args.append(round_id)
        if room_id is not None:
            sql += " AND room_id = ?"
            args.append(room_id)
        rows = self.db.all(sql + " ORDER BY seq", tuple(args))
        return [from_body(LogEntry, b).model_copy(update={"seq": int(seq)}) for seq, b in rows]

    def close(self) -> None:
        if self._owns_db:
            self.db.close()  # type: ignore[attr-defined]


def SqliteTournamentStore(db_path: str | Path) -> SqlTournamentStore:  # noqa: N802 (the name the store had as a class)
    """The store on the SQLite file ``db_path`` (created with its tables if missing, 0600: it holds
    chair tokens and verdicts, like ``live.sqlite``)."""
    path = Path(db_path)
    private_file(path)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    db = SqliteDatabase(conn)
    migrate(db, ["tournaments"])
    return SqlTournamentStore(db, owns_db=True)
