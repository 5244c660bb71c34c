"""The match format (input): pydantic models, validation against the format spec, and loading.

A match file is UTF-8 JSON. Its shape (``adjudicate schema`` prints the JSON Schema)::

    {"match_id": "...", "format": "ccdb-4v4" | "ccdb-2v2" | "online-1v1", "language": "zh" | "en",
     "motion": "...", "affirmative_position": "...", "negative_position": "...",
     "debaters": [{"side": "affirmative", "position": 1, "name": "..."}],
     "stages": [{"stage_id": "s01", "name": "...", "type": "constructive", "sides": ["affirmative"],
                 "roles": {"negative": "questioner", "affirmative": "respondent"},   # asymmetric only
                 "speakers": ["Affirmative Speaker 1"],
                 "utterances": [{"speaker": "Affirmative Speaker 1", "side": "affirmative",
                                 "text": "...", "line": 12}],
                 "exchanges": [{"exchange_id": "...", "start": 0, "end": 3}]}],
     "labels": {...},      # optional gold data; never reaches a model (see MatchView)
     "source": {...}}      # optional provenance: real/synthetic, origin, licence

Models never see a :class:`Match`; they see a :class:`MatchView`, which has no ``labels`` field at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from adjudicator.errors import InputError
from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import INTERACTION, FormatName, FormatSpec, Role, Side, StageSlot, StageType, get_format, other_side, position_label
from adjudicator.input.jsontext import read_json


class _Strict(FrozenModel):
    # strict: a JSON string "7" or a boolean is not silently taken as the integer 7 or 1
    model_config = ConfigDict(strict=True)


#: Match and stage ids become file names and ``"<stage_id>|<side>"`` keys: word characters, dots and
#: hyphens only (any script), starting with a word character.
ID_PATTERN = r"^\w[\w.\-]*$"

#: Largest match file accepted (bytes). A CCDB 4v4 match is ~100 KB; a larger file is almost
#: certainly not one match, and its text would be sent to a model several times.
MAX_MATCH_BYTES = 8 * 1024 * 1024

#: Longest utterance accepted (characters). The longest speech in PanelBench (DebateArt and BP,
#: 1,000+ speeches) has 11,977 characters and a CCDB speech a few thousand; 50,000 is about an hour
#: of speech. Past it the text is not one speech, and it would be sent to a model several times.
MAX_UTTERANCE_CHARS = 50_000

#: Longest transcript accepted (characters over all utterances). The longest round in PanelBench has
#: 81,586; 200,000 keeps the offline judge under a minute on one core (benchmarks/long_input.py).
MAX_MATCH_CHARS = 200_000

#: Longest motion, position, info and name fields (characters). PanelBench's longest motion has 183
#: characters and its longest info slide 2,024; a live server keeps every header in memory and in its
#: list of matches, so a header field is bounded too.
MAX_MOTION_CHARS = 1_000
MAX_POSITION_CHARS = 2_000
MAX_INFO_CHARS = 20_000
MAX_NAME_CHARS = 200
MAX_ID_CHARS = 128


class Debater(_Strict):
    """One debater. ``position`` is 1-4 (1-2 in 2v2, 1 online; BP: 1-4 on each bench, PM DPM MG GW
    and LO DLO MO OW); ``label`` is the paper's position label, :meth:`MatchView.label_of` the
    format's own label (BP: ``"Prime Minister"``)."""

    side: Side
    position: int = Field(ge=1, le=4)
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)

    @property
    def label(self) -> str:
        """E.g. ``"Affirmative Speaker 3"``: the key used for speakers and best-debater votes."""
        return position_label(self.side, self.position)


class Utterance(_Strict):
    """One utterance: the speaker's position label (or, where the format allows team-level speakers,
    the unit's name: ``"Opening Government"``), their side (BP: the bench, government = affirmative),
    the text, and an optional source line."""

    speaker: str = Field(max_length=MAX_NAME_CHARS)
    side: Side
    text: str = Field(max_length=MAX_UTTERANCE_CHARS)
    line: int | None = Field(default=None, ge=0, description="line number in the source transcript")


