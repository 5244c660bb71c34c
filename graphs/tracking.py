"""LangGraph entry point: the clash-tracking graph, compiled for LangGraph's tools (``langgraph.json``
points here): JSON input ``{"match": <a match file>}``, context :class:`GraphSettings`."""

from adjudicator.workflow.tracking import build
from graphs.settings import GraphSettings

graph = build(json_input=True, context_schema=GraphSettings)
