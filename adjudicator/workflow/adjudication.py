"""The main job in one graph: clash tracking over every stage, then the three-judge panel.

Topology: START -> track_stage (loop, once per stage) -> convene_panel -> judge x3 (Send) ->
aggregate_panel -> END.
"""

from __future__ import annotations

import functools

from langgraph.graph import StateGraph

from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.nodes import PanelState
from adjudicator.workflow.panel import add_panel
from adjudicator.workflow.tracking import add_tracking


def build(checkpointer=None):
    """Compile the full adjudication graph."""
    builder = StateGraph(PanelState, context_schema=AdjudicationContext)
    add_tracking(builder, "convene_panel")
    add_panel(builder)
    return builder.compile(checkpointer=checkpointer, name="adjudication")


@functools.cache
def compiled():
    """The adjudication graph (the main job), compiled once per process without a checkpointer."""
    return build()
