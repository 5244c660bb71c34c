"""Shared test set-up: make tests/ importable for helper modules (graph_fakes, fake_openai), and
fixtures for where the bundled match files and the real PanelBench data live."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from env_isolation import isolate_process  # noqa: E402  (tests/ is on sys.path just above)

isolate_process(Path(tempfile.mkdtemp(prefix="adjudicator-tests-home-")))

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
