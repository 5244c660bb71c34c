"""The battlefield state: clashes, who advanced them, and per-stage rubric analyses.

The clash-tracking graph visits each stage once, in order. Its node returns a :class:`StageAnalysis`
(rubric dimensions per evaluated side, clash updates, debater contributions), and named reducers fold
it into the state; nothing is mutated in place (the design card, Data flow). A compact rendering of
the state, the ledger (:mod:`adjudicator.judges.llm.ledger`, worded in ``prompts/_ledger.<lang>.j2``),
is what a stage node reads instead of the whole preceding transcript, so model tokens grow linearly
with the number of stages.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, get_args

from pydantic import Field
from typing_extensions import TypedDict

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import Role, Side
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import Advancement, BattlefieldJudgement, TaskPerformance, suggested_score
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict.dimensions import DimensionRating

ClashEventKind = Literal["opened", "advanced", "conceded", "defended", "contested"]
#: The clash event kinds, in declaration order.
CLASH_KINDS: tuple[str, ...] = get_args(ClashEventKind)


class ClashUpdate(FrozenModel):
    """What one stage did to one clash. A new ``clash_id`` opens a clash; ``title`` and the side
    positions may refine an existing one (the latest non-empty wording wins). ``terms``: see
    :class:`Clash` (set by the offline tracker when it opens a clash)."""

    clash_id: str
    title: str = ""
    terms: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    side: Side
    kind: ClashEventKind
    note: str = ""
    debater: str | None = None
    affirmative_position: str = ""
    negative_position: str = ""


class ClashEvent(FrozenModel):
    """A :class:`ClashUpdate` as recorded in the map, stamped with its stage."""

    stage_id: str
    side: Side
    kind: ClashEventKind
    note: str = ""
    debater: str | None = None


class Clash(FrozenModel):
    """A battlefield: a point of contention, each side's position on it, and its history of events.

    ``title`` is for people (the offline tracker words it as the question in dispute where it can,
    :mod:`adjudicator.judges.offline.titles`). ``terms`` are the units the offline tracker counts for
    the clash (Chinese phrases, English stems, as :func:`adjudicator.judges.offline.text.content_terms`
    writes them; not for display); empty, and left out of the JSON, for a clash another tracker
    opened, whose terms are read from its title (:func:`adjudicator.judges.offline.ledger.clash_units`)."""

    clash_id: str
    title: str
    terms: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    affirmative_position: str = ""
    negative_position: str = ""
    opened_in: str
    events: list[ClashEvent] = Field(default_factory=list)

    def momentum(self) -> float:
        """Net advancement in [-1, 1]: +1 all affirmative, -1 all negative (see :func:`event_balance`)."""
        score, n = event_balance(self.events)
        return 0.0 if n == 0 else score / n


def event_balance(events: list[ClashEvent]) -> tuple[float, int]:
    """(net score, counted events) of clash events: advanced/defended count +1 for the acting side,
    conceded counts +1 for the other side (affirmative positive, negative negative); opened and
    contested are not counted. Momentum is net score / counted events."""
    score = 0.0
    n = 0
    for e in events:
        sign = 1.0 if e.side == "affirmative" else -1.0
        if e.kind in ("advanced", "defended"):
            score += sign
            n += 1
        elif e.kind == "conceded":
            score -= sign
            n += 1
    return score, n


class SideAnalysis(FrozenModel):
    """The rubric analysis of one evaluated side in one stage (paper Table 5 dimensions).

    ``suggested_score`` is 1-10, read from the rubric table for the three levels unless the analyst
    overrides it. ``contributions`` maps debater position labels to a share in [0, 1] of this side's
    work in the stage. ``dimensions``: the side's rating on every dimension of a dimensional rubric
    (:mod:`adjudicator.verdict.dimensions`; empty, and left out of the JSON, under the ccdb rubric).
    """

    stage_id: str
    side: Side
    role: Role | None = None
    task_performance: TaskPerformance
    battlefield_judgement: BattlefieldJudgement
    advancement: Advancement
    suggested_score: int = Field(ge=1, le=10)
    rationale: str = ""
    contributions: dict[str, float] = Field(default_factory=dict)
    dimensions: list[DimensionRating] = Field(default_factory=list, exclude_if=lambda v: not v)

    @classmethod
    def rated(cls, stage_id: str, side: Side, role: Role | None, task: str, battlefield: str, advancement: str, **kw) -> "SideAnalysis":
        """Build an analysis whose suggested score comes from :func:`rubric.suggested_score`."""
        levels = {"task_performance": task, "battlefield_judgement": battlefield, "advancement": advancement}  # validated as the rubric's literals
        return cls.model_validate({"stage_id": stage_id, "side": side, "role": role, **levels, "suggested_score": suggested_score(task, battlefield, advancement), **kw})


class StageAnalysis(FrozenModel):
    """A clash tracker's output for one stage: one :class:`SideAnalysis` per evaluated side, the clash
    updates, and a one-paragraph summary of what changed."""

    stage_id: str
    stage_index: int = Field(ge=0)
    sides: list[SideAnalysis]
    clash_updates: list[ClashUpdate] = Field(default_factory=list)
    summary: str = ""


# ---------------------------------------------------------------------------------------------
# Reducers (named, pure)


_STAGE_ID = operator.attrgetter("stage_id")


def append_stages(left: list[Stage] | None, right: list[Stage] | None) -> list[Stage]:
    """Reducer for ``stages``: append newly pushed stages, skipping a stage id already present
    (so a replayed push after a restart is idempotent)."""
    left = list(left or [])
    seen = set(map(_STAGE_ID, left)) if right else set()  # C-level: a stage's merge stays microseconds at the cap
    for s in right or []:
        if s.stage_id not in seen:
            left.append(s)
            seen.add(s.stage_id)
    return left


def append_analyses(left: list[StageAnalysis] | None, right: list[StageAnalysis] | None) -> list[StageAnalysis]:
    """Reducer for ``analyses``: append, ignoring an analysis for a stage already analysed."""
    left = list(left or [])
    seen = set(map(_STAGE_ID, left)) if right else set()
    for a in right or []:
        if a.stage_id not in seen:
            left.append(a)
            seen.add(a.stage_id)
    return left


def merge_clashes(left: dict[str, Clash] | None, right: dict[str, Clash] | None) -> dict[str, Clash]:
    """Reducer for ``clashes``: union by ``clash_id``; for an id in both, the right-hand clash's wording
    wins where non-empty and its events are appended after the left-hand ones (no duplicates)."""
    out = dict(left or {})
    for cid, new in (right or {}).items():
        old = out.get(cid)
        if old is None:
            out[cid] = new
            continue
        events = list(old.events) + _new_events(old.events, new.events)
        out[cid] = Clash(
            clash_id=cid,
            title=new.title or old.title,
            terms=new.terms or old.terms,
            affirmative_position=new.affirmative_position or old.affirmative_position,
            negative_position=new.negative_position or old.negative_position,
            opened_in=old.opened_in,
            events=events,
        )
    return out


def _new_events(old: list[ClashEvent], new: list[ClashEvent]) -> list[ClashEvent]:
    """The events of ``new`` not in ``old``, in order. A stage's delta repeats the clash's earlier events
    as the same objects before its own (:func:`apply_clash_updates`): that prefix is skipped by
    identity, and only the rest is compared by value (comparing every event with every other made a
    stage's merge cost grow with the square of the clash's history)."""
    k = 0
    while k < len(old) and k < len(new) and new[k] is old[k]:
        k += 1
    rest = new[k:]
    if not rest:
        return []
    seen = set(old)
    return [e for e in rest if e not in seen]


def apply_clash_updates(clashes: dict[str, Clash], stage_id: str, updates: list[ClashUpdate]) -> dict[str, Clash]:
    """The ``clashes`` delta a stage's updates produce (to be merged by :func:`merge_clashes`).

    Returns only the touched clashes, each as it should look after this stage. Pure.
    """
    delta: dict[str, Clash] = {}
    for u in updates:
        base = delta.get(u.clash_id) or clashes.get(u.clash_id)
        event = ClashEvent(stage_id=stage_id, side=u.side, kind=u.kind, note=u.note, debater=u.debater)
        if base is None:
            delta[u.clash_id] = Clash(
                clash_id=u.clash_id,
                title=u.title or u.clash_id,
                terms=u.terms,
                affirmative_position=u.affirmative_position,
                negative_position=u.negative_position,
                opened_in=stage_id,
                events=[event],
            )
        else:
            delta[u.clash_id] = Clash(
                clash_id=u.clash_id,
                title=u.title or base.title,
                terms=u.terms or base.terms,
                affirmative_position=u.affirmative_position or base.affirmative_position,
                negative_position=u.negative_position or base.negative_position,
                opened_in=base.opened_in,
                events=list(base.events) + [event],
            )
    return delta


class BattlefieldState(TypedDict, total=False):
    """State of the clash-tracking graph. Every key written by more than one update has a reducer.

    - ``match``: the label-free :class:`MatchView` header (its ``stages`` may be empty in live use;
      the stages to walk are in ``stages``).
    - ``stages``: stages received so far, in order (reducer :func:`append_stages`).
    - ``next_stage``: index of the next stage to analyse (0-based); each tracker run adds 1.
    - ``clashes``: the battlefield map (reducer :func:`merge_clashes`).
    - ``analyses``: one :class:`StageAnalysis` per analysed stage (reducer :func:`append_analyses`).
    - ``calls`` / ``failures``: model call records and node failures (reducer: list concatenation).
    """

    match: MatchView
    stages: Annotated[list[Stage], append_stages]
    next_stage: int
    clashes: Annotated[dict[str, Clash], merge_clashes]
    analyses: Annotated[list[StageAnalysis], append_analyses]
    calls: Annotated[list[CallRecord], operator.add]
    failures: Annotated[list[NodeFailure], operator.add]


def failed_stage_ids(state: BattlefieldState) -> list[str]:
    """Ids of the analysed stages (before ``next_stage``) whose analysis failed and has no analysis
    since (a retry that succeeded supersedes the failure), in stage order. Live mode shows them as
    failed, retries them, and will not close the match while any is left."""
    stages = list(state.get("stages") or [])[: int(state.get("next_stage") or 0)]
    analysed = {a.stage_id for a in state.get("analyses") or []}
    failed = {f.key for f in state.get("failures") or [] if f.node == "track_stage" and not f.partial}
    return [s.stage_id for s in stages if s.stage_id in failed and s.stage_id not in analysed]
