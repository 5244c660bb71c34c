"""The registry of live matches: one row per match in the ``live_matches`` table (:mod:`.schema`;
SQLite: the checkpoint file ``STATE_DIR/live.sqlite``, mirrored in memory; PostgreSQL: the live database).

A row's status moves ``open`` (takes stages) -> ``closing`` (panel attempt ``panel_attempt`` is running,
or was when the server stopped: a restart finishes it) -> ``closed`` (the verdict is stored). A panel
that produced no verdict sends the match back to ``open`` with ``panel_error``; the next close is a new
attempt.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Literal

from adjudicator.input.match import MatchView
from adjudicator.live.errors import Conflict, NotFound
from adjudicator.live.store.sql import Database, from_body

Status = Literal["open", "closing", "closed"]

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
    """The ``live_matches`` table on ``db`` (:mod:`.schema`). In a store of one process (``shared`` False:
    SQLite) the rows are kept in memory, read once at start; in a shared one (PostgreSQL) they are read
    on every call, since other processes move the status, and only the headers, which never change,
    are cached."""

    def __init__(self, db: Database, *, shared: bool = False) -> None:
        self.db = db
        self.shared = shared
        self._headers: dict[str, MatchView] = {}
        self._rows: dict[str, MatchRow] = {} if shared else {r.match_id: r for r in self._select("")}

    def _select(self, where: str, args: tuple = ()) -> list[MatchRow]:
        sql = f"SELECT match_id, header, status, created_at, panel_attempt, panel_error FROM live_matches{where} ORDER BY {self.db.dialect.match_order}"  # noqa: S608 (constant clauses)
        out = []
        for mid, header, status, created_at, attempt, error in self.db.all(sql, args):
            view = self._headers.get(mid)
            if view is None:
                view = self._headers.setdefault(mid, from_body(MatchView, header))
            out.append(MatchRow(mid, view, status, created_at, int(attempt), error))
        return out

    def __contains__(self, match_id: object) -> bool:
        if not self.shared:
            return match_id in self._rows
        return self.db.one("SELECT 1 FROM live_matches WHERE match_id = ?", (match_id,)) is not None

    def get(self, match_id: str) -> MatchRow:
        """The row of ``match_id``. Raises :class:`NotFound` (404)."""
        if self.shared:
            found = self._select(" WHERE match_id = ?", (match_id,))
            row = found[0] if found else None
        else:
            row = self._rows.get(match_id)
        if row is None:
            raise NotFound(f"match {match_id!r}: no such live match", "create it first (POST /api/matches or `adjudicate live create`)")
        return row

    def ids(self) -> list[str]:
        """Every live match id, in creation order."""
        if not self.shared:
            return list(self._rows)
        return [mid for (mid,) in self.db.all(f"SELECT match_id FROM live_matches ORDER BY {self.db.dialect.match_order}")]  # noqa: S608

    def insert(self, row: MatchRow) -> None:
        """Add the row of a new match (committed before it returns). Raises :class:`Conflict` when the
        id is taken (another process took it first)."""
        try:
            with self.db.tx() as tx:
                tx.execute(
                    "INSERT INTO live_matches (match_id, created_at, header, status, panel_attempt, panel_error) VALUES (?, ?, ?, ?, ?, ?)",
                    (row.match_id, row.created_at, self.db.dialect.body(row.header), row.status, row.panel_attempt, row.panel_error),
                )
        except self.db.dialect.duplicate:
            raise Conflict(f"match {row.match_id!r} already exists", "choose another match_id, or push to the existing match", field="match_id") from None
        self._headers[row.match_id] = row.header
        if not self.shared:
            self._rows[row.match_id] = row

    def update(self, row: MatchRow) -> None:
        """Store a row's new status, panel attempt and panel error (committed before it returns)."""
        with self.db.tx() as tx:
            tx.execute("UPDATE live_matches SET status = ?, panel_attempt = ?, panel_error = ? WHERE match_id = ?",
                       (row.status, row.panel_attempt, row.panel_error, row.match_id))
        if not self.shared:
            self._rows[row.match_id] = row
