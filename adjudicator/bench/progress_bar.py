"""The bench's progress on stderr, with rich (the project's one progress library; the single
adjudication's bar in :mod:`adjudicator.cli.progress` uses it too).

On a terminal: a live bar of finished samples whose elapsed time and status text keep moving while
nothing finishes (rich redraws it from its own thread several times a second), so a bench waiting on
a slow first request never looks stuck. Its status says what is under way: ``starting the model
client`` while litellm loads (10-30 s the first time on a busy machine), ``waiting for the first
model reply`` until the first sample finishes, then the spend: ``$0.0123`` where every request was
priced, ``cost unknown`` where none was, ``$0.0123 + unknown`` where some were (never a misleading
``$0.0000``). Off a terminal (a log file, CI) there is no bar; the loop's lines (``failed: ...``) are
written as they are.
"""

from __future__ import annotations

import sys
from typing import IO, Any


def spend_text(total_usd: float, unpriced_requests: int, priced_requests: int) -> str:
    """The spend as the bar writes it (module docstring); ``$0`` only when no request was sent."""
    if unpriced_requests == 0:
        return f"${total_usd:.4f}"
    if priced_requests == 0:
        return "cost unknown"
    return f"${total_usd:.4f} + unknown"


class SampleBar:
    """Finished samples out of ``total`` (module docstring), with ``status`` to begin with. ``enabled``
    False (``--no-progress``) or ``total`` 0: only :meth:`write` prints. Thread-safe as rich is; :meth:`close` is idempotent."""

    def __init__(self, total: int, enabled: bool, stream: IO[str] | None = None, status: str = "") -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self._progress: Any = None
        self._task: Any = None
        if enabled and total > 0 and self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._progress = Progress(TextColumn("bench"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                                      TextColumn("{task.fields[status]}"), console=Console(file=self.stream), transient=False, refresh_per_second=4)  # fmt: skip
            self._task = self._progress.add_task("bench", total=total, status=status)
            self._progress.start()

    def status(self, text: str) -> None:
        """Set the bar's status text (what is under way, or the spend)."""
        if self._progress is not None:
            self._progress.update(self._task, status=text)

    def advance(self) -> None:
        """One more sample finished."""
        if self._progress is not None:
            self._progress.advance(self._task)

    def write(self, line: str) -> None:
        """A line above the bar (or plain, without one)."""
        if self._progress is not None:
            self._progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        """Stop the bar (it stays on screen, final)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
