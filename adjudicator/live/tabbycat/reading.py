"""What the push reads of a Tabbycat tournament: its settings, one round, the round's pairings, the teams
with their speakers, the adjudicators, the motions and the score criteria.

Endpoints (Tabbycat v2.9.3 ``tabbycat/api/urls.py``; shapes from ``api/serializers.py`` and recorded from
a real v2.9.3 in ``tests/tabbycat/v2.9.3/``), relative to the tournament's API base:
``/preferences``, ``/rounds/<seq>`` (``stage`` "P" preliminary or "E" elimination), ``/rounds/<seq>/pairings``
(each debate: ``id``, ``teams`` [{``team`` URL, ``side`` "aff"/"neg"}], ``adjudicators`` {``chair``,
``panellists``, ``trainees``}, ``sides_confirmed``, ``result_status``), ``/teams`` (with their
``speakers``: ``url``, ``name``), ``/adjudicators``, ``/motions``, ``/score-criteria``.

Trainees do not vote (``results/result.py``: voting sheets exclude ``DebateAdjudicator.TYPE_TRAINEE``).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.live.tabbycat.client import TabbycatClient, TabbycatUnreachable
from adjudicator.live.tabbycat.rules import TabbycatRules

#: Tabbycat's side codes of the two teams (``draw/types.py`` ``DebateSide``: AFF 0, NEG 1).
SIDE_OF_CODE = {"aff": "affirmative", "neg": "negative", 0: "affirmative", 1: "negative"}


class Person(FrozenModel):
    """A speaker or adjudicator: API URL and name."""

    url: str
    name: str


class Team(FrozenModel):
    """A team: URL, names and speakers (Tabbycat keeps no speaking order of a team's speakers)."""

    url: str
    short_name: str = ""
    long_name: str = ""
    speakers: list[Person] = Field(default_factory=list)

    def names(self) -> set[str]:
        """The names a room file may use for the team (case and spacing ignored)."""
        return {n.casefold().strip() for n in (self.short_name, self.long_name) if n}


class Pairing(FrozenModel):
    """One debate of the round: id, URL, team URL per side, the voting adjudicators (chair first,
    then panellists), whether its sides are confirmed, and Tabbycat's result status."""

    id: int
    url: str
    teams: dict[str, str]
    chair: str | None = None
    panellists: list[str] = Field(default_factory=list)
    sides_confirmed: bool = True
    result_status: str = "N"

    def voting(self) -> list[str]:
        """The voting adjudicators' URLs, chair first."""
        return ([self.chair] if self.chair else []) + list(self.panellists)


class TabbycatRound(FrozenModel):
    """What one push needs of a Tabbycat round."""

    base: str
    seq: int
    name: str = ""
    elimination: bool = False
    rules: TabbycatRules
    pairings: list[Pairing]
    teams: dict[str, Team]
    adjudicators: dict[str, str]
    motions: list[dict[str, Any]] = Field(default_factory=list)


def _pairing(p: dict[str, Any]) -> Pairing:
    teams = {SIDE_OF_CODE.get(t.get("side"), str(t.get("side"))): t["team"] for t in p.get("teams") or []}
    adjs = p.get("adjudicators") or {}
    return Pairing(id=int(p["id"]), url=p.get("url", ""), teams=teams, chair=adjs.get("chair"), panellists=list(adjs.get("panellists") or []),
                   sides_confirmed=bool(p.get("sides_confirmed", True)), result_status=str(p.get("result_status") or "N"))


def read_round(client: TabbycatClient, seq: int) -> TabbycatRound:
    """Read round ``seq`` of the client's tournament. Raises
    :class:`~adjudicator.live.tabbycat.client.TabbycatError` (also for answers of the wrong shape)."""
    try:
        rnd = client.get(f"/rounds/{seq}")
        criteria = client.list("/score-criteria")
        rules = TabbycatRules.from_preferences(client.list("/preferences"), has_criteria=bool(criteria))
        pairings = [_pairing(p) for p in client.list(f"/rounds/{seq}/pairings")]
        teams = {t["url"]: Team(url=t["url"], short_name=t.get("short_name") or "", long_name=t.get("long_name") or "",
                                speakers=[Person(url=s["url"], name=s.get("name") or "") for s in t.get("speakers") or []]) for t in client.list("/teams")}
        adjudicators = {a["url"]: a.get("name") or "" for a in client.list("/adjudicators")}
        motions = [m for m in client.list("/motions") if any(str(r.get("round", "")).endswith(f"/rounds/{seq}") for r in m.get("rounds") or [])]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TabbycatUnreachable(f"Tabbycat at {client.base} answered in a shape this client does not know ({type(exc).__name__}: {exc})") from None
    return TabbycatRound(base=client.base, seq=seq, name=str(rnd.get("name") or ""), elimination=rnd.get("stage") == "E", rules=rules,
                         pairings=pairings, teams=teams, adjudicators=adjudicators, motions=motions)
