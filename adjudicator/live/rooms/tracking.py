"""The live store: one clash-tracking thread per live match and, at close, its panel, orchestrated over
a :class:`~adjudicator.live.store.storage.LiveStorage` (checkpointer, match registry, verdicts, a lock and a
board revision per match: SQLite in the state folder by default, or PostgreSQL shared by several server
processes, :mod:`adjudicator.live.store.postgres`) and the validation of what is pushed (:mod:`.validation`).

State directory layout (``STATE_DIR``)::

    live.sqlite          LangGraph SqliteSaver checkpoints + the ``live_matches`` registry table
    access.json          organiser URL, board URL and access token (written by ``serve``, mode 0600)
    verdicts/<id>.json   the panel's verdict of each closed match
    reports/<id>.md      its Markdown report

How a push is made durable and analysed exactly once (thread id = match id):

1. *receive*: the stage is validated against the header and the stages already received (the same
   validation and one-line messages as the CLI), then committed to the thread as one checkpoint
   (``update_state`` as if by ``track_stage``, whose route then names ``track_stage`` as the next
   step): the stage is durable before anything is analysed. (Invoking the graph up to an
   ``interrupt_before`` did the same in two checkpoints and one set of writes, issue 32.)
2. *analyse*: the graph is resumed (``invoke(None)``); ``track_stage`` runs once per pending stage and
   each run is checkpointed before the next starts.

A server killed at any point restarts (:meth:`LiveStore.recover`) from the last committed checkpoint: a
received but unanalysed stage is still pending (``next_stage < len(stages)``) and is analysed then;
analysed stages are never analysed again; a push repeated by a client whose connection dropped is
recognised by its ``stage_id`` (same content: accepted as a duplicate; other content: 409).
``close`` runs the panel graph in its own thread (``<id>:panel:<attempt>``, same checkpointer), so a
crash during the panel resumes the judges that had not finished.

Checkpoint history is pruned to each thread's latest checkpoint and its pending writes
(:mod:`adjudicator.live.store.checkpoints` says why that is enough).

Pushes to one match are serialised by the storage's per-match lock (a ``threading.RLock`` on SQLite, a
PostgreSQL advisory lock across processes); matches share only the compiled graphs, the database and
the (stateless or thread-safe) backends. Over a shared storage a match's state is cached only while
its lock is held (dropped at each acquisition) and a board snapshot only while its stored revision is
unchanged (:class:`~adjudicator.live.rooms.snapshots.BoardSnapshots`, the store's base class).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from adjudicator.errors import AdjudicationFailed
from adjudicator.input.match import Stage
from adjudicator.live.errors import Conflict, NotFound
from adjudicator.live.rooms.board import missing_speeches, push_reply
from adjudicator.live.rooms.cache import BoundedCache
from adjudicator.live.rooms.snapshots import BoardSnapshots
from adjudicator.live.rooms.validation import resent_stage, validate_complete, validate_header, validate_push
from adjudicator.live.store.checkpoints import DB_NAME, keeps_full_values, panel_thread_id, thread_config
from adjudicator.live.store.readings import with_room_readings
from adjudicator.live.store.registry import MatchRow
from adjudicator.live.store.storage import LiveStorage, MatchLock, SqliteStorage
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.battlefield import BattlefieldState, append_stages, failed_stage_ids
from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.nodes import stage_update

log = logging.getLogger("adjudicator.live")

#: Matches one server keeps (``live serve --max-matches``): a create beyond it is refused (409).
MAX_MATCHES = 1000
#: Matches whose tracking state and board stay in memory, most recently used first; the others are
#: read back from their checkpoints when asked for.
CACHED_MATCHES = 64


class LiveStore(BoardSnapshots):
    """Live matches in ``state_dir`` adjudicated with ``context``.

    ``on_change(match_id, snapshot)`` is called (from the thread that made the change, with the
    match's lock held) after every committed change; the app uses it to publish server-sent events.
    ``on_closed(match_id, verdict)`` is called once the verdict of a close is stored and the match is
    marked closed, before that change is published (the tournament desk records the room's draft
    there); an exception it raises is logged, never undoes the close.
    Methods raise :class:`~adjudicator.live.errors.LiveRequestError` subclasses for bad requests and
    :class:`~adjudicator.errors.AdjudicationFailed` when a backend fault stops an analysis or the panel
    (finished work stays in the checkpoints).

    ``storage`` is where the state lives (default: :class:`~adjudicator.live.store.storage.SqliteStorage`
    in ``state_dir``); the store closes it in :meth:`close`.
    """

    def __init__(
        self,
        state_dir: str | Path,
        context: AdjudicationContext,
        on_change: Callable[[str, dict], None] | None = None,
        on_closed: Callable[[str, Verdict], None] | None = None,
        storage: LiveStorage | None = None,
        *,
        max_matches: int = MAX_MATCHES,
        cached_matches: int = CACHED_MATCHES,
    ) -> None:
        from adjudicator.workflow import panel as panel_graph
        from adjudicator.workflow import tracking as tracking_graph

        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        # one stage per request whatever --track-window-chars says: stages are analysed as pushed, so a
        # window would depend on how many happened to wait, and a board update on the stages after it
        self.context = replace(context, track_window_chars=0) if isinstance(context, AdjudicationContext) else context
        self.on_change, self.on_closed = on_change, on_closed
        self.db_path = self.state_dir / DB_NAME
        self.storage: LiveStorage = storage if storage is not None else SqliteStorage(self.state_dir)
        self.shared = self.storage.shared
        self.saver, self.registry, self.verdicts = self.storage.saver, self.storage.registry, self.storage.verdicts
        # the offline tracker keeps each room's reading with the room (adjudicator.live.store.readings)
        self.context, self.readings = with_room_readings(self.context, self.storage.readings, cached_matches, shared=self.shared)
        self.tracking = tracking_graph.build(checkpointer=self.saver)
        self.panel = panel_graph.build(checkpointer=self.saver)
        # keep-latest pruning needs every channel's full value in each checkpoint (see prune_thread)
        self.prune_history = keeps_full_values(self.tracking) and keeps_full_values(self.panel)
        self._create_lock = threading.Lock()
        # match id -> tracking state as last committed / board snapshot: the most recently used
        # ``cached_matches`` of each (an evicted match is read back from its checkpoint)
        self._values: BoundedCache[dict[str, Any]] = BoundedCache(cached_matches)
        self._snapshots: BoundedCache[dict[str, Any]] = BoundedCache(cached_matches)
        self.max_matches = max_matches
        self._published: dict[str, int] = {}  # match id -> the latest revision handed to on_change
        self._errors: dict[str, str] = {}  # match id -> the last analysis or panel fault, shown on the board
        self._executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="live-analyse")
        self._closed = False
        self.recovered = threading.Event()

    # ---- registry

    def row(self, match_id: str) -> MatchRow:
        """The registry row of ``match_id``. Raises :class:`NotFound` (404)."""
        return self.registry.get(match_id)

    def lock(self, match_id: str) -> MatchLock:
        """The lock that serialises every change to one match (across processes on a shared storage)."""
        return self.storage.lock(match_id, on_acquire=(lambda: self._forget(match_id)) if self.shared else None)

    def _forget(self, match_id: str) -> None:
        """Drop what this process cached of a match (a shared storage: another process may have changed it)."""
        self._values.pop(match_id, None)
        self._snapshots.pop(match_id, None)

    def match_ids(self) -> list[str]:
        """Every live match id, in creation order."""
        return self.registry.ids()

    def stages(self, match_id: str) -> list[Stage]:
        """The stages received so far (the exporter reads who spoke in each). Raises :class:`NotFound`."""
        self.row(match_id)
        if self.shared:
            return list(self.tracking.get_state(thread_config(match_id)).values.get("stages") or [])
        return list(self.tracking_values(match_id).get("stages") or [])

    # ---- the tracking thread of a match (thread id = match id)

    def tracking_values(self, match_id: str) -> dict[str, Any]:
        """The match's tracking state as last committed: cached, else read from its checkpoint, else
        (a crash left the thread without one) the state of a newly started thread."""
        vals = self._values.get(match_id)
        if vals is None:
            vals = dict(self.tracking.get_state(thread_config(match_id)).values)
            if not vals:
                vals = self._init_thread(match_id)
            self._values[match_id] = vals
        return vals

    def _init_thread(self, match_id: str) -> dict[str, Any]:
        """Start the match's tracking thread (header, no stages) in a committed checkpoint."""
        header = self.row(match_id).header
        out = self.tracking.invoke({"match": header, "stages": [], "next_stage": 0}, thread_config(match_id), context=self.context, durability="sync")
        vals = dict(out)
        self._values[match_id] = vals
        self._prune(match_id)
        return vals

    def _invoke_tracking(self, match_id: str, payload: dict | None) -> dict[str, Any]:
        """Run the tracking graph on the match's thread with ``payload`` (None resumes a paused run);
        each step is committed before the next (``durability="sync"``) and superseded checkpoints
        are pruned. Returns the new state."""
        n = len(self.tracking_values(match_id).get("stages") or []) + 1
        out = self.tracking.invoke(
            payload,
            thread_config(match_id, n),
            context=self.context,
            durability="sync",
        )
        vals = {k: v for k, v in dict(out).items() if not k.startswith("__")}
        self._values[match_id] = vals
        self._prune(match_id)
        return vals

    def commit_tracking(self, match_id: str, update: dict[str, Any]) -> None:
        """Commit ``update`` to the match's tracking thread as a ``track_stage`` step (a re-push's rewind)."""
        self.tracking.update_state(thread_config(match_id), update, as_node="track_stage")
        self._values.pop(match_id, None)
        self._prune(match_id)

    def _prune(self, *thread_ids: str) -> None:
        """Drop the superseded checkpoints of these threads (see :mod:`adjudicator.live.store.checkpoints`)."""
        if self.prune_history:
            self.storage.prune(thread_ids)

    # ---- operations

    def create(self, data: object) -> dict[str, Any]:
        """Register a live match from a header body (see :func:`validate_header`) and start its thread.
        Returns its snapshot. Raises :class:`Unprocessable` (422) or :class:`Conflict` (409) when the id
        is taken."""
        header = validate_header(data)
        with self._create_lock:
            if header.match_id in self.registry:  # another process may still take it first: insert raises Conflict then
                raise Conflict(f"match {header.match_id!r} already exists", "choose another match_id, or push to the existing match", field="match_id")
            self.check_capacity()
            row = MatchRow.new(header)
            with self.lock(row.match_id):
                self.registry.insert(row)
                self._init_thread(row.match_id)
                return self._changed(row.match_id)

    def check_capacity(self) -> None:
        """Raises :class:`Conflict` (409) when the server already holds ``max_matches`` matches (a
        tournament room checks this before it stores anything)."""
        n = len(self.registry.ids())
        if n >= self.max_matches:
            raise Conflict(
                f"this server holds {n} matches, its limit (--max-matches {self.max_matches})",
                "serve further matches from a new --state-dir, or restart this one with a higher --max-matches",
            )

    def receive(self, match_id: str, data: object) -> tuple[str, bool]:
        """Durably record one pushed stage without analysing it. Returns (stage_id, duplicate).

        A stage id already received with identical content is a duplicate (nothing changes); with
        other content it is a :class:`Conflict`. Raises :class:`NotFound`, :class:`Conflict` (match not
        open) or :class:`Unprocessable` (invalid stage)."""
        row = self.row(match_id)
        with self.lock(match_id):
            row = self.row(match_id)
            if row.status != "open":
                raise Conflict(f"match {match_id!r} is {row.status}; it takes no more stages", "create a new match for another debate")
            stages: list[Stage] = list(self.tracking_values(match_id).get("stages") or [])
            resent = resent_stage(stages, data)
            if resent is not None:
                return resent.stage_id, True
            stage = validate_push(row.header, stages, data)
            self.tracking.update_state(thread_config(match_id), {"stages": [stage]}, as_node="track_stage")  # pruned after the analysis
            self._values[match_id] = self.tracking_values(match_id) | {"stages": append_stages(stages, [stage])}
            self._changed(match_id)
            return stage.stage_id, False

    def pending(self, match_id: str) -> list[str]:
        """Ids of received stages whose analysis has not completed."""
        vals = self.tracking_values(match_id)
        stages = vals.get("stages") or []
        return [s.stage_id for s in stages[int(vals.get("next_stage") or 0) :]]

    def analyse(self, match_id: str, paused: bool | None = None) -> dict[str, Any]:
        """Analyse every pending stage of ``match_id`` (normally the one just received), each once,
        in order; ``paused``: whether the thread waits before ``track_stage`` (None: read it). Returns
        the snapshot. Raises :class:`AdjudicationFailed` if the backend raised (the stage stays
        pending and is retried by the next push, close or restart)."""
        self.row(match_id)
        with self.lock(match_id):
            pending = self.pending(match_id)
            if not pending:
                return self.snapshot(match_id)
            if paused is None:
                paused = bool(self.tracking.get_state(thread_config(match_id)).next)
            try:
                self._invoke_tracking(match_id, None if paused else {"stages": []})
            except Exception as exc:
                self._values.pop(match_id, None)  # re-read what was committed
                left = self.pending(match_id)
                self._errors[match_id] = f"analysis of stage {left[0] if left else pending[0]} did not complete: {type(exc).__name__}: {exc}"
                self._changed(match_id)
                raise AdjudicationFailed(
                    f"match {match_id!r}: {self._errors[match_id]}",
                    "the stage is stored; its analysis is retried on the next push, close or server restart",
                ) from exc
            self._errors.pop(match_id, None)
            return self._changed(match_id)

    def failed(self, match_id: str) -> list[str]:
        """Ids of the stages whose analysis failed and has not succeeded since, in stage order."""
        return failed_stage_ids(cast(BattlefieldState, self.tracking_values(match_id)))

    def retry(self, match_id: str, stage_id: str | None = None) -> dict[str, Any]:
        """Analyse again the failed stage ``stage_id`` (every failed stage when None), in stage order,
        each against the clash map as it stands now; a success supersedes the failure (the board and
        the verdict then show the analysis). Returns the snapshot.

        Raises :class:`NotFound` for an unknown match or stage, :class:`Conflict` when the match is not
        open or the stage has not failed, :class:`AdjudicationFailed` when a retried analysis fails
        again (the failure is recorded; the stage stays failed)."""
        self.row(match_id)
        with self.lock(match_id):
            row = self.row(match_id)
            if row.status != "open":
                raise Conflict(f"match {match_id!r} is {row.status}; its stages are final", "retry stages before closing the match")
            failed = self.failed(match_id)
            if stage_id is not None:
                known = [s.stage_id for s in self.tracking_values(match_id).get("stages") or []]
                if stage_id not in known:
                    raise NotFound(f"match {match_id!r} has no stage {stage_id!r}", "give the id of a received stage", field="stage_id")
                if stage_id not in failed:
                    state = "is still pending" if stage_id in self.pending(match_id) else "was analysed"
                    raise Conflict(f"stage {stage_id!r} of match {match_id!r} {state}; only a failed stage is retried", field="stage_id")
            still = self.retry_stages(match_id, failed if stage_id is None else [stage_id])
            snap = self._changed(match_id)
            if still:
                raise AdjudicationFailed(
                    f"match {match_id!r}: the analysis of {', '.join(still)} failed again: {self._errors.get(match_id) or 'see the board'}",
                    f"retry later (`adjudicate live retry {match_id} {still[0]}`); the stage is not analysed until then",
                )
            return snap

    def retry_failed(self, match_id: str) -> list[str]:
        """Retry every failed stage of an open match once (the next push and close do this). Returns
        the ids still failed; never raises for a failed analysis (it is recorded and shown)."""
        with self.lock(match_id):
            failed = self.failed(match_id)
            if not failed or self.row(match_id).status != "open":
                return failed
            still = self.retry_stages(match_id, failed)
            self._changed(match_id)
            return still

    def retry_stages(self, match_id: str, stage_ids: list[str]) -> list[str]:
        """Run the tracker on each of ``stage_ids`` and commit each result to the match's thread as a
        ``track_stage`` update (durably, before the next). Returns the ids that failed again."""
        still: list[str] = []
        for sid in stage_ids:
            vals = self.tracking_values(match_id)
            i = next(k for k, s in enumerate(vals.get("stages") or []) if s.stage_id == sid)
            try:
                update = stage_update(cast(BattlefieldState, vals), i, self.context)
            except Exception as exc:  # a backend that raises: like a failed analysis, nothing is committed
                self._errors[match_id] = f"retry of stage {sid} did not complete: {type(exc).__name__}: {exc}"
                still.append(sid)
                continue
            self.tracking.update_state(thread_config(match_id), update, as_node="track_stage")
            self._values.pop(match_id, None)
            self._prune(match_id)
            if "analyses" in update:
                self._errors.pop(match_id, None)
            else:
                reason = update["failures"][0].reason if update.get("failures") else "no analysis"
                self._errors[match_id] = f"retry of stage {sid} failed: {reason}"
                still.append(sid)
        return still

    def _analyse_quietly(self, match_id: str) -> None:
        try:
            self.analyse(match_id)
        except Exception:
            log.exception("live: background analysis of %s failed", match_id)

    def push(self, match_id: str, data: object, wait: bool = True) -> dict[str, Any]:
        """Receive one stage and (``wait``) analyse it before returning, or queue the analysis.

        Stages whose analysis failed earlier are retried first (:meth:`retry_failed`). Returns
        ``{"match_id", "stage_id", "duplicate", "status": "analysed" | "failed" | "queued", "received",
        "analysed", "failed", "pending", "latest", "tendency", "next_slot"}``."""
        self.row(match_id)
        with self.lock(match_id):
            stage_id, duplicate = self.receive(match_id, data)
            if wait:
                self.retry_failed(match_id)  # a stage that failed before is analysed again first, in order
            snap = self.analyse(match_id, paused=not duplicate or None) if wait else self.snapshot(match_id)  # a new stage waits for track_stage
        if not wait and snap["pending"]:
            self._executor.submit(self._analyse_quietly, match_id)
        return push_reply(snap, stage_id, duplicate)

    def verdict(self, match_id: str) -> Verdict | None:
        """The stored verdict of a closed match, else None."""
        return self.verdicts.read(match_id)

    def close_match(self, match_id: str, force: bool = False) -> Verdict:
        """Finish pending analyses, run the panel on the final battlefield state, store the verdict
        (``verdicts/<id>.json``) and the Markdown report (``reports/<id>.md``), and mark the match closed.

        Stages whose analysis failed are retried first; if any is still failed the match is not closed
        (:class:`Conflict`, naming them: a verdict would silently miss their units).
        Idempotent: closing a closed match returns its verdict. Raises :class:`Conflict` with no stage, or
        (unless ``force``) when a speech seems missing (:func:`~adjudicator.live.rooms.board.missing_speeches`),
        :class:`Unprocessable` when a fixed-order match is incomplete, :class:`AdjudicationFailed` when
        the panel produced no verdict (the match stays open and can be closed again)."""
        self.row(match_id)
        with self.lock(match_id):
            row = self.row(match_id)
            if row.status == "closed":
                v = self.verdict(match_id)
                if v is not None:
                    return v
            self.analyse(match_id)
            vals = self.tracking_values(match_id)
            stages = list(vals.get("stages") or [])
            if not stages:
                raise Conflict(f"match {match_id!r} has no stages yet", "push at least one stage before closing")
            validate_complete(row.header, stages)
            missing = missing_speeches(row.header, stages) if row.status == "open" and not force else None
            if missing:
                raise Conflict(f"match {match_id!r}: {missing}", f"push it, or close anyway (`adjudicate live close {match_id} --force`)", field="stages")
            if row.status == "open" and self.retry_failed(match_id):
                failed = self.failed(match_id)
                raise Conflict(
                    f"match {match_id!r}: the analysis of {len(failed)} stage(s) failed ({', '.join(failed)}); a verdict would miss them",
                    f"retry them (`adjudicate live retry {match_id} {failed[0]}`) and close again",
                    field="stages",
                )
            vals = self.tracking_values(match_id)
            if row.status != "closing":
                row = row.closing()
                self.registry.update(row)
                self._changed(match_id)
            state = self._run_panel(row, vals, len(stages))
            verdict = state.get("verdict")
            if verdict is None:
                err = state.get("panel_error") or "the panel produced no verdict"
                self.registry.update(row.reopened(err))
                self._changed(match_id)
                raise AdjudicationFailed(f"match {match_id!r}: {err}", "close the match again to retry the panel")
            self.verdicts.write(match_id, verdict)
            self.readings.forget(match_id)
            self.registry.update(row.closed())
            self._prune(match_id, *(panel_thread_id(match_id, k) for k in range(1, row.panel_attempt + 1)))
            if self.on_closed is not None:
                try:
                    self.on_closed(match_id, verdict)
                except Exception:  # the verdict is stored; the desk's recovery records what this missed
                    log.exception("live: recording the close of %s failed", match_id)
            self._changed(match_id)
            return verdict

    def _run_panel(self, row: MatchRow, values: dict[str, Any], n_stages: int) -> dict[str, Any]:
        """The final state of panel attempt ``row.panel_attempt`` on the tracking state ``values``:
        started, resumed (judges left by a crash or a backend error), or read back when it had
        finished. Raises :class:`AdjudicationFailed` when the panel raised (the attempt resumes on the
        next close)."""
        match_id = row.match_id
        cfg = thread_config(panel_thread_id(match_id, row.panel_attempt), n_stages)
        snap = self.panel.get_state(cfg)
        try:
            if snap.next:  # a panel interrupted by a crash or a backend error: finish the judges left
                state = self.panel.invoke(None, cfg, context=self.context, durability="sync")
            elif snap.values.get("verdict") is not None or snap.values.get("panel_error"):
                state = snap.values  # the panel finished before the crash; only the files were missing
            else:
                state = self.panel.invoke(dict(values), cfg, context=self.context, durability="sync")
        except Exception as exc:
            self._errors[match_id] = f"the panel did not complete: {type(exc).__name__}: {exc}"
            self._changed(match_id)
            raise AdjudicationFailed(f"match {match_id!r}: {self._errors[match_id]}", "close the match again to resume the panel") from exc
        self._errors.pop(match_id, None)
        return state

    def recover(self) -> list[str]:
        """After a (re)start: initialise any thread a crash left without a checkpoint, analyse the
        stages received but not analysed, and finish closes that were interrupted. Returns the ids of
        matches where work was resumed. Errors are logged and shown on the board, never raised."""
        resumed: list[str] = []
        try:
            for mid in self.match_ids():
                if self._closed:
                    break
                try:
                    with self.lock(mid):
                        row = self.row(mid)
                        if self.pending(mid) and row.status != "closed":
                            resumed.append(mid)
                            self.analyse(mid)
                        if row.status == "closing":
                            if mid not in resumed:
                                resumed.append(mid)
                            self.close_match(mid)
                except Exception as exc:
                    log.error("live: resuming match %s failed: %s", mid, exc)
        finally:
            self.recovered.set()
        return resumed

    def close(self) -> None:
        """Stop the background analyses and close the storage."""
        self._closed = True
        self._executor.shutdown(wait=True, cancel_futures=True)  # queued analyses resume at the next start
        self.readings.flush()
        self.storage.close()
