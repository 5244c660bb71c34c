"""A room's ballot as a file, in the shape Tabbycat's API v1 accepts, for offline use (``adjudicate live
export``); :mod:`adjudicator.live.tabbycat.push` posts it to a running Tabbycat instead, as that
tournament is set.

Tabbycat (TabbycatDebate/tabbycat, ``tabbycat/api/serializers.py``, ``BallotSerializer``; the published
OpenAPI schema ``docs/api-schema.yml``, component ``DebateResult``) takes ``POST
/api/v1/tournaments/<slug>/rounds/<seq>/pairings/<debate>/ballots`` with a JSON body::

    {"result": {"sheets": [{"teams": [{"side": "aff", "team": <team URL>, "win": true, "score": 23.5,
                                       "speeches": [{"speaker": <speaker URL>, "score": 7.83, "ghost": false}, ...]},
                                      {"side": "neg", ...}],
                            "adjudicator": <adjudicator URL or null>}]},
     "motion": <motion URL>, "confirmed": false, "discarded": false}

and checks that a team's ``score`` is the sum of its speeches' scores, that speeches come in speaker
order, that each speaker belongs to the team, and that there is one team per side of the debate. Teams,
speakers, adjudicators and motions are hyperlinks into the tournament's API (``<base>/teams/<id>``,
``<base>/speakers/<id>``, ``<base>/motions/<id>``). ``submitter_type`` ("T" tab room, "P" public, "A"
automation), ``confirmer`` and timestamps are read-only there: Tabbycat sets them from the token that
posts the ballot.

What this module builds (:class:`BallotExport`): the request ``body`` (writable fields only), the
``path`` and ``url`` to post it to, and ``submission``, which carries what the body cannot: that the
ballot is an automated submission (Tabbycat's submitter type "A"), its verdict state, and who confirmed
it. A draft is exported with ``confirmed: false``; a confirmed or released room with ``confirmed: true``.

The file cannot know the Tabbycat tournament's settings, so it assumes the ones :func:`assumed_settings`
lists (each export's ``notes`` repeats them, with the room's numbers): a **consensus sheet** (Tabbycat's
"Consensus ballot (one ballot per debate)"), one speech per debater of the format and no reply speech,
speaker scores within the tournament's :class:`~adjudicator.live.tournament.speaker_scores.SpeakerScale`, and, when
the counted winner does not have the higher total, a winner declaration that lets the declared winner
stand. The counted winner is the confirmed override, if any; each debater's speaker score comes from the
mean counted 1-10 score of the units they spoke in (:func:`~adjudicator.live.tournament.speaker_scores.debater_scores`),
each team's speeches rounded together. Two-team formats give each team ``win``; a four-team room gives
``points`` 3/2/1/0 by rank instead (:func:`team_outcomes`).
"""

from __future__ import annotations

from typing import Literal

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import SIDES, get_format, position_label
from adjudicator.input.match import Stage
from adjudicator.live.errors import Conflict
from adjudicator.live.tabbycat.ballot import winner_kept_ahead
from adjudicator.live.tabbycat.source import room_source
from adjudicator.live.tournament.lifecycle import Decision, VerdictState
from adjudicator.live.tournament.model import Room, Round, Tournament
from adjudicator.live.tournament.speaker_scores import SpeakerScale

#: Our unit names -> Tabbycat's side codes (``DebateSide``): the two-team sides, and BP's four houses
#: under the names the BP format is to declare (issue 12).
SIDE_CODES: dict[str, str] = {
    "affirmative": "aff", "negative": "neg",
    "opening_government": "og", "opening_opposition": "oo", "closing_government": "cg", "closing_opposition": "co",
}

EXPORT_KIND: Literal["tabbycat-api-v1-ballot"] = "tabbycat-api-v1-ballot"


class Speech(FrozenModel):
    """One speech: the speaker's URL and score (on the tournament's speaker scale)."""

    speaker: str
    score: float
    ghost: bool = False


class TeamResult(FrozenModel):
    """One team on a sheet: side code, team URL, ``win`` (two teams) or ``points`` (four), the team
    score (the sum of its speeches' scores, in speaker order) and the speeches."""

    side: str
    team: str
    win: bool | None = None
    points: int | None = None
    score: float
    speeches: list[Speech]


class Sheet(FrozenModel):
    """One scoresheet: every team of the debate, and the adjudicator (None for a consensus sheet)."""

    teams: list[TeamResult]
    adjudicator: str | None = None


