"""Processes a test starts: always stopped, whatever happens in the test.

:func:`started` runs a command for the length of a ``with`` block and stops it on the way out
(an assertion failed, a timeout, a KeyboardInterrupt): the stop signal first, SIGKILL if it has not
exited ``timeout_s`` later, then it is reaped and its pipes closed. :func:`stop` does the same for a
process started otherwise. :func:`leaked_children` lists the ``adjudicate`` processes (``live serve``,
``bench``, ...) this test process started and that still run; conftest.py's autouse fixture kills
them after each test and fails the test that leaked them.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout_s: float = 20.0) -> None:
    """Stop ``proc`` if it still runs (``sig``, then SIGKILL after ``timeout_s``), reap it and close
    its pipes. Never raises for a process that has already exited."""
    try:
        if proc.poll() is None:
            try:
                proc.send_signal(sig)
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout_s)
    finally:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


@contextmanager
def started(args: Sequence[str | os.PathLike], *, stop_signal: int = signal.SIGTERM, timeout_s: float = 20.0, **popen: Any) -> Iterator[subprocess.Popen]:
    """``subprocess.Popen(args, **popen)`` for the block; stopped with :func:`stop` when it ends."""
    proc = subprocess.Popen([str(a) for a in args], **popen)
    try:
        yield proc
    finally:
        stop(proc, stop_signal, timeout_s)


def _child_pids(pid: int) -> list[Path] | None:
    """The /proc entries of ``pid``'s direct children, from each of its threads' ``children`` list
    (Linux with CONFIG_PROC_CHILDREN), or None where that list cannot be read. Reading it costs a few
    files, where scanning every process's ``stat`` cost 2.6 ms of CPU per test (7 ms wall) on a machine
    running ~150 processes: conftest.py asks after every one of the suite's ~1,300 tests."""
    try:
        return [Path("/proc") / c for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]
    except (OSError, ValueError):
        return None


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of the running (not zombie) direct children of ``pid``, read from /proc."""
    out = []
    candidates = _child_pids(pid)
    for entry in Path("/proc").iterdir() if candidates is None else candidates:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) != pid or fields[0] == "Z":
                continue
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, ValueError, IndexError):
            continue  # gone in between, or not ours to read
        out.append((int(entry.name), cmdline))
    return out


def leaked_children() -> list[tuple[int, str]]:
    """The ``adjudicate`` processes (entry point or ``-m adjudicator.cli``) this process started that still run."""
    return [(pid, cmd) for pid, cmd in _children(os.getpid()) if "adjudicator.cli" in cmd or "/adjudicate " in f"{cmd} "]


def kill_leaked() -> list[str]:
    """SIGKILL every :func:`leaked_children` process (and reap it where it is ours); their command lines."""
    found = leaked_children()
    for pid, _ in found:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
    return [cmd for _, cmd in found]
