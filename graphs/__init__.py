"""The compiled graphs LangGraph's tools load (``langgraph.json``; ``langgraph dev``, Studio).

One module per workflow, each exposing a module-level compiled ``graph``:

- ``graphs.tracking``: the clash-tracking graph (one ``track_stage`` run per stage, in order);
- ``graphs.panel``: the panel (``Send`` fan-out to three judges, then plain-code aggregation);
- ``graphs.adjudication``: both in one graph, the main job.

The builders, routers and node functions live in :mod:`adjudicator.workflow`; this package only
imports them, so the dependency runs one way (``graphs`` -> ``adjudicator``) and the library's own
front door (:mod:`adjudicator.api`) and live mode can compile the same graphs without importing
``graphs``.
"""
