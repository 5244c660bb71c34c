"""Graph node functions: the clash tracker, the panel convener, one judge, and the aggregator.

Wiring lives in ``graphs/``; these functions read the backend from the runtime context
(:class:`~adjudicator.workflow.context.Backends`: an AdjudicationContext, or the serialisable settings of LangGraph's tools) and return state updates that the named reducers
in :mod:`adjudicator.verdict.battlefield` fold in. Nodes never raise on a model fault: the backend returns a
:class:`~adjudicator.records.NodeFailure`, which is recorded and the walk goes on.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from adjudicator import __version__
from adjudicator.errors import AdjudicationFailed
from adjudicator.input.formats import get_format
from adjudicator.input.match import MatchView
from adjudicator.judges.base import Backend, CompareRequest, JudgeRequest, StageRequest
from adjudicator.pairwise.comparisons import PairChoice, schedule
from adjudicator.pairwise.panel import aggregate_pairwise
from adjudicator.records import CallRecord, FailureKind, NodeFailure, in_call_order, in_failure_order
from adjudicator.verdict.aggregate import aggregate, provenance_of, with_transcripts
from adjudicator.verdict.ballots import Ballot, Provenance, Verdict
from adjudicator.verdict.battlefield import BattlefieldState, Clash, StageAnalysis, apply_clash_updates, merge_clashes
from adjudicator.verdict.offline_note import offline_note
from adjudicator.verdict.review import review_of
from adjudicator.workflow.context import Backends, evidence_of, feedback_of, judge_evidence_of, rubric_of, send_order_of, track_window_of
from adjudicator.workflow.send_order import judge_lead
from adjudicator.workflow.windows import window_size


def track_stage(state: BattlefieldState, runtime: Runtime[Backends]) -> dict[str, Any]:
    """Analyse the window of stages starting at ``state["next_stage"]`` with the context's tracker and
    advance the cursor past it.

    The window is one stage unless the context sets a window budget (``track_window_chars``) and
    the tracker reads windows (:func:`window_count`); then it is :func:`~adjudicator.workflow.windows.window_size`
    stages, analysed in one request. Returns the update: the new ``next_stage``, one analysis per
    stage and the clash delta they make in stage order (or a failure per stage), and the call
    records. A stage is read together with the accumulated ledger, not the full preceding transcript.
    """
    i = state.get("next_stage", 0)
    n = window_count(state, i, runtime.context)
    if n <= 1:
        return {"next_stage": i + 1, **stage_update(state, i, runtime.context)}
    return {"next_stage": i + n, **window_update(state, i, n, runtime.context)}


def window_count(state: BattlefieldState, i: int, context: Backends) -> int:
    """How many stages the tracking step at stage ``i`` analyses: the window of
    :func:`~adjudicator.workflow.windows.window_size` under the context's ``track_window_chars`` when
    its tracker reads windows for this match (an ``analyse_window`` method and ``supports_windows``
    true for the format and rubric, :func:`windowed_tracking`), else 1."""
    budget = windowed_tracking(context, state["match"].format)
    if budget is None or not callable(getattr(context.tracker, "analyse_window", None)):
        return 1
    return max(1, window_size(state["stages"], i, budget))


def stage_request(state: BattlefieldState, i: int, context: Backends) -> StageRequest:
    """The tracker's request for stage ``i`` of ``state``: the stage, the stages before it, and the
    clash map and analyses as they stand in ``state``."""
    stages = state["stages"]
    return StageRequest(
        match=state["match"],
        stage=stages[i],
        index=i,
        previous=list(stages[:i]),
        clashes=state.get("clashes") or {},
        analyses=list(state.get("analyses") or []),
        rubric=rubric_of(context),
        evidence=evidence_of(context),
    )


def window_update(state: BattlefieldState, i: int, n: int, context: Backends) -> dict[str, Any]:
    """Analyse stages ``i`` .. ``i + n - 1`` of ``state`` in one tracker request (each stage's request
    holds the ledger as it stood before the window) and return the state update without
    ``next_stage``: the analyses in stage order, the clash delta their updates make when applied one
    stage after the other (so a later stage may advance a clash an earlier one opened), or one failure
    per stage, and the call records."""
    requests = [stage_request(state, k, context) for k in range(i, i + n)]
    result = context.tracker.analyse_window(requests)  # type: ignore[attr-defined]
    update: dict[str, Any] = {"calls": list(result.calls)}
    if result.analyses:
        running = dict(state.get("clashes") or {})
        delta: dict[str, Clash] = {}
        for analysis in result.analyses:
            step = apply_clash_updates(running, analysis.stage_id, analysis.clash_updates)
            running.update(step)
            delta.update(step)
        update["analyses"] = list(result.analyses)
        update["clashes"] = delta
    if result.failures:
        update["failures"] = list(result.failures)
    return update


def stage_update(state: BattlefieldState, i: int, context: Backends) -> dict[str, Any]:
    """Analyse stage ``i`` of ``state`` with ``context``'s tracker (and its rubric and evidence
    setting) against the clash map as it stands
    and return the state update without ``next_stage``: the analysis and the clash delta (or the
    failure) and the call records. :func:`track_stage` uses it for the next stage; the live store
    uses it to retry a stage whose analysis failed (its failure stays in ``failures``, superseded by
    the analysis: :func:`~adjudicator.verdict.battlefield.failed_stage_ids`)."""
    request = stage_request(state, i, context)
    stage, clashes = request.stage, request.clashes
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
    ``pair_choices`` (a pairwise panel: every judge's answers) are fan-in keys (reducer: concatenation).
    ``panel_lead`` is the judge sent first, the others once it was answered (``send_order``
    lead-first, :mod:`adjudicator.workflow.send_order`); empty or absent: all at once."""

    panel: list[tuple[str, str]]
    panel_lead: str
    ballots: Annotated[list[Ballot], operator.add]
    pair_choices: Annotated[list[PairChoice], operator.add]
    verdict: Verdict | None
    panel_error: str | None


