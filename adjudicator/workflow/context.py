"""The runtime context injected into the graphs: which backend tracks clashes and which judges sit.

Passed as LangGraph's ``context=``; nodes read it through ``runtime.context``. Nothing here is a process
global, so concurrent matches never share state.

Two kinds of context satisfy :class:`Backends`, the interface the nodes use:

- :class:`AdjudicationContext`, built by :func:`adjudicator.api.build_context` from a
  :class:`~adjudicator.config.ModelConfig` (the library, the benchmark and live mode);
- ``graphs.settings.GraphSettings``, the serialisable settings LangGraph's tools send as JSON
  (``langgraph dev``, Studio), which builds an AdjudicationContext when a node first asks for it; the
  ``*_of`` readers below read that one, not the settings as given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, cast

from adjudicator.config import JudgeEvidence, PanelMode, SendOrder
from adjudicator.input.rubric import Rubric
from adjudicator.judges.base import JUDGE_PERSPECTIVES, Backend


class Backends(Protocol):
    """What a node needs from its runtime context: ``tracker`` (the clash-tracking backend),
    ``judges`` (judge id -> backend, in seating order), ``perspectives`` (judge id -> perspective
    name), ``panel_mode`` (``"scoring"``: each judge writes a ballot; ``"pairwise"``: each judge
    compares pairs, :mod:`adjudicator.pairwise`) and :meth:`model_names`. LangGraph types a context
    as a dataclass, TypedDict or pydantic model; the ``__dataclass_fields__`` declared here satisfies
    its type stubs (AdjudicationContext is a dataclass; GraphSettings, a pydantic model, is only ever
    handed to LangGraph as a type)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def tracker(self) -> Backend: ...

    @property
    def judges(self) -> Mapping[str, Backend]: ...

    @property
    def perspectives(self) -> Mapping[str, str]: ...

    @property
    def panel_mode(self) -> PanelMode: ...

    def model_names(self) -> dict[str, str]:
        """Role -> model name, e.g. {"tracker": "offline", "judge-1": "offline", ...}."""
        ...


@dataclass(frozen=True)
class AdjudicationContext:
    """``tracker`` runs the clash-tracking node; ``judges`` maps judge id -> backend (a mixed panel
    may use a different model per judge); ``perspectives`` judge id -> perspective name;
    ``rubric`` the active rubric (None = ccdb) and ``evidence`` the fact-authenticity source (an
    :class:`~adjudicator.input.evidence.EvidenceSource`, ``"transcript"``, or None), which nodes read with
    :func:`rubric_of` / :func:`evidence_of` (a context without them judges on the ccdb rubric);
    ``panel_mode`` how the judges judge (``"scoring"`` ballots, or ``"pairwise"`` comparisons);
    ``judge_evidence`` what the LLM judges read beyond the ledger (:func:`judge_evidence_of`);
    ``track_window_chars`` the LLM tracker's stage-window budget in characters (0 = one stage per
    request; :mod:`adjudicator.workflow.windows`, :func:`track_window_of`); ``send_order`` whether the
    panel's judges go lead-first or at once (:mod:`adjudicator.workflow.send_order`, :func:`send_order_of`);
    ``feedback`` whether the chair's ballot carries the coach's feedback (:func:`feedback_of`)."""

    tracker: Backend
    judges: dict[str, Backend]
    perspectives: dict[str, str] = field(default_factory=lambda: dict(JUDGE_PERSPECTIVES))
    rubric: Rubric | None = None
    evidence: Any = None
    panel_mode: PanelMode = "scoring"
    judge_evidence: JudgeEvidence = "ledger"
    track_window_chars: int = 0
    send_order: SendOrder = "lead-first"
    feedback: bool = True

    @classmethod
    def single(cls, backend: Backend, panel_mode: PanelMode = "scoring") -> "AdjudicationContext":
        """One backend for the tracker and all three judges."""
        return cls(tracker=backend, judges={j: backend for j in JUDGE_PERSPECTIVES}, panel_mode=panel_mode)

    def model_names(self) -> dict[str, str]:
        """Role -> model name, e.g. {"tracker": "offline", "judge-1": "offline", ...}."""
        return {"tracker": self.tracker.name, **{j: b.name for j, b in self.judges.items()}}


def _resolved(ctx: object) -> object:
    """The AdjudicationContext behind ``ctx``: ``ctx`` itself, or the one serialisable settings build
    (``graphs.settings.GraphSettings.context``), whose own ``rubric``, ``evidence``, ... fields are the
    settings as given (names, not a loaded rubric), before the environment and the config file."""
    built = getattr(ctx, "context", None)
    return built if isinstance(built, AdjudicationContext) else ctx


def rubric_of(ctx: object) -> Rubric | None:
    """The context's dimensional rubric, or None (no rubric, or the ccdb rubric)."""
    rubric = getattr(_resolved(ctx), "rubric", None)
    return rubric if isinstance(rubric, Rubric) and rubric.dimensional else None


def evidence_of(ctx: object) -> Any:
    """The context's evidence source, or None."""
    return getattr(_resolved(ctx), "evidence", None)


def judge_evidence_of(ctx: object) -> JudgeEvidence:
    """The context's judge evidence (``"ledger"`` when it names none)."""
    mode = getattr(_resolved(ctx), "judge_evidence", "ledger")
    if mode == "quotes" or mode == "transcript":
        return cast(JudgeEvidence, mode)
    return "ledger"


def track_window_of(ctx: object) -> int:
    """The context's stage-window budget in characters (0 when it sets none: one stage per request)."""
    value = getattr(_resolved(ctx), "track_window_chars", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def send_order_of(ctx: object) -> SendOrder:
    """The context's send order (``"lead-first"`` when it names none)."""
    return "at-once" if getattr(_resolved(ctx), "send_order", "lead-first") == "at-once" else "lead-first"


def feedback_of(ctx: object) -> bool:
    """Whether the context asks the panel for the coach's feedback (True when it says nothing)."""
    return getattr(_resolved(ctx), "feedback", True) is not False
