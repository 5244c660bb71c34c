"""The one writer of files: every file the package writes goes through here, atomically.

- :func:`atomic_write_text` / :func:`atomic_write_bytes` / :func:`atomic_write_json`: a temp file in the same folder, fsync, then
  ``os.replace``, so a reader (or a run resumed after ``kill -9``) sees the old file or the new one,
  never half of one. ``private=True`` creates the file 0600 (live state, access tokens).
- :func:`append_json_line`: one fsynced JSON line appended to a log (``sessions.jsonl``,
  ``requests.jsonl``); :func:`end_torn_line` and :func:`read_json_lines` cope with a line torn by
  ``kill -9``.
- :func:`move_file`: ``os.replace`` into a folder created on demand (superseded results).
- :func:`write_output`: a user-named output (``--out``, ``--report-out``, converted match files),
  with an unusable path reported as :class:`~adjudicator.errors.InputError` (exit code 2).
- :func:`lock_folder`: the one-process-per-folder lock of a run folder or a live state folder.
- :func:`private_folder` / :func:`private_file`: a folder 0700 and a file 0600 (the live state
  folder and its SQLite files, which hold transcripts), created or tightened.
- :func:`read_json` and :func:`remove_stale_temp_files` are the readers' counterparts.

Databases are written by their own libraries (the response cache by diskcache, live checkpoints by
SQLite), each behind its one module.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from adjudicator.errors import InputError

_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write_text(path: Path, text: str, *, private: bool = False) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically (temp file in the same folder, fsync, os.replace).

    Creates parent folders. The file gets the usual permissions (0666 less the umask), or 0600 with
    ``private``. Raises OSError on failure (the old file, if any, is left intact)."""
    atomic_write_bytes(path, text.encode("utf-8"), private=private)


def atomic_write_bytes(path: Path, data: bytes, *, private: bool = False) -> None:
    """Write ``data`` to ``path`` atomically, as :func:`atomic_write_text` does. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        os.fchmod(fd, 0o600 if private else 0o666 & ~_UMASK)  # mkstemp makes 0600 files
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def dumps(data: Any) -> str:
    """Indented UTF-8 JSON (non-ASCII kept) with a final newline; NaN is not allowed."""
    return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def atomic_write_json(path: Path, data: Any, *, private: bool = False) -> None:
    """:func:`atomic_write_text` of :func:`dumps` ``(data)``."""
    atomic_write_text(path, dumps(data), private=private)


def append_json_line(path: Path, data: Any) -> None:
    """Append one compact JSON line to ``path`` (flushed and fsynced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(data, ensure_ascii=False, allow_nan=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def end_torn_line(path: Path) -> bool:
    """Terminate a last line left without its newline (a writer killed mid-append), so the next
    :func:`append_json_line` starts a line of its own; returns True when one was terminated."""
    try:
        with path.open("rb+") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return False
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) == b"\n":
                return False
            fh.write(b"\n")
            fh.flush()
            os.fsync(fh.fileno())
            return True
    except FileNotFoundError:
        return False


def read_json_lines(path: Path) -> list[Any]:
    """The decoded lines of a JSON-lines log, in order; a line that does not decode (torn by a
    killed writer) is skipped. [] when the file does not exist."""
    out: list[Any] = []
    try:
        fh = path.open(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return out
    with fh:
        for line in fh:
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    return out


class FolderLock:
    """An exclusive OS lock (``flock``) on a lock file, held by one process at a time and released by
    the kernel when the holder exits or dies (``kill -9`` included), so a stale lock never blocks.
    The holder's pid is written into the file for the refusal message. Use :func:`lock_folder`."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self._fd = path, fd

    def release(self) -> None:
        """Give the lock up (idempotent)."""
        if self._fd >= 0:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "FolderLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_folder(path: Path, *, private: bool = False) -> FolderLock | int:
    """Take the lock file ``path`` (created 0644, or 0600 with ``private``): a :class:`FolderLock`
    when this process now holds it, else the pid of the process that holds it (0 when unknown).
    Never blocks."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600 if private else 0o666 & ~_UMASK)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = ""
            for _ in range(20):  # the holder writes its pid just after taking the lock
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                if holder:
                    break
                time.sleep(0.01)
        finally:
            os.close(fd)
        return int(holder) if holder.isdigit() else 0
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return FolderLock(path, fd)


def private_folder(path: Path) -> None:
    """Create ``path`` (and its parents) if missing and make it 0700 (owner only). Raises OSError."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)


def private_file(path: Path) -> None:
    """Create ``path`` empty if missing, and make it 0600 (owner only), before a library opens it:
    SQLite then keeps that mode and gives its journal and WAL files the same. Raises OSError."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def move_file(src: Path, dst: Path) -> None:
    """Move ``src`` to ``dst`` (``os.replace``, so atomic on one file system), creating ``dst``'s folder."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, dst)


def write_output(path: Path, text: str) -> None:
    """Write a user-named output file atomically. Raises :class:`~adjudicator.errors.InputError`
    (exit code 2) naming the path when it cannot be written."""
    try:
        atomic_write_text(Path(path), text)
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})", "choose a writable path") from None


def check_writable(path: Path, flag: str) -> None:
    """Check, before any work is done, that the user-named output ``path`` can be written: its
    folder exists or can be made, is writable, and ``path`` is not a folder. Raises
    :class:`~adjudicator.errors.InputError` (exit code 2) naming ``flag`` and the path otherwise, so
    a run never spends model calls on a verdict it cannot save."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise InputError(f"{flag} {path}: is a folder", "give a file path")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=target.parent, prefix=".adjudicator-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot write there ({exc.strerror or exc})", "choose a writable path") from None


def read_json(path: Path) -> Any:
    """Decode a JSON file. Raises InputError naming the file when it is missing or malformed."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: unreadable JSON ({exc})") from None


def remove_stale_temp_files(folder: Path) -> int:
    """Delete ``.*.tmp`` files left under ``folder`` by a killed writer; returns how many."""
    n = 0
    if folder.is_dir():
        for tmp in folder.rglob(".*.tmp"):
            try:
                tmp.unlink()
                n += 1
            except OSError:
                pass
    return n


def prune_oldest_files(folder: Path, pattern: str, keep: int) -> int:
    """Delete the oldest (by modification time) files of ``folder`` matching ``pattern`` beyond the
    ``keep`` newest; returns how many were deleted. Files that vanish meanwhile are skipped."""
    found = []
    for f in folder.glob(pattern):
        try:
            found.append((f.stat().st_mtime_ns, f.name, f))
        except OSError:
            continue
    n = 0
    for _, _, f in sorted(found, reverse=True)[keep:]:
        try:
            f.unlink()
            n += 1
        except OSError:
            pass
    return n
