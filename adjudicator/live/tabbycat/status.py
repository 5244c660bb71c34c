"""Where each room of a round stands in Tabbycat, from the lifecycle log's ``tabbycat_push`` entries
(:mod:`~adjudicator.live.tabbycat.service` writes one per push outcome; nothing is stored beside them):
the round overview and ``adjudicate live round show`` show it per room.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from adjudicator.live.tournament.lifecycle import LogEntry

#: The fields of a push outcome a room's status keeps (:class:`~adjudicator.live.tabbycat.outcome.PushOutcome`).
KEPT = ("status", "reason", "setting", "debate", "ballot_id", "ballot_version", "decision_version", "url")


def push_status(entries: Iterable[LogEntry]) -> dict[str, dict[str, Any]]:
    """Room id -> its last push outcome: ``status`` (posted, unchanged, refused, conflict, kept,
    retracted, failed), ``at`` (UTC ISO 8601), and where the outcome has them ``reason``, ``setting``
    (the Tabbycat setting refused on), ``debate``, ``ballot_id``, ``ballot_version``,
    ``decision_version``, ``url``; ``tabbycat`` (for a conflict: what Tabbycat counts that the room
    did not post) and ``resolution`` (a tab-room person's ``ours``/``theirs``, with who and why).
    Rooms never pushed are absent."""
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        if e.kind != "tabbycat_push" or not e.room_id:
            continue
        d = e.detail
        row = {"at": e.at} | {k: d[k] for k in KEPT if d.get(k) not in (None, "")}
        row |= {k: d[k] for k in ("tabbycat", "resolution") if d.get(k)}
        out[e.room_id] = row
    return out


def with_push_status(rooms: list[dict[str, Any]], log: Callable[[], Iterable[LogEntry]]) -> list[dict[str, Any]]:
    """The round view's room rows, each row its reader may see whole (the organiser's, the room's
    chair's: it has ``decision``) with ``tabbycat_push``, its :func:`push_status` (None: never pushed);
    ``log`` reads the round's log, only when such a row is there."""
    if not any("decision" in r for r in rooms):
        return rooms
    pushes = push_status(log())
    return [r | {"tabbycat_push": pushes.get(r["room_id"])} if "decision" in r else r for r in rooms]


def status_line(s: dict[str, Any] | None) -> str:
    """A room's Tabbycat status in a few words: ``posted ballot 40 v1``, ``refused (winners_in_ballots)``,
    ``conflict debate 12``, ``kept (theirs)``; "" when never pushed."""
    if not s:
        return ""
    words = [s["status"]]
    if s.get("ballot_id") is not None and s["status"] in ("posted", "unchanged", "retracted", "failed"):
        words.append(f"ballot {s['ballot_id']}" + (f" v{s['ballot_version']}" if s.get("ballot_version") is not None else ""))
    elif s.get("debate") is not None and s["status"] in ("conflict", "kept"):
        words.append(f"debate {s['debate']}")
    if s.get("setting"):
        words.append(f"({s['setting']})")
    return " ".join(words)
