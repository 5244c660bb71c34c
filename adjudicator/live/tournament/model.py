"""A tournament of live matches: the tournament, its rounds, their rooms, and the bodies that create them.

A tournament has rounds; a round fixes the format, language, motion and both positions; a room is one
debate of a round (one live match) between two named teams, with a chair. Ids are short slugs
(:data:`SLUG_PATTERN`); a room's live match id is ``<tournament>.<round>.<room>`` (:func:`room_match_id`),
so one tournament's rooms never collide with another's or with a stand-alone live match id that has
no dots.

Visibility of verdicts on the public boards (``board_shows``, the organiser's choice per tournament):
``released`` (default: only released verdicts), ``confirmed`` (also verdicts a person has confirmed but
not yet released), ``draft`` (also automated drafts, always labelled as drafts, never as final).

Tabbycat: a tournament may name its Tabbycat API base (``https://host/api/v1/tournaments/<slug>``), a
round its Tabbycat round sequence number, and a room the Tabbycat ids of its debate, teams, speakers
and motion; :mod:`adjudicator.live.tabbycat` turns them into the hyperlinks Tabbycat's API expects.
Speaker scores go to Tabbycat on the tournament's ``speaker_scale``
(:class:`~adjudicator.live.tournament.speaker_scores.SpeakerScale`; a push uses the Tabbycat tournament's own range).
``tabbycat_push``: ``manual`` (``adjudicate live tabbycat push``) or ``on_release`` (the server pushes a
room's result when it is released, with the Tabbycat token it was started with).
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, ValidationError, field_validator

from adjudicator.frozen import FrozenModel
from adjudicator.input.field_errors import describe_validation_error
from adjudicator.input.formats import FORMATS, SIDES, FormatName, Side, get_format, position_label
from adjudicator.input.match import MAX_INFO_CHARS, MAX_MOTION_CHARS, MAX_NAME_CHARS, MAX_POSITION_CHARS, Debater
from adjudicator.live.errors import Unprocessable
from adjudicator.live.tournament.speaker_scores import SpeakerScale

log = logging.getLogger("adjudicator.live")

SLUG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$"
"""A tournament, round or room id: 1-24 letters, digits, '_' or '-', starting with a letter or digit
(no dots: the three are joined with dots into the room's live match id)."""

Visibility = Literal["released", "confirmed", "draft"]

TABBYCAT_URL_RE = re.compile(r"^https?://[^\s/]+(?:/[^\s/]+)*/api/v1/tournaments/[^/\s]+$")
"""Tabbycat's API base of one tournament: ``https://HOST/api/v1/tournaments/SLUG``."""


def check_tabbycat_url(url: str | None) -> str | None:
    """``url`` without a trailing slash, or None. Raises ValueError unless it is a Tabbycat API base."""
    if url is None:
        return None
    url = url.strip().rstrip("/")
    if not TABBYCAT_URL_RE.match(url):
        raise ValueError(f"{url!r} is not a Tabbycat API base; give https://HOST/api/v1/tournaments/SLUG")
    return url


def now_utc() -> str:
    """The current time, UTC, ISO 8601 to the second (``2025-03-01T09:30:00+00:00``)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def room_match_id(tournament_id: str, round_id: str, room_id: str) -> str:
    """The live match id of a room: ``<tournament>.<round>.<room>`` (at most 74 characters)."""
    return f"{tournament_id}.{round_id}.{room_id}"


TabbycatPush = Literal["manual", "on_release"]


class Tournament(FrozenModel):
    """A tournament: id, display name, what the public boards show (:data:`Visibility`), the Tabbycat
    API base (or None), speaker scale and when to push to Tabbycat, whether the person who entered or
    overrode a ballot may not confirm it (``second_person_confirms``, Tabbycat's rule:
    :func:`~adjudicator.live.tournament.lifecycle.confirm`), whether its boards need a token
    (``board_private``: :func:`~adjudicator.live.tournament.people.check_board_access`), and its creation time
    (UTC ISO 8601)."""

    tournament_id: str = Field(pattern=SLUG_PATTERN)
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    board_shows: Visibility = "released"
    tabbycat_url: str | None = None
    speaker_scale: SpeakerScale = SpeakerScale()
    tabbycat_push: TabbycatPush = "manual"
    second_person_confirms: bool = False
    board_private: bool = False
    created_at: str = ""
    repaired: list[str] = Field(default_factory=list, exclude=True)

    @field_validator("tabbycat_url")
    @classmethod
    def _tabbycat_url(cls, v: str | None) -> str | None:
        return check_tabbycat_url(v)


SETTINGS_FIELDS = frozenset({"board_shows", "tabbycat_url", "speaker_scale", "tabbycat_push", "second_person_confirms", "board_private"})
"""The tournament fields the organiser's settings change (:class:`SettingsBody`): the ones a stored
value of which may be replaced by the default when it no longer reads (:func:`stored_tournament`)."""


def stored_tournament(data: str | bytes | dict[str, Any]) -> Tournament:
    """A tournament as read back from a store (a JSON text or a decoded ``jsonb`` body). A stored
    setting that no longer validates -- an older version stored ``speaker_scale.high`` = Infinity as
    ``null`` (issue 27) -- is replaced by its default and logged, so the tournament stays readable and
    the organiser sets it again (``live tournament settings``); until then its view lists the field
    under ``repaired``. Raises ValidationError when the id or name themselves are unreadable."""
    body: dict[str, Any] = json.loads(data) if isinstance(data, (str, bytes)) else dict(data)
    try:
        return Tournament.model_validate(body)
    except ValidationError as exc:
        bad = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")} & SETTINGS_FIELDS
        if not bad:
            raise
    log.warning("live: tournament %s: stored setting(s) %s cannot be read; using the defaults until the organiser sets them again", body.get("tournament_id"), ", ".join(sorted(bad)))
    return Tournament.model_validate({k: v for k, v in body.items() if k not in bad} | {"repaired": sorted(bad)})


class Round(FrozenModel):
    """A round: its id and name, and what every room of it debates (format, language, motion, both
    positions, optional info shown to the trackers); ``tabbycat_round`` is Tabbycat's round sequence
    number (``rounds/<seq>`` in its API), or None."""

    tournament_id: str = Field(pattern=SLUG_PATTERN)
    round_id: str = Field(pattern=SLUG_PATTERN)
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    format: FormatName
    language: Literal["zh", "en"]
    motion: str = Field(min_length=1, max_length=MAX_MOTION_CHARS)
    affirmative_position: str = Field(min_length=1, max_length=MAX_POSITION_CHARS)
    negative_position: str = Field(min_length=1, max_length=MAX_POSITION_CHARS)
    info: str | None = Field(default=None, max_length=MAX_INFO_CHARS)
    tabbycat_round: int | None = Field(default=None, ge=1)
    created_at: str = ""


class TabbycatIds(FrozenModel):
    """A room's Tabbycat primary keys: the debate (``pairings/<debate>``), each side's team, each
    debater's speaker (keyed by position label, ``"Affirmative Speaker 1"``), and the motion (optional).
    Keys of ``teams`` are the format's sides (two-team formats) -- BP's four houses once that format
    exists."""

    debate: int = Field(ge=1)
    teams: dict[str, int]
    speakers: dict[str, int] = Field(default_factory=dict)
    motion: int | None = Field(default=None, ge=1)


class Room(FrozenModel):
    """A room: one live match of a round. ``teams`` names each side's team (side -> name; BP's houses
    once that format exists);
    ``debaters`` are the match's debaters (names optional); ``chair`` the chair's name (or None);
    ``tabbycat`` the room's Tabbycat ids (or None)."""

    tournament_id: str = Field(pattern=SLUG_PATTERN)
    round_id: str = Field(pattern=SLUG_PATTERN)
    room_id: str = Field(pattern=SLUG_PATTERN)
    name: str = Field(default="", max_length=MAX_NAME_CHARS)
    teams: dict[str, Annotated[str, Field(max_length=MAX_NAME_CHARS)]]
    debaters: list[Debater]
    chair: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    tabbycat: TabbycatIds | None = None
    created_at: str = ""

    @property
    def match_id(self) -> str:
        """The room's live match id (:func:`room_match_id`)."""
        return room_match_id(self.tournament_id, self.round_id, self.room_id)

    @property
    def key(self) -> tuple[str, str, str]:
        """(tournament_id, round_id, room_id)."""
        return (self.tournament_id, self.round_id, self.room_id)

    def header(self, rnd: Round) -> dict[str, Any]:
        """The live match header (create body) of this room in round ``rnd``: the round's format,
        language, motion and positions, the room's debaters, and the team names as match info."""
        teams = "; ".join(f"{side}: {name}" for side, name in self.teams.items())
        info = f"Teams: {teams}." + (f" {rnd.info}" if rnd.info else "")
        return {
            "match_id": self.match_id,
            "format": rnd.format,
            "language": rnd.language,
            "motion": rnd.motion,
            "affirmative_position": rnd.affirmative_position,
            "negative_position": rnd.negative_position,
            "info": info,
            "debaters": [d.model_dump(mode="json", exclude_none=True) for d in self.debaters],
        }


