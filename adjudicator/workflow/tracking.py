"""The clash-tracking graph: visits every received stage once, in order, accumulating the battlefield.

Topology: START -> (route_after_start) -> track_stage -> (route_after_track_stage) -> track_stage | END.
Invoked again with more ``stages`` (live use, with a checkpointer), it continues from ``next_stage``.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from adjudicator.battlefield import BattlefieldState
from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.nodes import track_stage


def stages_pending(state: BattlefieldState) -> bool:
    """True while a received stage has not been analysed yet."""
    return state.get("next_stage", 0) < len(state.get("stages") or [])


def route_after_start(state: BattlefieldState) -> Literal["track_stage", "done"]:
    """Start tracking if a stage is pending, else go straight on (``done``)."""
    return "track_stage" if stages_pending(state) else "done"


def route_after_track_stage(state: BattlefieldState) -> Literal["track_stage", "done"]:
    """Loop to the next stage while one is pending, else go on (``done``)."""
    return "track_stage" if stages_pending(state) else "done"


def add_tracking(builder: StateGraph[Any, AdjudicationContext, Any, Any], after: str) -> None:
    """Add the ``track_stage`` loop to ``builder``; when no stage is pending, continue to ``after``
    (a node name, or END): the routers' ``done`` maps to it."""
    builder.add_node("track_stage", track_stage)
    builder.add_conditional_edges(START, route_after_start, {"track_stage": "track_stage", "done": after})
    builder.add_conditional_edges("track_stage", route_after_track_stage, {"track_stage": "track_stage", "done": after})


def build(checkpointer=None):
    """Compile the clash-tracking graph (optionally with a checkpointer, for live matches)."""
    builder = StateGraph(BattlefieldState, context_schema=AdjudicationContext)
    add_tracking(builder, END)
    return builder.compile(checkpointer=checkpointer, name="clash_tracking")


@functools.cache
def compiled():
    """The clash-tracking graph, compiled once per process without a checkpointer."""
    return build()
