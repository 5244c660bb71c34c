"""A stage of a match file and what it holds (input): utterances, exchanges, the mark of a machine
transcript, and the rules one stage keeps by itself (its sides, roles, exchanges and speakers).

A stage is the unit of scoring (paper 2.1.1). The rules that need the whole match or its format (known
speakers, the speaking order, surprise challenges, the transcript's total length) are
:class:`~adjudicator.input.match.Match`'s; this module knows nothing of a match, so it imports no
match and the match imports it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from adjudicator.frozen import StrictModel
from adjudicator.input.formats import INTERACTION, Role, Side, StageType


def _none(value: object) -> bool:
    """An optional field left out of the JSON while unset (match files without it dump unchanged)."""
    return value is None


#: Match and stage ids become file names and ``"<stage_id>|<side>"`` keys: word characters, dots and
#: hyphens only (any script), starting with a word character.
ID_PATTERN = r"^\w[\w.\-]*$"

#: Longest utterance accepted (characters). The longest speech in PanelBench (DebateArt and BP,
#: 1,000+ speeches) has 11,977 characters and a CCDB speech a few thousand; 50,000 is about an hour
#: of speech. Past it the text is not one speech, and it would be sent to a model several times.
MAX_UTTERANCE_CHARS = 50_000

#: Longest name and id fields (characters): a speaker, team, engine or file name, a match or stage id.
#: A live server keeps every header in memory and in its list of matches, so these are bounded too.
MAX_NAME_CHARS = 200
MAX_ID_CHARS = 128


class Utterance(StrictModel):
    """One utterance: the speaker's position label (or, where the format allows team-level speakers,
    the unit's name: ``"Opening Government"``), their side (BP: the bench, government = affirmative),
    the text, and an optional source line.

    A machine transcript (:class:`Transcript`) adds ``start_s`` / ``end_s`` (seconds from the start of
    the stage's recording) and ``confidence`` (the recogniser's, 0-1; :mod:`adjudicator.input.speech`),
    and in an interactive stage may leave who spoke unknown: ``speaker`` null (the side known from the
    chair's turn mark, or null too: unattributed). Typed transcripts always name both."""

    speaker: str | None = Field(max_length=MAX_NAME_CHARS)
    side: Side | None
    text: str = Field(max_length=MAX_UTTERANCE_CHARS)
    line: int | None = Field(default=None, ge=0, description="line number in the source transcript")
    start_s: float | None = Field(default=None, ge=0, exclude_if=_none, description="seconds from the start of the stage's recording")
    end_s: float | None = Field(default=None, ge=0, exclude_if=_none, description="seconds from the start of the stage's recording")
    confidence: float | None = Field(default=None, ge=0, le=1, exclude_if=_none, description="the speech recogniser's confidence in this text, 0-1")

    @property
    def who(self) -> str:
        """The speaker label, else the side's name (``"affirmative"``), else ``"unattributed"``."""
        return self.speaker or self.side or "unattributed"

    @model_validator(mode="after")
    def _check(self) -> "Utterance":
        if self.side is None and self.speaker is not None:
            raise ValueError(f"side: {self.speaker} is named, so give the side they speak for")
        if self.start_s is not None and self.end_s is not None and self.end_s < self.start_s:
            raise ValueError(f"end_s: {self.end_s:g} s is before start_s {self.start_s:g} s")
        return self


Attribution = Literal["speaking_order", "turns", "unattributed"]


class Transcript(StrictModel):
    """Marks a stage whose text a machine made from a recording (``adjudicate transcribe``,
    ``live push --audio``; :mod:`adjudicator.input.speech`).

    ``engine`` (``"faster-whisper 1.2.1"``), ``model`` (the model folder's name or a downloaded model's
    name) and ``model_sha256`` (of its weights file, None for a downloaded name); ``settings`` how it
    ran (language, beam size, compute type, threads, voice-activity filter, word timestamps);
    ``language`` (ISO code) and ``language_probability`` (the detector's, 0-1; None when the language
    was given); the recording's file name, SHA-256 and ``duration_s``; ``attribution``: how speakers
    were assigned (``speaking_order``: a speech's declared speaker; ``turns``: the chair's turn marks;
    ``unattributed``: not at all)."""

    made_by: Literal["speech_to_text"] = "speech_to_text"
    engine: str = Field(max_length=MAX_NAME_CHARS)
    model: str = Field(max_length=MAX_NAME_CHARS)
    model_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    settings: dict[str, str | int | float | bool | None] = Field(default_factory=dict, max_length=32)
    language: str = Field(max_length=16)
    language_probability: float | None = Field(default=None, ge=0, le=1)
    audio: str = Field(max_length=MAX_NAME_CHARS)
    audio_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    duration_s: float = Field(gt=0)
    attribution: Attribution


class Exchange(StrictModel):
    """An exchange unit inside an interactive stage: utterances ``start`` to ``end`` inclusive (0-based)."""

    exchange_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class Stage(StrictModel):
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
    transcript: Transcript | None = Field(default=None, exclude_if=_none)

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
        return "\n".join(f"{u.who}: {u.text}" for u in self.utterances)

    def unattributed(self) -> list[int]:
        """Indices of the utterances whose speaker is not known (machine transcripts only)."""
        return [i for i, u in enumerate(self.utterances) if u.speaker is None]

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
        for j, u in enumerate(self.utterances):
            if u.speaker is None and (self.transcript is None or inter == "monologue"):
                what = "a typed transcript" if self.transcript is None else f"a {self.type} stage (a speech has its declared speaker)"
                raise ValueError(f"utterances.{j}.speaker: is null, which only a machine transcript of an interactive stage may leave; name the speaker in {what}")
        return self
