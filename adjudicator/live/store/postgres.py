"""Live matches in one PostgreSQL database shared by any number of stateless server processes.

What lives where (one database; ``--store postgresql://...`` or ``ADJUDICATOR_LIVE_STORE``):

- LangGraph checkpoints: ``checkpoints``, ``checkpoint_blobs``, ``checkpoint_writes`` (LangGraph's
  ``PostgresSaver``, its own migrations in ``checkpoint_migrations``);
- ``live_matches``: the registry (header, status, panel attempt and error) and each match's board
  ``revision``; ``live_verdicts``: the verdict JSON and Markdown report of each closed match;
  ``live_readings``: the offline tracker's reading of each open match (:mod:`.readings`);
- the tournament tables (:mod:`.tournament_sql`);
- ``adjudicator_migrations``: which of :data:`~adjudicator.live.store.schema.MIGRATIONS` ran.
  :func:`~adjudicator.live.store.schema.migrate` runs the missing ones and LangGraph's set-up at every
  start under one advisory lock, so processes starting together migrate once.

The registry, readings and tournament tables are the same SQL as SQLite's (:mod:`.sql`'s dialect
says what differs); this module holds what only a shared store does: the checkpointer over a pool,
match locks across processes, board revisions with ``NOTIFY``, and the verdicts in a table.

How a room is serialised across processes: every change to a match (create, push, analyse, close,
recovery) runs under :class:`AdvisoryLock`, a session-level ``pg_advisory_lock`` on a key derived
from the match id, held on a connection of its own pool for the length of the operation. Two processes
receiving pushes for the same room queue on the lock; the second reads the checkpoint the first
committed and sees its own stage as already received (a duplicate by ``stage_id``: no-op) or appends
after it. A process that dies while holding a lock loses its connection, and PostgreSQL releases the
lock; what it committed stays, what it did not is absent (see :mod:`adjudicator.live.rooms.tracking`). Different
rooms share no lock: each operation borrows its own connections.

LangGraph's ``PostgresSaver`` guards every database call with one ``threading.Lock`` per saver, which
serialises all the rooms of a process even over a pool. :class:`PooledPostgresSaver` drops that lock
when the saver runs over a pool (each call then has a pool connection to itself, which is all the lock
protected); ``benchmarks/live_scale.py --saver-lock`` measures the difference.

Board updates reach every process: :meth:`PostgresStorage.bump_revision` advances the revision and
sends ``NOTIFY adjudicator_live_board`` in one transaction; each process listens on a connection of
its own (:meth:`PostgresStorage.listen`) and republishes to the boards connected to it.

Pools are bounded: ``pool_size`` connections for checkpoints and tables, ``lock_pool_size`` for held
match locks (an operation waiting for a lock never holds a data connection, so the two cannot starve
each other), plus one listening connection: at most ``pool_size + lock_pool_size + 1`` per process.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg_pool import ConnectionPool

from adjudicator.live.store.checkpoints import live_serde
from adjudicator.live.store.pgconn import connect_pool, lock_key
from adjudicator.live.store.readings import SqlReadings
from adjudicator.live.store.registry import MatchRegistry
from adjudicator.live.store.schema import migrate
from adjudicator.live.store.sql import PostgresDatabase
from adjudicator.live.store.verdicts import verdict_texts
from adjudicator.verdict.ballots import Verdict

log = logging.getLogger("adjudicator.live")

CHANNEL = "adjudicator_live_board"
POOL_SIZE = 8
LOCK_POOL_SIZE = 16
LOCK_CONNECTION_WAIT_S = 600.0  # how long an operation waits for a free lock connection (backpressure, not an error)
PRUNE_EVERY = 4  # prune a tracking thread at every 4th committed step (and every thread at close)

class PooledPostgresSaver(PostgresSaver):
    """LangGraph's ``PostgresSaver`` without its per-saver lock when it runs over a connection pool
    (module docstring): each call takes a pool connection of its own, so calls for different rooms run
    in parallel. Over a single connection the lock is kept."""

    def __init__(self, conn: Any, *, serde: Any = None, keep_saver_lock: bool = False) -> None:
        super().__init__(conn, serde=serde)
        if isinstance(conn, ConnectionPool) and not keep_saver_lock:
            self.lock = _NoLock()  # type: ignore[assignment]


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class AdvisoryLock:
    """A re-entrant lock over one match across processes: a ``threading.RLock`` within the process and,
    while held, a session-level ``pg_advisory_lock(key)`` on a connection borrowed from ``pool``.
    ``on_acquire`` runs after each outermost acquisition."""

    def __init__(self, pool: ConnectionPool[Any], key: int, on_acquire: Callable[[], None] | None = None) -> None:
        self._pool = pool
        self._key = key
        self._local = threading.RLock()
        self._depth = 0
        self._conn: Any = None
        self.on_acquire = on_acquire

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Take the lock; with ``timeout`` >= 0 give up after that many seconds (returns False)."""
        deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        if not self._local.acquire(blocking, -1 if deadline is None else timeout):
            return False
        if self._depth == 0:
            try:
                if not self._take(deadline):
                    self._local.release()
                    return False
                if self.on_acquire is not None:
                    self.on_acquire()
            except BaseException:
                self._give_back()
                self._local.release()
                raise
        self._depth += 1
        return True

    def _take(self, deadline: float | None) -> bool:
        conn = self._pool.getconn(LOCK_CONNECTION_WAIT_S if deadline is None else max(0.01, deadline - time.monotonic()))
        self._conn = conn
        if deadline is None:
            conn.execute("SELECT pg_advisory_lock(%s)", (self._key,))
            return True
        while True:
            row = conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (self._key,)).fetchone()
            if row is not None and row["ok"]:
                return True
            if time.monotonic() >= deadline:
                self._pool.putconn(conn)
                self._conn = None
                return False
            time.sleep(0.02)

    def _give_back(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
        except psycopg.Error:  # a broken connection: its session, and with it the lock, is gone
            conn.close()
        self._pool.putconn(conn)

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._give_back()
        self._local.release()

    def __enter__(self) -> AdvisoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class PgVerdicts:
    """The ``live_verdicts`` table: the same reads and write as :class:`~adjudicator.live.store.verdicts.VerdictFiles`."""

    def __init__(self, pool: ConnectionPool[Any]) -> None:
        self._pool = pool
        self._cache: dict[str, Verdict] = {}

    def _one(self, match_id: str, column: str) -> str | None:
        with self._pool.connection() as conn:
            r = conn.execute(f"SELECT {column} AS v FROM live_verdicts WHERE match_id = %s", (match_id,)).fetchone()  # noqa: S608 (a constant column)
        return None if r is None else r["v"]

    def read(self, match_id: str) -> Verdict | None:
        """The stored verdict of ``match_id``, or None."""
        v = self._cache.get(match_id)
        if v is None:
            text = self._one(match_id, "verdict")
            if text is not None:
                v = self._cache[match_id] = Verdict.model_validate_json(text)
        return v

    def verdict_json(self, match_id: str) -> bytes | None:
        """The stored verdict as indented UTF-8 JSON bytes, or None."""
        text = self._one(match_id, "verdict")
        return None if text is None else text.encode("utf-8")

    def report_text(self, match_id: str) -> str | None:
        """The stored Markdown report, or None."""
        return self._one(match_id, "report")

    def write(self, match_id: str, verdict: Verdict) -> None:
        """Store (or replace) the verdict and its report in one statement."""
        text, report = verdict_texts(verdict)
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO live_verdicts (match_id, verdict, report, stored_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (match_id) DO UPDATE SET verdict = EXCLUDED.verdict, report = EXCLUDED.report, stored_at = EXCLUDED.stored_at",
                (match_id, text, report, datetime.now(UTC).isoformat(timespec="seconds")),
            )
        self._cache[match_id] = verdict


class PostgresStorage:
    """:class:`~adjudicator.live.store.storage.LiveStorage` on the PostgreSQL database at ``url`` (module
    docstring). Migrates on start. Raises :class:`InputError` when the database cannot be reached."""

    shared = True

    def __init__(self, url: str, *, pool_size: int = POOL_SIZE, lock_pool_size: int = LOCK_POOL_SIZE, keep_saver_lock: bool = False) -> None:
        self.url = url
        self.pool = connect_pool(url, pool_size, "adjudicator-live")
        self.lock_pool = connect_pool(url, lock_pool_size, "adjudicator-live-locks")
        self.saver = PooledPostgresSaver(self.pool, serde=live_serde(), keep_saver_lock=keep_saver_lock)
        self.db = PostgresDatabase(self.pool)
        migrate(self.db, ["live", "tournaments"], setup=self.saver.setup)
        self.registry = MatchRegistry(self.db, shared=True)
        self.verdicts = PgVerdicts(self.pool)
        self.readings = SqlReadings(self.db)
        self._guard = threading.Lock()
        self._locks: dict[str, AdvisoryLock] = {}
        self._prune_calls: dict[str, int] = {}
        self._stop = threading.Event()
        self._listener: threading.Thread | None = None

    def lock(self, match_id: str, on_acquire: Callable[[], None] | None = None) -> AdvisoryLock:
        with self._guard:
            lk = self._locks.get(match_id)
            if lk is None:
                lk = self._locks[match_id] = AdvisoryLock(self.lock_pool, lock_key(f"live:{match_id}"), on_acquire)
            return lk

    def bump_revision(self, match_id: str) -> int:
        with self.pool.connection() as conn, conn.transaction():
            r = conn.execute("UPDATE live_matches SET revision = revision + 1 WHERE match_id = %s RETURNING revision", (match_id,)).fetchone()
            rev = 0 if r is None else int(r["revision"])
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps({"m": match_id, "r": rev})))
        return rev

    def revision(self, match_id: str) -> int:
        with self.pool.connection() as conn:
            r = conn.execute("SELECT revision FROM live_matches WHERE match_id = %s", (match_id,)).fetchone()
        return 0 if r is None else int(r["revision"])

    def prune(self, thread_ids: Iterable[str]) -> None:
        """Keep only the latest checkpoint of these threads: a tracking thread alone every
        :data:`PRUNE_EVERY` calls (each prune is a few statements per thread, and PostgresSaver stores
        only the channels that changed, so history grows slowly), any list with a panel thread (a
        close) at once."""
        ids = list(thread_ids)
        if not any(":panel:" in t for t in ids):
            with self._guard:
                due = [t for t in ids if self._prune_calls.setdefault(t, 0) % PRUNE_EVERY == PRUNE_EVERY - 1]
                for t in ids:
                    self._prune_calls[t] += 1
            ids = due
        if not ids:
            return
        try:
            self.saver.prune(ids, strategy="keep_latest")
        except (psycopg.Error, NotImplementedError):
            log.exception("live: pruning the checkpoints of %s failed", ids)

    # ---- board updates from other processes

    def listen(self, callback: Callable[[str, int], None]) -> None:
        """Start a daemon thread that LISTENs on :data:`CHANNEL` over its own connection (reconnecting
        after a failure) and calls ``callback(match_id, revision)`` for each notification."""
        if self._listener is not None:
            return
        self._listener = threading.Thread(target=self._listen_loop, args=(callback,), name="live-listen", daemon=True)
        self._listener.start()

    def _listen_loop(self, callback: Callable[[str, int], None]) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self._deliver(callback, note.payload)
            except psycopg.Error as exc:
                if not self._stop.is_set():
                    log.warning("live: board notifications interrupted (%s); reconnecting", exc)
                    self._stop.wait(1.0)

    @staticmethod
    def _deliver(callback: Callable[[str, int], None], payload: str) -> None:
        try:
            msg = json.loads(payload)
            callback(str(msg["m"]), int(msg["r"]))
        except Exception:  # a bad payload or a broken subscriber must not stop the listener
            log.exception("live: handling board notification %r failed", payload)

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A connection of the data pool (the tournament store and the benchmark's checks use it)."""
        with self.pool.connection() as conn:
            yield conn

    def close(self) -> None:
        self._stop.set()
        if self._listener is not None:
            self._listener.join(timeout=5)
        self.lock_pool.close()
        self.pool.close()
