"""The offline tracker's reading of each live room, kept with the room: in the live database, so that
any server process (or this one after a restart, or after the room left its memory) takes the room up
where its last stage left it instead of reading the whole debate again.

The offline tracker keeps running counts of what it has read of a match (a
:class:`~adjudicator.judges.offline.reading.DebateReading`), so a stage costs time in proportion to that
stage alone. In one process's memory (:class:`~adjudicator.judges.offline.backend.MemoryShelf`, the
last eight matches) a ninth room, a restart, or a room whose stages land on different processes meant
reading the debate again from the motion on at every such stage (73 ms a stage instead of 17 ms on the
14-stage, 20,000-character 4v4 match, issue 32). :class:`RoomReadings` is the live store's shelf:

- after each stage's analysis (on PostgreSQL; on SQLite, one process, when the reading leaves memory
  and at the store's close: :class:`RoomReadings`) it saves the reading (:meth:`DebateReading.state
  <adjudicator.judges.offline.reading.DebateReading.state>`: plain data, msgpack-encoded with the
  checkpoints' serializer; nothing in it names a class to load) to one row per room, ``live_readings``
  (the SQLite file of the state folder, or the PostgreSQL database: :class:`SqlReadings`);
- for a stage it uses, in order: the reading in this process's memory if it holds exactly the stages
  before (the last ``cached`` rooms, least recently used dropped), else the saved row if *it* holds
  them (another process, or this one before a restart, read the last stage), else a fresh reading.
  "Holds" is checked stage by stage (:meth:`DebateReading.continues
  <adjudicator.judges.offline.reading.DebateReading.continues>`: the stage count and the last stages'
  ids and content digests), so a reading never answers for other stages: a stale or unreadable row
  costs a fresh read, never a different analysis;
- the row is deleted when the room's panel sits (:meth:`drop`).

Pushes to one room are serialised by the store's match lock (across processes on PostgreSQL), so one
room's row has one writer at a time. A failed save or load is logged and never fails the push.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, OrderedDict
from typing import Any, Protocol

from adjudicator.input.match import MatchView
from adjudicator.judges.base import StageRequest
from adjudicator.judges.offline.reading import DebateReading
from adjudicator.live.store.checkpoints import live_serde
from adjudicator.live.store.sql import Database

log = logging.getLogger("adjudicator.live")

class ReadingTable(Protocol):
    """One row per room: the saved reading's bytes (:func:`pack`)."""

    def load(self, match_id: str) -> bytes | None: ...

    def save(self, match_id: str, data: bytes) -> None: ...

    def delete(self, match_id: str) -> None: ...


def pack(state: dict[str, Any]) -> bytes:
    """A reading's state as msgpack bytes (the checkpoints' serializer, :func:`~adjudicator.live.store.checkpoints.live_serde`)."""
    kind, data = live_serde().dumps_typed(state)
    if kind != "msgpack":
        raise ValueError(f"a reading's state serialised as {kind!r}, not msgpack")
    return data


def unpack(data: bytes) -> dict[str, Any]:
    """The state :func:`pack` wrote. Raises ValueError for bytes that are not a state."""
    state = live_serde().loads_typed(("msgpack", data))
    if not isinstance(state, dict):
        raise ValueError("a saved reading is not a mapping")
    return state


