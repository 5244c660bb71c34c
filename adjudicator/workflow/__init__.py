"""The LangGraph workflows: ``context`` (the runtime context: which backend tracks, which judges
sit), ``nodes`` (node functions and the panel's state), ``tracking`` / ``panel`` / ``adjudication``
(builders and ``route_after_<node>`` routers). ``graphs/`` compiles these for LangGraph's tools."""
