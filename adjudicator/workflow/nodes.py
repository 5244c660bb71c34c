"""Graph node functions: the clash tracker, the panel convener, one judge, and the aggregator.

Wiring lives in ``graphs/``; these functions read the backend from the runtime context
(:class:`~adjudicator.workflow.context.Backends`: an AdjudicationContext, or the serialisable settings of LangGraph's tools) and return state updates that the named reducers
in :mod:`adjudicator.battlefield` fold in. Nodes never raise on a model fault: the backend returns a
:class:`~adjudicator.records.NodeFailure`, which is recorded and the walk goes on.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from adjudicator import __version__
from adjudicator.aggregate import aggregate, provenance_of
from adjudicator.battlefield import BattlefieldState, Clash, StageAnalysis, apply_clash_updates, merge_clashes
from adjudicator.errors import AdjudicationFailed
from adjudicator.judges.base import Backend, CompareRequest, JudgeRequest, StageRequest
from adjudicator.match import MatchView
from adjudicator.pairwise.comparisons import PairChoice, schedule
from adjudicator.pairwise.panel import aggregate_pairwise
from adjudicator.records import CallRecord, FailureKind, NodeFailure, in_call_order, in_failure_order
from adjudicator.verdict import Ballot, Provenance, Verdict
from adjudicator.workflow.context import Backends, evidence_of, judge_evidence_of, rubric_of


def track_stage(state: BattlefieldState, runtime: Runtime[Backends]) -> dict[str, Any]:
    """Analyse stage ``state["next_stage"]`` with the context's tracker and advance the cursor by one.

    Returns the update: ``next_stage`` + 1, the stage's analysis and the clash delta (or a failure),
    and the call records. The stage is read together with the accumulated ledger, not the full
    preceding transcript.
    """
    i = state.get("next_stage", 0)
    return {"next_stage": i + 1, **stage_update(state, i, runtime.context)}


def stage_update(state: BattlefieldState, i: int, context: Backends) -> dict[str, Any]:
    """Analyse stage ``i`` of ``state`` with ``context``'s tracker (and its rubric and evidence
    setting) against the clash map as it stands
    and return the state update without ``next_stage``: the analysis and the clash delta (or the
    failure) and the call records. :func:`track_stage` uses it for the next stage; the live store
    uses it to retry a stage whose analysis failed (its failure stays in ``failures``, superseded by
    the analysis: :func:`~adjudicator.battlefield.failed_stage_ids`)."""
    stages = state["stages"]
    stage = stages[i]
    clashes = state.get("clashes") or {}
    request = StageRequest(
        match=state["match"],
        stage=stage,
        index=i,
        previous=list(stages[:i]),
        clashes=clashes,
        analyses=list(state.get("analyses") or []),
        rubric=rubric_of(context),
        evidence=evidence_of(context),
    )
    result = context.tracker.analyse_stage(request)
    update: dict[str, Any] = {"calls": list(result.calls)}
    if result.value is not None:
        update["analyses"] = [result.value]
        update["clashes"] = apply_clash_updates(clashes, stage.stage_id, result.value.clash_updates)
    if result.failure is not None:
        update["failures"] = [result.failure]
    return update


class JudgeTask(TypedDict):
    """The private input of one judge node (delivered by ``Send``): nothing of the other judges."""

    request: JudgeRequest


class PanelState(BattlefieldState, total=False):
    """Battlefield state plus the panel's outputs. ``ballots`` (a scoring panel) and
    ``pair_choices`` (a pairwise panel: every judge's answers) are fan-in keys (reducer: concatenation)."""

    panel: list[tuple[str, str]]
    ballots: Annotated[list[Ballot], operator.add]
    pair_choices: Annotated[list[PairChoice], operator.add]
    verdict: Verdict | None
    panel_error: str | None


def full_view(state: BattlefieldState) -> MatchView:
    """The match view with every stage received so far (live matches start with none in ``match``)."""
    return state["match"].model_copy(update={"stages": list(state.get("stages") or [])})


def convene_panel(state: PanelState, runtime: Runtime[Backends]) -> dict[str, Any]:
    """Seat the judges named in the context: returns ``panel`` = [(judge_id, perspective), ...]."""
    ctx = runtime.context
    return {"panel": [(j, ctx.perspectives.get(j, "")) for j in ctx.judges]}


def judge_tasks(state: PanelState) -> list[JudgeTask]:
    """One private :class:`JudgeTask` per seated judge, built from the final battlefield state."""
    view = full_view(state)
    clashes = state.get("clashes") or {}
    analyses = list(state.get("analyses") or [])
    return [
        JudgeTask(request=JudgeRequest(judge_id=j, perspective=persp, match=view, clashes=clashes, analyses=analyses))
        for j, persp in state.get("panel") or []
    ]


def judge(task: JudgeTask, runtime: Runtime[Backends]) -> dict[str, Any]:
    """Run one judge on its own request; returns its ballot (or failure) and call records. On a
    pairwise panel the judge makes its comparisons instead (:func:`compare_all`)."""
    request = task["request"].model_copy(update={"rubric": rubric_of(runtime.context), "judge_evidence": judge_evidence_of(runtime.context)})
    backend = runtime.context.judges[request.judge_id]
    if runtime.context.panel_mode == "pairwise":
        return compare_all(request, backend)
    result = backend.judge(request)
    update: dict[str, Any] = {"calls": list(result.calls)}
    if result.value is not None:
        update["ballots"] = [result.value]
    if result.failure is not None:
        update["failures"] = [result.failure]
    return update


def compare_all(request: JudgeRequest, backend: Backend) -> dict[str, Any]:
    """One pairwise judge's comparisons: every ordered pair of :func:`~adjudicator.pairwise.comparisons.schedule`,
    one after the other. Returns its answers (``pair_choices``), call records and failures; a failed
    comparison is recorded and the judge goes on with the next. No stage analysis at all means no
    evidence: one ``no_evidence`` failure and no request."""
    if not request.analyses:
        reason = "no stage analysis succeeded, so there is nothing to compare from"
        return {"calls": [], "failures": [NodeFailure(node="compare", key=request.judge_id, kind=FailureKind.NO_EVIDENCE, reason=reason)]}
    choices: list[PairChoice] = []
    calls: list[CallRecord] = []
    failures: list[NodeFailure] = []
    for level, a, b in schedule(request.match):
        req = CompareRequest(judge_id=request.judge_id, perspective=request.perspective, match=request.match, clashes=request.clashes, analyses=request.analyses, level=level, a=a, b=b)
        result = backend.compare(req)
        calls += result.calls
        if result.value is not None:
            choices.append(result.value)
        if result.failure is not None:
            failures.append(result.failure)
    return {"calls": calls, "pair_choices": choices, "failures": failures}


def state_provenance(calls: list[CallRecord], ctx: Backends, format_name: str | None = None) -> Provenance:
    """The deterministic provenance of ``calls`` (a state's :func:`sorted_calls`) under context ``ctx``;
    the prompt hashes are those of ``format_name``'s templates."""
    backends = [ctx.tracker, *ctx.judges.values()]
    hashes: dict[str, str] = {}
    for b in backends:
        hashes.update(b.prompt_hashes(format_name, ctx.panel_mode))
    provenance = provenance_of(
        "agentic",
        ctx.tracker.name,
        ctx.model_names(),
        any(b.is_llm for b in backends),
        dict(sorted(hashes.items())),
        calls,
        __version__,
    )
    if ctx.panel_mode == "pairwise" or not any(b.is_llm for b in ctx.judges.values()):
        return provenance  # the offline judge and the pairwise panel read the ledger whatever the setting
    return provenance.model_copy(update={"judge_evidence": judge_evidence_of(ctx)})


def sorted_calls(state: BattlefieldState) -> list[CallRecord]:
    """The state's call records in a deterministic order (node, key, attempt)."""
    return in_call_order(state.get("calls") or [])


def sorted_failures(state: BattlefieldState) -> list[NodeFailure]:
    """The state's node failures in a deterministic order (node, key), without a stage's failed
    analysis that a retry has since replaced (live ``retry``: the stage has an analysis now)."""
    analysed = {a.stage_id for a in state.get("analyses") or []}
    return in_failure_order(f for f in state.get("failures") or [] if not (f.node == "track_stage" and f.key in analysed))


def partial_verdict(state: PanelState, ctx: Backends) -> Verdict:
    """What a failed panel leaves: no winner and no p, but the valid ballots, the clash map, every
    failure with its raw outputs, and the provenance (so a failure loses no finished work)."""
    view = full_view(state)
    calls = sorted_calls(state)
    return Verdict(
        match_id=view.match_id,
        format=view.format,
        motion=view.motion,
        arm="agentic",
        winner=None,
        p=None,
        battlefields=list((state.get("clashes") or {}).values()),
        ballots=sorted(state.get("ballots") or [], key=lambda b: b.judge_id),
        failures=sorted_failures(state),
        provenance=state_provenance(calls, ctx, view.format),
        calls=calls,
    )


def aggregate_panel(state: PanelState, runtime: Runtime[Backends]) -> dict[str, Any]:
    """Aggregate the ballots into the verdict (plain code). With fewer than two valid ballots the
    update carries ``panel_error`` instead, so finished work stays in the state."""
    calls = sorted_calls(state)
    view = full_view(state)
    ctx = runtime.context
    try:
        if ctx.panel_mode == "pairwise":
            verdict = aggregate_pairwise(
                view,
                list(state.get("pair_choices") or []),
                list(state.get("panel") or []),
                {j: b.name for j, b in ctx.judges.items()},
                state.get("clashes") or {},
                sorted_failures(state),
                calls,
                state_provenance(calls, ctx, view.format),
            )
            return {"verdict": verdict, "panel_error": None}
        verdict = aggregate(
            view,
            list(state.get("ballots") or []),
            state.get("clashes") or {},
            sorted_failures(state),
            calls,
            state_provenance(calls, runtime.context, view.format),
            rubric=rubric_of(runtime.context),
        )
    except AdjudicationFailed as exc:
        return {"verdict": None, "panel_error": exc.one_line()}
    return {"verdict": verdict, "panel_error": None}


__all__ = [
    "BattlefieldState",
    "CallRecord",
    "Clash",
    "JudgeTask",
    "NodeFailure",
    "PanelState",
    "StageAnalysis",
    "aggregate_panel",
    "convene_panel",
    "judge",
    "judge_tasks",
    "merge_clashes",
    "track_stage",
]
