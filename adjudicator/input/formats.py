"""Debate formats: stage types, how each type is scored, and each format's declared speaking order.

Sources: CCDB paper (seed 000) section 2.1.1 and 2.2.2 (the eight stage types, asymmetric roles),
Appendix A.2 (the 4v4 constructive, clash and concluding phases), Appendix A.3 (2v2: twelve fixed
stages plus an optional surprise challenge). The paper's stage-order diagram is an image that is not
in the text, so the speaker assignments below are our reading of A.2/A.3 and common Chinese-language
tournament practice; stage types, phases, order of types and roles follow the text exactly.

``online-1v1`` covers the PanelBench DebateArt debates (one debater a side, each speech a stage).

``bp`` is British Parliamentary (DebateBench, seed 002 section 3; the WUDC format): four houses of two
speakers, Opening Government (OG), Opening Opposition (OO), Closing Government (CG) and Closing
Opposition (CO), speaking PM, LO, DPM, DLO, MG, MO, GW, OW. The two government houses share the
affirmative bench and the two opposition houses the negative bench, so the clash map's two positions
per clash are bench positions; the verdict ranks the houses 1-4 and scores every speech 50-100.

A format declares its competing *units* (:class:`UnitSpec`): the two sides, or BP's four houses. Code
that needs "who competes" reads ``spec.units``; nothing branches on a format's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

Side = Literal["affirmative", "negative"]
SIDES: tuple[Side, Side] = ("affirmative", "negative")

Role = Literal["questioner", "respondent"]

StageType = Literal[
    "constructive",  # 立论 / opening case speech
    "supplementary",  # 申论 / supplementary argumentation (also the middle speeches of online debates)
    "questioning",  # 质询 (constructive phase, asymmetric)
    "cross_examination",  # 盘问 (clash phase, asymmetric)
    "summary",  # 小结: questioning and cross-examination summaries
    "head_to_head",  # 对辩: alternating, symmetric
    "free_debate",  # 自由辩论: alternating, symmetric, all debaters
    "closing",  # 总结陈词
]
STAGE_TYPES: tuple[str, ...] = get_args(StageType)

Interaction = Literal["monologue", "asymmetric", "alternating"]

#: How each stage type is delivered and therefore scored (paper 2.2.2 and Appendix C.2): a monologue
#: is scored for the speaking side only; asymmetric stages for the questioner and the respondent
#: separately; alternating stages for both sides.
INTERACTION: dict[str, Interaction] = {
    "constructive": "monologue",
    "supplementary": "monologue",
    "summary": "monologue",
    "closing": "monologue",
    "questioning": "asymmetric",
    "cross_examination": "asymmetric",
    "head_to_head": "alternating",
    "free_debate": "alternating",
}

FormatName = Literal["ccdb-4v4", "ccdb-2v2", "online-1v1", "bp"]
FORMAT_NAMES: tuple[str, ...] = get_args(FormatName)


def other_side(side: Side) -> Side:
    """The opposing side."""
    return "negative" if side == "affirmative" else "affirmative"


def position_label(side: Side, position: int) -> str:
    """The paper's speaking-position label, e.g. ``position_label("affirmative", 3)`` ->
    ``"Affirmative Speaker 3"`` (Appendix C.3)."""
    return f"{side.capitalize()} Speaker {position}"


_ZH_NUMERAL = {1: "一", 2: "二", 3: "三", 4: "四"}


def position_label_zh(label: str) -> str | None:
    """The Chinese name of a position label, ``"Affirmative Speaker 3"`` -> ``"正方三辩"``; None for a
    string that is not a position label of positions 1-4."""
    import re

    m = re.fullmatch(r"(Affirmative|Negative) Speaker ([1-4])", label.strip())
    if not m:
        return None
    return ("正方" if m.group(1) == "Affirmative" else "反方") + _ZH_NUMERAL[int(m.group(2))] + "辩"


#: What a speech is for in a format with speech roles (BP, seed 002 section 3.1 and the WUDC manual):
#: ``set-up`` defines the debate and opens its bench's case (PM, LO); ``rebuttal`` answers the other
#: opening and rebuilds its own (DPM, DLO); ``extension`` brings the closing house's new material
#: (MG, MO); ``whip`` summarises the debate's clashes for its bench without new material (GW, OW).
SpeechRole = Literal["set-up", "rebuttal", "extension", "whip"]

#: How a format's verdict reads its units: ``winner`` (one side wins: p, 1-10 stage scores,
#: best-debater votes) or ``ranking`` (BP: the units ranked 1..n without ties, a speaker score per
#: speech, speaker ranks).
VerdictKind = Literal["winner", "ranking"]


@dataclass(frozen=True)
class UnitSpec:
    """A competing unit of a format: a side of a two-sided format, or a BP house.

    ``unit_id`` is the key used in verdicts, ballots and labels (``"affirmative"``, ``"OG"``);
    ``name`` its full name; ``side`` the bench it sits on; ``positions`` the debater positions (1-based,
    on that bench) that belong to it; ``closing`` marks a BP closing house, judged on its extension.
    """

    unit_id: str
    name: str
    side: Side
    positions: tuple[int, ...]
    closing: bool = False


@dataclass(frozen=True)
class StageSlot:
    """One stage of a format's declared speaking order.

    ``questioner`` is set for asymmetric stages (the other side is the respondent). ``speakers`` are
    position labels; an empty tuple means "any debater of the acting side(s)" (free debate). In a
    format whose units are not the sides (BP), ``unit`` names the speaking unit, ``abbr`` the speech's
    short name (``"PM"``) and ``speech_role`` what the speech is for (:data:`SpeechRole`).
    """

    name: str
    type: str
    sides: tuple[Side, ...]
    speakers: tuple[str, ...] = ()
    questioner: Side | None = None
    phase: str = ""
    name_zh: str = ""
    unit: str = ""
    abbr: str = ""
    speech_role: str = ""


@dataclass(frozen=True)
class FormatSpec:
    """A format: its language, team size, allowed stage types and declared speaking order.

    ``order`` is the canonical stage sequence. ``fixed_order`` formats (the CCDB ones, BP) must follow
    it exactly, except that a stage marked ``surprise`` may be inserted where ``surprise_types`` allow
    (2v2 only, at most once per side, Appendix A.3). ``online-1v1`` has a variable number of speeches.

    ``units`` are the competing units (default: the two sides, each holding all its positions);
    ``verdict`` how they are judged (:data:`VerdictKind`); ``speaker_names`` optional names of the
    positions per side (BP: ``"Prime Minister"``), used as the debaters' labels instead of
    ``"Affirmative Speaker 1"``; ``team_speakers`` lets a stage name its unit (``"Opening
    Government"``) as speaker when the source only names teams; ``speaker_scale`` the inclusive range
    of a speaker score (BP: WUDC 50-100), None where speeches are scored 1-10 per stage;
    ``templates`` maps a node (``track_stage``, ``judge``) to the format's own prompt
    template in ``prompts/`` (BP: ``judge_bp``), where it has one; ``bench_names`` what readers call
    each side (BP: Government, Opposition; default the side's own name); ``max_stages`` the most stages
    a match may have and ``max_stages_reason`` why (a fixed-order format: its order plus one surprise
    challenge per side where it has them; declared for the others). Each stage is one tracker request
    with a model, so the cap bounds what one file can spend.
    """

    name: str
    language: str
    debaters_per_side: int
    stage_types: tuple[str, ...]
    order: tuple[StageSlot, ...] = ()
    fixed_order: bool = False
    surprise_types: tuple[str, ...] = ()
    description: str = ""
    units: tuple[UnitSpec, ...] = ()
    verdict: VerdictKind = "winner"
    speaker_names: dict[Side, tuple[str, ...]] = field(default_factory=dict)
    team_speakers: bool = False
    speaker_scale: tuple[int, int] | None = None
    templates: dict[str, str] = field(default_factory=dict)
    bench_names: dict[Side, str] = field(default_factory=dict)
    max_stages: int = 0
    max_stages_reason: str = ""
    has_third_speaker: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        if not self.units:
            sides = tuple(UnitSpec(s, s.capitalize(), s, tuple(range(1, self.debaters_per_side + 1))) for s in SIDES)
            object.__setattr__(self, "units", sides)
        object.__setattr__(self, "has_third_speaker", self.debaters_per_side >= 3 and self.verdict == "winner")
        if self.fixed_order and not self.max_stages:  # the declared order, and one surprise challenge per side
            extra = len(SIDES) if self.surprise_types else 0
            object.__setattr__(self, "max_stages", len(self.order) + extra)
            reason = f"its {len(self.order)} stages" + (" and a surprise challenge for each side" if extra else "")
            object.__setattr__(self, "max_stages_reason", reason)
        if self.max_stages < 1:
            raise ValueError(f"format {self.name}: max_stages must be at least 1")

    def position_labels(self) -> list[str]:
        """All speaking-position labels of the format, affirmative first."""
        return [self.label(s, i) for s in SIDES for i in range(1, self.debaters_per_side + 1)]

    def bench_name(self, side: Side) -> str:
        """What readers call ``side`` in this format: ``"Affirmative"``, BP ``"Government"``."""
        return self.bench_names.get(side, side.capitalize())

    def template(self, node: str) -> str:
        """The prompt template base name of ``node`` for this format (``"judge"`` unless declared)."""
        return self.templates.get(node, node)

    def label(self, side: Side, position: int) -> str:
        """The label of a debater position: the format's speaker name (BP: ``"Prime Minister"``) or
        the paper's position label (``"Affirmative Speaker 3"``). Raises IndexError for a position
        beyond a named format's positions."""
        names = self.speaker_names.get(side)
        return names[position - 1] if names else position_label(side, position)

    def unit_ids(self) -> list[str]:
        """The units' keys in declaration order (``["affirmative", "negative"]``, ``["OG", "OO", "CG", "CO"]``)."""
        return [u.unit_id for u in self.units]

    def unit(self, unit_id: str) -> UnitSpec:
        """The unit with that key. Raises KeyError."""
        for u in self.units:
            if u.unit_id == unit_id:
                return u
        raise KeyError(unit_id)

    def unit_of_position(self, side: Side, position: int) -> UnitSpec:
        """The unit a debater position belongs to. Raises KeyError when no unit holds it."""
        for u in self.units:
            if u.side == side and position in u.positions:
                return u
        raise KeyError(f"{side} {position}")

    def speaker_sides(self) -> dict[str, tuple[Side, str]]:
        """Every label that may speak in the format -> (its side, its unit): every position label, and
        each unit's name when ``team_speakers`` allows team-level speakers."""
        out = {self.label(s, i): (s, self.unit_of_position(s, i).unit_id) for s in SIDES for i in range(1, self.debaters_per_side + 1)}
        if self.team_speakers:
            out.update({u.name: (u.side, u.unit_id) for u in self.units})
        return out


A: Side = "affirmative"
N: Side = "negative"


def _p(side: Side, i: int) -> str:
    return position_label(side, i)


CCDB_4V4 = FormatSpec(
    name="ccdb-4v4",
    language="zh",
    debaters_per_side=4,
    stage_types=STAGE_TYPES,
    fixed_order=True,
    description="CCDB 4v4: constructive, clash and concluding phases, 14 stages (Appendix A.2).",
    order=(
        # constructive phase (6)
        StageSlot("Affirmative constructive speech", "constructive", (A,), (_p(A, 1),), None, "constructive", "正方一辩开篇立论"),
        StageSlot("Negative questioning", "questioning", (N, A), (_p(N, 4), _p(A, 1)), N, "constructive", "反方四辩质询正方一辩"),
        StageSlot("Negative constructive speech", "constructive", (N,), (_p(N, 1),), None, "constructive", "反方一辩开篇立论"),
        StageSlot("Affirmative questioning", "questioning", (A, N), (_p(A, 4), _p(N, 1)), A, "constructive", "正方四辩质询反方一辩"),
        StageSlot("Negative questioning summary", "summary", (N,), (_p(N, 4),), None, "constructive", "反方四辩质询小结"),
        StageSlot("Affirmative questioning summary", "summary", (A,), (_p(A, 4),), None, "constructive", "正方四辩质询小结"),
        # clash phase (5)
        StageSlot("Head-to-head exchange", "head_to_head", (A, N), (_p(A, 2), _p(N, 2)), None, "clash", "正反二辩对辩"),
        StageSlot("Affirmative cross-examination", "cross_examination", (A, N), (_p(A, 3),), A, "clash", "正方三辩盘问"),
        StageSlot("Negative cross-examination", "cross_examination", (N, A), (_p(N, 3),), N, "clash", "反方三辩盘问"),
        StageSlot("Affirmative cross-examination summary", "summary", (A,), (_p(A, 3),), None, "clash", "正方三辩盘问小结"),
        StageSlot("Negative cross-examination summary", "summary", (N,), (_p(N, 3),), None, "clash", "反方三辩盘问小结"),
        # concluding phase (3)
        StageSlot("Free debate", "free_debate", (A, N), (), None, "concluding", "自由辩论"),
        StageSlot("Negative closing speech", "closing", (N,), (_p(N, 4),), None, "concluding", "反方四辩总结陈词"),
        StageSlot("Affirmative closing speech", "closing", (A,), (_p(A, 4),), None, "concluding", "正方四辩总结陈词"),
    ),
)

CCDB_2V2 = FormatSpec(
    name="ccdb-2v2",
    language="zh",
    debaters_per_side=2,
    stage_types=STAGE_TYPES,
    fixed_order=True,
    surprise_types=("questioning", "supplementary"),
    description="CCDB 2v2: twelve fixed stages and an optional surprise challenge per side (Appendix A.3).",
    order=(
        StageSlot("Affirmative constructive speech", "constructive", (A,), (_p(A, 1),), None, "constructive", "正方一辩开篇立论"),
        StageSlot("Negative questioning", "questioning", (N, A), (_p(N, 2), _p(A, 1)), N, "constructive", "反方二辩质询正方一辩"),
        StageSlot("Negative constructive speech", "constructive", (N,), (_p(N, 1),), None, "constructive", "反方一辩开篇立论"),
        StageSlot("Affirmative questioning", "questioning", (A, N), (_p(A, 2), _p(N, 1)), A, "constructive", "正方二辩质询反方一辩"),
        StageSlot("Negative questioning summary", "summary", (N,), (_p(N, 2),), None, "constructive", "反方二辩质询小结"),
        StageSlot("Affirmative questioning summary", "summary", (A,), (_p(A, 2),), None, "constructive", "正方二辩质询小结"),
        StageSlot("Head-to-head exchange", "head_to_head", (A, N), (_p(A, 2), _p(N, 2)), None, "clash", "正反二辩对辩"),
        StageSlot("Affirmative second questioning", "questioning", (A, N), (_p(A, 1), _p(N, 2)), A, "clash", "正方一辩质询反方二辩"),
        StageSlot("Negative second questioning", "questioning", (N, A), (_p(N, 1), _p(A, 2)), N, "clash", "反方一辩质询正方二辩"),
        StageSlot("Free debate", "free_debate", (A, N), (), None, "concluding", "自由辩论"),
        StageSlot("Negative closing speech", "closing", (N,), (_p(N, 1),), None, "concluding", "反方一辩总结陈词"),
        StageSlot("Affirmative closing speech", "closing", (A,), (_p(A, 1),), None, "concluding", "正方一辩总结陈词"),
    ),
)

#: The most speeches an online-1v1 match may have (:attr:`FormatSpec.max_stages`; reason there).
ONLINE_MAX_STAGES = 500

ONLINE_1V1 = FormatSpec(
    name="online-1v1",
    language="en",
    debaters_per_side=1,
    stage_types=("constructive", "supplementary", "closing"),
    fixed_order=False,
    description=(
        "One-on-one online debate (PanelBench DebateArt): each speech is a monologue stage; the first "
        "speech of each side is constructive, its last is closing, the ones between are supplementary."
    ),
    max_stages=ONLINE_MAX_STAGES,
    max_stages_reason=(
        "the longest PanelBench DebateArt debate has 10 speeches; 500 is fifty times that, and each stage is "
        "a tracker request with a model"
    ),
)

GOV: Side = "affirmative"  # the government bench (BP)
OPP: Side = "negative"  # the opposition bench (BP)

BP = FormatSpec(
    name="bp",
    language="en",
    debaters_per_side=4,
    stage_types=("constructive", "supplementary", "closing"),
    fixed_order=True,
    verdict="ranking",
    team_speakers=True,
    speaker_scale=(50, 100),
    templates={"track_stage": "track_stage_bp", "judge": "judge_bp"},
    bench_names={GOV: "Government", OPP: "Opposition"},
    description=(
        "British Parliamentary (WUDC): four houses of two speakers, eight seven-minute speeches PM, LO, "
        "DPM, DLO, MG, MO, GW, OW; the houses are ranked 1-4 and every speech scored 50-100 (seed 002)."
    ),
    units=(
        UnitSpec("OG", "Opening Government", GOV, (1, 2)),
        UnitSpec("OO", "Opening Opposition", OPP, (1, 2)),
        UnitSpec("CG", "Closing Government", GOV, (3, 4), closing=True),
        UnitSpec("CO", "Closing Opposition", OPP, (3, 4), closing=True),
    ),
    speaker_names={
        GOV: ("Prime Minister", "Deputy Prime Minister", "Member of Government", "Government Whip"),
        OPP: ("Leader of the Opposition", "Deputy Leader of the Opposition", "Member of the Opposition", "Opposition Whip"),
    },
    order=(
        StageSlot("Prime Minister's speech", "constructive", (GOV,), ("Prime Minister",), None, "opening", unit="OG", abbr="PM", speech_role="set-up"),
        StageSlot("Leader of the Opposition's speech", "constructive", (OPP,), ("Leader of the Opposition",), None, "opening", unit="OO", abbr="LO", speech_role="set-up"),
        StageSlot("Deputy Prime Minister's speech", "supplementary", (GOV,), ("Deputy Prime Minister",), None, "opening", unit="OG", abbr="DPM", speech_role="rebuttal"),
        StageSlot("Deputy Leader of the Opposition's speech", "supplementary", (OPP,), ("Deputy Leader of the Opposition",), None, "opening", unit="OO", abbr="DLO", speech_role="rebuttal"),
        StageSlot("Member of Government's speech", "supplementary", (GOV,), ("Member of Government",), None, "closing", unit="CG", abbr="MG", speech_role="extension"),
        StageSlot("Member of the Opposition's speech", "supplementary", (OPP,), ("Member of the Opposition",), None, "closing", unit="CO", abbr="MO", speech_role="extension"),
        StageSlot("Government Whip's speech", "closing", (GOV,), ("Government Whip",), None, "closing", unit="CG", abbr="GW", speech_role="whip"),
        StageSlot("Opposition Whip's speech", "closing", (OPP,), ("Opposition Whip",), None, "closing", unit="CO", abbr="OW", speech_role="whip"),
    ),
)

FORMATS: dict[str, FormatSpec] = {f.name: f for f in (CCDB_4V4, CCDB_2V2, ONLINE_1V1, BP)}

#: The most stages any format allows: a match file with more is refused before its stages are read.
MAX_STAGES = max(f.max_stages for f in FORMATS.values())


def get_format(name: str) -> FormatSpec:
    """The spec of a format name. Raises KeyError for an unknown name (the match schema's
    ``Literal`` catches that earlier for files)."""
    return FORMATS[name]