# ---------------------------------------------------------------------------------------------
# Request bodies (the organiser's; validated with one-line messages naming the field)


class TournamentBody(FrozenModel):
    """``POST /api/tournaments``: ``tournament_id``, ``name`` (default: the id), ``board_shows``,
    ``tabbycat_url``, ``speaker_scale``, ``tabbycat_push``, ``second_person_confirms``,
    ``board_private``."""

    tournament_id: str = Field(pattern=SLUG_PATTERN)
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    board_shows: Visibility = "released"
    tabbycat_url: str | None = None
    speaker_scale: SpeakerScale = SpeakerScale()
    tabbycat_push: TabbycatPush = "manual"
    second_person_confirms: bool = False
    board_private: bool = False

    @field_validator("tabbycat_url")
    @classmethod
    def _tabbycat_url(cls, v: str | None) -> str | None:
        return check_tabbycat_url(v)

    def tournament(self) -> Tournament:
        """The tournament this body creates (now)."""
        return Tournament(
            tournament_id=self.tournament_id, name=self.name or self.tournament_id, board_shows=self.board_shows,
            tabbycat_url=self.tabbycat_url, speaker_scale=self.speaker_scale, tabbycat_push=self.tabbycat_push, second_person_confirms=self.second_person_confirms,
            board_private=self.board_private, created_at=now_utc(),
        )


