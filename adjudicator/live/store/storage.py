"""Where the live store keeps its state: the storage interface and its embedded SQLite implementation.

:class:`LiveStorage` is everything :class:`~adjudicator.live.rooms.tracking.LiveStore` needs from a database:
the LangGraph checkpointer, the match registry, the verdicts of closed matches, the offline tracker's
reading of each open match (:mod:`.readings`), a lock per match, a revision counter per match (the
board's event id) and the pruning of superseded checkpoints.

- :class:`SqliteStorage` (the default, zero set-up): ``STATE_DIR/live.sqlite`` and the verdict files
  of :mod:`.verdicts`, for one server process (held with ``live.lock``, an OS lock: a second
  process on the folder is refused); a match's lock is a ``threading.RLock``.
- :class:`~adjudicator.live.store.postgres.PostgresStorage`: one PostgreSQL database shared by any number of
  server processes (``shared = True``); a match's lock is a PostgreSQL advisory lock, revisions live in
  the registry table and every change is announced with ``NOTIFY``.

:func:`open_storage` picks one from ``--store`` / ``ADJUDICATOR_LIVE_STORE``: ``sqlite`` (or empty) for
the state folder, a ``postgresql://`` URL for PostgreSQL.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from adjudicator.errors import InputError
from adjudicator.files import FolderLock, lock_folder, private_file, private_folder
from adjudicator.live.errors import StateFolderBusy
from adjudicator.live.store.checkpoints import DB_NAME, open_checkpointer, prune_threads
from adjudicator.live.store.readings import SqlReadings
from adjudicator.live.store.registry import MatchRegistry
from adjudicator.live.store.schema import migrate
from adjudicator.live.store.sql import SqliteDatabase
from adjudicator.live.store.verdicts import VerdictFiles


class MatchLock(Protocol):
    """A re-entrant lock over one match (``with lock:`` or ``acquire(timeout=...)``/``release()``):
    ``threading.RLock`` or :class:`~adjudicator.live.store.postgres.AdvisoryLock`."""

    def acquire(self, blocking: bool = ..., timeout: float = ...) -> bool: ...

    def release(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, exc_type: Any, exc: Any, tb: Any, /) -> Any: ...


class LiveStorage(Protocol):
    """The state of the live matches (module docstring). ``shared``: other processes write the same
    state, so nothing read outside a match's lock may be cached across calls."""

    shared: bool
    saver: Any  # a LangGraph BaseCheckpointSaver
    registry: Any  # adjudicator.live.store.registry.MatchRegistry
    verdicts: Any  # VerdictFiles or its PostgreSQL twin
    readings: Any  # the offline tracker's reading of each room (adjudicator.live.store.readings.ReadingTable)

    def lock(self, match_id: str, on_acquire: Callable[[], None] | None = None) -> MatchLock:
        """The lock that serialises every change to ``match_id``; ``on_acquire`` runs each time the
        outermost acquisition succeeds (a shared store drops its caches of the match there)."""
        ...

    def bump_revision(self, match_id: str) -> int:
        """Advance the match's board revision by one and announce it; returns the new revision."""
        ...

    def revision(self, match_id: str) -> int:
        """The match's current board revision (0 before its first change)."""
        ...

    def prune(self, thread_ids: Iterable[str]) -> None:
        """Drop the superseded checkpoints of these threads (logged, never raised)."""
        ...

    def listen(self, callback: Callable[[str, int], None]) -> None:
        """Call ``callback(match_id, revision)`` for changes made by other processes (no-op when not shared)."""
        ...

    def close(self) -> None:
        """Release connections and stop listening."""
        ...


