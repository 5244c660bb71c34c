"""The one SQL layer under every live table: a :class:`Database` (SQLite or PostgreSQL) that runs the
queries the store modules write once, and the :class:`Dialect` that holds all that differs between the
two engines.

Every query of :mod:`.registry`, :mod:`.readings`, :mod:`.tournament_sql` and :mod:`.schema` is written
once, with ``?`` placeholders; the dialect says the rest:

=================  ============================================  ==========================================
what               SQLite (a state folder, one process)          PostgreSQL (one database, many processes)
=================  ============================================  ==========================================
placeholders       ``?`` as written                              ``?`` -> ``%s`` (psycopg)
JSON bodies        ``TEXT`` (the model's JSON)                   ``JSONB`` (psycopg's ``Jsonb``)
creation order     ``created_seq`` = ``MAX + 1`` at insert       an identity column (``DEFAULT``)
upserts            ``INSERT ... ON CONFLICT (k) DO UPDATE SET c = excluded.c``: the same text on both
row locks          none (``BEGIN IMMEDIATE`` takes the file)     ``SELECT ... FOR UPDATE``
log order          one writer: ``AUTOINCREMENT`` is commit order  ``pg_advisory_xact_lock`` before appends
a lost race        cannot happen (one writer)                    ``UniqueViolation`` on a first insert
derived rows       ``PRAGMA synchronous = OFF`` for one commit   ``SET LOCAL synchronous_commit TO OFF``
notification       none (one process)                            ``NOTIFY`` (:mod:`.postgres`)
=================  ============================================  ==========================================

Why not SQLAlchemy Core: the store has about thirty short, fixed statements over six body-as-JSON
tables, and the differences above are a dozen words; SQLAlchemy (not in the lock today) would add a
dependency, a second connection pool beside the ``psycopg_pool`` that LangGraph's ``PostgresSaver``
needs, and a second way of holding the SQLite connection that ``SqliteSaver`` shares with the registry
-- for what :class:`Dialect` says in a table. LangGraph's checkpointers stay as they are.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel


@dataclass(frozen=True)
class Dialect:
    """What differs between the engines (module docstring). ``types`` fill the schema's ``{json}``,
    ``{blob}``, ``{seq}`` and ``{log_seq}``; ``duplicate`` are the errors of an insert that breaks a key
    (a taken id, or a parent that does not exist); ``lost_race`` the error of two first inserts at once."""

    name: str  # "sqlite" or "postgresql"
    types: dict[str, str]
    for_update: str  # appended to a SELECT whose rows the transaction then changes
    duplicate: tuple[type[BaseException], ...]
    lost_race: tuple[type[BaseException], ...]
    match_order: str  # the ORDER BY of live_matches in creation order

    def next_seq(self, table: str) -> str:
        """The SQL value of a new row's ``created_seq`` in ``table`` (a constant name)."""
        if self.name == "postgresql":
            return "DEFAULT"
        return f"(SELECT COALESCE(MAX(created_seq), 0) + 1 FROM {table})"

    def body(self, model: BaseModel, exclude: set[str] | None = None) -> Any:
        """A model as the value of a JSON body column."""
        if self.name == "postgresql":
            from psycopg.types.json import Jsonb

            return Jsonb(model.model_dump(mode="json", exclude=exclude))
        return model.model_dump_json(exclude=exclude)


SQLITE = Dialect(
    name="sqlite",
    types={"json": "TEXT", "blob": "BLOB", "seq": "INTEGER NOT NULL", "log_seq": "INTEGER PRIMARY KEY AUTOINCREMENT"},
    for_update="",
    duplicate=(sqlite3.IntegrityError,),
    lost_race=(),
    match_order="created_at, match_id",
)


