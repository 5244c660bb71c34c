"""LangGraph entry point: the panel graph, compiled for LangGraph's tools (``langgraph.json`` points
here): JSON input a clash-tracking state (the clash_tracking graph's output), context :class:`GraphSettings`."""

from adjudicator.workflow.panel import build
from graphs.settings import GraphSettings

graph = build(json_input=True, context_schema=GraphSettings)