class RoundBody(FrozenModel):
    """``POST /api/tournaments/{t}/rounds``: ``round_id``, ``name`` (default: the id), ``format``,
    ``language`` (default: the format's), ``motion``, both positions, ``info``, ``tabbycat_round``."""

    round_id: str = Field(pattern=SLUG_PATTERN)
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    format: FormatName
    language: Literal["zh", "en"] | None = None
    motion: str = Field(min_length=1, max_length=MAX_MOTION_CHARS)
    affirmative_position: str = Field(min_length=1, max_length=MAX_POSITION_CHARS)
    negative_position: str = Field(min_length=1, max_length=MAX_POSITION_CHARS)
    info: str | None = Field(default=None, max_length=MAX_INFO_CHARS)
    tabbycat_round: int | None = Field(default=None, ge=1)

    @field_validator("format")
    @classmethod
    def _two_teams(cls, v: str) -> str:
        if get_format(v).verdict != "winner":
            two = ", ".join(f.name for f in FORMATS.values() if f.verdict == "winner")
            raise ValueError(f"{v} ranks four houses; a tournament round is a debate of two teams ({two}): adjudicate a {v} debate as a stand-alone match")
        return v

    def round(self, tournament_id: str) -> Round:
        """The round this body creates in ``tournament_id`` (now)."""
        lang = self.language or get_format(self.format).language
        return Round(tournament_id=tournament_id, round_id=self.round_id, name=self.name or self.round_id, format=self.format, language=lang,  # type: ignore[arg-type]
                     motion=self.motion, affirmative_position=self.affirmative_position, negative_position=self.negative_position,
                     info=self.info, tabbycat_round=self.tabbycat_round, created_at=now_utc())


