"""What Tabbycat counts for a debate, read back from Tabbycat itself, and what one of our ballots would
make it count -- the two compared before every write and after every failed one.

Tabbycat v2.9.3 cannot list or fetch a debate's ballots through its API (``BallotViewSet.get_queryset``
reads ``participant_requester``, which nothing sets: HTTP 500 on list, retrieve, update and destroy).
What its standings count is readable: ``GET /teams/standings/rounds`` (``TeamRoundStandingsRoundsView``:
per team, per round, the ``points`` and ``score`` of the debate's **confirmed** ballot's team score, null
when none) and ``GET /speakers/standings/rounds`` (``SpeakerRoundStandingsRoundsView``: per speaker, per
round, the substantive ``speeches`` -- ``score``, ``position`` -- of confirmed ballots). A team is in one
debate a round, so a debate's two teams' entries for the round are the debate's counted result, whoever
entered it: the tab room's form, another push, or a post that failed half-way (issue 41).

:class:`Counted` is that result in the shape of :func:`~adjudicator.live.tabbycat.push.stored_result`:
``winner`` (the side with the team point, None when no team has one), ``totals`` (side -> team score, None
without speaker scores) and ``speeches`` (side -> ``[[speaker URL, score], ...]`` by position). Two are
:meth:`Counted.same` when winner, totals and speeches agree to 1e-6 points.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import SIDES, Side
from adjudicator.live.tabbycat.client import TabbycatClient, TabbycatUnreachable
from adjudicator.live.tabbycat.reading import SIDE_OF_CODE, Pairing, TabbycatRound


class Counted(FrozenModel):
    """One debate's result as Tabbycat counts it (module docstring)."""

    winner: Side | None = None
    totals: dict[str, float | None] = Field(default_factory=dict)
    speeches: dict[str, list[list[Any]]] = Field(default_factory=dict)

    def same(self, other: Counted | None) -> bool:
        """Whether ``other`` is the same result (winner, totals, speeches within 1e-6 points)."""
        if other is None or self.winner != other.winner:
            return False

        def close(a: float | None, b: float | None) -> bool:
            return (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-6)

        if any(not close(self.totals.get(s), other.totals.get(s)) for s in SIDES):
            return False
        for s in SIDES:
            mine, theirs = self.speeches.get(s) or [], other.speeches.get(s) or []
            if len(mine) != len(theirs) or any(a[0] != b[0] or not close(a[1], b[1]) for a, b in zip(mine, theirs, strict=True)):
                return False
        return True

    def describe(self) -> str:
        """One line: ``affirmative win, 303-298 (speeches 76 75 75 77 | 74 75 74 75)``."""
        if self.winner is None and not any(self.totals.values()):
            return "no team point (a confirmed ballot without a result)"
        head = f"{self.winner} win" if self.winner else "no winner"
        tot = [self.totals.get(s) for s in SIDES]
        if all(t is not None for t in tot):
            head += f", {tot[0]:g}-{tot[1]:g}"
        sp = [" ".join(f"{x[1]:g}" for x in self.speeches.get(s) or []) for s in SIDES]
        if any(sp):
            head += f" (speeches {sp[0] or 'none'} | {sp[1] or 'none'})"
        elif all(t is not None for t in tot):
            head += " (no speaker scores)"
        return head


def expected(body: dict[str, Any]) -> Counted:
    """What Tabbycat counts once ``body`` (a ballot request, :func:`~adjudicator.live.tabbycat.ballot.build_ballot`)
    is stored: its first sheet (every sheet of ours carries the same result)."""
    sheet = body["result"]["sheets"][0]
    winner = next((SIDE_OF_CODE[t["side"]] for t in sheet["teams"] if t.get("win")), None)
    return Counted(winner=winner, totals={SIDE_OF_CODE[t["side"]]: t.get("score") for t in sheet["teams"]},  # type: ignore[arg-type]
                   speeches={SIDE_OF_CODE[t["side"]]: [[s["speaker"], s["score"]] for s in t.get("speeches", [])] for t in sheet["teams"]})


def counted_from_detail(detail: dict[str, Any]) -> Counted | None:
    """What a push log entry's detail says Tabbycat counted after that push (``counts``; for a ``posted``
    entry of before issue 41, its ``stored`` answer), None when it says nothing counted."""
    if "counts" in detail:
        return Counted.model_validate(detail["counts"]) if detail["counts"] else None
    stored = detail.get("stored")
    if not stored:
        return None
    totals: dict[str, float | None] = {s: (sum(x[1] for x in stored["speeches"].get(s) or []) if stored["speeches"].get(s) else None) for s in SIDES}
    return Counted(winner=stored.get("winner"), totals=totals, speeches={s: stored["speeches"].get(s) or [] for s in SIDES})


def read_counted(client: TabbycatClient, tc: TabbycatRound) -> dict[int, Counted | None]:
    """Debate id -> what Tabbycat counts for it in round ``tc.seq`` (None: nothing). Raises
    :class:`~adjudicator.live.tabbycat.client.TabbycatError` (also for answers of the wrong shape)."""
    suffix = f"/rounds/{tc.seq}"
    try:
        team_rows = {t["team"]: next((r for r in t.get("rounds") or [] if str(r.get("round", "")).endswith(suffix)), None)
                     for t in client.list("/teams/standings/rounds")}
        speeches = {s["speaker"]: next((r.get("speeches") or [] for r in s.get("rounds") or [] if str(r.get("round", "")).endswith(suffix)), [])
                    for s in client.list("/speakers/standings/rounds")}
    except (KeyError, TypeError, AttributeError) as exc:
        raise TabbycatUnreachable(f"Tabbycat at {client.base} answered its standings in a shape this client does not know ({type(exc).__name__}: {exc})") from None
    return {p.id: _debate(p, tc, team_rows, speeches) for p in tc.pairings}


def _debate(p: Pairing, tc: TabbycatRound, team_rows: dict[str, Any], speeches: dict[str, list[dict[str, Any]]]) -> Counted | None:
    rows = {side: team_rows.get(url) or {} for side, url in p.teams.items()}
    if all(rows[s].get("points") is None and rows[s].get("score") is None for s in rows):
        return None
    winner = next((s for s in SIDES if (rows.get(s) or {}).get("points")), None)
    out: dict[str, list[list[Any]]] = {}
    for side, url in p.teams.items():
        team = tc.teams.get(url)
        got = sorted((sp["position"], person.url, sp["score"]) for person in (team.speakers if team else []) for sp in speeches.get(person.url, []))
        out[side] = [[u, s] for _, u, s in got]
    return Counted(winner=winner, totals={s: (rows.get(s) or {}).get("score") for s in SIDES}, speeches=out)
