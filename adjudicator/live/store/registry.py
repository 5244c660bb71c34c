"""The registry of live matches: one row per match in the ``live_matches`` table of the checkpoint file
(``STATE_DIR/live.sqlite``), mirrored in memory.

A row's status moves ``open`` (takes stages) -> ``closing`` (panel attempt ``panel_attempt`` is running,
or was when the server stopped: a restart finishes it) -> ``closed`` (the verdict is stored). A panel
that produced no verdict sends the match back to ``open`` with ``panel_error``; the next close is a new
attempt.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Literal

from adjudicator.input.match import MatchView
from adjudicator.live.errors import NotFound

Status = Literal["open", "closing", "closed"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS live_matches (
    match_id      TEXT PRIMARY KEY,
    created_at    TEXT NOT NULL,
    header        TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('open', 'closing', 'closed')),
    panel_attempt INTEGER NOT NULL DEFAULT 0,
    panel_error   TEXT
)
"""


@dataclass(frozen=True)
class MatchRow:
    """One registry row: the label-free header, status ("open", "closing", "closed"), creation time
    (UTC ISO 8601), the panel attempt counter and the last panel error."""

    match_id: str
    header: MatchView
    status: Status
    created_at: str
    panel_attempt: int = 0
    panel_error: str | None = None

    @classmethod
    def new(cls, header: MatchView) -> MatchRow:
        """The row of a match created now: open, no panel attempt yet."""
        return cls(header.match_id, header, "open", datetime.now(UTC).isoformat(timespec="seconds"))

    def closing(self) -> MatchRow:
        """This row as a new panel attempt starts: "closing", attempt + 1, no panel error."""
        return replace(self, status="closing", panel_attempt=self.panel_attempt + 1, panel_error=None)

    def reopened(self, panel_error: str) -> MatchRow:
        """This row after a panel that produced no verdict: "open" again, with the panel's error."""
        return replace(self, status="open", panel_error=panel_error)

    def closed(self) -> MatchRow:
        """This row once the verdict is stored: "closed", no panel error."""
        return replace(self, status="closed", panel_error=None)


class MatchRegistry:
    """The ``live_matches`` table on ``conn`` (used under ``lock``, the checkpointer's), created if
    missing, and an in-memory copy of its rows in creation order, read once at start."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
        self._conn = conn
        self._lock = lock
        with self._lock:
            self._conn.execute(SCHEMA)
            self._conn.commit()
        self._rows: dict[str, MatchRow] = {r.match_id: r for r in self._read_rows()}

    def _read_rows(self) -> list[MatchRow]:
        with self._lock:
            cur = self._conn.execute("SELECT match_id, header, status, created_at, panel_attempt, panel_error FROM live_matches ORDER BY created_at, match_id")
            rows = cur.fetchall()
        return [MatchRow(mid, MatchView.model_validate_json(h), st, ts, att, err) for mid, h, st, ts, att, err in rows]

    def __contains__(self, match_id: object) -> bool:
        return match_id in self._rows

    def get(self, match_id: str) -> MatchRow:
        """The row of ``match_id``. Raises :class:`NotFound` (404)."""
        row = self._rows.get(match_id)
        if row is None:
            raise NotFound(f"match {match_id!r}: no such live match", "create it first (POST /api/matches or `adjudicate live create`)")
        return row

    def ids(self) -> list[str]:
        """Every live match id, in creation order."""
        return list(self._rows)

    def insert(self, row: MatchRow) -> None:
        """Add the row of a new match (committed before it returns)."""
        with self._lock:
            self._conn.execute(
                "INSERT INTO live_matches (match_id, created_at, header, status, panel_attempt, panel_error) VALUES (?, ?, ?, ?, ?, ?)",
                (row.match_id, row.created_at, row.header.model_dump_json(), row.status, row.panel_attempt, row.panel_error),
            )
            self._conn.commit()
        self._rows[row.match_id] = row

    def update(self, row: MatchRow) -> None:
        """Store a row's new status, panel attempt and panel error (committed before it returns)."""
        with self._lock:
            self._conn.execute(
                "UPDATE live_matches SET status = ?, panel_attempt = ?, panel_error = ? WHERE match_id = ?",
                (row.status, row.panel_attempt, row.panel_error, row.match_id),
            )
            self._conn.commit()
        self._rows[row.match_id] = row
