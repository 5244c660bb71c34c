"""The offline judge's feedback per debater (:mod:`adjudicator.verdict.feedback`), derived from the
features it already has: the tracker's rating of every unit (three rubric levels and a suggested
score), each debater's share of a unit's work, the judge's unit values and the clash map's events.
Deterministic, in the match's language (words: ``feedback.*`` and ``move.*`` of
:mod:`adjudicator.judges.offline.words`, the offline judge's one phrase table). A baseline's reading of its own counts, like the rest of the
offline judge, not a coach's judgement.

For each debater (their units: the (stage, side) units they have a share of, else every unit of
their side):

- ``worked``: their unit of the highest value; the clash they (or their side) moved there, preferring
  an advanced, then defended, then opened clash;
- ``missed``: the clash the other side pushed forward or raised, in a stage before one of theirs,
  that their side never came back to afterwards (the latest such: the one left standing); tied to
  the debater's next stage after the attack. Without one, their unit of the weakest advancement;
- ``work_on``: their unit of the lowest value and its weakest rubric measure (of task performance,
  battlefield judgement and advancement, the one whose level lies lowest on its own scale), with that
  level's place on its scale ("level 4 of 7 from the top"), tied to the clash with the most moves in
  that stage; when even that measure is at the top of its scale, the advice is to keep that standard.
"""

from __future__ import annotations

from adjudicator.input.formats import Side, other_side
from adjudicator.input.match import MatchView
from adjudicator.input.rubric import ADVANCEMENT_LEVELS, BATTLEFIELD_LEVELS, TASK_LEVELS
from adjudicator.judges.base import JudgeRequest
from adjudicator.judges.offline.words import Words
from adjudicator.verdict.battlefield import Clash, SideAnalysis
from adjudicator.verdict.feedback import DebaterFeedback, FeedbackPoint

Unit = tuple[str, Side]

#: Each measure's levels, best first (the rubric's order), to say which of a unit's three is weakest.
_SCALES = {"task_performance": TASK_LEVELS, "battlefield_judgement": BATTLEFIELD_LEVELS, "advancement": ADVANCEMENT_LEVELS}
#: Which moves credit a clash to the side that made them, in the order ``worked`` prefers them.
_CREDIT = ("advanced", "defended", "opened")


def _low(a: SideAnalysis, measure: str) -> float:
    """How far down its scale a unit's level of ``measure`` lies: 0.0 best to 1.0 worst."""
    scale = _SCALES[measure]
    return scale.index(getattr(a, measure)) / (len(scale) - 1)


class _Say:
    """The offline judge's words (:class:`~adjudicator.judges.offline.words.Words`) for one match, with
    its stage names, stage types and clash titles."""

    def __init__(self, match: MatchView, clashes: dict[str, Clash]) -> None:
        self.words = Words(match.language)
        self.L = self.words.labels
        self.stages = {s.stage_id: self.words.stage(s.name) for s in match.stages}
        self.types = {s.stage_id: self.L.get(f"stage_type.{s.type}", s.type) for s in match.stages}
        self.titles = {cid: c.title for cid, c in clashes.items()}

    def __call__(self, key: str, **kw: str) -> str:
        return self.words.sentence(self.words.t(f"feedback.{key}", **kw))

    def level(self, value: str) -> str:
        return self.words.level(value)

    def move(self, kind: str) -> str:
        return self.words.t(f"move.{kind}")


def _units_of(match: MatchView, label: str, by_unit: dict[Unit, SideAnalysis]) -> list[Unit]:
    """The debater's units in stage order: those they have a share of, else every unit of their side."""
    side = match.side_of(label)
    order = {s.stage_id: i for i, s in enumerate(match.stages)}
    units = sorted((u for u in by_unit if u[1] == side), key=lambda u: order[u[0]])
    mine = [u for u in units if by_unit[u].contributions.get(label, 0.0) > 0]
    return mine or units


