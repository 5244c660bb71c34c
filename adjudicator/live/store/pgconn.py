"""Connections of the PostgreSQL store (:mod:`.postgres`, :mod:`.tournament_sql`): bounded connection
pools and advisory-lock keys (the migration step is :func:`adjudicator.live.store.schema.migrate`).
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from adjudicator.errors import InputError


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
