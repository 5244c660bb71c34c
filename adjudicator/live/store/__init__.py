"""Where the live server keeps its state, in SQLite (a state folder, one server process) or PostgreSQL
(one database shared by several server processes).

- :mod:`.checkpoints`  the SQLite checkpointer: serializer allowlist, thread ids and configs, pruning
- :mod:`.registry`     the ``live_matches`` rows: header, status (open, closing, closed), panel attempts
- :mod:`.readings`     the offline tracker's reading of each open room, kept with the room
- :mod:`.verdicts`     the files of closed matches: verdicts/<id>.json and reports/<id>.md
- :mod:`.storage`      the storage interface of the live store (checkpointer, registry, verdicts, a lock
  and a board revision per match) and its SQLite implementation (the default)
- :mod:`.pgconn`       PostgreSQL connection pools, advisory-lock keys and the migration step at start
- :mod:`.postgres`     the PostgreSQL storage (LangGraph's Postgres checkpointer, advisory locks per match,
  revisions, LISTEN/NOTIFY)
- :mod:`.tournament_store` the storage interface of the tournament registry, the verdict states and the log
- :mod:`.tournament_sqlite` its SQLite implementation (``tournaments.sqlite``, one transaction per transition)
- :mod:`.tournament_postgres` its PostgreSQL implementation (the same tables, ``jsonb`` bodies)
"""
