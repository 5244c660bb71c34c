"""Which Tabbycat debate, teams, speakers and adjudicators a room is.

By Tabbycat id where the room gives one (``tabbycat`` in the room file: debate, teams, speakers keyed by
position label, motion), else by name: the debate is the round's pairing whose affirmative and negative
teams carry the room's team names (Tabbycat's short or long name, case and spacing ignored), each speaker
the one speaker of that team with the debater's name. Anything missing, ambiguous or contradictory is a
:class:`~adjudicator.live.tabbycat.rules.Refusal` that says what to give instead -- nothing is guessed:

- a debate found on swapped sides (Tabbycat's affirmative is the room's negative);
- a debater without a name or an id, a name no speaker or several speakers of the team carry, one
  speaker in two positions (Tabbycat's form refuses a speaker giving two substantive speeches);
- a debate whose sides Tabbycat has not confirmed (``Debate.sides_confirmed``: its results ignore the
  teams) or, for one ballot per adjudicator, without a chair (``DebateResultByAdjudicator.is_complete``).
"""

from __future__ import annotations

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import SIDES, Side
from adjudicator.live.tabbycat.reading import Pairing, TabbycatRound, Team
from adjudicator.live.tabbycat.rules import Refusal
from adjudicator.live.tabbycat.source import RoomSource

HINT_IDS = "give the room its Tabbycat ids (`adjudicate live room create ... --tabbycat ids.json`, see docs/tabbycat.md)"


class RoomMapping(FrozenModel):
    """A room in Tabbycat: the debate, each side's team URL, each side's speaker URLs in speaking order,
    the voting adjudicators' URLs (chair first) and the motion URL (or None)."""

    debate: Pairing
    teams: dict[str, str]
    speakers: dict[str, list[str]]
    adjudicators: list[str] = Field(default_factory=list)
    motion: str | None = None


class MappingRefused(Exception):
    """A room that cannot be matched to Tabbycat without guessing; ``refusal`` says why."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.line())
        self.refusal = refusal


def _norm(name: str | None) -> str:
    return " ".join((name or "").split()).casefold()


def _refuse(reason: str, hint: str = HINT_IDS) -> MappingRefused:
    return MappingRefused(Refusal(reason=reason, hint=hint))


def find_debate(src: RoomSource, tc: TabbycatRound) -> Pairing:
    """The room's debate in the round. Raises :class:`MappingRefused`."""
    if src.ids is not None:
        hit = [p for p in tc.pairings if p.id == src.ids.debate]
        if not hit:
            raise _refuse(f"Tabbycat round {tc.seq} has no debate {src.ids.debate} (the room's tabbycat.debate)", "check the room's Tabbycat ids and the round's tabbycat_round")
        return hit[0]
    want = {side: _norm(src.teams.get(side)) for side in SIDES}
    found: list[tuple[Pairing, bool]] = []
    for p in tc.pairings:
        names = {side: tc.teams[u].names() if u in tc.teams else set() for side, u in p.teams.items()}
        if want["affirmative"] in names.get("affirmative", set()) and want["negative"] in names.get("negative", set()):
            found.append((p, False))
        elif want["affirmative"] in names.get("negative", set()) and want["negative"] in names.get("affirmative", set()):
            found.append((p, True))
    if not found:
        raise _refuse(f"no debate of Tabbycat round {tc.seq} is between teams named {src.teams['affirmative']!r} and {src.teams['negative']!r}")
    if len(found) > 1:
        raise _refuse(f"{len(found)} debates of Tabbycat round {tc.seq} are between teams named {src.teams['affirmative']!r} and {src.teams['negative']!r}")
    p, swapped = found[0]
    if swapped:
        raise _refuse(f"Tabbycat debate {p.id} has {src.teams['affirmative']!r} as the negative team and {src.teams['negative']!r} as the affirmative",
                      "correct the sides in Tabbycat's draw, or in the room")
    return p


def _speaker(src: RoomSource, tc: TabbycatRound, team: Team, side: Side, label: str) -> str:
    if src.ids is not None and label in src.ids.speakers:
        url = f"{tc.base}/speakers/{src.ids.speakers[label]}"
        if url not in {s.url for s in team.speakers}:
            raise _refuse(f"Tabbycat speaker {src.ids.speakers[label]} (the room's tabbycat.speakers.{label}) is not in team {team.short_name!r}", "check the room's Tabbycat ids")
        return url
    name = src.debaters.get(label)
    if not name:
        raise _refuse(f"{label} of room {src.room_id!r} has no name and no Tabbycat speaker id",
                      f"name the debaters when creating the room (`--debater '{side} 1=NAME'`) or give tabbycat.speakers")
    hits = [s.url for s in team.speakers if _norm(s.name) == _norm(name)]
    if len(hits) != 1:
        which = "no speaker of Tabbycat team {t} is named" if not hits else f"{len(hits)} speakers of Tabbycat team {{t}} are named"
        raise _refuse(f"{which.format(t=repr(team.short_name))} {name!r} ({label})", "use the name Tabbycat has, or give tabbycat.speakers")
    return hits[0]


def map_room(src: RoomSource, tc: TabbycatRound, *, needs_speakers: bool, needs_chair: bool) -> RoomMapping:
    """The room's :class:`RoomMapping` in round ``tc``. ``needs_speakers``: the ballot carries speeches;
    ``needs_chair``: one ballot per adjudicator. Raises :class:`MappingRefused`."""
    p = find_debate(src, tc)
    if not p.sides_confirmed:
        raise _refuse(f"Tabbycat debate {p.id}: its sides are not confirmed, so Tabbycat would ignore the ballot's teams", "confirm the sides in Tabbycat's draw first")
    teams: dict[str, str] = {}
    speakers: dict[str, list[str]] = {}
    for side in SIDES:
        url = p.teams.get(side)
        if url is None or url not in tc.teams:
            raise _refuse(f"Tabbycat debate {p.id} has no {side} team")
        if src.ids is not None and side in src.ids.teams and url != f"{tc.base}/teams/{src.ids.teams[side]}":
            raise _refuse(f"Tabbycat debate {p.id}'s {side} team is {url}, not team {src.ids.teams[side]} (the room's tabbycat.teams.{side})", "check the room's Tabbycat ids")
        teams[side] = url
        if needs_speakers:
            urls = [_speaker(src, tc, tc.teams[url], side, label) for label in src.labels(side)]
            if len(set(urls)) != len(urls):
                raise _refuse(f"one Tabbycat speaker of team {tc.teams[url].short_name!r} would speak twice; Tabbycat refuses that", "name each debater once")
            speakers[side] = urls
    if needs_chair and p.chair is None:
        raise _refuse(f"Tabbycat debate {p.id} has no chair, and one ballot per voting adjudicator needs one", "allocate the adjudicators in Tabbycat first")
    motion = f"{tc.base}/motions/{src.ids.motion}" if src.ids is not None and src.ids.motion is not None else (tc.motions[0]["url"] if len(tc.motions) == 1 else None)
    return RoomMapping(debate=p, teams=teams, speakers=speakers, adjudicators=p.voting(), motion=motion)
