"""The clash-tracking graph: visits every received stage once, in order, accumulating the battlefield.

Topology: START -> (route_after_start) -> track_stage -> (route_after_track_stage) -> track_stage | END.
Invoked again with more ``stages`` (live use, with a checkpointer), it continues from ``next_stage``.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from adjudicator.battlefield import BattlefieldState
from adjudicator.context import AdjudicationContext
from adjudicator.nodes import track_stage


def stages_pending(state: BattlefieldState) -> bool:
    """True while a received stage has not been analysed yet."""
    return state.get("next_stage", 0) < len(state.get("stages") or [])


def route_after_start(state: BattlefieldState) -> Literal["track_stage", "__end__"]:
    """Start tracking if a stage is pending, else stop."""
    return "track_stage" if stages_pending(state) else END


def route_after_track_stage(state: BattlefieldState) -> Literal["track_stage", "__end__"]:
    """Loop to the next stage while one is pending."""
    return "track_stage" if stages_pending(state) else END


def add_tracking(builder: StateGraph, after: str) -> None:
    """Add the ``track_stage`` loop to ``builder``; when no stage is pending, continue to ``after``
    (a node name, or END)."""
    builder.add_node("track_stage", track_stage)

    def _route(state: BattlefieldState) -> str:
        return "track_stage" if stages_pending(state) else after

    builder.add_conditional_edges(START, _route, ["track_stage", after])
    builder.add_conditional_edges("track_stage", _route, ["track_stage", after])


def build(checkpointer=None):
    """Compile the clash-tracking graph (optionally with a checkpointer, for live matches)."""
    builder = StateGraph(BattlefieldState, context_schema=AdjudicationContext)
    add_tracking(builder, END)
    return builder.compile(checkpointer=checkpointer, name="clash_tracking")


graph = build()
