"""The clash-tracking graph: visits every received stage once, in order, accumulating the battlefield.

Topology: START -> (route_after_start) -> track_stage -> (route_after_track_stage) -> track_stage | END.
Invoked again with more ``stages`` (live use, with a checkpointer), it continues from ``next_stage``.
Compiled with ``json_input=True`` (LangGraph's tools), START -> read_input -> (route_after_start) ...
-> write_output -> END, whose output is ``{"battlefield": ...}`` only.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from adjudicator.verdict.battlefield import BattlefieldState
from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.json_input import READ_INPUT, WRITE_OUTPUT, MatchInput, TrackingOutput, read_match, write_battlefield
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


def add_tracking(builder: StateGraph[Any, Any, Any, Any], after: str, entry: str = START) -> None:
    """Add the ``track_stage`` loop to ``builder``, entered from ``entry`` (START, or the JSON entry
    node); when no stage is pending, continue to ``after`` (a node name, or END): the routers' ``done``
    maps to it."""
    builder.add_node("track_stage", track_stage)
    builder.add_conditional_edges(entry, route_after_start, {"track_stage": "track_stage", "done": after})
    builder.add_conditional_edges("track_stage", route_after_track_stage, {"track_stage": "track_stage", "done": after})


def add_match_input(builder: StateGraph[Any, Any, Any, Any]) -> str:
    """Add START -> ``read_input`` (:func:`~adjudicator.workflow.json_input.read_match`) to
    ``builder``; returns the entry node's name."""
    builder.add_node(READ_INPUT, read_match)
    builder.add_edge(START, READ_INPUT)
    return READ_INPUT


def build(checkpointer=None, *, json_input: bool = False, context_schema: type = AdjudicationContext):
    """Compile the clash-tracking graph (optionally with a checkpointer, for live matches).

    ``json_input``: the input is :class:`~adjudicator.workflow.json_input.MatchInput` JSON, read by an
    entry node, and the output :class:`~adjudicator.workflow.json_input.TrackingOutput`, written by an
    exit node (LangGraph's tools); ``context_schema``: the runtime context's type (an
    :class:`AdjudicationContext`, or serialisable settings for LangGraph's tools)."""
    builder = StateGraph(BattlefieldState, context_schema=context_schema, input_schema=MatchInput if json_input else None, output_schema=TrackingOutput if json_input else None)
    if json_input:
        builder.add_node(WRITE_OUTPUT, write_battlefield)
        builder.add_edge(WRITE_OUTPUT, END)
    add_tracking(builder, WRITE_OUTPUT if json_input else END, add_match_input(builder) if json_input else START)
    return builder.compile(checkpointer=checkpointer, name="clash_tracking")


@functools.cache
def compiled():
    """The clash-tracking graph, compiled once per process without a checkpointer."""
    return build()
