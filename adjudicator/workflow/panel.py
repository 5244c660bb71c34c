"""The panel graph: seat three judges, fan out with ``Send`` (each judge sees only its own task),
then aggregate in plain code.

Topology: START -> convene_panel -> (route_after_convene_panel: Send x3) -> judge -> aggregate_panel -> END;
lead-first (``send_order``, :mod:`adjudicator.workflow.send_order`): convene_panel -> (Send x1) ->
lead_judge -> (route_after_lead_judge: Send x2) -> judge -> aggregate_panel, so the others start once
the lead's request was answered and can read its prompt-cache entry. ``lead_judge`` runs the same
function as ``judge``.
Compiled with ``json_input=True`` (LangGraph's tools), START -> read_input -> convene_panel ...
"""

from __future__ import annotations

import functools
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.json_input import READ_INPUT, PanelInput, VerdictOutput, read_battlefield
from adjudicator.workflow.nodes import PanelState, aggregate_panel, convene_panel, judge, judge_tasks


def route_after_convene_panel(state: PanelState) -> list[Send]:
    """One ``Send("judge", task)`` per seated judge; under a ``panel_lead``, the lead's task alone to ``lead_judge``."""
    tasks = judge_tasks(state)
    lead = [t for t in tasks if t["request"].judge_id == state.get("panel_lead")]
    if lead and len(tasks) > 1:
        return [Send("lead_judge", lead[0])]
    return [Send("judge", task) for task in tasks]


def route_after_lead_judge(state: PanelState) -> list[Send] | str:
    """Once the lead has answered: one ``Send("judge", task)`` per other judge (none left: aggregate)."""
    rest = [Send("judge", t) for t in judge_tasks(state) if t["request"].judge_id != state.get("panel_lead")]
    return rest or "aggregate_panel"


def add_panel(builder: StateGraph[Any, Any, Any, Any]) -> None:
    """Add convene -> judges (parallel, or the lead first) -> aggregate -> END to ``builder``; entry node ``convene_panel``."""
    builder.add_node("convene_panel", convene_panel)
    builder.add_node("judge", judge)  # type: ignore[arg-type]  # langgraph's stubs do not match a Send target whose input (JudgeTask) is not the graph state
    builder.add_node("lead_judge", judge)  # type: ignore[arg-type]  # the same function: the lead of a lead-first panel
    builder.add_node("aggregate_panel", aggregate_panel)
    builder.add_conditional_edges("convene_panel", route_after_convene_panel, ["judge", "lead_judge"])
    builder.add_conditional_edges("lead_judge", route_after_lead_judge, ["judge", "aggregate_panel"])
    builder.add_edge("judge", "aggregate_panel")
    builder.add_edge("aggregate_panel", END)


def build(checkpointer=None, *, json_input: bool = False, context_schema: type = AdjudicationContext):
    """Compile the panel graph on its own (used when a live match is closed). ``json_input``: the
    input is a clash-tracking state as JSON (:class:`~adjudicator.workflow.json_input.PanelInput`), read
    by an entry node, and the output is :class:`~adjudicator.workflow.json_input.VerdictOutput`;
    ``context_schema`` as in :func:`adjudicator.workflow.tracking.build`."""
    builder = StateGraph(PanelState, context_schema=context_schema, input_schema=PanelInput if json_input else None, output_schema=VerdictOutput if json_input else None)
    add_panel(builder)
    if json_input:
        builder.add_node(READ_INPUT, read_battlefield, input_schema=PanelInput)
        builder.add_edge(START, READ_INPUT)
        builder.add_edge(READ_INPUT, "convene_panel")
    else:
        builder.add_edge(START, "convene_panel")
    return builder.compile(checkpointer=checkpointer, name="panel")


@functools.cache
def compiled():
    """The panel graph, compiled once per process without a checkpointer."""
    return build()
