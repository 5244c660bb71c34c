"""The main job in one graph: clash tracking over every stage, then the three-judge panel.

Topology: START -> track_stage (loop, once per stage) -> convene_panel -> judge x3 (Send) ->
aggregate_panel -> END. Compiled with ``json_input=True`` (LangGraph's tools), START -> read_input ->
track_stage ..., and the output is ``{"verdict": ...}`` only.
"""

from __future__ import annotations

import functools

from langgraph.graph import START, StateGraph

from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.json_input import MatchInput, VerdictOutput
from adjudicator.workflow.nodes import PanelState
from adjudicator.workflow.panel import add_panel
from adjudicator.workflow.tracking import add_match_input, add_tracking


def build(checkpointer=None, *, json_input: bool = False, context_schema: type = AdjudicationContext):
    """Compile the full adjudication graph. ``json_input`` and ``context_schema`` as in
    :func:`adjudicator.workflow.tracking.build`."""
    builder = StateGraph(PanelState, context_schema=context_schema, input_schema=MatchInput if json_input else None, output_schema=VerdictOutput if json_input else None)
    add_tracking(builder, "convene_panel", add_match_input(builder) if json_input else START)
    add_panel(builder)
    return builder.compile(checkpointer=checkpointer, name="adjudication")


@functools.cache
def compiled():
    """The adjudication graph (the main job), compiled once per process without a checkpointer."""
    return build()
