"""LangGraph entry point: the adjudication graph (the main job), compiled (``langgraph.json`` points here)."""

from adjudicator.workflow.adjudication import build

graph = build()
