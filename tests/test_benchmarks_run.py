"""Every script in benchmarks/ still starts, and the ones with a quick mode still run it (issue 32, item 4).

A benchmark is run by hand, so nothing else notices when a change breaks it (benchmarks/live.py failed
with a TypeError in its own wrapper at its first close for several commits). Here each script answers
``--help`` in a fresh interpreter (its imports and argument parser work), and each script with a quick
mode (:data:`QUICK`) runs it to the end with exit code 0 and prints its table. The targets are not
checked (speed targets live in the benchmarks, not in timed tests); each run is bounded by its timeout.
Scripts without a quick mode yet are only started: see :data:`HELP_ONLY`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from env_isolation import isolate_env, subprocess_env

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: The scripts (a module with a ``__main__`` block; synthetic_ccdb.py is a helper the token benchmark imports).
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if 'if __name__ == "__main__":' in p.read_text(encoding="utf-8"))
#: script -> (arguments of its quick mode, a line its table must print)
QUICK = {
    "live.py": (["--quick"], "push (POST -> response)"),
    "live_rooms.py": (["--quick"], "checkpoint put"),
    "startup.py": (["--quick"], "offline main job"),
}
#: Started with --help only: they need a real server, a model folder, the network or minutes of CPU
#: even at their smallest (asr_wer: a Whisper model; tabbycat_round: a Tabbycat; newest_versions: the
#: package index; live_scale, live_attacks: a PostgreSQL cluster and several servers; the rest: no
#: quick mode yet).
HELP_ONLY = [s for s in SCRIPTS if s not in QUICK]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def test_the_scripts_are_found():
    assert len(SCRIPTS) >= 13 and set(QUICK) <= set(SCRIPTS) and "synthetic_ccdb.py" not in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_starts(tmp_path, script):
    proc = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"], capture_output=True, text=True, timeout=300,
                          env=subprocess_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage:" in proc.stdout


@pytest.mark.parametrize("script", sorted(QUICK))
@pytest.mark.timeout(900)
def test_a_benchmark_with_a_quick_mode_runs_it(tmp_path, script):
    args, expected = QUICK[script]
    proc = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, timeout=900,
                          env=subprocess_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert expected in proc.stdout
