"""Shared test set-up: make tests/ importable for helper modules (graph_fakes, fake_openai)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
