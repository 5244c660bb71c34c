"""The board snapshots of the live store: built from a match's tracking state, cached per match,
rebuilt from the last committed checkpoint while an analysis holds the match, and published to the
subscribers once per revision.

:class:`BoardSnapshots` is a part of :class:`~adjudicator.live.rooms.tracking.LiveStore` (its base class): it
reads the store's storage, caches and tracking graph, and the store calls :meth:`BoardSnapshots._changed`
after every committed change. A snapshot is :func:`adjudicator.live.rooms.board.board_snapshot`'s dict; over a
shared (PostgreSQL) storage one is reused only while the match's stored revision is unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from adjudicator.live.rooms.board import board_snapshot, match_summary
from adjudicator.live.rooms.cache import BoundedCache
from adjudicator.live.store.checkpoints import thread_config
from adjudicator.verdict.battlefield import BattlefieldState, failed_stage_ids

if TYPE_CHECKING:
    from adjudicator.live.store.registry import MatchRow
    from adjudicator.live.store.storage import LiveStorage, MatchLock
    from adjudicator.verdict.ballots import Verdict
    from adjudicator.workflow.context import AdjudicationContext

log = logging.getLogger("adjudicator.live")

#: Match summaries per page of ``GET /api/matches`` (default, and the most a request may ask for).
LIST_PAGE = 100
LIST_PAGE_MAX = 500


class BoardSnapshots:
    """The snapshot half of the live store (module docstring); :class:`~adjudicator.live.rooms.tracking.LiveStore`
    sets the attributes below and defines the methods named under ``TYPE_CHECKING``."""

    storage: LiveStorage
    shared: bool
    context: AdjudicationContext
    tracking: Any  # the compiled clash-tracking graph
    on_change: Callable[[str, dict], None] | None
    _values: BoundedCache[dict[str, Any]]
    _snapshots: BoundedCache[dict[str, Any]]
    _published: dict[str, int]
    _errors: dict[str, str]

    if TYPE_CHECKING:

        def row(self, match_id: str) -> MatchRow: ...
        def lock(self, match_id: str) -> MatchLock: ...
        def match_ids(self) -> list[str]: ...
        def verdict(self, match_id: str) -> Verdict | None: ...
        def tracking_values(self, match_id: str) -> dict[str, Any]: ...

    def _model(self) -> tuple[str, bool]:
        ctx = self.context
        return ctx.tracker.name, any(b.is_llm for b in (ctx.tracker, *ctx.judges.values()))

    def _build_snapshot(self, match_id: str, values: dict[str, Any] | None = None, revision: int | None = None) -> dict[str, Any]:
        row = self.row(match_id)
        model, is_llm = self._model()
        return board_snapshot(
            row.header,
            self.tracking_values(match_id) if values is None else values,
            status=row.status,
            model=model,
            is_llm=is_llm,
            verdict=self.verdict(match_id) if row.status == "closed" else None,
            panel_error=row.panel_error,
            error=self._errors.get(match_id),
            revision=self.storage.revision(match_id) if revision is None else revision,
        )

    def _changed(self, match_id: str) -> dict[str, Any]:
        rev = self.storage.bump_revision(match_id)
        snap = self._build_snapshot(match_id, revision=rev)
        self._snapshots[match_id] = snap
        self._publish(match_id, snap)
        return snap

    def _publish(self, match_id: str, snap: dict[str, Any]) -> None:
        """Hand ``snap`` to ``on_change`` unless a newer revision was handed already."""
        rev = int(snap.get("revision") or 0)
        if rev < self._published.get(match_id, 0):
            return
        self._published[match_id] = rev
        if self.on_change is not None:
            try:
                self.on_change(match_id, snap)
            except Exception:  # a broken subscriber must not undo a committed change
                log.exception("live: publishing the board of %s failed", match_id)

    def changed_elsewhere(self, match_id: str, revision: int) -> None:
        """Another process committed revision ``revision`` of ``match_id`` (a shared storage's
        notification): publish the new snapshot here unless this process already has."""
        if revision > self._published.get(match_id, 0):
            self._publish(match_id, self.snapshot(match_id))

    def touch(self, match_id: str) -> dict[str, Any]:
        """Publish the match's board again with a new revision (something outside the match changed
        what its board shows, e.g. its room's verdict was confirmed or released). Returns the snapshot."""
        self.row(match_id)
        with self.lock(match_id):
            return self._changed(match_id)

    def snapshot(self, match_id: str) -> dict[str, Any]:
        """The board snapshot of ``match_id`` (see :func:`adjudicator.live.rooms.board.board_snapshot`).
        Never waits for a long analysis: while one holds the match, the snapshot is built from the
        last committed checkpoint. Raises :class:`NotFound`."""
        self.row(match_id)
        if self.shared:
            return self._shared_snapshot(match_id)
        snap = self._snapshots.get(match_id)
        if snap is not None:
            return snap
        lock = self.lock(match_id)
        if not lock.acquire(timeout=0.2):
            return self._build_snapshot(match_id, dict(self.tracking.get_state(thread_config(match_id)).values))
        try:
            snap = self._snapshots.get(match_id) or self._build_snapshot(match_id)
            self._snapshots[match_id] = snap
            return snap
        finally:
            lock.release()

    def _shared_snapshot(self, match_id: str) -> dict[str, Any]:
        """The snapshot over a shared storage: the cached one while the stored revision is unchanged,
        else built from the last committed checkpoint without taking the match's lock."""
        rev = self.storage.revision(match_id)
        snap = self._snapshots.get(match_id)
        if snap is not None and snap.get("revision") == rev:
            return snap
        values = dict(self.tracking.get_state(thread_config(match_id)).values)
        if not values:  # created, but its thread not yet started (or a crash left it without one)
            with self.lock(match_id):
                return self._build_snapshot(match_id, revision=rev)
        snap = self._build_snapshot(match_id, values, revision=rev)
        self._snapshots[match_id] = snap
        return snap

    def list_matches(self, offset: int = 0, limit: int = LIST_PAGE) -> dict[str, Any]:
        """One page of match summaries in creation order: ``{"matches": [summary, ...], "total",
        "offset", "limit", "next_offset"}`` (``next_offset`` None on the last page). A summary is id,
        motion, format, status, stages received, analysed and failed, creation time and board URL
        (:func:`~adjudicator.live.rooms.board.match_summary`), read from the cached board or the match's
        checkpoint without building its board. ``offset`` >= 0, 1 <= ``limit`` <= :data:`LIST_PAGE_MAX`."""
        ids = self.match_ids()
        page = ids[offset : offset + limit]
        out = []
        for mid in page:
            row = self.row(mid)
            snap = None if self.shared else self._snapshots.get(mid)  # shared: another process may have moved on
            if snap is None:
                vals = None if self.shared else self._values.get(mid)
                if vals is None:
                    vals = dict(self.tracking.get_state(thread_config(mid)).values)
                snap = {
                    "match": {"match_id": mid, "motion": row.header.motion, "format": row.header.format},
                    "status": row.status,
                    "received": len(vals.get("stages") or []),
                    "analysed": int(vals.get("next_stage") or 0),
                    "failed": failed_stage_ids(cast(BattlefieldState, vals)),
                }
            out.append(match_summary(snap, row.created_at))
        end = offset + len(page)
        return {"matches": out, "total": len(ids), "offset": offset, "limit": limit, "next_offset": end if end < len(ids) else None}
