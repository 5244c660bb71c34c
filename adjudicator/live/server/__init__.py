"""The live server: HTTP in front of :mod:`adjudicator.live.rooms` and :mod:`adjudicator.live.tournament`.

- :mod:`.events`       server-sent events: one latest-snapshot channel per match
- :mod:`.headers`      security headers on every answer (Content-Security-Policy, framing, referrer, nosniff)
- :mod:`.timing`       how long each answer took, in a ``Server-Timing`` header
- :mod:`.capacity`     per-process bounds on open connections and board event streams
- :mod:`.routes`       the HTTP routes of matches: pages, reads, writes (token, body-size limit)
- :mod:`.tournament_routes` the HTTP routes of tournaments, rounds and rooms
- :mod:`.app`          the FastAPI app: stores, tab room, gate, hub, lifespan, JSON errors with the field path
- :mod:`.serving`      access token file, socket binding, uvicorn in the foreground or in a thread
"""