class BallotResult(FrozenModel):
    """``result``: the sheets (one for a consensus ballot)."""

    sheets: list[Sheet]


class BallotBody(FrozenModel):
    """The request body of ``POST .../ballots``: writable fields only."""

    result: BallotResult
    motion: str | None = None
    confirmed: bool
    discarded: bool = False


class Submission(FrozenModel):
    """What Tabbycat's body cannot carry: the automated origin (``submitter_type`` "A", Tabbycat's
    "Automation"), the room, its verdict state, who confirmed it and when, whether a person overrode
    the automated result, and the panel's model, p and split."""

    submitter_type: Literal["A"] = "A"
    automated: bool = True
    tournament_id: str
    round_id: str
    room_id: str
    match_id: str
    state: VerdictState
    confirmed_by: str | None = None
    confirmed_at: str | None = None
    released_at: str | None = None
    overridden: bool = False
    override_note: str = ""
    model: str = ""
    is_llm: bool = False
    p: float | None = None
    winner_split: str | None = None


class BallotExport(FrozenModel):
    """One room's export: ``POST url`` with ``body``; ``submission`` says where it comes from;
    ``notes`` what the Tabbycat tournament must be set to so that it accepts the ballot as meant."""

    kind: Literal["tabbycat-api-v1-ballot"] = EXPORT_KIND
    method: Literal["POST"] = "POST"
    path: str
    url: str
    body: BallotBody
    submission: Submission
    notes: list[str]


class MissingTabbycatIds(Conflict):
    """The tournament, round or room lacks a Tabbycat id the ballot needs (409)."""


def team_outcomes(ranks: dict[str, int]) -> dict[str, dict[str, bool | int]]:
    """Unit -> the Tabbycat team fields of its outcome, from each unit's rank (1 = best): ``win`` for
    two teams, ``points`` (teams minus rank: 3, 2, 1, 0) for BP's four."""
    if len(ranks) == 2:
        return {u: {"win": r == 1} for u, r in ranks.items()}
    return {u: {"points": len(ranks) - r} for u, r in ranks.items()}


def _links(tournament: Tournament, rnd: Round, room: Room, units: list[str], labels_by_side: dict[str, list[str]]) -> tuple[str, dict[str, str], dict[str, str], str | None]:
    """(endpoint path base, team URLs, speaker URLs, motion URL). Raises :class:`MissingTabbycatIds`
    naming the first missing id."""
    hint = "give them when creating the tournament, round and room (see docs/tabbycat.md, 'Setting it up')"
    if not tournament.tabbycat_url:
        raise MissingTabbycatIds(f"tournament {tournament.tournament_id!r}: no Tabbycat API base (tabbycat_url)", hint)
    if rnd.tabbycat_round is None:
        raise MissingTabbycatIds(f"round {rnd.round_id!r}: no Tabbycat round number (tabbycat_round)", hint)
    ids = room.tabbycat
    if ids is None:
        raise MissingTabbycatIds(f"room {room.room_id!r}: no Tabbycat ids (tabbycat)", hint)
    base = tournament.tabbycat_url
    teams: dict[str, str] = {}
    for u in units:
        if u not in ids.teams:
            raise MissingTabbycatIds(f"room {room.room_id!r}: no Tabbycat team id for the {u} (tabbycat.teams.{u})", hint)
        teams[u] = f"{base}/teams/{ids.teams[u]}"
    speakers: dict[str, str] = {}
    for labels in labels_by_side.values():
        for label in labels:
            if label not in ids.speakers:
                raise MissingTabbycatIds(f"room {room.room_id!r}: no Tabbycat speaker id for {label} (tabbycat.speakers)", hint)
            speakers[label] = f"{base}/speakers/{ids.speakers[label]}"
    motion = f"{base}/motions/{ids.motion}" if ids.motion is not None else None
    return f"{base}/rounds/{rnd.tabbycat_round}/pairings/{ids.debate}/ballots", teams, speakers, motion


