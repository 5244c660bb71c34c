"""Progress of one adjudication on stderr: a line per finished stage and per judge (per instance for
the single-call arm), and on a terminal a live bar under the lines. stdout is never touched, so it
carries the verdict only.

A line reads ``stage 3/17 s03 Round 2, affirmative speech: tracker's suggested score affirmative 7
(1-10, advice to the judges); 2 clash moves (1 request, 2.1 s)`` or ``judge 16/17 judge-2
(battlefield): votes negative, winner tendency p = 0.38 (1 request, 3.0 s)``: each number says what
it is (a stage's number is the tracker's suggestion, not the verdict's score, which the judges give
later); a failed step says ``FAILED`` and why.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import IO, Any

from adjudicator.workflow.progress import ProgressEvent


def event_line(e: ProgressEvent) -> str:
    """The stderr line of one event (module docstring)."""
    what = f"{e.key} {e.name}" if e.kind == "stage" and e.name else (f"{e.key} ({e.name})" if e.name else e.key)
    result = e.detail if e.ok else f"FAILED: {e.detail}"
    cost = []
    if e.requests:
        cost.append(f"{e.requests} request{'' if e.requests == 1 else 's'}")
    if e.cache_hits:
        cost.append(f"{e.cache_hits} cached")
    if e.latency_s >= 0.05:
        cost.append(f"{e.latency_s:.1f} s")
    return f"{e.kind} {e.done}/{e.total} {what}: {result}" + (f" ({', '.join(cost)})" if cost else "")


class StderrProgress:
    """A context manager that reports :class:`ProgressEvent` s: plain lines on ``stream`` (default
    stderr), and, when it is a terminal, a live bar (rich) that keeps counting elapsed time while a
    request is under way. ``title`` names the job on the bar. Safe to call from several threads."""

    def __init__(self, title: str, stream: IO[str] | None = None, live: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.title = title
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> StderrProgress:
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            console = Console(file=self.stream)
            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True)
            self._progress.start()
            self._task = self._progress.add_task(self.title, total=None)
        return self

    def __call__(self, event: ProgressEvent) -> None:
        line = event_line(event)
        with self.lock:
            if self._progress is not None:
                self._progress.update(self._task, total=event.total, completed=event.done, description=f"{self.title} · last: {event.kind} {event.key}")
                self._progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
                self._progress.refresh()
            else:
                self.stream.write(line + "\n")
                self.stream.flush()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
