"""Connections and migrations of the PostgreSQL store (:mod:`.postgres`, :mod:`.tournament_postgres`):
bounded connection pools, advisory-lock keys, and the migration step every server process runs at start.
"""

from __future__ import annotations

import hashlib
import logging
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import psycopg
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from adjudicator.errors import InputError

log = logging.getLogger("adjudicator.live")


def lock_key(name: str) -> int:
    """The signed 64-bit advisory-lock key of ``name`` (first 8 bytes of its SHA-256)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big", signed=True)


MIGRATE_KEY = lock_key("adjudicator:migrate")


def connect_pool(url: str, size: int, name: str) -> ConnectionPool[Any]:
    """An open pool of at most ``size`` autocommit connections (dict rows, no prepared statements, as
    LangGraph's saver needs). Raises :class:`InputError` (one line) when the database cannot be reached."""
    try:  # one direct attempt first: a bad URL or a stopped server fails at once, in one line
        psycopg.connect(url, connect_timeout=10).close()
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        password = urlsplit(url).password if "://" in url else None
        if password:  # libpq may quote the URL back; its password is never printed
            reason = reason.replace(password, "***")
        raise InputError(f"--store: cannot connect to PostgreSQL ({reason})", "check the URL, that the server runs, and its pg_hba.conf") from None
    pool: ConnectionPool[Any] = ConnectionPool(
        url, min_size=1, max_size=size, name=name, open=False, timeout=60,
        kwargs={"autocommit": True, "prepare_threshold": None, "row_factory": dict_row},
    )
    try:
        pool.open(wait=True, timeout=30)
    except PoolTimeout:
        pool.close()
        raise InputError(f"--store: PostgreSQL accepted no pooled connection in 30 s ({name})", "check the server's max_connections and load") from None
    return pool


def migrate(pool: ConnectionPool[Any], saver: PostgresSaver | None, migrations: list[tuple[str, int, str]]) -> list[tuple[str, int]]:
    """Run LangGraph's checkpoint set-up (when ``saver`` is given) and the missing ``migrations`` (each
    in its own transaction), under the advisory lock :data:`MIGRATE_KEY`. Returns the (component,
    version) pairs applied now."""
    applied: list[tuple[str, int]] = []
    with pool.connection() as conn:
        # polled, not waited for: LangGraph's set-up builds indexes CONCURRENTLY, which waits for every
        # open transaction, including a session's that waits in pg_advisory_lock (a deadlock no one detects)
        while not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (MIGRATE_KEY,)).fetchone()["ok"]:
            time.sleep(0.05)
        try:
            if saver is not None:
                saver.setup()
            conn.execute("CREATE TABLE IF NOT EXISTS adjudicator_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (component, version))")
            done = {(r["component"], r["version"]) for r in conn.execute("SELECT component, version FROM adjudicator_migrations").fetchall()}
            for component, version, sql in migrations:
                if (component, version) in done:
                    continue
                with conn.transaction():
                    conn.execute(sql)
                    conn.execute("INSERT INTO adjudicator_migrations (component, version, applied_at) VALUES (%s, %s, %s)",
                                 (component, version, datetime.now(UTC).isoformat(timespec="seconds")))
                applied.append((component, version))
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATE_KEY,))
    if applied:
        log.info("live: applied migrations %s", ", ".join(f"{c} {v}" for c, v in applied))
    return applied
