"""The run-folder layout under ``runs/``: folder names, file names and what each file holds.

One folder per benchmark run, named ``<UTC timestamp>_<name>`` (timestamp ``YYYYmmddTHHMMSSZ``)::

    runs/20260101T120000Z_pb/
      manifest.json          written before the first model call; rewritten only to record a larger
                             --limit given on resume (its "amendments"; see manifest.py)
      sessions.jsonl         one line per invocation (start and end), append-only
      requests.jsonl         one line per model request before it is sent, one when it settles
                             (append-only; see requests.py): the ledger's record of spend
      lock                   held (an OS lock) by the one process running the run
      status.json            the run's current state (running / complete / stopped / interrupted)
      dataset/               the converted match files, only when bench was given upstream PanelBench
      results/<arm>/<sample>.json              one file per sample and arm (see results.py)
      results/<arm>/superseded/<sample>.<k>.json   failed results replaced by --retry-errors
      prompts/<sha256>.txt   every distinct message text the calls sent, once (see prompt_store.py)
      human.json             a person's agree/disagree and comment per sample, when given (see human.py)
      report.json, report.md, report.html
      samples.jsonl, samples.csv   one row per sample and arm (see samples.py)

Every file that a reader or a resumed run relies on is written atomically by
:mod:`adjudicator.files`, so a run killed at any moment (also ``kill -9``) leaves either the old file
or the new one, never a torn one.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adjudicator.errors import InputError

RUN_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"
_TS_RE = re.compile(r"^\d{8}T\d{6}Z$")

MANIFEST = "manifest.json"
STATUS = "status.json"
SESSIONS = "sessions.jsonl"
REQUESTS = "requests.jsonl"
LOCK = "lock"
RESULTS = "results"
DATASET = "dataset"
SUPERSEDED = "superseded"
PROMPTS = "prompts"
HUMAN_JSON = "human.json"
REPORT_JSON = "report.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
SAMPLES_JSONL = "samples.jsonl"
SAMPLES_CSV = "samples.csv"
PROBES_JSON = "probes.json"  # the bias card of bench --probe (adjudicator.probes.card.BiasCard)


def utc_now() -> datetime:
    """The current time in UTC (seconds resolution is enough for folder names)."""
    return datetime.now(UTC)


def iso(ts: datetime) -> str:
    """ISO 8601 UTC text, e.g. ``2026-01-01T12:00:00Z``."""
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_run_name(name: str) -> str:
    """Validate a run name (``--name``): 1-64 of letters, digits, ``.``, ``_``, ``-``, starting with a
    letter or digit. Raises InputError otherwise."""
    if not RUN_NAME_RE.match(name or ""):
        raise InputError(f"--name: {name!r} is not a usable run name", "use letters, digits, '.', '_' or '-' (up to 64), e.g. --name pb")
    return name


def split_run_folder(folder: str | Path) -> tuple[str, str] | None:
    """``(timestamp, name)`` of a run folder name, or None when it is not one."""
    base = Path(folder).name
    ts, sep, name = base.partition("_")
    if not sep or not _TS_RE.match(ts) or not RUN_NAME_RE.match(name):
        return None
    return ts, name


def new_run_dir(runs_dir: Path, name: str, now: datetime | None = None) -> Path:
    """Create and return a fresh ``runs_dir/<UTC timestamp>_<name>`` folder.

    If a folder with that second's timestamp exists, the timestamp moves on by one second until the
    name is free, so folder names stay unique and sort in creation order. Raises InputError when the
    folder cannot be created.
    """
    check_run_name(name)
    ts = (now or utc_now()).replace(microsecond=0)
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
        for _ in range(3600):
            path = runs_dir / f"{ts.strftime(TIMESTAMP_FORMAT)}_{name}"
            try:
                path.mkdir()
                return path
            except FileExistsError:
                ts += timedelta(seconds=1)
    except OSError as exc:
        raise InputError(f"--runs-dir {runs_dir}: cannot create a run folder ({exc.strerror})", "choose a writable folder") from None
    raise InputError(f"--runs-dir {runs_dir}: too many runs named {name!r} in one hour", "use another --name")


def latest_run_dir(runs_dir: Path, name: str) -> Path | None:
    """The most recent run folder of ``name`` under ``runs_dir`` (by its timestamp), or None."""
    if not runs_dir.is_dir():
        return None
    found = []
    for child in runs_dir.iterdir():
        parts = split_run_folder(child)
        if child.is_dir() and parts and parts[1] == name:
            found.append((parts[0], child))
    return max(found)[1] if found else None


def safe_file_stem(sample_id: str) -> str:
    """A file-system-safe stem for a sample id (match id): characters outside ``[A-Za-z0-9._-]``
    become ``_``. Uniqueness is checked by the dataset loader."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", sample_id).strip(".") or "_"
    return stem[:150]
