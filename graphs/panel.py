"""LangGraph entry point: the panel graph, compiled for LangGraph's tools: JSON input
``{"battlefield": <a clash-tracking state>}`` (the clash_tracking graph's output), output
``{"verdict": <the verdict>}``, context :data:`~graphs.settings.GraphSettings`. ``langgraph.json``
names :func:`make_graph`, which refuses unknown context keys before the server drops them."""

from adjudicator.workflow.panel import build
from graphs.settings import GraphSettings, server_factory

graph = build(json_input=True, context_schema=GraphSettings)
make_graph = server_factory(graph)
