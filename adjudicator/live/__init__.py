"""Live adjudication: an organiser pushes stages as they finish; a board page follows the debate; a
tournament's rooms are judged, confirmed by people and released.

Sub-packages, in data-flow order (each one's docstring maps its modules):

- :mod:`.errors`      HTTP-aware input errors (4xx) that are still :class:`~adjudicator.errors.InputError`
- :mod:`.store`       where the live server keeps its state: the LangGraph checkpointer, the match registry,
  the rooms' readings, the verdict files, the tournament registry and log (SQLite in the state folder, or
  one PostgreSQL database shared by several server processes)
- :mod:`.rooms`       one debate followed live: validation of what is pushed, one tracking thread per match
  and its panel at close, the provisional tendency, turning points, the board snapshot
- :mod:`.tournament`  tournaments, rounds and rooms over the live matches: the verdict lifecycle (draft,
  confirmed, released), tokens and people, corrections, the exports (CSV, HTML report)
- :mod:`.tabbycat`    Tabbycat, the tab software: a round's confirmed results pushed into it, or exported for it
- :mod:`.server`      the FastAPI app, its routes, events, security headers, bounds and timing; uvicorn
- :mod:`.client`      the HTTP client of ``adjudicate live ...`` and the replay loop

The board page's files are in ``static/``. The ``adjudicate live`` command group is
:mod:`adjudicator.cli.live`; its tournament commands are :mod:`adjudicator.cli.tournament`.
"""
