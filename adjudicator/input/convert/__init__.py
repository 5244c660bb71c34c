"""Upstream datasets turned into match files: ``debateart`` (PanelBench DebateArt, format
``online-1v1``) and ``bp`` (PanelBench BP-Competition, format ``bp``)."""
