"""LangGraph wiring only: builders and routers over node functions from :mod:`adjudicator.nodes`.

- ``graphs.tracking``: the clash-tracking graph (one ``track_stage`` run per stage, in order).
- ``graphs.panel``: the panel (``Send`` fan-out to three judges, then plain-code aggregation).
- ``graphs.adjudication``: both in one graph, the main job.
Each module exposes a compiled module-level ``graph`` (see ``langgraph.json``).
"""
