"""LangGraph entry point: the clash-tracking graph, compiled for LangGraph's tools: JSON input
``{"match": <a match file>}``, output ``{"battlefield": <the clash-tracking state>}`` (the panel graph's
input), context :data:`~graphs.settings.GraphSettings`. ``langgraph.json`` names :func:`make_graph`,
which refuses unknown context keys before the server drops them."""

from adjudicator.workflow.tracking import build
from graphs.settings import GraphSettings, server_factory

graph = build(json_input=True, context_schema=GraphSettings)
make_graph = server_factory(graph)
