"""Live adjudication: an organiser pushes stages as they finish; a board page follows the debate.

Modules, in data-flow order:

- :mod:`.errors`       HTTP-aware input errors (4xx) that are still :class:`~adjudicator.errors.InputError`
- :mod:`.validation`   a header, a pushed stage (or a resent one), a complete match: the CLI's one-line messages
- :mod:`.registry`     the ``live_matches`` rows: header, status (open, closing, closed), panel attempts
- :mod:`.checkpoints`  the SQLite checkpointer: serializer allowlist, thread ids and configs, pruning
- :mod:`.verdicts`     the files of closed matches: verdicts/<id>.json and reports/<id>.md
- :mod:`.storage`      the storage interface of the live store (checkpointer, registry, verdicts, a lock
  and a board revision per match) and its SQLite implementation (the default)
- :mod:`.pgconn`       PostgreSQL connection pools, advisory-lock keys and the migration step at start
- :mod:`.postgres`     the PostgreSQL storage: one database shared by several server processes
  (LangGraph's Postgres checkpointer, advisory locks per match, revisions, LISTEN/NOTIFY)
- :mod:`.store`        one tracking thread per match over those parts: create, receive, analyse, close, recover
- :mod:`.tendency`     the provisional tendency (score gap and clash momentum, before the panel)
- :mod:`.turning_points` the stages where the provisional tendency crossed 0.5, and what moved it
- :mod:`.board`        the board snapshot (battlefield map, provisional scores and tendency, latest change, turning points)
- :mod:`.tournament`   tournaments, rounds, rooms and the bodies that create them
- :mod:`.lifecycle`    a room's verdict states: draft -> confirmed (override beside the original) -> released, log entries
- :mod:`.tournament_store` the storage interface of the registry, the verdict states and the log
- :mod:`.tournament_sqlite` its SQLite implementation (``tournaments.sqlite``, one transaction per transition)
- :mod:`.tournament_postgres` its PostgreSQL implementation (the same tables, ``jsonb`` bodies)
- :mod:`.access`       the organiser's token, each room's chair token, public reads
- :mod:`.tabbycat`     a room's ballot in the shape of Tabbycat's API v1 ballot submission
- :mod:`.results_csv`  a round's results as CSV
- :mod:`.report_html`  the verdict report as HTML in the match's language
- :mod:`.tabroom`      tournaments over the live matches: creation, the human gate, who sees what, exports
- :mod:`.events`       server-sent events: one latest-snapshot channel per match
- :mod:`.headers`      security headers on every answer (Content-Security-Policy, framing, referrer, nosniff)
- :mod:`.routes`       the HTTP routes of matches: pages, reads, writes (token, body-size limit)
- :mod:`.tournament_routes` the HTTP routes of tournaments, rounds and rooms
- :mod:`.app`          the FastAPI app: stores, tab room, gate, hub, lifespan, JSON errors with the field path
- :mod:`.server`       access token file, socket binding, uvicorn in the foreground or in a thread
- :mod:`.client`       the HTTP client used by ``adjudicate live push|create|close|replay``
- :mod:`.replay`       nominal stage durations and the replay loop

The ``adjudicate live`` command group is :mod:`adjudicator.cli.live`; its tournament commands are
:mod:`adjudicator.cli.tournament`.
"""
