"""Where the live server keeps its state, in SQLite (a state folder, one server process) or PostgreSQL
(one database shared by several server processes).

- :mod:`.sql`          the one SQL layer: a database (SQLite or PostgreSQL) and the dialect that holds
  what differs between the two (placeholders, JSON bodies, creation order, locking, a lost race)
- :mod:`.schema`       the one schema: the ordered migrations both engines run, and the step that runs them
- :mod:`.checkpoints`  the SQLite checkpointer: serializer allowlist, thread ids and configs, pruning
- :mod:`.registry`     the ``live_matches`` rows: header, status (open, closing, closed), panel attempts
- :mod:`.readings`     the offline tracker's reading of each open room, kept with the room
- :mod:`.verdicts`     the files of closed matches: verdicts/<id>.json and reports/<id>.md
- :mod:`.storage`      the storage interface of the live store (checkpointer, registry, verdicts, a lock
  and a board revision per match) and its SQLite implementation (the default)
- :mod:`.pgconn`       PostgreSQL connection pools and advisory-lock keys
- :mod:`.postgres`     the PostgreSQL storage (LangGraph's Postgres checkpointer, advisory locks per match,
  revisions, LISTEN/NOTIFY, the verdicts table)
- :mod:`.tournament_store` the storage interface of the tournament registry, the verdict states and the log
- :mod:`.tournament_sql` its one implementation, on either engine (``tournaments.sqlite`` or the live database)

The registry, the readings and the tournament tables are one SQL implementation for both engines; the
LangGraph checkpointers (``SqliteSaver``, ``PostgresSaver``) and the verdicts (files, or a table) are
each engine's own.
"""
