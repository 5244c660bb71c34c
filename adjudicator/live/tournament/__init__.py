"""Tournaments over the live matches: rounds, rooms, the human gate on every automated verdict, who
sees what, and the exports.

- :mod:`.model`        tournaments, rounds, rooms and the bodies that create them
- :mod:`.speaker_scores` speaker scores on the tournament's scale, spread as human judges spread them
- :mod:`.lifecycle`    a room's verdict states: draft -> confirmed (override beside the original) -> released,
  log entries
- :mod:`.access`       the organiser's token, each room's chair token, public reads
- :mod:`.people`       one token per person and role, so that who did what is the token's person
- :mod:`.results_csv`  a round's results as CSV
- :mod:`.report_html`  the verdict report as HTML in the match's language: the CLI report page with the live sections
- :mod:`.tabroom`      the tab room: creation, the human gate, who sees what, exports
- :mod:`.corrections`  reopen or void a room's result, and the lifecycle log's lines for pushes and closes
- :mod:`.repush`       a closed room's stage pushed again: analysis and panel again, a new automated draft
"""
