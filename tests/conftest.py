"""Shared test set-up: make tests/ importable for helper modules (graph_fakes, fake_openai), fixtures
for where the bundled match files and the real PanelBench data live, and the throwaway PostgreSQL
cluster (``pg_url``: a fresh database per test; ``live_store``: each live test once per store)."""

from __future__ import annotations

import itertools
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from env_isolation import isolate_process, temporary_files_on_tmpfs, temporary_home  # noqa: E402  (tests/ is on sys.path just above)
from pg_cluster import URL_ENV, PgCluster, find_bin_dir, new_database  # noqa: E402

CI_POSTGRES_URL = os.environ.get(URL_ENV)  # a cluster .ci/run started (read before the isolation removes it)
# A faster-whisper model folder for the speech tests (tests/test_speech*.py), read before the isolation
# removes ADJUDICATOR_*: $ADJUDICATOR_TEST_ASR_MODEL, else $ADJUDICATOR_ASR_MODEL, else where the team's
# ../shared/tools/local-asr.sh assembles Whisper base ($LOCAL_ASR_DIR or ~/.cache/local-asr).
ASR_MODEL = Path(
    os.environ.get("ADJUDICATOR_TEST_ASR_MODEL")
    or os.environ.get("ADJUDICATOR_ASR_MODEL")
    or Path(os.environ.get("LOCAL_ASR_DIR") or Path.home() / ".cache" / "local-asr") / "whisper-base"
)
temporary_files_on_tmpfs()  # tmp_path and every temporary file in memory where the machine has tmpfs
isolate_process(temporary_home())  # one home per pytest process (xdist worker), removed when it exits

REPO_ROOT = Path(__file__).resolve().parents[1]
# CI clones the repository beside a copy of shared/, so this relative path works there too.
PANELBENCH_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "panelbench"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--benchmark-runs", action="store_true",
                     help="also run every benchmark's --quick mode (tests/test_benchmarks_run.py, marker benchmark_runs); .ci/run does, in a step of its own")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without ``--benchmark-runs``, a test marked ``benchmark_runs`` is skipped, saying how to run it.
    The quick runs are whole processes (about 90 s of CPU together) that check the scripts in
    benchmarks/ still run, not the library: .ci/run runs them after README's test command, so every
    CI run still runs every benchmark and the suite a developer runs stays quick."""
    if config.getoption("--benchmark-runs"):
        return
    skip = pytest.mark.skip(reason="a benchmark's quick run: pass --benchmark-runs (.ci/run does, after the suite)")
    for item in items:
        if "benchmark_runs" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def bundled_matches_dir() -> Path:
    """``adjudicator/data/matches`` (subfolders ``panelbench/`` real, ``synthetic/`` synthetic)."""
    return REPO_ROOT / "adjudicator" / "data" / "matches"


@pytest.fixture(scope="session")
def panelbench_dir() -> Path:
    """The real PanelBench folder (containing ``DebateArt/``); skips the test when it is absent."""
    if not (PANELBENCH_DIR / "DebateArt" / "motion").is_dir():
        pytest.skip(f"real PanelBench data not found at {PANELBENCH_DIR}")
    return PANELBENCH_DIR


@pytest.fixture(scope="session")
def pg_cluster_url():
    """The admin URL of a PostgreSQL cluster for this session: the one ``.ci/run`` started, else a
    throwaway one (tests/pg_cluster.py), stopped at the end. Skips where the binaries are absent."""
    if CI_POSTGRES_URL:
        yield CI_POSTGRES_URL
        return
    if find_bin_dir() is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl, postgres) are not installed: .ci/run installs Debian's postgresql package")
    cluster = PgCluster().start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


_db_counter = itertools.count(1)


@pytest.fixture
def pg_url(pg_cluster_url, request) -> str:
    """The URL of a new, empty database on the session's cluster, named after the test."""
    name = re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:40]
    return new_database(pg_cluster_url, f"t{next(_db_counter)}_{name}")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def live_store(request, monkeypatch):
    """Run a live test once per store: None (SQLite in the state folder) or a fresh PostgreSQL
    database's URL, which ``live_fakes.start_server`` then passes to every server it starts."""
    import live_fakes

    url = None if request.param == "sqlite" else request.getfixturevalue("pg_url")
    monkeypatch.setattr(live_fakes, "STORE", url)
    return url


@pytest.fixture(autouse=True)
def _no_leaked_processes():
    """After each test: no ``adjudicate`` process it started still runs (tests/processes.py). A leaked
    one (a ``live serve`` left behind by a failed assertion, say) is killed and the test fails."""
    yield
    from processes import kill_leaked

    leaked = kill_leaked()
    if leaked:
        pytest.fail(f"the test left {len(leaked)} adjudicate process(es) running (killed now): {'; '.join(c[:200] for c in leaked)}", pytrace=False)


@pytest.fixture(scope="session")
def asr_model() -> Path:
    """The speech tests' model folder (:data:`ASR_MODEL`); skips where the audio extra or the model is absent."""
    try:
        import faster_whisper  # noqa: F401
    except ImportError:
        pytest.skip("the audio extra (faster-whisper) is not installed: pip install -e '.[audio]'")
    if not (ASR_MODEL / "model.bin").is_file():
        pytest.skip(f"no faster-whisper model at {ASR_MODEL}: set ADJUDICATOR_TEST_ASR_MODEL, or run ../shared/tools/local-asr.sh model")
    return ASR_MODEL
