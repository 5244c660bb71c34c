"""LangGraph entry point: the clash-tracking graph, compiled (``langgraph.json`` points here)."""

from adjudicator.workflow.tracking import build

graph = build()
