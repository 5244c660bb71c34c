"""The live store's one schema: an ordered list of migrations that both engines run, and the step that
runs the missing ones at every start.

Component ``live`` holds the match registry and the rooms' readings (SQLite: ``STATE_DIR/live.sqlite``,
beside LangGraph's checkpoints); ``tournaments`` the tournament registry, the verdict states, the
lifecycle log and the person tokens (SQLite: ``STATE_DIR/tournaments.sqlite``). On PostgreSQL both live
in the one database. Each migration is SQL with the :class:`~adjudicator.live.store.sql.Dialect`'s type
words (``{json}``, ``{blob}``, ``{seq}``, ``{log_seq}``); ``adjudicator_migrations`` records which ran.

Rows keep their model as JSON in ``body`` beside the key columns the queries use::

    live_matches   (match_id PK, created_at, header, status, panel_attempt, panel_error)
                   PostgreSQL also: created_seq, revision                  (live 3)
    live_verdicts  (match_id PK, verdict, report, stored_at)                (live 3, PostgreSQL)
    live_readings  (match_id PK, state)
    tournaments    (tournament_id PK, created_seq, body)
    rounds         (tournament_id, round_id, created_seq, body)                      PK (t, r)
    rooms          (tournament_id, round_id, room_id, match_id UNIQUE,
                    chair_token_digest UNIQUE, created_seq, body)                      PK (t, r, room)
    decisions      (tournament_id, round_id, room_id, version, state, body)          PK (t, r, room)
    lifecycle_log  (seq PK, tournament_id, round_id, room_id, kind, at, body)
    person_tokens  (token_id PK, token_digest UNIQUE, tournament_id, created_seq, body)

Migration ``live 3`` is PostgreSQL's alone: a shared store keeps each match's board revision and creation
order in the registry and the closed matches' verdicts in the database, where the SQLite store (one
process) keeps the revision in memory and the verdicts in files (:mod:`.verdicts`).

Databases written before this list (0cefc6c and earlier) open unchanged: every statement is ``IF NOT
EXISTS``, so a SQLite file, which recorded no migrations, takes ``live`` 1-2 and ``tournaments`` 1-2 as
no-ops and records them; a PostgreSQL database recorded ``live`` 1-2 and ``tournaments`` 1-2 (whose
tables then already had the columns ``live 3`` adds) and runs ``live 3`` as a no-op.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import NamedTuple

from adjudicator.live.store.sql import Database

log = logging.getLogger("adjudicator.live")


class Migration(NamedTuple):
    """One step of the schema: ``component`` and ``version`` (its key in ``adjudicator_migrations``),
    the statements, and the one engine it is for (None: both)."""

    component: str
    version: int
    sql: str
    only: str | None = None


MIGRATIONS: list[Migration] = [
    Migration("live", 1, """
CREATE TABLE IF NOT EXISTS live_matches (
    match_id      TEXT PRIMARY KEY,
    created_at    TEXT NOT NULL,
    header        {json} NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('open', 'closing', 'closed')),
    panel_attempt INTEGER NOT NULL DEFAULT 0,
    panel_error   TEXT
)"""),
    Migration("live", 2, """
CREATE TABLE IF NOT EXISTS live_readings (
    match_id TEXT PRIMARY KEY,
    state    {blob} NOT NULL
)"""),
    Migration("live", 3, """
ALTER TABLE live_matches ADD COLUMN IF NOT EXISTS created_seq {seq};
ALTER TABLE live_matches ADD COLUMN IF NOT EXISTS revision BIGINT NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS live_verdicts (
    match_id  TEXT PRIMARY KEY REFERENCES live_matches(match_id),
    verdict   TEXT NOT NULL,
    report    TEXT NOT NULL,
    stored_at TEXT NOT NULL
)""", only="postgresql"),
    Migration("tournaments", 1, """
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    created_seq   {seq},
    body          {json} NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    round_id      TEXT NOT NULL,
    created_seq   {seq},
    body          {json} NOT NULL,
    PRIMARY KEY (tournament_id, round_id)
);
CREATE TABLE IF NOT EXISTS rooms (
    tournament_id      TEXT NOT NULL,
    round_id           TEXT NOT NULL,
    room_id            TEXT NOT NULL,
    match_id           TEXT NOT NULL UNIQUE,
    chair_token_digest TEXT NOT NULL UNIQUE,
    created_seq        {seq},
    body               {json} NOT NULL,
    PRIMARY KEY (tournament_id, round_id, room_id),
    FOREIGN KEY (tournament_id, round_id) REFERENCES rounds(tournament_id, round_id)
);
CREATE TABLE IF NOT EXISTS decisions (
    tournament_id TEXT NOT NULL,
    round_id      TEXT NOT NULL,
    room_id       TEXT NOT NULL,
    version       INTEGER NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('draft', 'confirmed', 'released')),
    body          {json} NOT NULL,
    PRIMARY KEY (tournament_id, round_id, room_id),
    FOREIGN KEY (tournament_id, round_id, room_id) REFERENCES rooms(tournament_id, round_id, room_id)
);
CREATE TABLE IF NOT EXISTS lifecycle_log (
    seq           {log_seq},
    tournament_id TEXT NOT NULL,
    round_id      TEXT,
    room_id       TEXT,
    kind          TEXT NOT NULL,
    at            TEXT NOT NULL,
    body          {json} NOT NULL
);
CREATE INDEX IF NOT EXISTS lifecycle_log_room ON lifecycle_log (tournament_id, round_id, room_id, seq)"""),
    Migration("tournaments", 2, """
CREATE TABLE IF NOT EXISTS person_tokens (
    token_id      TEXT PRIMARY KEY,
    token_digest  TEXT NOT NULL UNIQUE,
    tournament_id TEXT,
    created_seq   {seq},
    body          {json} NOT NULL
)"""),
]

MIGRATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS adjudicator_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, "
    "applied_at TEXT NOT NULL, PRIMARY KEY (component, version))"
)


def migrations_for(engine: str, components: Iterable[str] = ("live", "tournaments")) -> list[Migration]:
    """The migrations ``engine`` ("sqlite" or "postgresql") runs for ``components``, in order."""
    wanted = set(components)
    return [m for m in MIGRATIONS if m.component in wanted and m.only in (None, engine)]


def migrate(db: Database, components: Iterable[str], setup: Callable[[], None] | None = None) -> list[tuple[str, int]]:
    """Run ``setup`` (LangGraph's checkpoint set-up, on PostgreSQL) and the missing migrations of
    ``components`` (each in its own transaction, with its record), under the database's migration lock.
    Returns the (component, version) pairs applied now."""
    applied: list[tuple[str, int]] = []
    with db.migration_lock():
        if setup is not None:
            setup()
        with db.tx() as tx:
            tx.execute(MIGRATIONS_TABLE)
        done = {(c, int(v)) for c, v in db.all("SELECT component, version FROM adjudicator_migrations")}
        for m in migrations_for(db.dialect.name, components):
            if (m.component, m.version) in done:
                continue
            with db.tx() as tx:
                for statement in m.sql.format(**db.dialect.types).split(";"):
                    if statement.strip():
                        tx.execute(statement)
                tx.execute("INSERT INTO adjudicator_migrations (component, version, applied_at) VALUES (?, ?, ?)",
                           (m.component, m.version, datetime.now(UTC).isoformat(timespec="seconds")))
            applied.append((m.component, m.version))
    if applied:
        log.info("live: applied migrations %s", ", ".join(f"{c} {v}" for c, v in applied))
    return applied
