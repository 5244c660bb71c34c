"""What a run tells its readers about its state: ``status.json``, the ``sessions.jsonl`` events and the
lines on stderr.

- ``status.json`` (rewritten atomically): ``{"state", "reason", ..., "updated_at"}``, ``state``
  ``running`` while a session runs its samples, ``reporting`` while it writes the reports (with the
  coming end state as ``outcome`` and ``"reports": "missing"``), then its end state (see
  :mod:`adjudicator.bench.stops`) with ``"reports": "written"``; ``interrupted`` (reason
  ``interrupted``, ``terminated`` or ``killed``) or ``failed`` / reason ``error`` when the session
  stopped early (see :mod:`adjudicator.bench.runner`).
- ``sessions.jsonl`` (append-only): one ``{"event": "start", "session", "at", ...}`` line when a
  session starts and one ``{"event": "end", ...}`` line when it ends; the session number of the
  next invocation is one more than the number of start lines.
- stderr: progress notes, and :func:`summary_lines` at the end of a session.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from adjudicator.bench.layout import REPORT_HTML, REPORT_JSON, REPORT_MD, SESSIONS, STATUS, iso, utc_now
from adjudicator.bench.ledger import Ledger, cost_text
from adjudicator.files import append_json_line, atomic_write_json, read_json


def echo(msg: str) -> None:
    """One line on stderr (flushed)."""
    print(msg, file=sys.stderr, flush=True)


def write_status(run_dir: Path, **fields: Any) -> None:
    """Write ``status.json`` atomically with ``updated_at``."""
    atomic_write_json(run_dir / STATUS, {**fields, "updated_at": iso(utc_now())})


def read_status(run_dir: Path) -> dict[str, Any] | None:
    """The run's status, or None when it has none yet."""
    path = run_dir / STATUS
    return read_json(path) if path.exists() else None


#: States written while a session is alive; found by a later session, they mean its process died.
LIVE_STATES = ("running", "reporting")


def record_dead_session(run_dir: Path) -> dict[str, Any] | None:
    """Record a session that died without saying so (``kill -9``, a power cut): called by a process
    that holds the run's lock, so a status still in a :data:`LIVE_STATES` state was left by a
    process that is gone. Rewrites ``status.json`` as ``interrupted`` / reason ``killed`` (``was``
    the state it died in, ``reports`` ``present`` or ``missing`` as found on disk) and appends that
    session's end event; returns the new status, or None when there was nothing to record."""
    status = read_status(run_dir)
    if not status or status.get("state") not in LIVE_STATES:
        return None
    present = all((run_dir / name).exists() for name in (REPORT_JSON, REPORT_MD, REPORT_HTML))
    was = status.get("state")
    reports = "present" if present and was != "reporting" else "missing"  # a report write under way left stale or partial reports
    fixed = {
        **{k: v for k, v in status.items() if k not in ("updated_at", "state", "reason", "message")},
        "state": "interrupted",
        "reason": "killed",
        "message": f"session {status.get('session')} (pid {status.get('pid')}) ended without recording it, while {was}",
        "was": was,
        "reports": reports,
    }
    write_status(run_dir, **fixed)
    log_session_event(run_dir, "end", int(status.get("session") or 0), state="interrupted", reason="killed", was=was, recorded_by_pid=os.getpid())
    return fixed


def session_number(run_dir: Path) -> int:
    """The number of the next session of the run: 1 + the start events in ``sessions.jsonl``."""
    path = run_dir / SESSIONS
    if not path.exists():
        return 1
    with path.open(encoding="utf-8") as fh:
        return 1 + sum(1 for line in fh if '"event": "start"' in line or '"event":"start"' in line)


def log_session_event(run_dir: Path, event: str, session: int, **fields: Any) -> None:
    """Append ``{"event", "session", "at", **fields}`` to ``sessions.jsonl``."""
    append_json_line(run_dir / SESSIONS, {"event": event, "session": session, "at": iso(utc_now()), **fields})


def summary_lines(ledger: Ledger, ran: int, skipped: int, failed_now: int) -> list[str]:
    """The end-of-session lines for stderr: one per arm (samples ok / partial / failed, requests,
    cache hits, tokens, spend as :func:`~adjudicator.bench.ledger.cost_text`), then this session's counts."""
    lines = []
    for arm, a in ledger.as_dict()["arms"].items():
        lines.append(
            f"{arm}: {a['samples_ok']} ok, {a['samples_partial']} partial, {a['samples_failed']} failed; {a['requests']} model requests, "
            f"{a['cache_hits']} cache hits, {a['prompt_tokens']}+{a['completion_tokens']} tokens, cost {cost_text(a)}"
        )
    lines.append(f"this session: {ran} sample(s) run, {skipped} already finished, {failed_now} failed or partial")
    return lines
