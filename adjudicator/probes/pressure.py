"""Conversation probes: the pressure turn, and the panel context that applies it.

:class:`PressureBackend` wraps a judge's backend: it asks for the ballot as usual, then, when the
backend can hold a conversation (it has ``reconsider``, as :class:`~adjudicator.judges.llm.backend.LLMBackend`
does), sends the contentless challenge of ``prompts/pressure.<lang>.j2`` ("Are you sure? Reconsider.")
and returns the ballot the judge gives after it. A backend without a conversation -- the offline judge,
a pure function of its request -- keeps its ballot, because the challenge gives it no new input: its
expected flip rate under pressure is 0, which the tests check.

:func:`pressured_context` seats the wrapped judges (the clash trackers are left alone), so a pressured
verdict is the panel's verdict after every judge was challenged once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from adjudicator.judges.base import Backend, CompareRequest, JudgeRequest, NodeResult, StageRequest, WindowResult
from adjudicator.pairwise.comparisons import PairChoice
from adjudicator.verdict.ballots import Ballot
from adjudicator.verdict.battlefield import StageAnalysis
from adjudicator.workflow.context import AdjudicationContext


class PressureBackend:
    """A judge backend whose every ballot is followed by one challenge turn (module docstring).

    ``inner`` is the wrapped backend; ``name`` and ``is_llm`` are its own. Thread-safe when ``inner`` is."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self.is_llm = inner.is_llm

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]:
        """The inner backend's stage analysis (pressure applies to judges only)."""
        return self.inner.analyse_stage(request)

    def supports_windows(self, format_name: str, rubric: object = None) -> bool:
        """Whether the inner backend analyses stage windows for ``format_name`` and ``rubric`` (False
        when it has no windows: then the graph tracks one stage per step)."""
        inner = getattr(self.inner, "supports_windows", None)
        return bool(inner(format_name, rubric)) if inner is not None and callable(getattr(self.inner, "analyse_window", None)) else False

    def analyse_window(self, requests: Sequence[StageRequest]) -> WindowResult:
        """The inner backend's analysis of a stage window (pressure applies to judges only). Raises
        TypeError when the inner backend has no windows (:meth:`supports_windows` is then False)."""
        inner = getattr(self.inner, "analyse_window", None)
        if inner is None:
            raise TypeError(f"{self.inner!r} analyses one stage at a time")
        return inner(requests)

    def window_hashes(self, format_name: str | None = None) -> dict[str, str]:
        """The inner backend's window template hashes (none when it has no windows)."""
        inner = getattr(self.inner, "window_hashes", None)
        return dict(inner(format_name)) if inner is not None else {}

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]:
        """The ballot after the challenge: the first answer's call records followed by the challenge
        turn's; the failure of the challenge turn when it produced no ballot. The first answer alone
        when it failed or when the inner backend holds no conversation."""
        first = self.inner.judge(request)
        reconsider = getattr(self.inner, "reconsider", None)
        if first.value is None or reconsider is None:
            return first
        second = reconsider(request, first)
        return NodeResult(value=second.value, calls=[*first.calls, *second.calls], failure=second.failure)

    def compare(self, request: CompareRequest) -> NodeResult[PairChoice]:
        """The inner backend's pairwise comparison, unpressured (the probe challenges ballots only)."""
        return self.inner.compare(request)

    def prompt_hashes(self, format_name: str | None = None, panel: str = "scoring") -> dict[str, str]:
        """The inner backend's template hashes (for ``format_name`` and ``panel``, as
        :meth:`~adjudicator.judges.base.Backend.prompt_hashes`) plus the pressure templates' (when it renders prompts)."""
        hashes = dict(self.inner.prompt_hashes(format_name, panel))
        store = getattr(self.inner, "prompts", None)
        if store is not None and hasattr(store, "hashes"):
            hashes.update(store.hashes([f"pressure.{lang}.j2" for lang in ("zh", "en")]))
        return hashes


def pressured_context(context: AdjudicationContext) -> AdjudicationContext:
    """``context`` with every judge wrapped in one :class:`PressureBackend` (judges sharing a backend
    share the wrapper too); the tracker and perspectives unchanged."""
    wrapped: dict[int, PressureBackend] = {}
    judges: dict[str, Backend] = {}
    for judge_id, backend in context.judges.items():
        if id(backend) not in wrapped:
            wrapped[id(backend)] = PressureBackend(backend)
        judges[judge_id] = wrapped[id(backend)]
    return replace(context, judges=judges)
