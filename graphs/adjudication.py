"""LangGraph entry point: the adjudication graph (the main job), compiled for LangGraph's tools
(``langgraph.json`` points here): JSON input ``{"match": <a match file>}``, context :class:`GraphSettings`."""

from adjudicator.workflow.adjudication import build
from graphs.settings import GraphSettings

graph = build(json_input=True, context_schema=GraphSettings)