def full_view(state: BattlefieldState) -> MatchView:
    """The match view with every stage received so far (live matches start with none in ``match``)."""
    return state["match"].model_copy(update={"stages": list(state.get("stages") or [])})


def convene_panel(state: PanelState, runtime: Runtime[Backends]) -> dict[str, Any]:
    """Seat the judges named in the context: returns ``panel`` = [(judge_id, perspective), ...] and
    ``panel_lead`` (:func:`panel_lead`)."""
    ctx = runtime.context
    panel = [(j, ctx.perspectives.get(j, "")) for j in ctx.judges]
    return {"panel": panel, "panel_lead": panel_lead({**state, "panel": panel}, ctx)}


def seated_request(request: JudgeRequest, ctx: Backends) -> JudgeRequest:
    """``request`` with what the context decides for every judge: the rubric, the judge evidence and
    whether the panel gives the coach's feedback."""
    return request.model_copy(update={"rubric": rubric_of(ctx), "judge_evidence": judge_evidence_of(ctx), "feedback": feedback_of(ctx)})


def panel_lead(state: PanelState, ctx: Backends) -> str:
    """The judge to send first under the context's ``send_order`` (:func:`~adjudicator.workflow.send_order.judge_lead`
    over the requests of the judges whose backend renders one), ``""`` for all at once: under
    ``at-once``, on a pairwise panel (each judge's comparisons run one after another, so waiting for a
    whole judge would cost its every comparison), and when no two judges' requests could share a cached beginning."""
    if send_order_of(ctx) != "lead-first" or ctx.panel_mode != "scoring":
        return ""
    models = ctx.model_names()
    requests = {}
    for task in judge_tasks(state):
        request = seated_request(task["request"], ctx)
        render = getattr(ctx.judges[request.judge_id], "judge_prompt", None)
        if render is not None:
            requests[request.judge_id] = render(request)
    return judge_lead(requests, models)


def judge_tasks(state: PanelState) -> list[JudgeTask]:
    """One private :class:`JudgeTask` per seated judge, built from the final battlefield state
    (``cache_shared`` under a ``panel_lead``: the others read the lead's cache entry)."""
    view = full_view(state)
    clashes = state.get("clashes") or {}
    analyses = list(state.get("analyses") or [])
    shared = bool(state.get("panel_lead"))
    return [
        JudgeTask(request=JudgeRequest(judge_id=j, perspective=persp, match=view, clashes=clashes, analyses=analyses, cache_shared=shared))
        for j, persp in state.get("panel") or []
    ]


def judge(task: JudgeTask, runtime: Runtime[Backends]) -> dict[str, Any]:
    """Run one judge on its own request; returns its ballot (or failure) and call records. On a
    pairwise panel the judge makes its comparisons instead (:func:`compare_all`)."""
    request = seated_request(task["request"], runtime.context)
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


