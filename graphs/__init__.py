"""The compiled graphs LangGraph's tools load (``langgraph.json``; ``langgraph dev``, Studio, the
LangGraph API), runnable from JSON.

One module per workflow, each exposing a module-level compiled ``graph`` and ``make_graph``, the
factory ``langgraph.json`` names (it refuses unknown context keys, :func:`graphs.settings.server_factory`):

- ``graphs.tracking``: the clash-tracking graph (one ``track_stage`` run per stage, in order);
  input ``{"match": <a match file>}``, output ``{"battlefield": <the clash-tracking state>}``;
- ``graphs.panel``: the panel (``Send`` fan-out to three judges, then plain-code aggregation); input
  ``{"battlefield": ...}`` (the clash_tracking graph's output as it is), output ``{"verdict": ...}``;
- ``graphs.adjudication``: both in one graph, the main job; input ``{"match": <a match file>}``,
  output ``{"verdict": ...}``.

Each is the library's workflow behind one entry node that validates the JSON input
(:mod:`adjudicator.workflow.json_input`), with :data:`graphs.settings.GraphSettings` as its context:
every setting of :class:`adjudicator.config.ModelConfig` a run may set (``{"model":
"deepseek/deepseek-chat", "rubric": "debateart"}``; nothing = the offline judge).

The builders, routers and node functions live in :mod:`adjudicator.workflow`; this package only
imports them, so the dependency runs one way (``graphs`` -> ``adjudicator``) and the library's own
front door (:mod:`adjudicator.api`) and live mode compile the same workflows without importing
``graphs``.
"""
