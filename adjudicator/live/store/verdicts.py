"""The files of closed matches: ``STATE_DIR/verdicts/<match_id>.json`` (the panel's verdict, indented
UTF-8 JSON) and ``STATE_DIR/reports/<match_id>.md`` (its Markdown report), written atomically once at
close (through :mod:`adjudicator.files`) and read back, cached, by the board and the API.
"""

from __future__ import annotations

import json
from pathlib import Path

from adjudicator.files import atomic_write_text
from adjudicator.verdict.ballots import Verdict


class VerdictFiles:
    """The verdict and report files under ``state_dir``, with the verdicts read so far kept in memory."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self._cache: dict[str, Verdict] = {}

    def verdict_path(self, match_id: str) -> Path:
        """``STATE_DIR/verdicts/<match_id>.json``."""
        return self.state_dir / "verdicts" / f"{match_id}.json"

    def report_path(self, match_id: str) -> Path:
        """``STATE_DIR/reports/<match_id>.md``."""
        return self.state_dir / "reports" / f"{match_id}.md"

    def read(self, match_id: str) -> Verdict | None:
        """The stored verdict of ``match_id``, or None when there is no verdict file."""
        v = self._cache.get(match_id)
        if v is None:
            path = self.verdict_path(match_id)
            if path.exists():
                v = Verdict.model_validate_json(path.read_text(encoding="utf-8"))
                self._cache[match_id] = v
        return v

    def verdict_json(self, match_id: str) -> bytes | None:
        """The stored verdict file's bytes (indented UTF-8 JSON), or None before close."""
        path = self.verdict_path(match_id)
        return path.read_bytes() if path.exists() else None

    def report_text(self, match_id: str) -> str | None:
        """The stored Markdown report, or None before close."""
        path = self.report_path(match_id)
        return path.read_text(encoding="utf-8") if path.exists() else None

    def write(self, match_id: str, verdict: Verdict) -> None:
        """Write the verdict JSON, then the Markdown report, each atomically. Raises OSError."""
        text, report = verdict_texts(verdict)
        atomic_write_text(self.verdict_path(match_id), text, private=True)
        atomic_write_text(self.report_path(match_id), report, private=True)
        self._cache[match_id] = verdict


def verdict_texts(verdict: Verdict) -> tuple[str, str]:
    """The stored forms of a verdict: (indented UTF-8 JSON with a final newline, Markdown report)."""
    from adjudicator.verdict.report import verdict_markdown

    return json.dumps(json.loads(verdict.model_dump_json()), ensure_ascii=False, indent=2) + "\n", verdict_markdown(verdict)
