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
A stage and its utterances are :mod:`adjudicator.input.stages`' (``Stage`` is imported from here too).
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import Literal

from pydantic import Field, ValidationInfo, model_validator

from adjudicator.frozen import StrictModel
from adjudicator.input.formats import MAX_STAGES, FormatName, FormatSpec, Side, StageSlot, get_format, other_side, position_label
from adjudicator.input.gold import Labels, check_labels
from adjudicator.input.stages import ID_PATTERN, MAX_ID_CHARS, MAX_NAME_CHARS, Stage

#: Longest transcript accepted (characters over all utterances). The longest round in PanelBench has
#: 81,586; 200,000 keeps the offline judge under a minute on one core (benchmarks/long_input.py).
MAX_MATCH_CHARS = 200_000

#: Longest motion, position and info fields (characters). PanelBench's longest motion has 183
#: characters and its longest info slide 2,024; a live server keeps every header in memory and in its
#: list of matches, so a header field is bounded too (names and ids: :mod:`adjudicator.input.stages`).
MAX_MOTION_CHARS = 1_000
MAX_POSITION_CHARS = 2_000
MAX_INFO_CHARS = 20_000


class Debater(StrictModel):
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


class Team(StrictModel):
    """A competing unit as fielded in this match: ``unit`` is a unit key of the format (``"OG"``,
    ``"affirmative"``) and ``name`` the team's own name (an institution, ``"Harvard A"``)."""

    unit: str
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)


class Source(StrictModel):
    """Where a match comes from. ``synthetic`` matches are never presented as real data."""

    kind: Literal["real", "synthetic"]
    origin: str
    licence: str | None = None
    url: str | None = None
    note: str | None = None


class MatchView(StrictModel):
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
    # a file with more than twice the largest cap of any format (formats.MAX_STAGES) is refused before
    # its stages are read; each format's own cap, with its reason, is checked in Match._check_consistency
    stages: list[Stage] = Field(max_length=2 * MAX_STAGES)

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


_STAGE_ID = attrgetter("stage_id")
_UTTERANCES = attrgetter("utterances")
_TEXT = attrgetter("text")


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
        self._check_stage_count(spec)
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
            check_labels(self.labels, self.format, spec, self.scored_units(), self.speeches(), known)
        return self

    def _check_stage_count(self, spec: FormatSpec) -> None:
        """At most ``spec.max_stages`` stages in a format without a fixed order (a fixed-order format's
        cap is its order, which :meth:`_check_order` checks stage by stage)."""
        if not spec.fixed_order and len(self.stages) > spec.max_stages:
            raise ValueError(
                f"stages: {len(self.stages):,} stages, more than the {spec.max_stages:,} a {self.format} match may have "
                f"({spec.max_stages_reason}); give one match per file"
            )

    def check_next_stage(self, stage: Stage, partial: bool = True) -> None:
        """Check ``stage`` as the stage after this match's stages (a live push), with the rules and the
        messages of validating the whole match with it (``stages.<index>...``), but reading only what
        the new stage can change: its type, speakers and sides, its id against the others, the stage
        cap, the transcript's length, a surprise challenge, and the fixed order's next slot. Each push
        costs the same however many stages came before (a full validation re-checked every stage).
        ``self`` holds validated stages. Raises ValueError."""
        spec = get_format(self.format)
        i = len(self.stages)
        grown = self.model_construct(**{**dict(self), "stages": [*self.stages, stage]})  # no revalidation
        grown._check_stage_count(spec)
        if stage.stage_id in map(_STAGE_ID, self.stages):  # one pass in C, no Python call per stage
            raise ValueError(f"stages: stage_id {stage.stage_id!r} is used twice; stage ids must be unique")
        grown._check_stage(i, stage, spec, grown._check_debaters(spec))
        grown._check_length()
        if spec.surprise_types and stage.surprise:
            grown._check_surprises_once()
        if spec.fixed_order:
            grown._check_order(spec, partial)

    def _check_length(self) -> None:
        """The whole transcript is at most :data:`MAX_MATCH_CHARS` characters (summed in one pass in C)."""
        total = sum(map(len, map(_TEXT, chain.from_iterable(map(_UTTERANCES, self.stages)))))
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
            if u.speaker is None:
                continue  # unattributed (machine transcripts of interactive stages; Stage checks that)
            if u.speaker not in known:
                raise ValueError(f"stages.{i}.utterances.{j}.speaker: {u.speaker!r} is not a debater of this match; {hint}")
            if u.side is not None and self.side_of(u.speaker) != u.side:
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
        for where, label in [("speakers", sp) for sp in st.speakers] + [(f"utterances.{j}.speaker", u.speaker) for j, u in enumerate(st.utterances) if u.speaker is not None]:
            unit = self.unit_of(label)
            if unit != slot.unit:
                raise ValueError(f"stages.{i}.{where}: {label} speaks for {unit}, but the {slot.abbr} speech ({slot.name}) belongs to {slot.unit}")

