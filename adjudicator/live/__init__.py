"""Live adjudication: an organiser pushes stages as they finish; a board page follows the debate.

Modules, in data-flow order:

- :mod:`.errors`       HTTP-aware input errors (4xx) that are still :class:`~adjudicator.errors.InputError`
- :mod:`.validation`   a header, a pushed stage (or a resent one), a complete match: the CLI's one-line messages
- :mod:`.registry`     the ``live_matches`` rows: header, status (open, closing, closed), panel attempts
- :mod:`.checkpoints`  the SQLite checkpointer: serializer allowlist, thread ids and configs, pruning
- :mod:`.verdicts`     the files of closed matches: verdicts/<id>.json and reports/<id>.md
- :mod:`.store`        one tracking thread per match over those parts: create, receive, analyse, close, recover
- :mod:`.tendency`     the provisional tendency (score gap and clash momentum, before the panel)
- :mod:`.board`        the board snapshot (battlefield map, provisional scores and tendency, latest change)
- :mod:`.events`       server-sent events: one latest-snapshot channel per match
- :mod:`.routes`       the HTTP routes: pages, reads, writes (token, body-size limit)
- :mod:`.app`          the FastAPI app: store, hub, lifespan, JSON errors with the field path
- :mod:`.server`       access token file, socket binding, uvicorn in the foreground or in a thread
- :mod:`.client`       the HTTP client used by ``adjudicate live push|create|close|replay``
- :mod:`.replay`       nominal stage durations and the replay loop

The ``adjudicate live`` command group is :mod:`adjudicator.cli.live`.
"""