def state_provenance(calls: list[CallRecord], ctx: Backends, format_name: str | None = None, language: str | None = None) -> Provenance:
    """The deterministic provenance of ``calls`` (a state's :func:`sorted_calls`) under context ``ctx``;
    the prompt hashes are those of ``format_name``'s templates; the offline judge's note is in the
    match's ``language`` (None: the format's)."""
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
    window = windowed_tracking(ctx, format_name)
    if window:
        hashes = dict(sorted({**provenance.prompt_hashes, **ctx.tracker.window_hashes(format_name)}.items()))  # type: ignore[attr-defined]
        provenance = provenance.model_copy(update={"track_window_chars": window, "prompt_hashes": hashes})
    if not feedback_of(ctx):
        provenance = provenance.model_copy(update={"feedback": False})
    if not provenance.is_llm:  # the offline judge says what it is (adjudicator.verdict.offline_note)
        provenance = provenance.model_copy(update={"offline_note": offline_note(language or (get_format(format_name).language if format_name else "en"))})
    if ctx.panel_mode == "pairwise" or not any(b.is_llm for b in ctx.judges.values()):
        return provenance  # the offline judge and the pairwise panel read the ledger whatever the setting
    logprob = any(getattr(getattr(b, "client", None), "logprobs", False) for b in ctx.judges.values())
    return provenance.model_copy(update={"judge_evidence": judge_evidence_of(ctx), **({"p_source": "logprob"} if logprob else {})})


def windowed_tracking(ctx: Backends, format_name: str | None) -> int | None:
    """The stage-window budget (characters) the context's tracker works under for a match of
    ``format_name``: the context's ``track_window_chars`` when it is set and the tracker reads windows
    for that format and the context's rubric (:func:`window_count`), else None (one stage per request)."""
    budget = track_window_of(ctx)
    supports = getattr(ctx.tracker, "supports_windows", None)
    if budget <= 0 or format_name is None or supports is None or not callable(getattr(ctx.tracker, "window_hashes", None)):
        return None
    return budget if supports(format_name, rubric_of(ctx)) else None


def sorted_calls(state: BattlefieldState) -> list[CallRecord]:
    """The state's call records in a deterministic order (node, key, attempt)."""
    return in_call_order(state.get("calls") or [])


def sorted_failures(state: BattlefieldState) -> list[NodeFailure]:
    """The state's node failures in a deterministic order (node, key), without a stage's failed
    analysis that a retry has since replaced (live ``retry``: the stage has an analysis now); a
    ``dropped_field`` failure beside its stage's analysis is kept (what the analysis was taken without)."""
    analysed = {a.stage_id for a in state.get("analyses") or []}
    return in_failure_order(f for f in state.get("failures") or [] if f.partial or not (f.node == "track_stage" and f.key in analysed))


def partial_verdict(state: PanelState, ctx: Backends) -> Verdict:
    """What a failed panel leaves: no winner and no p, but the valid ballots, the clash map, every
    failure with its raw outputs, the review (it escalates: a judge failed) and the provenance (so a
    failure loses no finished work)."""
    view = full_view(state)
    calls = sorted_calls(state)
    battlefields = list((state.get("clashes") or {}).values())
    ballots = sorted(state.get("ballots") or [], key=lambda b: b.judge_id)
    failures = sorted_failures(state)
    return Verdict(
        match_id=view.match_id,
        format=view.format,
        motion=view.motion,
        arm="agentic",
        winner=None,
        p=None,
        battlefields=battlefields,
        ballots=ballots,
        failures=failures,
        review=review_of(None, None, failures, ballots=ballots, match=view, battlefields=battlefields, calls=calls),
        provenance=state_provenance(calls, ctx, view.format, view.language),
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
                state_provenance(calls, ctx, view.format, view.language),
            )
            return {"verdict": with_transcripts(verdict, view.stages), "panel_error": None}
        verdict = aggregate(
            view,
            list(state.get("ballots") or []),
            state.get("clashes") or {},
            sorted_failures(state),
            calls,
            state_provenance(calls, runtime.context, view.format, view.language),
            rubric=rubric_of(runtime.context),
            analyses=list(state.get("analyses") or []),
        )
    except AdjudicationFailed as exc:
        return {"verdict": None, "panel_error": exc.one_line()}
    return {"verdict": with_transcripts(verdict, view.stages), "panel_error": None}


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