class Team(_Strict):
    """A competing unit as fielded in this match: ``unit`` is a unit key of the format (``"OG"``,
    ``"affirmative"``) and ``name`` the team's own name (an institution, ``"Harvard A"``)."""

    unit: str
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)


class Exchange(_Strict):
    """An exchange unit inside an interactive stage: utterances ``start`` to ``end`` inclusive (0-based)."""

    exchange_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class Stage(_Strict):
    """One stage: the unit of scoring (paper 2.1.1).

    ``sides`` are the acting side(s). ``roles`` is required for asymmetric stages (questioning,
    cross-examination) and maps each side to questioner or respondent; it must be absent otherwise.
    ``surprise`` marks a 2v2 surprise challenge (Appendix A.3).
    """

    stage_id: str = Field(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    type: StageType
    sides: list[Side] = Field(min_length=1, max_length=2)
    roles: dict[Side, Role] | None = None
    speakers: list[str] = Field(default_factory=list)
    utterances: list[Utterance] = Field(min_length=1)
    exchanges: list[Exchange] = Field(default_factory=list)
    surprise: bool = False

    @property
    def interaction(self) -> str:
        """``monologue``, ``asymmetric`` or ``alternating`` (see formats.INTERACTION)."""
        return INTERACTION[self.type]

    @property
    def questioner(self) -> Side | None:
        """The questioning side of an asymmetric stage, else None."""
        if not self.roles:
            return None
        for side, role in self.roles.items():
            if role == "questioner":
                return side
        return None

    def evaluated_sides(self) -> list[Side]:
        """The sides this stage is scored for (paper 2.2.2): the speaker of a monologue, both sides of
        asymmetric and alternating stages, affirmative first."""
        if self.interaction == "monologue":
            return list(dict.fromkeys(self.sides))
        return ["affirmative", "negative"]

    def role_of(self, side: Side) -> Role | None:
        """The side's role in an asymmetric stage, else None."""
        return (self.roles or {}).get(side)

    def text(self) -> str:
        """The stage's utterances joined one per line as ``speaker: text``."""
        return "\n".join(f"{u.speaker}: {u.text}" for u in self.utterances)

    @model_validator(mode="after")
    def _check_roles(self) -> "Stage":
        if len(set(self.sides)) != len(self.sides):
            raise ValueError("sides: a side is listed twice; list each acting side once")
        inter = INTERACTION[self.type]
        if inter == "monologue" and len(self.sides) != 1:
            raise ValueError(f"sides: a {self.type} stage is a monologue; give exactly one acting side")
        if inter != "monologue" and len(self.sides) != 2:
            raise ValueError(f"sides: a {self.type} stage involves both sides; list both")
        if inter == "asymmetric":
            if not self.roles or set(self.roles) != {"affirmative", "negative"} or sorted(self.roles.values()) != ["questioner", "respondent"]:
                raise ValueError(
                    f"roles: a {self.type} stage needs one questioner and one respondent, e.g. "
                    '{"negative": "questioner", "affirmative": "respondent"}'
                )
        elif self.roles:
            raise ValueError(f"roles: only questioning and cross-examination stages have roles; remove it from this {self.type} stage")
        for ex in self.exchanges:
            if ex.end < ex.start or ex.end >= len(self.utterances):
                raise ValueError(f"exchanges: {ex.exchange_id} spans utterances {ex.start}-{ex.end}, outside 0-{len(self.utterances) - 1}")
        if not any(u.text.strip() for u in self.utterances):
            raise ValueError("utterances: every utterance is empty; give the stage's transcript text")
        return self


class JudgeLabel(_Strict):
    """One judge's gold adjudication of a match (CCDB: three per match, paper 2.2.1).

    ``stage_scores`` maps ``"<stage_id>|<side>"`` to an integer 1-10; ``best_debater_votes`` maps
    position labels to non-negative integers (each judge has 3 votes in CCDB).
    """

    judge_id: str
    winner: Side | None = None
    stage_scores: dict[str, int] = Field(default_factory=dict)
    best_debater_votes: dict[str, int] = Field(default_factory=dict)

    @field_validator("stage_scores")
    @classmethod
    def _scores_in_range(cls, v: dict[str, int]) -> dict[str, int]:
        for key, score in v.items():
            if "|" not in key:
                raise ValueError(f"{key!r} must look like '<stage_id>|affirmative' or '<stage_id>|negative'")
            if not 1 <= score <= 10:
                raise ValueError(f"{key}: score {score} is outside 1-10")
        return v

    @field_validator("best_debater_votes")
    @classmethod
    def _votes_non_negative(cls, v: dict[str, int]) -> dict[str, int]:
        for key, n in v.items():
            if n < 0:
                raise ValueError(f"{key}: a vote count cannot be negative")
        return v


class Labels(_Strict):
    """Gold data for benchmarks. Never part of a model input.

    ``judges`` are the original panel; ``appeal_judges`` a replacement panel after an appeal, kept
    apart (paper 2.2.1). ``outcome`` is a match-level outcome where per-judge votes are unknown
    (PanelBench: the audience-vote result, with ``"tie"`` for a draw); ``vote_count`` its voter count.

    Ranking formats (BP) may carry the official adjudication instead: ``ranking`` unit -> rank 1..n
    (no ties), ``speaker_scores`` stage id -> the speech's score on the format's scale (WUDC 50-100),
    ``speaker_ranks`` stage id -> rank 1..(speeches) without ties, and ``advanced`` the units that
    went through to the next round (PanelBench BP: two in quarter- and semi-finals, the winner of a
    final). Each must agree with the others where both are given (no low-point wins).

    ``dimensions`` maps a rubric dimension's gold name to the audience's outcome on it (two-sided
    formats; PanelBench DebateArt: argument, source, language from ``gold/dimension.csv``, ``"tie"``
    where the voters split evenly or gave no points); bench scores per-dimension winners against it.
    ``dimension_scores`` gold name -> side -> a human score on that dimension (InspireScore-style
    annotations, e.g. the mean of three raters), for Pearson and Spearman correlations in bench.
    """

    judges: list[JudgeLabel] = Field(default_factory=list)
    appeal_judges: list[JudgeLabel] = Field(default_factory=list)
    outcome: Side | Literal["tie"] | None = None
    vote_count: int | None = Field(default=None, ge=0)
    note: str | None = None
    ranking: dict[str, int] = Field(default_factory=dict)
    speaker_scores: dict[str, float] = Field(default_factory=dict)
    speaker_ranks: dict[str, int] = Field(default_factory=dict)
    advanced: list[str] = Field(default_factory=list)
    dimensions: dict[str, Side | Literal["tie"]] = Field(default_factory=dict)
    dimension_scores: dict[str, dict[Side, float]] = Field(default_factory=dict)

    def gold_winner(self) -> Side | Literal["tie"] | None:
        """The gold winner: majority of the original judges' votes when they exist, else ``outcome``."""
        votes = [j.winner for j in self.judges if j.winner]
        if votes:
            aff = votes.count("affirmative")
            neg = votes.count("negative")
            return "affirmative" if aff > neg else "negative" if neg > aff else "tie"
        return self.outcome


class Source(_Strict):
    """Where a match comes from. ``synthetic`` matches are never presented as real data."""

    kind: Literal["real", "synthetic"]
    origin: str
    licence: str | None = None
    url: str | None = None
    note: str | None = None


class MatchView(_Strict):
    """Everything a model may see of a match: the match without its labels or provenance notes.

    Every prompt in the package is built from a MatchView (and values derived from it), so gold
    labels cannot reach a model input by construction.
    """

    match_id: str = Field(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)
    format: FormatName
    language: Literal["zh", "en"]
    motion: str = Field(min_length=1, max_length=MAX_MOTION_CHARS)
    affirmative_position: str = Field(min_length=1, max_length=MAX_POSITION_CHARS)
    negative_position: str = Field(min_length=1, max_length=MAX_POSITION_CHARS)
    info: str | None = Field(default=None, max_length=MAX_INFO_CHARS)
    debaters: list[Debater]
    teams: list[Team] = Field(default_factory=list)
    stages: list[Stage]

    def spec(self) -> FormatSpec:
        """The match's format declaration (:mod:`adjudicator.input.formats`)."""
        return get_format(self.format)

    def label_of(self, debater: Debater) -> str:
        """The debater's label in this format (``"Affirmative Speaker 3"``, BP ``"Prime Minister"``)."""
        return self.spec().label(debater.side, debater.position)

    def debater_labels(self) -> list[str]:
        """Position labels of all debaters, affirmative first, by position."""
        return [self.label_of(d) for d in sorted(self.debaters, key=lambda d: (d.side != "affirmative", d.position))]

    def speaker_labels(self) -> list[str]:
        """Every label that may speak in this match: the debaters' labels, then (formats with
        team-level speakers) the units' names."""
        spec = self.spec()
        return self.debater_labels() + ([u.name for u in spec.units] if spec.team_speakers else [])

    def side_of(self, label: str) -> Side | None:
        """The side (bench) a speaker label speaks for, None for a label the format does not know."""
        found = self.spec().speaker_sides().get(label)
        return found[0] if found else None

    def unit_of(self, label: str) -> str | None:
        """The unit a speaker label belongs to (``"OG"`` for ``"Prime Minister"``; the side in a
        two-sided format), None for a label the format does not know."""
        found = self.spec().speaker_sides().get(label)
        return found[1] if found else None

    def units(self) -> list[str]:
        """The format's competing units in declaration order: ``["affirmative", "negative"]`` or BP's
        ``["OG", "OO", "CG", "CO"]``. A pairwise comparison runs over pairs of these (or of
        :meth:`debater_labels`)."""
        return self.spec().unit_ids()

    def competitors(self, level: Literal["unit", "speaker"]) -> list[str]:
        """What a comparison (a pairwise panel) can set against each other at ``level``: ``"unit"``
        the format's units (the two sides, BP's four houses); ``"speaker"`` the debaters' labels, or,
        in a format with declared speeches whose speakers are team-level (PanelBench BP), the
        speeches' stage ids, since each speech is one speaker's performance."""
        if level == "unit":
            return self.units()
        if self.debaters or not self.speeches():
            return self.debater_labels()
        return [sid for sid, _, _ in self.speeches()]

    def slot_of(self, stage_id: str) -> StageSlot | None:
        """The declared slot of a stage in a fixed-order format without surprise stages (BP: the
        k-th stage is the k-th speech), None otherwise."""
        spec = self.spec()
        if not spec.fixed_order or spec.surprise_types:
            return None
        for st, slot in zip(self.stages, spec.order):
            if st.stage_id == stage_id:
                return slot
        return None

    def speeches(self) -> list[tuple[str, str, str]]:
        """Ranking formats: (stage id, unit, speech abbreviation) of every speech in speaking order
        (BP: ``("s01", "OG", "PM")`` ...); empty for a format without declared speech units."""
        out = []
        for st, slot in zip(self.stages, self.spec().order):
            if slot.unit:
                out.append((st.stage_id, slot.unit, slot.abbr))
        return out

    def stage(self, stage_id: str) -> Stage:
        """The stage with that id. Raises KeyError."""
        for s in self.stages:
            if s.stage_id == stage_id:
                return s
        raise KeyError(stage_id)

    def scored_units(self) -> list[tuple[str, Side]]:
        """Every (stage_id, evaluated side) the format scores, in stage order (paper 2.2.2)."""
        return [(s.stage_id, side) for s in self.stages for side in s.evaluated_sides()]


class Match(MatchView):
    """A full match file: the :class:`MatchView` plus optional gold ``labels`` and ``source``.

    Validate with ``context={"partial": True}`` for a match still in progress (live adjudication):
    then zero stages are allowed and a fixed-order format only needs a prefix of its order."""

    labels: Labels | None = None
    source: Source | None = None

    def view(self) -> MatchView:
        """The label-free view that models see."""
        return MatchView.model_validate(self.model_dump(exclude={"labels", "source"}))

    @model_validator(mode="after")
    def _check_consistency(self, info: ValidationInfo) -> "Match":
        """The cross-field rules, in the order their errors are reported: debaters, stage ids, each
        stage against the format, surprise challenges, the fixed speaking order, then the labels.
        ``partial`` in the validation context (live matches) allows a transcript cut short."""
        partial = bool(info.context and info.context.get("partial"))
        spec = get_format(self.format)
        known = self._check_debaters(spec)
        self._check_teams(spec)
        ids = [s.stage_id for s in self.stages]
        if len(set(ids)) != len(ids):
            dup = next(x for x in ids if ids.count(x) > 1)
            raise ValueError(f"stages: stage_id {dup!r} is used twice; stage ids must be unique")
        if not self.stages and not partial:
            raise ValueError("stages: the transcript is empty; give at least one stage with utterances")
        for i, st in enumerate(self.stages):
            self._check_stage(i, st, spec, known)
        self._check_length()
        if spec.surprise_types:
            self._check_surprises_once()
        if spec.fixed_order:
            self._check_order(spec, partial)
        if self.labels:
            self._check_labels(self.labels, known)
        return self

    def _check_length(self) -> None:
        """The whole transcript is at most :data:`MAX_MATCH_CHARS` characters."""
        total = sum(len(u.text) for st in self.stages for u in st.utterances)
        if total > MAX_MATCH_CHARS:
            raise ValueError(
                f"stages: the transcript has {total:,} characters, more than the {MAX_MATCH_CHARS:,} a match may have "
                "(the longest real round we know has about 82,000); give one match per file"
            )

    def _check_debaters(self, spec: FormatSpec) -> set[str]:
        """Each position listed once and existing in the format; returns the labels that may speak
        (the debaters' labels, plus the units' names where the format allows team-level speakers)."""
        for d in self.debaters:
            if d.position > spec.debaters_per_side:
                raise ValueError(f"debaters: {d.label} does not exist in {self.format} ({spec.debaters_per_side} a side)")
        labels = [self.label_of(d) for d in self.debaters]
        if len(set(labels)) != len(labels):
            dup = next(x for x in labels if labels.count(x) > 1)
            raise ValueError(f"debaters: {dup} is listed twice; give each position once")
        return set(labels) | ({u.name for u in spec.units} if spec.team_speakers else set())

    def _check_teams(self, spec: FormatSpec) -> None:
        """``teams``: at most one entry per unit of the format, each naming a unit it has."""
        units = spec.unit_ids()
        if len(self.teams) > len(units):
            raise ValueError(f"teams: {self.format} has {len(units)} teams ({', '.join(units)}); got {len(self.teams)}")
        seen: set[str] = set()
        for k, t in enumerate(self.teams):
            if t.unit not in units:
                raise ValueError(f"teams.{k}.unit: {t.unit!r} is not a team of {self.format}; use one of {', '.join(units)}")
            if t.unit in seen:
                raise ValueError(f"teams.{k}.unit: {t.unit} is listed twice; give each team once")
            seen.add(t.unit)

    def _check_stage(self, i: int, st: Stage, spec: FormatSpec, known: set[str]) -> None:
        """Stage ``i``: a type of the format, known speakers, each utterance's side, and a surprise
        challenge only where the format allows one."""
        if st.type not in spec.stage_types:
            raise ValueError(f"stages.{i}.type: {st.type!r} is not a stage type of {self.format}; use one of {', '.join(spec.stage_types)}")
        hint = "use a position label from debaters" + (f" or a team name ({', '.join(u.name for u in spec.units)})" if spec.team_speakers else "")
        for sp in st.speakers:
            if sp not in known:
                raise ValueError(f"stages.{i}.speakers: {sp!r} is not a debater of this match; {hint}")
        for j, u in enumerate(st.utterances):
            if u.speaker not in known:
                raise ValueError(f"stages.{i}.utterances.{j}.speaker: {u.speaker!r} is not a debater of this match; {hint}")
            if self.side_of(u.speaker) != u.side:
                raise ValueError(f"stages.{i}.utterances.{j}.side: {u.speaker} speaks for the {other_side(u.side)}, not the {u.side}")
            if st.interaction == "monologue" and u.side not in st.sides:
                raise ValueError(f"stages.{i}.utterances.{j}.side: {st.type} stage {st.stage_id!r} is the {st.sides[0]}'s monologue")
        if st.surprise and not spec.surprise_types:
            raise ValueError(f"stages.{i}.surprise: {self.format} has no surprise challenge")
        if st.surprise and st.type not in spec.surprise_types:
            raise ValueError(f"stages.{i}.surprise: a surprise challenge is a {' or '.join(spec.surprise_types)} stage")

    def _check_surprises_once(self) -> None:
        """At most one surprise challenge per side (Appendix A.3)."""
        first_surprise: dict[Side | None, int] = {}
        for i, st in enumerate(self.stages):
            if not st.surprise:
                continue
            side = st.sides[0] if st.interaction == "monologue" else st.questioner
            if side in first_surprise:
                raise ValueError(
                    f"stages.{i}.surprise: the {side} already used its surprise challenge at stages.{first_surprise[side]}; "
                    "each side may use it at most once"
                )
            first_surprise[side] = i

    def _check_order(self, spec: FormatSpec, partial: bool) -> None:
        """The non-surprise stages follow the format's declared order (a prefix of it when
        ``partial``), each with the declared side and questioner."""
        fixed = [st.type for st in self.stages if not st.surprise]
        expected = [slot.type for slot in spec.order]
        if (fixed != expected[: len(fixed)]) if partial else (fixed != expected):
            order = f"{self.format} expects {len(expected)} stages of types {', '.join(expected)} in that order (surprise challenges aside)"
            positions = [i for i, st in enumerate(self.stages) if not st.surprise]
            k = next((k for k, (got, exp) in enumerate(zip(fixed, expected)) if got != exp), None)
            if k is not None:
                slot = spec.order[k]
                raise ValueError(f"stages.{positions[k]}.type: expected {slot.type} ({slot.name}), got {fixed[k]}; {order}")
            if len(fixed) > len(expected):
                raise ValueError(f"stages.{positions[len(expected)]}: one stage more than the format has; {order}")
            raise ValueError(f"stages: {len(expected) - len(fixed)} stage(s) missing after stages.{positions[-1] if positions else 0}, starting with {spec.order[len(fixed)].type} ({spec.order[len(fixed)].name}); {order}")
        positions = [i for i, st in enumerate(self.stages) if not st.surprise]
        for i, slot in zip(positions, spec.order):
            st = self.stages[i]
            if st.interaction == "monologue" and st.sides != list(slot.sides):
                raise ValueError(f"stages.{i}.sides: {slot.name} ({slot.name_zh}) is the {slot.sides[0]}'s stage in {self.format}; got {st.sides[0]}")
            if st.interaction == "asymmetric" and st.questioner != slot.questioner and slot.questioner is not None:
                raise ValueError(
                    f"stages.{i}.roles: in {slot.name} ({slot.name_zh}) the {slot.questioner} is the questioner in {self.format}; "
                    f"set roles to {{\"{slot.questioner}\": \"questioner\", \"{other_side(slot.questioner)}\": \"respondent\"}}"
                )
            if slot.unit:
                self._check_speech_unit(i, st, slot)

    def _check_speech_unit(self, i: int, st: Stage, slot: StageSlot) -> None:
        """A speech of a format with speaking units (BP) is given by its declared unit only."""
        for where, label in [("speakers", sp) for sp in st.speakers] + [(f"utterances.{j}.speaker", u.speaker) for j, u in enumerate(st.utterances)]:
            unit = self.unit_of(label)
            if unit != slot.unit:
                raise ValueError(f"stages.{i}.{where}: {label} speaks for {unit}, but the {slot.abbr} speech ({slot.name}) belongs to {slot.unit}")

    def _check_labels(self, labels: Labels, known: set[str]) -> None:
        self._check_ranking_labels(labels)
        units = {f"{sid}|{side}" for sid, side in self.scored_units()}
        for group_name in ("judges", "appeal_judges"):
            group = getattr(labels, group_name)
            jids = [j.judge_id for j in group]
            if len(set(jids)) != len(jids):
                raise ValueError(f"labels.{group_name}: a judge_id is used twice; judge ids must be unique")
            for k, j in enumerate(group):
                for key in j.stage_scores:
                    if key not in units:
                        raise ValueError(f"labels.{group_name}.{k}.stage_scores: {key!r} is not a scored (stage, side) of this match")
                for key in j.best_debater_votes:
                    if key not in known:
                        raise ValueError(f"labels.{group_name}.{k}.best_debater_votes: {key!r} is not a debater of this match")
                total = sum(j.best_debater_votes.values())
                if self.format.startswith("ccdb-") and j.best_debater_votes and total != 3:
                    raise ValueError(f"labels.{group_name}.{k}.best_debater_votes: a CCDB judge gives exactly 3 votes, got {total}")


    def _check_ranking_labels(self, labels: Labels) -> None:
        """Gold ranking, speaker scores, speaker ranks and advancing units (ranking formats only):
        complete, without ties, on the format's scale, and consistent (no low-point wins)."""
        spec = self.spec()
        given = [f for f in ("ranking", "speaker_scores", "speaker_ranks", "advanced") if getattr(labels, f)]
        if spec.verdict != "ranking":
            if given:
                raise ValueError(f"labels.{given[0]}: {self.format} has a winner, not a ranking; give outcome or judges instead")
            return
        units = spec.unit_ids()
        if labels.ranking:
            check_ranks("labels.ranking", labels.ranking, units, "team")
        speech_ids = [sid for sid, _, _ in self.speeches()]
        if labels.speaker_scores:
            lo, hi = spec.speaker_scale or (0, 0)
            for sid, score in labels.speaker_scores.items():
                if sid not in speech_ids:
                    raise ValueError(f"labels.speaker_scores: {sid!r} is not a speech of this match; key scores by stage_id")
                if not lo <= score <= hi:
                    raise ValueError(f"labels.speaker_scores.{sid}: {score:g} is outside {lo}-{hi}")
        if labels.speaker_ranks:
            check_ranks("labels.speaker_ranks", labels.speaker_ranks, speech_ids, "speech")
        if labels.ranking and len(labels.speaker_scores) == len(speech_ids) and speech_ids:
            totals = {u: 0.0 for u in units}
            for sid, unit, _ in self.speeches():
                totals[unit] += labels.speaker_scores[sid]
            check_no_low_point_wins("labels.ranking", labels.ranking, totals)
        if len(set(labels.advanced)) != len(labels.advanced):
            raise ValueError("labels.advanced: a team is listed twice")
        for u in labels.advanced:
            if u not in units:
                raise ValueError(f"labels.advanced: {u!r} is not a team of {self.format}; use one of {', '.join(units)}")
        if labels.advanced and len(labels.advanced) >= len(units):
            raise ValueError(f"labels.advanced: {len(labels.advanced)} of {len(units)} teams cannot all advance")
        if labels.ranking and labels.advanced:
            top = {u for u, r in labels.ranking.items() if r <= len(labels.advanced)}
            if top != set(labels.advanced):
                raise ValueError("labels.advanced: the advancing teams must be the top of labels.ranking")


def check_ranks(field: str, ranks: dict[str, int], keys: list[str], what: str) -> None:
    """``ranks`` ranks exactly ``keys`` 1..len(keys) without ties. Raises ValueError naming ``field``
    (a duplicate rank, a missing or unknown key, a rank out of range)."""
    for k in ranks:
        if k not in keys:
            raise ValueError(f"{field}: {k!r} is not a {what} of this match; use {', '.join(keys)}")
    missing = [k for k in keys if k not in ranks]
    if missing:
        raise ValueError(f"{field}: {missing[0]} has no rank; rank every {what} ({', '.join(keys)})")
    values = list(ranks.values())
    for k, r in ranks.items():
        if not 1 <= r <= len(keys):
            raise ValueError(f"{field}.{k}: rank {r} is outside 1-{len(keys)}")
    if len(set(values)) != len(values):
        dup = next(r for r in values if values.count(r) > 1)
        tied = [k for k, r in ranks.items() if r == dup]
        raise ValueError(f"{field}: rank {dup} is given to {' and '.join(tied)}; ranks are 1-{len(keys)} without ties")


def check_no_low_point_wins(field: str, ranks: dict[str, int], totals: dict[str, float]) -> None:
    """Every unit ranked above another has strictly more speaker points (WUDC: no low-point wins,
    and equal totals cannot separate two teams). Raises ValueError naming ``field``."""
    order = sorted(ranks, key=lambda u: ranks[u])
    for better, worse in zip(order, order[1:]):
        if totals[better] <= totals[worse]:
            raise ValueError(
                f"{field}: {better} (rank {ranks[better]}, {totals[better]:g} speaker points) must have more points than "
                f"{worse} (rank {ranks[worse]}, {totals[worse]:g}); no low-point wins"
            )


# ---------------------------------------------------------------------------------------------
# Loading with one-line errors


def _loc(err: Mapping[str, Any]) -> str:
    # drop pydantic's union-member tags such as "literal['tie']" or "function-after[...]"
    parts = [str(p) for p in err.get("loc", ()) if p != "function-after" and not (isinstance(p, str) and p.endswith("]") and "[" in p)]
    return ".".join(parts) or "(top level)"


def describe_validation_error(exc: ValidationError, what: str = "match") -> str:
    """One line naming the first invalid field path and what to do about it."""
    err = exc.errors()[0]
    loc = _loc(err)
    kind = err.get("type", "")
    msg = err.get("msg", "invalid")
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if kind == "missing":
        return f"{what}: field {loc} is missing; add it (see `adjudicate schema`)"
    if kind == "extra_forbidden":
        return f"{what}: field {loc} is not part of the format; remove it or check its spelling (see `adjudicate schema`)"
    if kind == "literal_error":
        # a union of literals reports one error per member; name every allowed value
        expected = [e["ctx"]["expected"] for e in exc.errors() if e.get("type") == "literal_error" and _loc(e) == loc and "ctx" in e]
        if len(expected) > 1:
            msg = "Input should be " + " or ".join(expected)
        return f"{what}: field {loc}: {msg}; use one of these values"
    if kind == "too_short":
        return f"{what}: field {loc} is empty; give at least one item (see `adjudicate schema`)"
    if kind == "string_too_short":
        return f"{what}: field {loc} is empty; give its text"
    if kind == "string_too_long":
        limit = (err.get("ctx") or {}).get("max_length")
        got = err.get("input")
        size = f"{len(got):,} characters" if isinstance(got, str) else "too long"
        return f"{what}: field {loc} has {size}, more than the {limit:,} allowed; shorten it (the limits are in README, \"The match format\")"
    if kind == "string_pattern_mismatch":
        return f"{what}: field {loc}: {err.get('input')!r} is not a usable id; use letters, digits, '_', '.' and '-' only"
    if kind.endswith("_type") or kind.endswith("_parsing"):
        return f"{what}: field {loc}: {msg} (got {type(err.get('input')).__name__} {err.get('input')!r:.40}); write it as a JSON value of that type"
    head, _, rest = msg.partition(" ")
    if loc == "(top level)":
        # model-level consistency checks already start with the field path ("stages.3.type: ...")
        return f"{what}: {msg}"
    if head.endswith(":") and rest:
        # a nested validator's message names a sub-field ("roles: ...") or key ("s01|negative: ...")
        return f"{what}: field {loc}.{head} {rest}"
    return f"{what}: field {loc}: {msg}"


def parse_match(data: object, source: str = "match") -> Match:
    """Validate a decoded JSON value as a :class:`Match`. Raises :class:`InputError` with one line."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: the top level must be a JSON object describing one match", "see `adjudicate schema`")
    try:
        return Match.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, source)) from None


def load_match(path: str | Path) -> Match:
    """Read and validate a match file.

    Raises :class:`InputError` (one line, exit code 2) for: a missing file, a directory, bytes that
    are not UTF-8, invalid JSON, nesting deeper than :data:`~adjudicator.input.jsontext.MAX_JSON_DEPTH`, a
    key given twice in one object (:func:`~adjudicator.input.jsontext.read_json`), and any schema or
    consistency violation (naming the field path).
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file", "give the path of a match .json file")
    if p.is_dir():
        raise InputError(f"{p}: is a directory", "give the path of one match .json file (use `adjudicate bench` for a folder)")
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror})") from None
    if size > MAX_MATCH_BYTES:
        raise InputError(
            f"{p}: {size / 2**20:.1f} MiB is larger than the {MAX_MATCH_BYTES // 2**20} MiB a match file may be",
            "give one match per file (a CCDB match is about 0.1 MiB)",
        )
    try:
        raw = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not UTF-8 text (byte {exc.start})", "save the match file as UTF-8") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror})") from None
    return parse_match(read_json(raw, str(p)), str(p))
