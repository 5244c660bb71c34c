"""Two of our rounds, or two tournaments, that would write to the same Tabbycat round (issue 41): each
push would then find the other's ballots there (a ``conflict``, :mod:`~adjudicator.live.tabbycat.push`),
so the organiser is warned when the second one is set up -- at ``round create`` (same Tabbycat API base
and ``tabbycat_round`` as another round) and at ``tournament create`` / ``settings`` (same Tabbycat API
base as another tournament). A warning, not a refusal: a round created again for a re-run, or a test
tournament, may mean it.
"""

from __future__ import annotations

from typing import Any


def _same(a: str | None, b: str | None) -> bool:
    return bool(a and b) and a.rstrip("/").casefold() == b.rstrip("/").casefold()  # type: ignore[union-attr]


def shared_targets(store: Any, tournament_id: str, round_id: str | None = None) -> list[str]:
    """Warnings (one line each, [] when none) for ``tournament_id``'s Tabbycat API base, or, with
    ``round_id``, for that round's Tabbycat round, shared with another tournament or round of ``store``
    (a :class:`~adjudicator.live.store.tournament_store.TournamentStore`)."""
    t = store.tournament(tournament_id)
    if t is None or not t.tabbycat_url:
        return []
    if round_id is None:
        return [f"tournament {o.tournament_id!r} pushes to the same Tabbycat tournament ({t.tabbycat_url}): a push finds the other's ballots "
                "there as conflicts; give each tournament its own Tabbycat tournament unless one replaces the other"
                for o in store.tournaments() if o.tournament_id != tournament_id and _same(o.tabbycat_url, t.tabbycat_url)]
    rnd = store.round(tournament_id, round_id)
    if rnd is None or rnd.tabbycat_round is None:
        return []
    out = []
    for o in store.tournaments():
        if not _same(o.tabbycat_url, t.tabbycat_url):
            continue
        for r in store.rounds(o.tournament_id):
            if r.tabbycat_round == rnd.tabbycat_round and (o.tournament_id, r.round_id) != (tournament_id, round_id):
                out.append(f"round {o.tournament_id}/{r.round_id} pushes to the same Tabbycat round ({rnd.tabbycat_round} of {t.tabbycat_url}): "
                           "a push finds the other's ballots there as conflicts; give this round its own --tabbycat-round")
    return out
