"""The one writer of files: every file the package writes goes through here, atomically.

- :func:`atomic_write_text` / :func:`atomic_write_json`: a temp file in the same folder, fsync, then
  ``os.replace``, so a reader (or a run resumed after ``kill -9``) sees the old file or the new one,
  never half of one. ``private=True`` creates the file 0600 (live state, access tokens).
- :func:`append_json_line`: one fsynced JSON line appended to a log (``sessions.jsonl``).
- :func:`move_file`: ``os.replace`` into a folder created on demand (superseded results).
- :func:`write_output`: a user-named output (``--out``, ``--report-out``, converted match files),
  with an unusable path reported as :class:`~adjudicator.errors.InputError` (exit code 2).
- :func:`read_json` and :func:`remove_stale_temp_files` are the readers' counterparts.

Databases are written by their own libraries (the response cache by diskcache, live checkpoints by
SQLite), each behind its one module.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from adjudicator.errors import InputError

_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write_text(path: Path, text: str, *, private: bool = False) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically (temp file in the same folder, fsync, os.replace).

    Creates parent folders. The file gets the usual permissions (0666 less the umask), or 0600 with
    ``private``. Raises OSError on failure (the old file, if any, is left intact)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        os.fchmod(fd, 0o600 if private else 0o666 & ~_UMASK)  # mkstemp makes 0600 files
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
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
