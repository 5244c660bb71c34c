"""One debate followed live: what is pushed, how it is tracked, and what the board shows.

- :mod:`.validation`   a header, a pushed stage (or a resent one), a complete match: the CLI's one-line messages
- :mod:`.cache`        a bounded, thread-safe in-memory cache (tracking states and boards per match)
- :mod:`.tracking`     the live store: one tracking thread per match over :mod:`adjudicator.live.store`:
  create, receive, analyse, close (the panel), recover
- :mod:`.tendency`     the provisional tendency (score gap and clash momentum, before the panel)
- :mod:`.turning_points` the stages where the provisional tendency crossed 0.5, and what moved it
- :mod:`.board`        the board snapshot (battlefield map, provisional scores and tendency, latest change,
  turning points), a push's reply, a match's line in the list
- :mod:`.snapshots`    the board snapshots of the live store: cached per match, published once per revision
"""
