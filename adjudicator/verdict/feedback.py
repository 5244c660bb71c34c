"""Feedback per debater, as a coach gives it: for each debater what worked, the response they missed,
and one thing to work on, each tied to a stage and, where it concerns one, a clash.

Of an LLM panel only the chair writes it (:data:`FEEDBACK_JUDGE`, judge-1, :func:`writes_feedback`), as
the chair gives the oral adjudication in practice: the verdict shows one judge's feedback, and the wings'
was 31-37% of the agentic arm's completion tokens, written and thrown away (issue 39,
``benchmarks/completion_fields.py``). The chair writes it on its ballot (``prompts/judge.<lang>.j2``:
an exact schema with one required key per debater, in the match's language; read by
:mod:`adjudicator.judges.llm.ballot_recovery`); the offline judge derives it from its features for
every judge (:mod:`adjudicator.judges.offline.feedback`; it costs nothing). The single-call arm has
none (the CCDB protocol has no such task), nor do ranking (BP) ballots and pairwise panels. The
verdict carries the feedback of one judge (:func:`panel_feedback`: of the ballots that carry it, the
majority judge's whose p is nearest the panel's; the chair's when it alone wrote it), so a coach
reads one voice; every ballot keeps its own. :func:`feedback_stats` counts how often it is filled and how
often a point names a real stage and a real clash (the bench reports both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from adjudicator.config import JUDGE_IDS
from adjudicator.frozen import FrozenModel

#: The three points of a debater's feedback, in the order a coach says them.
FeedbackKind = Literal["worked", "missed", "work_on"]
FEEDBACK_KINDS: tuple[FeedbackKind, ...] = ("worked", "missed", "work_on")


class FeedbackPoint(FrozenModel):
    """One point: ``text`` (one or two sentences, in the match's language), the ``stage_id`` of the
    stage it is about and the ``clash_id`` of the clash it concerns (``""`` when it concerns none)."""

    text: str = Field(min_length=1)
    stage_id: str
    clash_id: str = ""


class DebaterFeedback(FrozenModel):
    """A coach's feedback to one debater (``debater``: the position label): what ``worked``, the
    response they ``missed`` (an attack left unanswered, or an answer that fell short) and one thing to
    ``work_on``. A point is None when an LLM judge's point was still invalid after its repair turn and
    was dropped (issue 38; the ballot's ``dropped`` and the node's ``dropped_field`` failure name it);
    left out of the JSON then."""

    debater: str
    worked: FeedbackPoint | None = Field(exclude_if=lambda v: v is None)
    missed: FeedbackPoint | None = Field(exclude_if=lambda v: v is None)
    work_on: FeedbackPoint | None = Field(exclude_if=lambda v: v is None)

    def points(self) -> list[tuple[FeedbackKind, FeedbackPoint]]:
        """(kind, point) in :data:`FEEDBACK_KINDS` order, the dropped ones left out."""
        return [(k, p) for k in FEEDBACK_KINDS if (p := getattr(self, k)) is not None]


def carries_feedback(match: Any) -> bool:
    """True when a judge's ballot on ``match`` (a :class:`~adjudicator.input.match.MatchView`) carries
    the coach's feedback: a two-sided match with debaters (BP's ranking ballots have none)."""
    return bool(match.debater_labels()) and match.spec().verdict != "ranking"


#: The LLM panel's judge who writes the coach's feedback: the chair, judge-1.
FEEDBACK_JUDGE = JUDGE_IDS[0]


def asks_feedback(request: Any) -> bool:
    """True when the panel of ``request`` (a :class:`~adjudicator.judges.base.JudgeRequest`) gives the
    coach's feedback: the match carries feedback (:func:`carries_feedback`) and the run asks for it
    (``feedback``, default True; ``--no-feedback`` leaves it out: issue 39, the single-call protocol
    has no such task; on debateart_4395, gpt-4.1-mini, benchmarks/billed_cost.py, the agentic arm's bill
    fell from 176.7% to 157.0% of single-call's without it)."""
    return getattr(request, "feedback", True) is not False and carries_feedback(request.match)


def writes_feedback(request: Any) -> bool:
    """True when the judge of ``request`` (a :class:`~adjudicator.judges.base.JudgeRequest`) writes
    the coach's feedback on its ballot: the panel gives feedback (:func:`asks_feedback`) and the
    judge is the chair (:data:`FEEDBACK_JUDGE`). The wings' ballots have no feedback field."""
    return request.judge_id == FEEDBACK_JUDGE and asks_feedback(request)


def panel_feedback(ballots: Sequence[Any], winner: str | None, p: float | None) -> tuple[str, list[DebaterFeedback]]:
    """(judge id, feedback) of the ballot whose feedback the verdict shows: among the ballots with
    feedback, those of the panel's ``winner`` (all of them when none), the one whose p is nearest the
    panel's ``p`` (ties: judge id order). ``("", [])`` when no ballot has feedback."""
    with_feedback = sorted((b for b in ballots if b.feedback), key=lambda b: b.judge_id)
    if not with_feedback:
        return "", []
    majority = [b for b in with_feedback if winner is None or b.winner == winner] or with_feedback
    best = min(majority, key=lambda b: abs((b.p if b.p is not None else 0.5) - (p if p is not None else 0.5)))
    return best.judge_id, list(best.feedback)


class FeedbackStats(FrozenModel):
    """How complete and grounded one verdict's feedback is: ``debaters`` the match's debaters,
    ``filled`` those with feedback, ``points`` their points (3 each), ``real_stage`` the points whose
    stage id is a stage of the match, ``real_clash`` the points whose clash id is a clash of the
    verdict's map (``no_clash`` the points naming none)."""

    debaters: int
    filled: int
    points: int
    real_stage: int
    real_clash: int
    no_clash: int


def feedback_stats(feedback: Sequence[DebaterFeedback], debaters: Sequence[str], stage_ids: Sequence[str], clash_ids: Sequence[str]) -> FeedbackStats:
    """:class:`FeedbackStats` of ``feedback`` for a match with position labels ``debaters``, stages
    ``stage_ids`` and a clash map of ``clash_ids``. A feedback entry for a label the match does not
    have counts for nothing."""
    known, stages, clashes = set(debaters), set(stage_ids), set(clash_ids)
    entries = [f for f in feedback if f.debater in known]
    points = [pt for f in entries for _, pt in f.points()]
    return FeedbackStats(
        debaters=len(known),
        filled=len({f.debater for f in entries}),
        points=len(points),
        real_stage=sum(pt.stage_id in stages for pt in points),
        real_clash=sum(bool(pt.clash_id) and pt.clash_id in clashes for pt in points),
        no_clash=sum(not pt.clash_id for pt in points),
    )


@dataclass(frozen=True)
class FeedbackView:
    """One debater's feedback as a report shows it: the debater as people name them, and per point
    (in :data:`FEEDBACK_KINDS` order) its heading, where it happened (stage, and clash when it names
    one) and its text."""

    debater: str
    points: list[tuple[str, str, str]]


def feedback_views(verdict: Any, L: dict[str, str], stage_of: Callable[[str], str], debater_of: Callable[[str], str]) -> list[FeedbackView]:
    """The verdict's feedback for a report in the language of ``L`` (a label table): debaters named by
    ``debater_of`` (label -> name), stages by ``stage_of`` (stage id -> name), a clash by its title
    and id (``read.feedback.clash``)."""
    titles = {c.clash_id: c.title for c in verdict.battlefields}
    out = []
    for f in verdict.feedback:
        points = []
        for kind, pt in f.points():
            where = stage_of(pt.stage_id)
            if pt.clash_id:
                where += " · " + L["read.feedback.clash"].format(title=titles.get(pt.clash_id, pt.clash_id)) + f" ({pt.clash_id})"
            points.append((L[f"read.feedback.{kind}"], where, pt.text))
        out.append(FeedbackView(debater=debater_of(f.debater), points=points))
    return out


def run_feedback_stats(verdicts: Sequence[tuple[Any, dict[str, Any] | None]]) -> dict[str, Any]:
    """How often one arm's verdicts carry feedback and how grounded it is, over ``verdicts`` (pairs of
    a :class:`~adjudicator.input.match.MatchView` or Match and its verdict as JSON, None when it has
    none): the summed :class:`FeedbackStats` (``debaters``, ``filled``, ``points``, ``real_stage``,
    ``real_clash``, ``no_clash``), ``verdicts`` counted, and the rates ``filled_rate`` =
    filled / debaters, ``stage_rate`` = real_stage / points and ``clash_rate`` = real_clash / points
    (None when the denominator is 0). A feedback entry that does not read is not counted."""
    totals = dict.fromkeys(("debaters", "filled", "points", "real_stage", "real_clash", "no_clash"), 0)
    n = 0
    for match, verdict in verdicts:
        if not verdict:
            continue
        n += 1
        entries = []
        for raw in verdict.get("feedback") or []:
            try:
                entries.append(DebaterFeedback.model_validate(raw))
            except ValueError:
                continue
        stats = feedback_stats(entries, match.debater_labels(), [st.stage_id for st in match.stages], [c.get("clash_id", "") for c in verdict.get("battlefields") or []])
        for key in totals:
            totals[key] += getattr(stats, key)

    def rate(a: int, b: int) -> float | None:
        return a / b if b else None

    return {"verdicts": n, **totals, "filled_rate": rate(totals["filled"], totals["debaters"]),
            "stage_rate": rate(totals["real_stage"], totals["points"]), "clash_rate": rate(totals["real_clash"], totals["points"])}
