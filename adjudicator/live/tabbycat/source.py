"""What the live server hands a Tabbycat push: one room's counted result, and its identities.

:class:`RoomSource` is plain data (no store, no network), built by the tab room from the room, its
round and its current :class:`~adjudicator.live.tournament.lifecycle.Decision`: the teams' and debaters' names,
the Tabbycat ids the organiser gave (if any), the counted winner (the override applied) and each
debater's raw score (the mean counted 1-10 score of the units they spoke in,
:func:`~adjudicator.live.tabbycat.speaker_scores.debater_scores`).
"""

from __future__ import annotations

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import SIDES, Side, get_format, position_label
from adjudicator.input.match import Stage
from adjudicator.live.tournament.lifecycle import Decision, ShownState
from adjudicator.live.tournament.model import Room, Round, SpeakerScale, TabbycatIds, Tournament
from adjudicator.live.tournament.speaker_scores import debater_scores


class RoomSource(FrozenModel):
    """One room's result for Tabbycat. ``debaters``: position label -> name (None: unnamed);
    ``raw_scores``: position label -> raw score 1-10, every debater of the format; ``winner_overridden``:
    a person changed the winner; ``decision_version`` the version pushed."""

    tournament_id: str
    round_id: str
    room_id: str
    match_id: str
    format: str
    tabbycat_round: int | None
    teams: dict[str, str]
    debaters: dict[str, str | None]
    ids: TabbycatIds | None = None
    state: ShownState
    decision_version: int = Field(ge=1)
    winner: Side
    winner_overridden: bool = False
    raw_scores: dict[str, float]
    confirmed_by: str | None = None
    speaker_scale: SpeakerScale = SpeakerScale()

    def labels(self, side: Side) -> list[str]:
        """The side's position labels, in speaking position order."""
        return [position_label(side, i) for i in range(1, get_format(self.format).debaters_per_side + 1)]


def room_source(tournament: Tournament, rnd: Round, room: Room, decision: Decision, stages: list[Stage]) -> RoomSource:
    """The :class:`RoomSource` of a room with a decision. A debater who spoke in no scored unit gets the
    mean of the side's counted unit scores (so a team's sheet stays complete)."""
    spec = get_format(rnd.format)
    labels: dict[str, list[str]] = {side: [position_label(side, i) for i in range(1, spec.debaters_per_side + 1)] for side in SIDES}
    eff = decision.effective()
    per = debater_scores(stages, eff.stage_scores, labels)
    raw: dict[str, float] = {}
    for side in SIDES:
        unit = [v for k, v in eff.stage_scores.items() if k.endswith(f"|{side}")]
        fallback = sum(unit) / len(unit) if unit else 1.0
        raw |= {label: (per[label] if per[label] is not None else fallback) for label in labels[side]}  # type: ignore[misc]
    names = {position_label(d.side, d.position): d.name for d in room.debaters}
    return RoomSource(
        tournament_id=room.tournament_id, round_id=room.round_id, room_id=room.room_id, match_id=room.match_id, format=rnd.format,
        tabbycat_round=rnd.tabbycat_round, teams=dict(room.teams), debaters={label: names.get(label) for ls in labels.values() for label in ls},
        ids=room.tabbycat, state=decision.shown_state, decision_version=decision.version, winner=eff.winner,
        winner_overridden=bool(decision.override and decision.override.winner and decision.override.winner != decision.automated.winner),
        raw_scores=raw, confirmed_by=decision.confirmed_by.name if decision.confirmed_by else None, speaker_scale=tournament.speaker_scale,
    )