def postgresql_dialect() -> Dialect:
    """The PostgreSQL :class:`Dialect` (psycopg imported only where PostgreSQL is used)."""
    import psycopg

    return Dialect(
        name="postgresql",
        types={"json": "JSONB", "blob": "BYTEA", "seq": "BIGINT GENERATED ALWAYS AS IDENTITY", "log_seq": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"},
        for_update=" FOR UPDATE",
        duplicate=(psycopg.errors.UniqueViolation, psycopg.errors.ForeignKeyViolation),
        lost_race=(psycopg.errors.UniqueViolation,),
        match_order="created_seq",
    )


def from_body(model: type[Any], value: Any) -> Any:
    """The ``model`` stored in a JSON body column: a JSON text (SQLite) or a decoded ``jsonb`` (PostgreSQL)."""
    return model.model_validate_json(value) if isinstance(value, (str, bytes)) else model.model_validate(value)


class Tx(Protocol):
    """One open transaction: ``execute`` a statement, or read its ``one`` / ``all`` rows (tuples)."""

    def execute(self, sql: str, args: tuple = ()) -> None: ...

    def one(self, sql: str, args: tuple = ()) -> tuple | None: ...

    def all(self, sql: str, args: tuple = ()) -> list[tuple]: ...


class Database(Protocol):
    """Where the queries run: :class:`SqliteDatabase` or :class:`PostgresDatabase`."""

    dialect: Dialect

    def tx(self, *, durable: bool = True) -> Any:
        """A context manager over one write transaction (a :class:`Tx`), committed when the block
        ends, rolled back on any error; ``durable=False`` for derived rows (a lost one costs a
        recomputation): committed without waiting for the disk."""
        ...

    def one(self, sql: str, args: tuple = ()) -> tuple | None:
        """The first row of a read outside any transaction, or None."""
        ...

    def all(self, sql: str, args: tuple = ()) -> list[tuple]:
        """Every row of a read outside any transaction."""
        ...

    def lock_log(self, tx: Tx) -> None:
        """Order this transaction's lifecycle-log appends by commit (PostgreSQL: an advisory lock)."""
        ...

    def migration_lock(self) -> Any:
        """A context manager held while migrating, so processes starting together migrate once."""
        ...


class _SqliteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, args: tuple = ()) -> None:
        self._conn.execute(sql, args)

    def one(self, sql: str, args: tuple = ()) -> tuple | None:
        return self._conn.execute(sql, args).fetchone()

    def all(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._conn.execute(sql, args).fetchall()


class SqliteDatabase:
    """A :class:`Database` on one SQLite connection shared by the server's threads under ``lock`` (the
    checkpointer's, for ``live.sqlite``); each write is one ``BEGIN IMMEDIATE`` ... ``COMMIT``."""

    dialect = SQLITE

    def __init__(self, conn: sqlite3.Connection, lock: Any | None = None) -> None:
        self.conn = conn
        self.lock = lock if lock is not None else threading.Lock()

    @contextmanager
    def tx(self, *, durable: bool = True) -> Iterator[Tx]:
        with self.lock:
            level = None if durable else int(self.conn.execute("PRAGMA synchronous").fetchone()[0])
            if level is not None:  # this one commit does not wait for the disk; the next durable one syncs it
                self.conn.execute("PRAGMA synchronous = OFF")
            try:
                if not self.conn.in_transaction:
                    self.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield _SqliteTx(self.conn)
                except BaseException:
                    self.conn.rollback()
                    raise
                self.conn.commit()
            finally:
                if level is not None:
                    self.conn.execute(f"PRAGMA synchronous = {level}")

    def one(self, sql: str, args: tuple = ()) -> tuple | None:
        with self.lock:
            return self.conn.execute(sql, args).fetchone()

    def all(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self.lock:
            return self.conn.execute(sql, args).fetchall()

    def lock_log(self, tx: Tx) -> None:
        return None  # one writer at a time: AUTOINCREMENT follows commit order

    def migration_lock(self) -> Any:
        return nullcontext()  # the state folder's lock (live.lock) already admits one process

    def close(self) -> None:
        with self.lock:
            self.conn.close()


def _pg(sql: str) -> str:
    return sql.replace("?", "%s")


class _PgTx:
    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def execute(self, sql: str, args: tuple = ()) -> None:
        self._conn.execute(_pg(sql), args)

    def one(self, sql: str, args: tuple = ()) -> tuple | None:
        rows = self.all(sql, args)
        return rows[0] if rows else None

    def all(self, sql: str, args: tuple = ()) -> list[tuple]:
        from psycopg.rows import tuple_row

        with self._conn.cursor(row_factory=tuple_row) as cur:
            cur.execute(_pg(sql), args)
            return cur.fetchall()


#: The advisory lock that orders lifecycle log appends ("adjlog").
LOG_KEY = 0x61646A6C6F67


class PostgresDatabase:
    """A :class:`Database` over a psycopg pool of autocommit connections: each write is one
    transaction on a connection of its own."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.dialect = postgresql_dialect()

    @contextmanager
    def tx(self, *, durable: bool = True) -> Iterator[Tx]:
        with self.pool.connection() as conn, conn.transaction():
            if not durable:
                conn.execute("SET LOCAL synchronous_commit TO OFF")
            yield _PgTx(conn)

    def one(self, sql: str, args: tuple = ()) -> tuple | None:
        with self.pool.connection() as conn:
            return _PgTx(conn).one(sql, args)

    def all(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self.pool.connection() as conn:
            return _PgTx(conn).all(sql, args)

    def lock_log(self, tx: Tx) -> None:
        # an identity value is drawn at insert, not at commit: without the lock two processes'
        # entries could commit out of seq order
        tx.execute("SELECT pg_advisory_xact_lock(?)", (LOG_KEY,))

    @contextmanager
    def migration_lock(self) -> Iterator[None]:
        import time

        from adjudicator.live.store.pgconn import MIGRATE_KEY

        with self.pool.connection() as conn:
            # polled, not waited for: LangGraph's set-up builds indexes CONCURRENTLY, which waits for every
            # open transaction, including a session's that waits in pg_advisory_lock (a deadlock no one detects)
            while not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (MIGRATE_KEY,)).fetchone()["ok"]:
                time.sleep(0.05)
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATE_KEY,))

    def close(self) -> None:
        self.pool.close()
