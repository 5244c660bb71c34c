"""The panel graph: seat three judges, fan out with ``Send`` (each judge sees only its own task),
then aggregate in plain code.

Topology: START -> convene_panel -> (route_after_convene_panel: Send x3) -> judge -> aggregate_panel -> END.
"""

from __future__ import annotations

import functools
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.nodes import PanelState, aggregate_panel, convene_panel, judge, judge_tasks


def route_after_convene_panel(state: PanelState) -> list[Send]:
    """One ``Send("judge", task)`` per seated judge."""
    return [Send("judge", task) for task in judge_tasks(state)]


def add_panel(builder: StateGraph[Any, AdjudicationContext, Any, Any]) -> None:
    """Add convene -> judges (parallel) -> aggregate -> END to ``builder``; entry node ``convene_panel``."""
    builder.add_node("convene_panel", convene_panel)
    builder.add_node("judge", judge)  # type: ignore[call-overload]  # langgraph's stubs do not match a Send target whose input (JudgeTask) is not the graph state
    builder.add_node("aggregate_panel", aggregate_panel)
    builder.add_conditional_edges("convene_panel", route_after_convene_panel, ["judge"])
    builder.add_edge("judge", "aggregate_panel")
    builder.add_edge("aggregate_panel", END)


def build(checkpointer=None):
    """Compile the panel graph on its own (used when a live match is closed)."""
    builder = StateGraph(PanelState, context_schema=AdjudicationContext)
    add_panel(builder)
    builder.add_edge(START, "convene_panel")
    return builder.compile(checkpointer=checkpointer, name="panel")


@functools.cache
def compiled():
    """The panel graph, compiled once per process without a checkpointer."""
    return build()