class RoomReadings:
    """The live store's :class:`~adjudicator.judges.offline.backend.ReadingShelf` (module docstring):
    ``cached`` readings in memory (least recently used pushed out first) in front of ``table``.

    ``save_every_stage`` (a shared store: the next stage may go to another process) saves the reading
    after each stage; otherwise (SQLite: one process, whose memory is the reading's home) a reading is
    saved when it leaves memory and at :meth:`flush` (the store's close), which spares each push the
    write (7 ms of CPU on a 20,000-character match); after a crash the room's next stage reads it
    afresh once. ``counts`` says where each stage's reading came from: ``memory``, ``stored``
    (restored from the table) or ``fresh`` (read from the start), and ``saved`` / ``save_failed``;
    ``seconds`` the CPU time spent restoring and saving."""

    def __init__(self, table: ReadingTable, cached: int, *, save_every_stage: bool = True) -> None:
        self.table, self.cached, self.save_every_stage = table, max(1, cached), save_every_stage
        self._memory: OrderedDict[str, DebateReading] = OrderedDict()
        self._memory_lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.seconds: dict[str, float] = {"restore": 0.0, "save": 0.0}  # CPU seconds of the calling threads (benchmarks/live_rooms.py)
        self._count_lock = threading.Lock()

    def _count(self, what: str, seconds: float = 0.0, kind: str = "") -> None:
        with self._count_lock:
            self.counts[what] += 1
            if kind:
                self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds

    def _recall(self, match_id: str) -> DebateReading | None:
        with self._memory_lock:
            reading = self._memory.get(match_id)
            if reading is not None:
                self._memory.move_to_end(match_id)
            return reading

    def _remember(self, match_id: str, reading: DebateReading) -> None:
        """Keep ``reading`` in memory; those pushed out past ``cached`` are saved first unless every
        stage is (each under its own lock, outside the memory's)."""
        with self._memory_lock:
            self._memory[match_id] = reading
            self._memory.move_to_end(match_id)
            out = [self._memory.popitem(last=False) for _ in range(len(self._memory) - self.cached)]
        if not self.save_every_stage:
            for mid, old in out:
                with old.lock:
                    self._save(mid, old)

    def reading(self, request: StageRequest) -> DebateReading:
        match_id = request.match.match_id
        kept = self._recall(match_id)
        if kept is not None and kept.continues(request.previous, request.stage):
            self._count("memory")
            return kept
        t0 = time.thread_time()
        restored = self._restore(request)
        if restored is not None:
            self._count("stored", time.thread_time() - t0, "restore")
            self._remember(match_id, restored)
            return restored
        self._count("fresh")
        fresh = DebateReading(request.match)
        self._remember(match_id, fresh)
        return fresh

    def _restore(self, request: StageRequest) -> DebateReading | None:
        """The saved reading of the room when it holds the request's earlier stages, else None."""
        match_id = request.match.match_id
        try:
            data = self.table.load(match_id)
            restored = DebateReading.from_state(request.match, unpack(data)) if data is not None else None
        except Exception:  # an unreadable row costs a fresh read, never the push
            log.exception("live: the saved reading of %s could not be read; reading the match afresh", match_id)
            return None
        return restored if restored is not None and restored.continues(request.previous, request.stage) else None

    def _save(self, match_id: str, reading: DebateReading) -> None:
        """Write the reading's row (the caller holds ``reading.lock``); a failure is logged."""
        t0 = time.thread_time()
        try:
            self.table.save(match_id, pack(reading.state()))
            self._count("saved", time.thread_time() - t0, "save")
        except Exception:  # the analysis stands; the next process reads the match afresh
            self._count("save_failed")
            log.exception("live: saving the reading of %s failed", match_id)

    def advanced(self, request: StageRequest, reading: DebateReading) -> None:
        if self.save_every_stage:
            self._save(request.match.match_id, reading)

    def flush(self) -> None:
        """Save every reading in memory (the store's close; nothing to do when every stage is saved)."""
        if self.save_every_stage:
            return
        with self._memory_lock:
            kept = list(self._memory.items())
        for match_id, reading in kept:
            with reading.lock:
                self._save(match_id, reading)

    def drop(self, match: MatchView) -> None:
        self.forget(match.match_id)

    def forget(self, match_id: str) -> None:
        """Drop the room's reading from memory and from the table (its panel sits)."""
        with self._memory_lock:
            self._memory.pop(match_id, None)
        try:
            self.table.delete(match_id)
        except Exception:
            log.exception("live: deleting the reading of %s failed", match_id)

    def __len__(self) -> int:
        """Readings in this process's memory."""
        with self._memory_lock:
            return len(self._memory)


class SqlReadings:
    """``live_readings`` (:mod:`.schema`) on the live database: the SQLite file of the state folder (on
    the checkpointer's connection and lock) or the PostgreSQL database (its data pool)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self, match_id: str) -> bytes | None:
        row = self.db.one("SELECT state FROM live_readings WHERE match_id = ?", (match_id,))
        return None if row is None else bytes(row[0])

    def save(self, match_id: str, data: bytes) -> None:
        """Upsert the row, committed without waiting for the disk (SQLite: ``synchronous = OFF`` for this
        one commit, the next checkpoint's commit syncs the log with it; PostgreSQL: an asynchronous
        commit): the row is derived data, and one lost in a crash costs a fresh read, where waiting for
        the disk cost a push one more fsync (7 ms here)."""
        with self.db.tx(durable=False) as tx:
            tx.execute("INSERT INTO live_readings (match_id, state) VALUES (?, ?) ON CONFLICT (match_id) DO UPDATE SET state = excluded.state", (match_id, data))

    def delete(self, match_id: str) -> None:
        with self.db.tx() as tx:
            tx.execute("DELETE FROM live_readings WHERE match_id = ?", (match_id,))

    def __len__(self) -> int:
        row = self.db.one("SELECT COUNT(*) FROM live_readings")
        return 0 if row is None else int(row[0])


def with_room_readings(context: Any, table: ReadingTable, cached: int, *, shared: bool) -> tuple[Any, RoomReadings]:
    """A :class:`RoomReadings` over ``table`` (saving every stage when the store is ``shared``) and
    ``context`` with its tracker keeping its readings there (a tracker with ``with_readings``, the
    offline judge, in a dataclass context); a tracker that keeps no reading (an LLM) leaves
    ``context`` as it is and the shelf unused."""
    from dataclasses import is_dataclass, replace

    shelf = RoomReadings(table, cached, save_every_stage=shared)
    bind = getattr(context.tracker, "with_readings", None)
    if bind is None or not is_dataclass(context) or isinstance(context, type):
        return context, shelf
    return replace(context, tracker=bind(shelf)), shelf