def _worked(say: _Say, unit: Unit, a: SideAnalysis, label: str, clashes: dict[str, Clash]) -> FeedbackPoint:
    sid, side = unit
    moved = [(kind, c) for kind in _CREDIT for c in clashes.values() for e in c.events
             if e.stage_id == sid and e.side == side and e.kind == kind and e.debater in (label, None)]
    if moved:
        kind, c = moved[0]
        return FeedbackPoint(text=say("worked_clash", stage=say.stages[sid], move=say.move(kind), title=c.title), stage_id=sid, clash_id=c.clash_id)
    return FeedbackPoint(text=say("worked", stage=say.stages[sid], level=say.level(a.task_performance)), stage_id=sid)


def _missed(say: _Say, match: MatchView, units: list[Unit], by_unit: dict[Unit, SideAnalysis], clashes: dict[str, Clash]) -> FeedbackPoint:
    """The latest attack on a clash the debater's side never answered afterwards (module docstring)."""
    order = {s.stage_id: i for i, s in enumerate(match.stages)}
    side = units[0][1]
    found = None
    for c in clashes.values():
        for e in c.events:
            if e.side == side or e.kind not in ("advanced", "opened"):
                continue
            later = [u for u in units if order[u[0]] > order[e.stage_id]]
            answered = any(x.side == side and order[x.stage_id] > order[e.stage_id] for x in c.events)
            if later and not answered and (found is None or order[e.stage_id] >= order[found[1].stage_id]):
                found = (c, e, later[0][0])
    if found is not None:
        c, e, sid = found
        text = say("missed_clash", other=say.L[f"side.{other_side(side)}"], move=say.move(e.kind), title=c.title, at=say.stages[e.stage_id], stage=say.stages[sid])
        return FeedbackPoint(text=text, stage_id=sid, clash_id=c.clash_id)
    unit = max(units, key=lambda u: (_low(by_unit[u], "advancement"), -order[u[0]]))
    return FeedbackPoint(text=say("missed", stage=say.stages[unit[0]], level=say.level(by_unit[unit].advancement)), stage_id=unit[0])


def _work_on(say: _Say, unit: Unit, a: SideAnalysis, clashes: dict[str, Clash]) -> FeedbackPoint:
    sid = unit[0]
    measure = max(_SCALES, key=lambda m: _low(a, m))
    busiest = max(clashes.values(), key=lambda c: sum(e.stage_id == sid for e in c.events), default=None)
    cid = busiest.clash_id if busiest is not None and any(e.stage_id == sid for e in busiest.events) else ""
    if _low(a, measure) == 0.0:  # every measure at the top of its scale: nothing there to work on
        return FeedbackPoint(text=say("work_on_keep", stage=say.stages[sid]), stage_id=sid, clash_id=cid)
    # the level with its place on the scale: a middle level ("effective" advancement, 4 of 7) reads as praise alone
    scale = _SCALES[measure]
    level = say.words.t("feedback.level_rank", level=say.level(getattr(a, measure)), n=str(scale.index(getattr(a, measure)) + 1), of=str(len(scale)))
    text = say(f"work_on_{measure}", stage=say.stages[sid], type=say.types[sid], level=level)
    return FeedbackPoint(text=text, stage_id=sid, clash_id=cid)


def debater_feedback(request: JudgeRequest, by_unit: dict[Unit, SideAnalysis], values: dict[Unit, float]) -> list[DebaterFeedback]:
    """The offline judge's feedback to every debater of ``request.match`` (module docstring), from the
    analyses by unit ``by_unit`` and the judge's unit ``values`` (1-10). A debater with no scored unit
    on their side gets none. Pure function."""
    match = request.match
    say = _Say(match, request.clashes)
    out = []
    for label in match.debater_labels():
        units = _units_of(match, label, by_unit)
        if not units:
            continue
        best = max(units, key=lambda u: values.get(u, 0.0))
        worst = min(units, key=lambda u: values.get(u, 0.0))
        out.append(DebaterFeedback(
            debater=label,
            worked=_worked(say, best, by_unit[best], label, request.clashes),
            missed=_missed(say, match, units, by_unit, request.clashes),
            work_on=_work_on(say, worst, by_unit[worst], request.clashes),
        ))
    return out
