"""The runtime context injected into the graphs: which backend tracks clashes and which judges sit.

Passed as LangGraph's ``context=`` (``context_schema=AdjudicationContext``); nodes read it through
``runtime.context``. Nothing here is a process global, so concurrent matches never share state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adjudicator.judges.base import JUDGE_PERSPECTIVES, Backend


@dataclass(frozen=True)
class AdjudicationContext:
    """``tracker`` runs the clash-tracking node; ``judges`` maps judge id -> backend (a mixed panel
    may use a different model per judge); ``perspectives`` judge id -> perspective name."""

    tracker: Backend
    judges: dict[str, Backend]
    perspectives: dict[str, str] = field(default_factory=lambda: dict(JUDGE_PERSPECTIVES))

    @classmethod
    def single(cls, backend: Backend) -> "AdjudicationContext":
        """One backend for the tracker and all three judges."""
        return cls(tracker=backend, judges={j: backend for j in JUDGE_PERSPECTIVES})

    def model_names(self) -> dict[str, str]:
        """Role -> model name, e.g. {"tracker": "offline", "judge-1": "offline", ...}."""
        return {"tracker": self.tracker.name, **{j: b.name for j, b in self.judges.items()}}
