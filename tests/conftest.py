"""Shared test set-up: make tests/ importable for helper modules (graph_fakes, fake_openai), and
fixtures for where the bundled match files and the real PanelBench data live."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _isolate_environment() -> None:
    """Tests never depend on, or write into, the user's environment: no ADJUDICATOR_* settings, no
    provider keys, no proxies for loopback traffic, and HOME / XDG folders / matplotlib's cache in a
    throw-away folder. Runs at import, before any test module imports the package."""
    for key in list(os.environ):
        if key.startswith("ADJUDICATOR_") or key.endswith("_API_KEY") or key.lower() in ("http_proxy", "https_proxy", "all_proxy"):
            del os.environ[key]
    home = Path(tempfile.mkdtemp(prefix="adjudicator-tests-home-"))
    for var, sub in (("HOME", ""), ("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share"), ("MPLCONFIGDIR", ".config/matplotlib")):
        path = home / sub if sub else home
        path.mkdir(parents=True, exist_ok=True)
        os.environ[var] = str(path)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost,::1"
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


_isolate_environment()

REPO_ROOT = Path(__file__).resolve().parents[1]
# CI clones the repository beside a copy of shared/, so this relative path works there too.
PANELBENCH_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "panelbench"


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
