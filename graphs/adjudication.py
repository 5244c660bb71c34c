"""The main job in one graph: clash tracking over every stage, then the three-judge panel.

Topology: START -> track_stage (loop, once per stage) -> convene_panel -> judge x3 (Send) ->
aggregate_panel -> END.
"""

from __future__ import annotations

from langgraph.graph import StateGraph

from adjudicator.context import AdjudicationContext
from adjudicator.nodes import PanelState
from graphs.panel import add_panel
from graphs.tracking import add_tracking


def build(checkpointer=None):
    """Compile the full adjudication graph."""
    builder = StateGraph(PanelState, context_schema=AdjudicationContext)
    add_tracking(builder, "convene_panel")
    add_panel(builder)
    return builder.compile(checkpointer=checkpointer, name="adjudication")


graph = build()
