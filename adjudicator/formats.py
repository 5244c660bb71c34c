"""Debate formats: stage types, how each type is scored, and each format's declared speaking order.

Sources: CCDB paper (seed 000) section 2.1.1 and 2.2.2 (the eight stage types, asymmetric roles),
Appendix A.2 (the 4v4 constructive, clash and concluding phases), Appendix A.3 (2v2: twelve fixed
stages plus an optional surprise challenge). The paper's stage-order diagram is an image that is not
in the text, so the speaker assignments below are our reading of A.2/A.3 and common Chinese-language
tournament practice; stage types, phases, order of types and roles follow the text exactly.

``online-1v1`` covers the PanelBench DebateArt debates (one debater a side, each speech a stage).
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

FormatName = Literal["ccdb-4v4", "ccdb-2v2", "online-1v1"]
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


@dataclass(frozen=True)
class StageSlot:
    """One stage of a format's declared speaking order.

    ``questioner`` is set for asymmetric stages (the other side is the respondent). ``speakers`` are
    position labels; an empty tuple means "any debater of the acting side(s)" (free debate).
    """

    name: str
    type: str
    sides: tuple[Side, ...]
    speakers: tuple[str, ...] = ()
    questioner: Side | None = None
    phase: str = ""
    name_zh: str = ""


@dataclass(frozen=True)
class FormatSpec:
    """A format: its language, team size, allowed stage types and declared speaking order.

    ``order`` is the canonical stage sequence. ``fixed_order`` formats (the CCDB ones) must follow it
    exactly, except that a stage marked ``surprise`` may be inserted where ``surprise_types`` allow
    (2v2 only, at most once per side, Appendix A.3). ``online-1v1`` has a variable number of speeches.
    """

    name: str
    language: str
    debaters_per_side: int
    stage_types: tuple[str, ...]
    order: tuple[StageSlot, ...] = ()
    fixed_order: bool = False
    surprise_types: tuple[str, ...] = ()
    description: str = ""
    has_third_speaker: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "has_third_speaker", self.debaters_per_side >= 3)

    def position_labels(self) -> list[str]:
        """All speaking-position labels of the format, affirmative first."""
        return [position_label(s, i) for s in SIDES for i in range(1, self.debaters_per_side + 1)]


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
)

FORMATS: dict[str, FormatSpec] = {f.name: f for f in (CCDB_4V4, CCDB_2V2, ONLINE_1V1)}


def get_format(name: str) -> FormatSpec:
    """The spec of a format name. Raises KeyError for an unknown name (the match schema's
    ``Literal`` catches that earlier for files)."""
    return FORMATS[name]
