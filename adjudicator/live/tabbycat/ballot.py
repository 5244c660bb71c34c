"""One room's ballot for Tabbycat's ``POST .../rounds/<seq>/pairings/<debate>/ballots``, as the tournament
is set, and the refusals of a ballot Tabbycat would store wrongly.

The body (Tabbycat v2.9.3 ``api/serializers.py`` ``BallotSerializer``)::

    {"result": {"sheets": [{"adjudicator": <URL>,            # per voting adjudicator only
                            "teams": [{"side": "aff", "team": <URL>, "win": true,
                                       "score": 301.0,          # the sum of the speeches, with scores only
                                       "speeches": [{"speaker": <URL>, "score": 76.0}, ...]},
                                      {"side": "neg", ...}]}]},
     "motion": <URL>, "confirmed": true}

- **One ballot per voting adjudicator** (Tabbycat's default): one sheet per voting adjudicator (chair and
  panellists, not trainees), each naming its adjudicator, each the room's confirmed result -- Tabbycat then
  records an N-0 decision. With two or more voting adjudicators v2.9.3 takes either a sheet from every
  one of them or a single sheet as that adjudicator's own partial ballot -- which fails with a server
  error once it carries speaker scores (``ConsensusDebateResultWithScores.set_score`` gets the
  adjudicator too), as does a single sheet without an adjudicator (``KeyError: 'adjudicator'``).
- **Consensus ballot**: one sheet without an adjudicator (with one and speaker scores, v2.9.3 fails the
  same way).
- Speeches only where the tournament asks for speaker scores, one per substantive position in speaking
  order, on Tabbycat's range and step (:class:`~adjudicator.live.tournament.model.SpeakerScale` on
  ``score_min``-``score_max``, ``score_step``); ``win`` on every team (Tabbycat uses it only where
  the winner is declared). Sides in Tabbycat's order (affirmative, then negative: ``validate_teams``).
"""

from __future__ import annotations

from typing import Any

from adjudicator.input.formats import SIDES
from adjudicator.live.tabbycat.mapping import RoomMapping
from adjudicator.live.tabbycat.reading import TabbycatRound
from adjudicator.live.tabbycat.rules import Refusal, outcome_refusals
from adjudicator.live.tabbycat.source import RoomSource
from adjudicator.live.tournament.speaker_scores import SpeakerScale

SIDE_CODE = {"affirmative": "aff", "negative": "neg"}


def push_scale(src: RoomSource, tc: TabbycatRound) -> SpeakerScale:
    """The scale a push uses: Tabbycat's range and step, mapped as the tournament's speaker scale says
    when it names the same range, else calibrated with the tournament's raw mean and sd."""
    own, r = src.speaker_scale, tc.rules
    same = (own.low, own.high) == (r.score_min, r.score_max)
    return own.model_copy(update={"low": r.score_min, "high": r.score_max, "step": r.score_step, "mapping": own.method() if same else "calibrated"})


def speaker_points(src: RoomSource, scale: SpeakerScale) -> dict[str, list[float]]:
    """Side -> the speeches' scores on ``scale``, in speaking order (each team rounded together), the
    counted winner kept ahead (:func:`winner_kept_ahead`)."""
    return winner_kept_ahead(src, scale)[0]


def _inversions(points: list[float], raws: list[float]) -> int:
    """Pairs of speeches whose scores do not follow their distinct raw scores (6 decimals)."""
    keys = [round(r, 6) for r in raws]
    return sum(1 for i in range(len(keys)) for j in range(len(keys)) if keys[i] < keys[j] and points[i] >= points[j])


