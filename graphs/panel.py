"""LangGraph entry point: the panel graph, compiled (``langgraph.json`` points here)."""

from adjudicator.workflow.panel import build

graph = build()
