"""The offline judge's :class:`~adjudicator.judges.base.Backend`: :class:`OfflineBackend` runs
:func:`~adjudicator.judges.offline.tracker.analyse` for the ``analyse_stage`` node and
:func:`~adjudicator.judges.offline.ballot.judge_ballot` for the ``judge`` node, timing each call into one
:class:`~adjudicator.records.CallRecord`; an unexpected error becomes a
:class:`~adjudicator.records.NodeFailure` of kind ``error`` instead of crashing the graph.
"""

from __future__ import annotations

import time

from adjudicator.battlefield import StageAnalysis
from adjudicator.judges.base import JudgeRequest, NodeResult, StageRequest
from adjudicator.judges.offline.ballot import MODEL_NAME, judge_ballot
from adjudicator.judges.offline.ranking import ranking_ballot
from adjudicator.judges.offline.tracker import analyse
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.verdict import Ballot


class OfflineBackend:
    """The offline judge: a deterministic baseline built from structural priors and text features.
    It is NOT an LLM and does not read the debate the way a judge does; it counts content terms,
    questions, answers, rebuttal / concession / evidence markers and speech lengths, applies the
    paper's structural stage priors, and maps the result onto the CCDB rubric (Table 5).

    Stateless: every method is a pure function of its request, so one instance can serve the tracker
    and all three judges from several threads at once. Same request, same result."""

    name: str = MODEL_NAME
    is_llm: bool = False

    # ---- tracker

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]:
        """Analyse one stage (see :mod:`adjudicator.judges.offline`). Returns the analysis and one CallRecord
        (node "track_stage", key = stage id, parse "native"); an unexpected error becomes a NodeFailure."""
        t0 = time.perf_counter()
        try:
            value = analyse(request.match, request.stage, request.index, request.previous, request.clashes)
        except Exception as exc:  # a bug, recorded rather than crashing the graph
            return _failed("track_stage", request.stage.stage_id, exc, t0)
        rec = CallRecord(node="track_stage", key=request.stage.stage_id, model=MODEL_NAME, parse="native", latency_s=round(time.perf_counter() - t0, 6))
        return NodeResult(value=value, calls=[rec])

    # ---- judge

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]:
        """One ballot from the analyses and the clash map, weighted by ``request.perspective``: a
        winner ballot, or a ranking ballot where the format ranks its units (BP). CallRecord node
        "judge", key = judge id."""
        t0 = time.perf_counter()
        try:
            ballot = ranking_ballot(request) if request.match.spec().verdict == "ranking" else judge_ballot(request)
        except Exception as exc:
            return _failed("judge", request.judge_id, exc, t0)
        rec = CallRecord(node="judge", key=request.judge_id, model=MODEL_NAME, parse="native", latency_s=round(time.perf_counter() - t0, 6))
        return NodeResult(value=ballot, calls=[rec])

    def prompt_hashes(self, format_name: str | None = None) -> dict[str, str]:
        """The offline judge uses no prompts."""
        return {}


def _failed(node: str, key: str, exc: Exception, t0: float) -> NodeResult:
    reason = f"offline judge error: {type(exc).__name__}: {exc}"
    rec = CallRecord(node=node, key=key, model=MODEL_NAME, parse="failed", error=reason, latency_s=round(time.perf_counter() - t0, 6))
    return NodeResult(value=None, calls=[rec], failure=NodeFailure(node=node, key=key, kind=FailureKind.ERROR, reason=reason))


#: The name the rest of the package uses for the offline judge.
OfflineJudge = OfflineBackend
