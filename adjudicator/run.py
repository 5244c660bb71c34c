"""Run the main job: adjudicate one match with the agentic workflow and return its verdict."""

from __future__ import annotations

import uuid

from .context import AdjudicationContext
from .errors import AdjudicationFailed
from .match import Match, MatchView
from .verdict import Verdict


def initial_state(view: MatchView) -> dict:
    """The graph input for a whole match: the label-free header and every stage, cursor at 0."""
    return {"match": view, "stages": list(view.stages), "next_stage": 0}


def run_config(view: MatchView, thread_id: str | None = None) -> dict:
    """LangGraph config: a fresh thread per sample and a recursion limit that fits every stage."""
    return {"recursion_limit": len(view.stages) + 16, "configurable": {"thread_id": thread_id or f"{view.match_id}-{uuid.uuid4().hex}"}}


def adjudicate_agentic(match: Match | MatchView, context: AdjudicationContext) -> tuple[Verdict | None, dict]:
    """Run the adjudication graph on ``match`` (labels are stripped first).

    Returns (verdict or None, final state). The verdict is None when the panel failed; the state then
    holds ``panel_error``, the failures and every call record (finished work is not lost).
    """
    from graphs.adjudication import graph

    view = match.view() if isinstance(match, Match) else match
    state = graph.invoke(initial_state(view), config=run_config(view), context=context)
    return state.get("verdict"), state


def adjudicate(match: Match | MatchView, context: AdjudicationContext) -> Verdict:
    """Adjudicate ``match`` and return the verdict. Raises :class:`AdjudicationFailed` (exit code 1)
    when fewer than two judges produced a valid ballot; the exception carries the partial verdict
    (failures with raw outputs, valid ballots, clash map, provenance)."""
    from .nodes import partial_verdict

    verdict, state = adjudicate_agentic(match, context)
    if verdict is None:
        partial = partial_verdict(state, context)
        transport = [f for f in partial.failures if f.reason.startswith(("transport:", "refused:"))]
        if transport:
            first = transport[0]
            raise AdjudicationFailed(
                f"no verdict: {len(transport)} model call(s) failed in transport, first {first.node} {first.key}: {first.reason}",
                "check the model server or --api-base and retry (calls that succeeded are cached)",
                verdict=partial,
            )
        raise AdjudicationFailed(state.get("panel_error") or "the panel produced no verdict", verdict=partial)
    return verdict
