"""Live adjudication: an organiser pushes stages as they finish; a board page follows the debate.

Modules, in data-flow order:

- :mod:`.errors`  HTTP-aware input errors (4xx) that are still :class:`~adjudicator.errors.InputError`
- :mod:`.store`   match registry + one LangGraph SQLite checkpointer thread per match; push, close, recover
- :mod:`.board`   the board snapshot (battlefield map, provisional scores, provisional tendency, latest change)
- :mod:`.events`  server-sent events: one latest-snapshot channel per match
- :mod:`.app`     the FastAPI app (token for writes, body-size limit, JSON errors with the field path)
- :mod:`.server`  access token file, socket binding, uvicorn in the foreground or in a thread
- :mod:`.client`  the HTTP client used by ``adjudicate live push|create|close|replay``
- :mod:`.replay`  nominal stage durations and the replay loop
- :mod:`.cli`     the ``adjudicate live`` command group
"""