class RoomBody(FrozenModel):
    """``POST /api/tournaments/{t}/rounds/{r}/rooms``: ``room_id``, ``name``, ``teams`` (side -> team
    name, both sides), ``debaters`` (names for some or all positions; every position of the format
    takes part, unnamed unless listed), ``chair``,
    ``tabbycat`` (:class:`TabbycatIds`)."""

    room_id: str = Field(pattern=SLUG_PATTERN)
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    teams: dict[Side, Annotated[str, Field(max_length=MAX_NAME_CHARS)]]
    debaters: list[Debater] | None = None
    chair: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    tabbycat: TabbycatIds | None = None

    @field_validator("teams")
    @classmethod
    def _both_teams(cls, v: dict[str, str]) -> dict[str, str]:
        missing = [s for s in SIDES if not (v.get(s) or "").strip()]
        if missing:
            raise ValueError(f"{missing[0]}: name the {missing[0]} team")
        return {s: v[s].strip() for s in SIDES}

    def room(self, rnd: Round) -> Room:
        """The room this body creates in round ``rnd`` (now). Raises :class:`Unprocessable` when the
        debaters or Tabbycat ids do not fit the round's format."""
        spec = get_format(rnd.format)
        labels = spec.position_labels()
        named: dict[str, str | None] = {}
        for i, d in enumerate(self.debaters or []):
            if d.label not in labels:
                raise Unprocessable(f"room: field debaters.{i}: {d.label} is not a position of {rnd.format}", f"use positions 1-{spec.debaters_per_side}", field=f"debaters.{i}")
            named[d.label] = d.name
        # every position of the format takes part; the body names some or all of them
        debaters = [Debater(side=s, position=i, name=named.get(position_label(s, i))) for s in SIDES for i in range(1, spec.debaters_per_side + 1)]
        if self.tabbycat is not None:
            for side in self.tabbycat.teams:
                if side not in SIDES:
                    raise Unprocessable(f"room: field tabbycat.teams.{side}: not a side of {rnd.format}", "key the teams by 'affirmative' and 'negative'", field=f"tabbycat.teams.{side}")
            for label in self.tabbycat.speakers:
                if label not in labels:
                    raise Unprocessable(f"room: field tabbycat.speakers.{label}: not a position of {rnd.format}", f"key speakers by position label, e.g. {position_label('affirmative', 1)!r}", field=f"tabbycat.speakers.{label}")
        return Room(tournament_id=rnd.tournament_id, round_id=rnd.round_id, room_id=self.room_id, name=self.name or self.room_id, teams={s: n for s, n in self.teams.items()},
                    debaters=debaters, chair=self.chair, tabbycat=self.tabbycat, created_at=now_utc())


class SettingsBody(FrozenModel):
    """``POST /api/tournaments/{t}/settings``: any of ``board_shows``, ``tabbycat_url``, ``speaker_scale``,
    ``tabbycat_push``, ``second_person_confirms``, ``board_private``."""

    board_shows: Visibility | None = None
    tabbycat_url: str | None = None
    speaker_scale: SpeakerScale | None = None
    tabbycat_push: TabbycatPush | None = None
    second_person_confirms: bool | None = None
    board_private: bool | None = None

    @field_validator("tabbycat_url")
    @classmethod
    def _tabbycat_url(cls, v: str | None) -> str | None:
        return check_tabbycat_url(v)


M = TypeVar("M", bound=FrozenModel)


def parse_body(model: type[M], data: object, what: str) -> M:
    """Validate a decoded JSON body as ``model``. Raises :class:`Unprocessable` (422) with the one-line
    message of :func:`~adjudicator.input.field_errors.describe_validation_error` and the dotted field path."""
    if not isinstance(data, dict):
        raise Unprocessable(f"{what}: the body must be a JSON object", "see docs/tournaments.md", field="body")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        loc = ".".join(str(p) for p in exc.errors()[0].get("loc", ())) or None
        raise Unprocessable(describe_validation_error(exc, what), field=loc) from None