class SqliteStorage:
    """:class:`LiveStorage` on ``STATE_DIR/live.sqlite`` and the verdict files, for one process."""

    shared = False

    def __init__(self, state_dir: Path) -> None:
        self.folder_lock = lock_state_folder(state_dir)
        try:
            private_file(state_dir / DB_NAME)  # it holds transcripts: 0600, and SQLite's journals follow
            self.saver = open_checkpointer(state_dir / DB_NAME)
            self.db = SqliteDatabase(self.saver.conn, self.saver.lock)  # the registry and readings share the checkpointer's connection
            migrate(self.db, ["live"])
        except BaseException:
            self.folder_lock.release()
            raise
        self.registry = MatchRegistry(self.db)
        self.verdicts = VerdictFiles(state_dir)
        self.readings = SqlReadings(self.db)
        self._guard = threading.Lock()
        self._locks: dict[str, threading.RLock] = {}
        self._revision: dict[str, int] = {}

    def lock(self, match_id: str, on_acquire: Callable[[], None] | None = None) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(match_id, threading.RLock())

    def bump_revision(self, match_id: str) -> int:
        with self._guard:
            self._revision[match_id] = self._revision.get(match_id, 0) + 1
            return self._revision[match_id]

    def revision(self, match_id: str) -> int:
        with self._guard:
            return self._revision.get(match_id, 0)

    def prune(self, thread_ids: Iterable[str]) -> None:
        prune_threads(self.saver, thread_ids)

    def listen(self, callback: Callable[[str, int], None]) -> None:
        return None

    def close(self) -> None:
        try:
            with self.saver.lock:
                self.saver.conn.close()
        finally:
            self.folder_lock.release()


#: The lock file of a SQLite state folder: one live server process per folder (PostgreSQL takes many).
LOCK_FILE = "live.lock"


def lock_state_folder(state_dir: Path) -> FolderLock:
    """Make ``state_dir`` a private folder (0700: it holds transcripts) and take its lock
    (``live.lock``, an OS lock the kernel releases when the holder dies).

    Raises :class:`~adjudicator.live.errors.StateFolderBusy` (exit code 2) naming the holder's pid when
    another process serves this folder -- two servers over one SQLite store would each cache their
    own view of it and corrupt the other's -- and :class:`~adjudicator.errors.InputError` when the
    folder cannot be made."""
    try:
        private_folder(state_dir)
        got = lock_folder(state_dir / LOCK_FILE, private=True)
    except OSError as exc:
        raise InputError(f"--state-dir: {state_dir} cannot be used ({exc.strerror or exc})", "give a writable folder") from None
    if isinstance(got, FolderLock):
        return got
    holder = f"process {got}" if got else "another process"
    raise StateFolderBusy(
        f"--state-dir: {state_dir} is in use by {holder} (another `adjudicate live serve`)",
        "stop that server, or give this one its own --state-dir (or serve several from one --store postgresql://...); one server process per SQLite state folder",
    )


def redacted(url: str) -> str:
    """A database URL without its password (``postgresql://user:***@host/db``): what every message that
    names the store prints."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def open_storage(store: str | None, state_dir: Path, *, pool_size: int | None = None, lock_pool_size: int | None = None, keep_saver_lock: bool = False) -> LiveStorage:
    """The storage named by ``store``: None, ``""`` or ``"sqlite"`` -> :class:`SqliteStorage` in
    ``state_dir``; ``postgresql://...`` (or ``postgres://``) -> :class:`PostgresStorage` with those
    pool sizes (None: its defaults; ``keep_saver_lock``: see :class:`~adjudicator.live.store.postgres.PooledPostgresSaver`). Raises :class:`InputError` for anything else or a database
    that cannot be reached."""
    if not store or store == "sqlite":
        return SqliteStorage(state_dir)
    if store.startswith(("postgresql://", "postgres://")):
        from adjudicator.live.store.postgres import LOCK_POOL_SIZE, POOL_SIZE, PostgresStorage  # psycopg only where PostgreSQL is used

        return PostgresStorage(store, pool_size=pool_size or POOL_SIZE, lock_pool_size=lock_pool_size or LOCK_POOL_SIZE, keep_saver_lock=keep_saver_lock)
    raise InputError(f"--store: {redacted(store)!r} is neither 'sqlite' nor a postgresql:// URL", "use --store sqlite (the default) or --store postgresql://user@host/db")
