"""Tabbycat, the tab software: a round's confirmed results pushed into it, or exported for it.

Read from Tabbycat v2.9.3 (TabbycatDebate/tabbycat, tag ``v2.9.3``): ``tabbycat/api/serializers.py``
(``BallotSerializer``), ``tabbycat/results/`` (``result.py``, ``scoresheet.py``, ``forms.py``,
``dbutils.py``) and ``tabbycat/options/preferences.py``; checked against a running v2.9.3
(``benchmarks/tabbycat_round.py``; ``tests/tabbycat/`` holds its recorded answers).

In data-flow order:

- :mod:`.client` -- HTTP to one tournament's API (``Authorization: Token``), errors as one line;
- :mod:`.rules` -- the tournament's settings that change what a ballot means, and the refusals;
- :mod:`.reading` -- the round: settings, pairings, teams and speakers, adjudicators, motions;
- :mod:`.source` -- what our side gives: one room's counted result and names;
- :mod:`.mapping` -- which debate, teams, speakers and adjudicators a room is (ids, else names);
- :mod:`.ballot` -- the request body, one sheet per voting adjudicator or one consensus sheet;
- :mod:`.push` -- read, map, build, refuse or post, check what Tabbycat stored, once per ballot;
- :mod:`.export` -- the file export for offline use (the settings it assumes are stated in it).
- :mod:`.status` -- where each room stands in Tabbycat, from the push log (round overview, ``live round show``).

Speaker scores come from :mod:`adjudicator.live.tournament.speaker_scores` (the tournament's scale).
"""
