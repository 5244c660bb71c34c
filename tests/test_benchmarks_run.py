"""Every script in benchmarks/ still starts and still runs its quick mode to the end (issue 32, item 4).

A benchmark is run by hand, so nothing else notices when a change breaks it (benchmarks/live.py failed
with a TypeError in its own wrapper at its first close for several commits). Here every script answers
``--help`` (its imports and argument parser work) and runs ``--quick``: its smallest run, to the end,
with exit code 0, printing its table (:data:`EXPECTED`: a line each must print). A script without a
quick mode fails (argparse refuses ``--quick``), so a new benchmark cannot skip this. The targets are
not checked (speed targets live in the benchmarks, not in timed tests).

A quick run that cannot run here says so: a first line ``skipped: ...`` (asr_wer.py without espeak-ng,
the audio extra or a model) skips its test with that reason; live_scale.py needs PostgreSQL, given as
a fresh database of the session's cluster (skipped where the binaries are absent, as every PostgreSQL
test is); tabbycat_round.py and newest_versions.py run what needs no Tabbycat and no package index.

The quick runs are marked ``benchmark_runs`` and run with ``--benchmark-runs`` only (tests/conftest.py):
``.ci/run`` runs them in a step of its own after README's test command, so CI runs every benchmark
every time while the suite stays quick.

Cost: the quick runs are whole processes (several import litellm, the live ones start servers), so the
module runs them :data:`AT_ONCE` at a time in one module-scoped fixture, and all ``--help`` calls in one
interpreter (a script's module-level imports are then shared with the scripts run before it; each still
parses its own arguments).
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from env_isolation import isolate_env, subprocess_env

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: The scripts (a module with a ``__main__`` block; synthetic_ccdb.py is a helper the token benchmark imports).
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if 'if __name__ == "__main__":' in p.read_text(encoding="utf-8"))
#: script -> a line its quick run prints (its table ran to the end); a script not listed must print something.
EXPECTED = {
    "asr_wer.py": "CPU s / audio min",
    "billed_cost.py": "recount check: ok",
    "cache_layouts.py": "the agentic arm without and with the tracker's cache_control breakpoints",
    "completion_fields.py": "judge          3  (whole answer)",
    "chaos.py": "ok     ledger == request log == requests the proxy received",
    "live.py": "push (POST -> response)",
    "live_attacks.py": "orphan room      held",
    "live_rooms.py": "checkpoint put",
    "live_scale.py": "exactly-once check: PASS",
    "long_input.py": "per-stage cost",
    "newest_versions.py": "packages differ from the lock",
    "offline_tracking.py": "ms/stage",
    "overhead.py": "Target: cached single match within",
    "report_time.py": "report time with 50 bootstrap resamples",
    "startup.py": "offline main job",
    "tabbycat_round.py": "DebateBench (seed 002",
    "tokens.py": "target debateart_0020",
    "tokens_bench.py": "debateart_0020  ",
}
#: Quick runs at once: the machine's two cores (each run is mostly one busy process).
AT_ONCE = 2
#: The costliest quick runs (7-13 s of CPU each, measured alone): started first, so the two workers end together.
SLOW_FIRST = ("chaos.py", "live_scale.py", "tokens_bench.py", "overhead.py", "startup.py", "tokens.py", "report_time.py")
QUICK_TIMEOUT_S = 600

#: Runs ``--help`` of each script given, in this one interpreter; prints {script: [exit code, stdout]}.
HELP = """
import contextlib, io, json, runpy, sys
found = {}
for path in sys.argv[1:]:
    out = io.StringIO()
    sys.argv = [path, '--help']
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name='__main__')
        code = 'returned without exiting'
    except SystemExit as exc:
        code = exc.code
    except BaseException as exc:
        code = f'{type(exc).__name__}: {exc}'
    found[path.rsplit('/', 1)[-1]] = [code, out.getvalue()]
print(json.dumps(found))
"""


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def test_the_scripts_are_found():
    assert len(SCRIPTS) >= 13 and set(EXPECTED) <= set(SCRIPTS) and "synthetic_ccdb.py" not in SCRIPTS


@pytest.fixture(scope="module")
def helps(tmp_path_factory) -> dict[str, list]:
    tmp = tmp_path_factory.mktemp("bench-help")
    proc = subprocess.run([sys.executable, "-c", HELP, *(str(BENCHMARKS / s) for s in SCRIPTS)], capture_output=True, text=True, timeout=600,
                          env=subprocess_env(tmp), cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_starts(helps, script):
    code, out = helps[script]
    assert code in (0, None), code
    assert "usage:" in out


def _extra_args(request: pytest.FixtureRequest, script: str) -> list[str] | str:
    """The arguments a quick run needs from the suite (a model folder, a database), or why it is skipped."""
    fixture, flag = {"asr_wer.py": ("asr_model", "--asr-model"), "live_scale.py": ("pg_cluster_url", "--store")}.get(script, (None, None))
    if fixture is None:
        return []
    try:
        value = request.getfixturevalue(fixture)
    except pytest.skip.Exception as exc:
        return str(exc)
    if script == "live_scale.py":
        from pg_cluster import new_database

        value = new_database(value, "bench_live_scale_quick")
    return [flag, str(value)]


@pytest.fixture(scope="module")
def quick_runs(request, tmp_path_factory) -> dict[str, subprocess.CompletedProcess | str]:
    """Every selected script's quick run (:data:`AT_ONCE` at a time): script -> the process, or why it was skipped."""
    selected = sorted({item.callspec.params["script"] for item in request.session.items
                       if getattr(item, "originalname", "") == "test_a_benchmark_runs_its_quick_mode" and hasattr(item, "callspec")})
    selected.sort(key=lambda s: (SLOW_FIRST.index(s) if s in SLOW_FIRST else len(SLOW_FIRST), s))
    args = {s: _extra_args(request, s) for s in selected}

    def run(script: str) -> subprocess.CompletedProcess | str:
        extra = args[script]
        if isinstance(extra, str):
            return extra
        tmp = tmp_path_factory.mktemp(f"quick-{script[:-3]}")
        return subprocess.run([sys.executable, str(BENCHMARKS / script), "--quick", *extra], capture_output=True, text=True, timeout=QUICK_TIMEOUT_S,
                              env=subprocess_env(tmp), cwd=tmp)

    # the session's base folder is made on first use: make it here, once, or two threads' first
    # mktemp calls each make one and the loser's check fails ("... is not a normalized and relative path")
    tmp_path_factory.getbasetemp()
    with ThreadPoolExecutor(AT_ONCE) as pool:
        return dict(zip(selected, pool.map(run, selected), strict=True))


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.timeout(1800)
@pytest.mark.benchmark_runs
def test_a_benchmark_runs_its_quick_mode(quick_runs, script):
    proc = quick_runs[script]
    if isinstance(proc, str):
        pytest.skip(proc)
    if proc.stdout.startswith("skipped:"):
        pytest.skip(proc.stdout.splitlines()[0])
    assert proc.returncode == 0, proc.stdout[-1500:] + proc.stderr[-2000:]
    assert EXPECTED.get(script, "\n") in proc.stdout if script in EXPECTED else proc.stdout.strip()