def winner_kept_ahead(src: RoomSource, scale: SpeakerScale) -> tuple[dict[str, list[float]], list[str]]:
    """(side -> scores on ``scale``, the moves made): when the counted winner's raw total (1-10 each) is
    above the loser's but rounding leaves its total level with or below the loser's, the winner's
    speech closest to rounding up (largest unrounded remainder, below ``high``) gains one ``step``
    (else the loser's closest to rounding down, above ``low``, loses one) until the winner is ahead by
    at least one step; a move that would put two speeches of the team out of their raw scores' order
    (:func:`~adjudicator.live.tournament.speaker_scores.round_team_ranked`) is taken only when no other
    is left. Each move reads e.g. ``"affirmative #2: 78 -> 79 (raw 8.00)"``."""
    raws: dict[str, list[float]] = {side: [src.raw_scores[label] for label in src.labels(side)] for side in SIDES}
    points: dict[str, list[float]] = {side: scale.team(raws[side]) for side in SIDES}
    win = src.winner
    lose = next(side for side in SIDES if side != win)
    moves: list[str] = []
    if sum(raws[win]) <= sum(raws[lose]):
        return points, moves

    def candidates(side: str, delta: float, in_order: bool) -> list[int]:
        ok = [i for i, s in enumerate(points[side]) if scale.low - 1e-9 <= s + delta <= scale.high + 1e-9]
        before = _inversions(points[side], raws[side])
        return [i for i in ok if not in_order or _inversions([s + delta if k == i else s for k, s in enumerate(points[side])], raws[side]) <= before]

    for _ in range(2 * len(points[win]) + 2 * len(points[lose])):
        if sum(points[win]) > sum(points[lose]) + 1e-9:
            break
        for in_order in (True, False):
            up, down = candidates(win, scale.step, in_order), candidates(lose, -scale.step, in_order)
            if up or down:
                break
        if up:
            side, pick = win, max(up, key=lambda i: (scale.unrounded(raws[win][i]) - points[win][i], -i))
        elif down:
            side, pick = lose, min(down, key=lambda i: (scale.unrounded(raws[lose][i]) - points[lose][i], i))
        else:
            break
        before = points[side][pick]
        after = round(before + (scale.step if side == win else -scale.step), 10)
        points[side][pick] = after
        moves.append(f"{side} #{pick + 1}: {before:g} -> {after:g} (raw {raws[side][pick]:.2f})")
    return points, moves


def build_ballot(src: RoomSource, tc: TabbycatRound, m: RoomMapping, *, confirmed: bool) -> tuple[dict[str, Any], list[Refusal], list[str]]:
    """(request body, refusals, the scores moved to keep the counted winner ahead, :func:`winner_kept_ahead`)
    of the room's ballot; post the body only when the refusals are []."""
    rules = tc.rules
    scores = rules.uses_scores(tc.elimination)
    points, moved = winner_kept_ahead(src, push_scale(src, tc)) if scores else ({}, [])
    teams: list[dict[str, Any]] = []
    for side in SIDES:
        team: dict[str, Any] = {"side": SIDE_CODE[side], "team": m.teams[side], "win": side == src.winner}
        if scores:
            total = 0.0
            for s in points[side]:
                total += s  # left to right, as Tabbycat's serializer sums the speeches it checks against
            team |= {"score": total, "speeches": [{"speaker": u, "score": s} for u, s in zip(m.speakers[side], points[side], strict=True)]}
        teams.append(team)
    if rules.ballots_per_debate(tc.elimination) == "per-adj":
        sheets = [{"adjudicator": adj, "teams": teams} for adj in m.adjudicators]
    else:
        sheets = [{"teams": teams}]
    body: dict[str, Any] = {"result": {"sheets": sheets}, "confirmed": confirmed}
    if m.motion:
        body["motion"] = m.motion
    raw_totals: dict[str, float] = {side: sum(src.raw_scores[label] for label in src.labels(side)) for side in SIDES}
    refusals = outcome_refusals(rules, {t_side: sum(points[t_side]) for t_side in SIDES}, src.winner, tc.elimination,
                                raw_totals=raw_totals, debaters=len(src.labels(src.winner))) if scores else []
    return body, refusals, moved
