"""The test session's own temporary home (tests/env_isolation.py ``temporary_home``, used by conftest.py):
it isolates the process and is gone when the process ends, so runs of the suite leave no folders in /tmp."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PREFIX = "adjudicator-tests-home-"


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(TESTS))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)


def test_the_temporary_home_holds_files_while_the_process_runs_and_is_removed_at_exit(tmp_path):
    code = (
        "from env_isolation import temporary_home\n"
        "home = temporary_home()\n"
        "(home / '.config' / 'adjudicator').mkdir(parents=True)\n"
        "(home / '.config' / 'adjudicator' / 'config.toml').write_text('x')\n"
        "print(home, sorted(p.name for p in home.rglob('*')))\n"
    )
    home, listing = _run(code, tmp_path).stdout.split(" ", 1)
    assert Path(home).parent == tmp_path and Path(home).name.startswith(PREFIX)
    assert listing.strip() == "['.config', 'adjudicator', 'config.toml']"
    assert not Path(home).exists()
    assert list(tmp_path.iterdir()) == []


def test_a_forked_child_exiting_first_leaves_the_parents_home_in_place(tmp_path):
    code = (
        "import os, sys\n"
        "from env_isolation import temporary_home\n"
        "home = temporary_home()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    sys.exit(0)  # a normal exit: the child runs the atexit handlers it inherited\n"
        "os.waitpid(pid, 0)\n"
        "print(home, home.is_dir())\n"
    )
    home, alive = _run(code, tmp_path).stdout.split()
    assert alive == "True"
    assert not Path(home).exists()


def test_a_pytest_process_using_conftest_leaves_no_home_behind(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", str(TESTS / "test_env_isolation.py")],
        env=env, capture_output=True, text=True, timeout=120, cwd=TESTS.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_env_isolation.py: 3" in done.stdout
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(PREFIX)] == []
