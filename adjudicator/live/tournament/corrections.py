"""Corrections with a trail (issue 27, item 9): the organiser reopens or voids a room's result, and every
stage pushed and every close of a room's match is a line of the tournament's lifecycle log.

- :func:`correct` applies :func:`~adjudicator.live.tournament.lifecycle.reopen` or
  :func:`~adjudicator.live.tournament.lifecycle.void` to a room's current decision under the tab room's
  transition lock, in one compare-and-set transaction with its log entry (person, time, reason, the
  result before and after), then republishes the room's board.
- :func:`record_match_event` appends ``stage_pushed`` (stage id, whether it was a duplicate, its
  characters) or ``match_closed`` (winner, p, forced) for a room's match, with the token's actor.
- :func:`log_csv` is the round's lifecycle log as CSV, the trail exported with the round's results
  (cells that would start a spreadsheet formula are neutralised, :func:`~adjudicator.live.tournament.results_csv.cell`).

The log is append-only: entries are only ever added (the stores have no update or delete of a log row).
"""

from __future__ import annotations

import csv
import io
import json
import logging
from typing import Any, Literal

from adjudicator.live.store.tournament_store import StaleDecision
from adjudicator.live.tournament import lifecycle
from adjudicator.live.tournament.access import require_organiser
from adjudicator.live.tournament.lifecycle import Actor, CorrectionBody, LogEntry, LogKind
from adjudicator.live.tournament.model import now_utc, parse_body
from adjudicator.live.tournament.results_csv import cell
from adjudicator.live.tournament.tabroom import Key, TabRoom

log = logging.getLogger("adjudicator.live")

LOG_COLUMNS = ("seq", "at", "round_id", "room_id", "kind", "role", "person", "from_state", "to_state", "version", "detail")


def correct(tabs: TabRoom, key: Key, data: object, actor: Actor, what: Literal["reopen", "void"]) -> dict[str, Any]:
    """Reopen or void room ``key``'s result (:class:`~adjudicator.live.tournament.lifecycle.CorrectionBody`) as
    the organiser. Returns the room's view. Raises 403 (not the organiser), 404, 409 (no decision yet,
    nothing to reopen, void already, or changed since ``expected_version``), 422 (no reason)."""
    require_organiser(actor, f"{'reopening' if what == 'reopen' else 'voiding'} a result")
    room = tabs.room(key)
    body = parse_body(CorrectionBody, data, what)
    tabs.current_decision(room)  # records a draft a close missed, before the lock is taken
    with tabs.transition_lock:
        d = tabs.store.decision(room.key)
        if d is None:
            raise tabs.no_decision(room)
        if body.expected_version is not None and body.expected_version != d.version:
            raise StaleDecision(f"room {room.room_id!r}: the verdict is at version {d.version}, not {body.expected_version}", "reload the room and act again")
        step = lifecycle.reopen if what == "reopen" else lifecycle.void
        new, entry = step(d, actor, body.reason.strip(), now_utc())
        tabs.store.save_decisions([(new, d.version)], [entry])
    tabs.republish(room)
    return tabs.room_view(key, actor)


def record_match_event(tabs: TabRoom, match_id: str, kind: LogKind, actor: Actor, detail: dict[str, Any]) -> None:
    """Append ``kind`` for the room whose match is ``match_id`` (nothing for a stand-alone match). A
    failure to log is logged and does not undo the push or close it records (both are committed)."""
    room = tabs.room_of_match(match_id)
    if room is None:
        return
    entry = LogEntry(at=now_utc(), tournament_id=room.tournament_id, round_id=room.round_id, room_id=room.room_id, kind=kind, actor=actor, detail=detail)
    try:
        tabs.store.save_decisions([], [entry])
    except Exception:
        log.exception("live: the lifecycle log missed %s of %s", kind, match_id)


def log_csv(entries: list[LogEntry]) -> str:
    """The lifecycle log as CSV (:data:`LOG_COLUMNS`; ``detail`` as one JSON cell)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(LOG_COLUMNS)
    for e in entries:
        row = [e.seq, e.at, e.round_id or "", e.room_id or "", e.kind, e.actor.role, e.actor.name, e.from_state or "", e.to_state or "",
               "" if e.version is None else e.version, json.dumps(e.detail, ensure_ascii=False, sort_keys=True)]
        w.writerow([cell(str(v)) for v in row])
    return out.getvalue()
