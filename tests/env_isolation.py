"""Keeping tests out of the user's environment: no ADJUDICATOR_* setting, provider key or proxy, and
HOME / XDG folders / matplotlib's cache in a throw-away folder. Used process-wide by conftest.py (at
import, before any test module imports the package) and per test, restorably, by the bench tests and
for the environment of spawned ``adjudicate`` processes."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path


def user_setting(key: str) -> bool:
    """True for a variable that could point a run at the user's model, server, key or proxy."""
    return key.startswith("ADJUDICATOR_") or key.endswith("_API_KEY") or key.lower() in ("http_proxy", "https_proxy", "all_proxy")


def home_vars(home: Path) -> dict[str, str]:
    """HOME, the XDG folders and MPLCONFIGDIR inside ``home`` (created), and no proxy for loopback."""
    out = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_DATA_HOME": str(home / ".local" / "share"), "MPLCONFIGDIR": str(home / ".config" / "matplotlib"),
           "NO_PROXY": "127.0.0.1,localhost,::1", "no_proxy": "127.0.0.1,localhost,::1"}
    for key in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "MPLCONFIGDIR"):
        Path(out[key]).mkdir(parents=True, exist_ok=True)
    return out


def isolate_process(home: Path) -> None:
    """Remove every user setting from ``os.environ`` for good and point HOME and the XDG folders into
    ``home`` (conftest.py, once per test session)."""
    for key in list(os.environ):
        if user_setting(key):
            del os.environ[key]
    os.environ.update(home_vars(home))
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


TMPFS = Path("/dev/shm")


def temporary_files_on_tmpfs() -> None:
    """Point ``$TMPDIR`` (this process's and its children's, and so pytest's ``tmp_path``) at tmpfs,
    when the machine has a writable one and ``TMPDIR`` is not set already (conftest.py, before anything
    is created). The tests' SQLite stores, caches and run folders then write to memory: on this machine's
    disk, at load 5-7, tests/test_live_tournament.py and test_bench_runner.py took 62-68 s wall (22-26 s
    CPU) with their files in /tmp and 29-42 s (17-19 s CPU) on tmpfs, mostly fsync and file creation."""
    if "TMPDIR" in os.environ or not (TMPFS.is_dir() and os.access(TMPFS, os.W_OK | os.X_OK)):
        return
    os.environ["TMPDIR"] = str(TMPFS)
    tempfile.tempdir = None  # gettempdir() caches its answer: read TMPDIR again


def temporary_home(prefix: str = "adjudicator-tests-home-") -> Path:
    """A fresh folder under the temporary directory (``$TMPDIR``) for :func:`isolate_process`, deleted
    when this process exits (atexit; a process forked from it leaves it alone, so a child exiting first
    cannot pull the home from under its parent). A killed process leaves it behind, as any tempfile does."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:
            shutil.rmtree(home, ignore_errors=True)

    atexit.register(remove)
    return home


def isolate_env(monkeypatch, tmp_path: Path) -> None:
    """Remove every user setting from ``os.environ`` (restored after the test) and point HOME and the
    XDG folders into ``tmp_path``, so no config file, cache or model server of the user is reached."""
    for key in list(os.environ):
        if user_setting(key):
            monkeypatch.delenv(key)
    for key, value in home_vars(tmp_path / "home").items():
        monkeypatch.setenv(key, value)


def subprocess_env(tmp_path: Path) -> dict[str, str]:
    """The environment to pass explicitly to a spawned ``adjudicate`` process: the current one without
    user settings, with HOME and the XDG folders in ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if not user_setting(k)}
    env.update(home_vars(tmp_path / "home"))
    return env