def ballot_export(tournament: Tournament, rnd: Round, room: Room, decision: Decision, stages: list[Stage]) -> BallotExport:
    """The Tabbycat ballot file of one room with a decision (module docstring). ``stages`` are the room's
    match stages (who spoke in each). Raises :class:`MissingTabbycatIds` (409)."""
    spec = get_format(rnd.format)
    units: list[str] = list(SIDES)
    labels_by_side: dict[str, list[str]] = {side: [position_label(side, i) for i in range(1, spec.debaters_per_side + 1)] for side in SIDES}
    url, team_urls, speaker_urls, motion = _links(tournament, rnd, room, units, labels_by_side)
    src = room_source(tournament, rnd, room, decision, stages)
    outcome = team_outcomes({u: (1 if u == src.winner else 2) for u in units})
    scale = tournament.speaker_scale
    points = winner_kept_ahead(src, scale)[0]  # as the push: rounding never makes the counted winner level or behind
    teams: list[TeamResult] = []
    for u in units:
        scores = points[u]
        speeches = [Speech(speaker=speaker_urls[label], score=sc) for label, sc in zip(labels_by_side[u], scores, strict=True)]
        total = 0.0
        for sp in speeches:
            total += sp.score  # left to right, as Tabbycat's serializer sums them
        teams.append(TeamResult(side=SIDE_CODES[u], team=team_urls[u], score=total, speeches=speeches, **outcome[u]))  # type: ignore[arg-type]
    body = BallotBody(result=BallotResult(sheets=[Sheet(teams=teams)]), motion=motion, confirmed=decision.state != "draft")
    a = decision.automated
    submission = Submission(
        tournament_id=room.tournament_id, round_id=room.round_id, room_id=room.room_id, match_id=room.match_id, state=decision.state,
        confirmed_by=decision.confirmed_by.name if decision.confirmed_by else None, confirmed_at=decision.confirmed_at, released_at=decision.released_at,
        overridden=decision.overridden, override_note=decision.override.note if decision.override else "",
        model=a.model, is_llm=a.is_llm, p=a.p, winner_split=a.winner_split,
    )
    path = "/" + url.split("://", 1)[1].split("/", 1)[1]
    return BallotExport(path=path, url=url, body=body, submission=submission, notes=_notes(decision, teams, scale, spec.debaters_per_side))


def assumed_settings(scale: SpeakerScale, debaters_per_side: int) -> list[str]:
    """The Tabbycat settings a ballot file is written for (Tabbycat v2.9.3's names and identifiers)."""
    return [
        "Tabbycat setting 'Ballots per debate' (debate_rules__ballots_per_debate_prelim, and _elim for elimination rounds) must be "
        "'Consensus ballot (one ballot per debate)': this ballot has one sheet for the whole panel (Tabbycat's default, one ballot per voting adjudicator, "
        "fails on it with a server error; `adjudicate live tabbycat push` posts one sheet per adjudicator instead).",
        f"Tabbycat setting 'Substantive speakers' (debate_rules__substantive_speakers) must be {debaters_per_side} and 'Reply scores' "
        "(debate_rules__reply_scores_enabled) off: Tabbycat gives the k-th speech position k, and with replies on it takes the last speech as a reply.",
        "Tabbycat setting 'Require speaker scores' (debate_rules__speakers_in_ballots) must ask for scores in this round, and 'Use of speech ranks' "
        "(debate_rules__speaker_ranks) must be 'Do not rank speeches'; the tournament must have no score criteria.",
        f"Speaker scores are on the scale {scale.low:g}-{scale.high:g} in steps of {scale.step:g} ({scale.method()}): Tabbycat's 'Minimum speaker score', "
        "'Maximum speaker score' and 'Speaker score step' (scoring__score_min, _max, _step) must allow them (its API does not check them).",
        "Tabbycat records every API ballot with submitter type 'Tab room' and the token's user as submitter; 'submission' says this one is automated.",
    ]


def _notes(decision: Decision, teams: list[TeamResult], scale: SpeakerScale, debaters_per_side: int) -> list[str]:
    notes = assumed_settings(scale, debaters_per_side)
    if decision.state == "draft":
        notes.insert(0, "Automated draft, not confirmed by a person: posted with confirmed=false; confirm the room first (`adjudicate live confirm`).")
    winner = next(t for t in teams if t.win or t.points == len(teams) - 1)
    if any(t is not winner and t.score >= winner.score for t in teams):
        notes.append("The winner does not have the higher team score: Tabbycat setting 'Winner Declaration in ballot(s)' (debate_rules__winners_in_ballots) must be "
                     "'Require winner selection, overriding scores' (with a tie, 'Require winner selection to break tied-point debates' also does); "
                     "under its default Tabbycat records the other team as the winner.")
    return notes


def export_json(export: BallotExport) -> dict:
    """The export as JSON-ready data; the body without its unset optional fields (``win`` or
    ``points``, a missing motion, the consensus sheet's adjudicator), as Tabbycat expects them."""
    data = export.model_dump(mode="json")
    data["body"] = export.body.model_dump(mode="json", exclude_none=True)
    return data
