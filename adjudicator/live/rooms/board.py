"""The live board: the JSON views of a match in progress -- the board snapshot (what the page renders
and what server-sent events carry), a push's reply, a match's line in the list -- and the template of
the next stage for the organiser's push form.

Everything here is a pure function of the clash-tracking state (the trackers' analyses and the clash
map), so it works the same with the offline judge and with any LLM. Nothing in the snapshot is the
panel's verdict until the match is closed; the provisional numbers (suggested scores, the provisional
tendency of :mod:`adjudicator.live.rooms.tendency`) are labelled as such on the page.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, cast

from adjudicator.input.formats import SIDES, Side, get_format, other_side
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import band
from adjudicator.live.rooms.tendency import Tendency, clashes_before, provisional_tendency
from adjudicator.live.rooms.turning_points import turning_points
from adjudicator.records import NodeFailure
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.battlefield import BattlefieldState, Clash, StageAnalysis, failed_stage_ids
from adjudicator.verdict.labels import stage_name
from adjudicator.verdict.review import review_sentences
from adjudicator.verdict.transcripts import transcript_view

# ---------------------------------------------------------------------------------------------
# Next-stage suggestion (for the organiser's push form)


def next_slot(header: MatchView, stages: list[Stage]) -> dict[str, Any] | None:
    """A template for the next stage to push, from the format's declared order (fixed-order formats)
    or by alternating sides (online-1v1: the first speech is the side of the header's first debater --
    ``adjudicate live create`` lists the side that speaks first first). None when a fixed order is complete.

    Returns ``{"position": k (1-based), "of": n or None, "stage": {stage JSON with empty text}}``.
    """
    spec = get_format(header.format)
    taken = {s.stage_id for s in stages}
    k = len(stages) + 1
    sid = f"s{k:02d}"
    while sid in taken:
        k += 1
        sid = f"s{k:02d}"
    if spec.fixed_order:
        done = sum(1 for s in stages if not s.surprise)
        if done >= len(spec.order):
            return None
        slot = spec.order[done]
        stage: dict[str, Any] = {"stage_id": sid, "name": slot.name, "type": slot.type, "sides": list(slot.sides)}
        if slot.questioner:
            stage["roles"] = {slot.questioner: "questioner", other_side(slot.questioner): "respondent"}
        stage["speakers"] = list(slot.speakers)
        first = slot.speakers[0] if slot.speakers else f"{slot.sides[0].capitalize()} Speaker 1"
        stage["utterances"] = [{"speaker": first, "side": first.split(" ")[0].lower(), "text": ""}]
        return {"position": done + 1, "of": len(spec.order), "stage": stage}
    side = other_side(stages[-1].sides[0]) if stages else (header.debaters[0].side if header.debaters else "affirmative")
    spoken = any(side in s.sides for s in stages)
    label = f"{side.capitalize()} Speaker 1"
    stage = {
        "stage_id": sid,
        "name": f"{side.capitalize()} speech {sum(1 for s in stages if side in s.sides) + 1}",
        "type": "supplementary" if spoken else "constructive",
        "sides": [side],
        "speakers": [label],
        "utterances": [{"speaker": label, "side": side, "text": ""}],
    }
    return {"position": len(stages) + 1, "of": None, "stage": stage}


def missing_speeches(header: MatchView, stages: list[Stage]) -> str | None:
    """Why a match of a format without a fixed order (online-1v1) looks unfinished, or None: the sides
    have given different numbers of speeches, so the side with fewer has not answered the other's last
    (a fixed-order format's missing stages are refused outright when closing)."""
    if get_format(header.format).fixed_order or not stages:
        return None
    n: dict[Side, int] = {side: sum(1 for s in stages if side in s.sides) for side in SIDES}
    if n["affirmative"] == n["negative"]:
        return None
    fewer: Side = "affirmative" if n["affirmative"] < n["negative"] else "negative"
    more = other_side(fewer)
    return (f"the {fewer} has given {n[fewer]} speech{'' if n[fewer] == 1 else 'es'} and the {more} {n[more]}: "
            f"the {fewer}'s answer to the {more}'s last speech seems missing")


# ---------------------------------------------------------------------------------------------
# The snapshot


@dataclass(frozen=True)
class Progress:
    """The clash-tracking state of one match, unpacked: ``stages`` received (in order), ``analyses``
    sorted by stage index, the clash map, the node failures, and ``analysed`` (``next_stage``: the
    number of stages whose analysis completed, a prefix of ``stages``)."""

    stages: list[Stage]
    analyses: list[StageAnalysis]
    clashes: dict[str, Clash]
    failures: list[NodeFailure]
    analysed: int

    @classmethod
    def of(cls, values: dict[str, Any]) -> Progress:
        """From the tracking graph's state values (keys ``stages``, ``next_stage``, ``clashes``,
        ``analyses``, ``failures``; any may be missing)."""
        return cls(
            stages=list(values.get("stages") or []),
            analyses=sorted(values.get("analyses") or [], key=lambda a: a.stage_index),
            clashes=dict(values.get("clashes") or {}),
            failures=list(values.get("failures") or []),
            analysed=int(values.get("next_stage") or 0),
        )

    def stage_names(self) -> dict[str, str]:
        """Stage id -> stage name."""
        return {s.stage_id: s.name for s in self.stages}


def _match_json(header: MatchView, stages: list[Stage]) -> dict[str, Any]:
    fixed = get_format(header.format).fixed_order
    return {
        "match_id": header.match_id,
        "format": header.format,
        "language": header.language,
        "motion": header.motion,
        "affirmative_position": header.affirmative_position,
        "negative_position": header.negative_position,
        "info": header.info,
        "debaters": [{"label": d.label, "side": d.side, "position": d.position, "name": d.name} for d in header.debaters],
        # the declared order plus the surprise challenges received so far (2v2, Appendix A.3)
        "expected_stages": len(get_format(header.format).order) + sum(1 for s in stages if s.surprise) if fixed else None,
    }


def _stage_rows(progress: Progress, language: str) -> list[dict[str, Any]]:
    """Each received stage, with its name in the match's language, whether its analysis completed and
    whether it failed."""
    analysed_ids = {a.stage_id for a in progress.analyses}
    failed_ids = {f.key for f in progress.failures if f.node == "track_stage" and not f.partial}
    return [
        {
            "stage_id": s.stage_id,
            "name": s.name,
            "display_name": stage_name(s.name, language),
            "type": s.type,
            "sides": list(s.sides),
            "roles": dict(s.roles or {}),
            "speakers": list(s.speakers),
            "chars": sum(len(u.text) for u in s.utterances),
            "analysed": i < progress.analysed and s.stage_id in analysed_ids,
            "failed": i < progress.analysed and s.stage_id in failed_ids and s.stage_id not in analysed_ids,
            **({"transcript": transcript_view(s)} if s.transcript is not None else {}),  # machine-made stages only
        }
        for i, s in enumerate(progress.stages)
    ]


def _score_rows(progress: Progress) -> list[dict[str, Any]]:
    """The trackers' provisional suggested score (1-10) and rubric ratings per analysed stage and side."""
    names = progress.stage_names()
    types = {s.stage_id: s.type for s in progress.stages}
    return [
        {
            "stage_id": sa.stage_id,
            "stage_name": names.get(sa.stage_id, sa.stage_id),
            "stage_type": types.get(sa.stage_id, ""),
            "side": sa.side,
            "role": sa.role,
            "suggested_score": sa.suggested_score,
            "band": band(sa.suggested_score),
            "task_performance": sa.task_performance,
            "battlefield_judgement": sa.battlefield_judgement,
            "advancement": sa.advancement,
            "rationale": sa.rationale,
        }
        for a in progress.analyses
        for sa in a.sides
    ]


def _clash_json(c: Clash, names: dict[str, str]) -> dict[str, Any]:
    return {
        "clash_id": c.clash_id,
        "title": c.title,
        "affirmative_position": c.affirmative_position,
        "negative_position": c.negative_position,
        "opened_in": c.opened_in,
        "momentum": round(c.momentum(), 3),
        "events": [
            {"stage_id": e.stage_id, "stage_name": names.get(e.stage_id, e.stage_id), "side": e.side, "kind": e.kind, "note": e.note, "debater": e.debater}
            for e in c.events
        ],
    }


def _review_json(v: Verdict, language: str) -> dict[str, Any] | None:
    """The verdict's review for the board: ``escalate``, the ``reasons`` and one sentence per reason in
    the match's language (:func:`~adjudicator.verdict.review.review_sentences`); None without a review."""
    if v.review is None:
        return None
    return {"escalate": v.review.escalate, "reasons": list(v.review.reasons), "sentences": review_sentences(v.review, language)}


def _verdict_json(match_id: str, v: Verdict, language: str = "en") -> dict[str, Any]:
    return {
        "winner": v.winner,
        "p": v.p,
        "winner_split": v.dissent.winner_split if v.dissent else None,
        "best_debaters": list(v.best_debaters),
        "best_debater_votes": dict(v.best_debater_votes),
        "stage_scores": [{"stage_id": s.stage_id, "stage_name": s.stage_name, "side": s.side, "judge_scores": list(s.judge_scores), "mean": s.mean} for s in v.stage_scores],
        "ballots": [{"judge_id": b.judge_id, "perspective": b.perspective, "winner": b.winner, "p": b.p} for b in v.ballots],
        "failures": len(v.failures),
        "review": _review_json(v, language),
        "feedback": [f.model_dump(mode="json") for f in v.feedback],
        "feedback_from": v.feedback_from,
        "model": v.provenance.model,
        "is_llm": v.provenance.is_llm,
        "verdict_url": f"/api/matches/{match_id}/verdict",
        "report_url": f"/api/matches/{match_id}/report",
    }


def _latest_change(progress: Progress, tendency: Tendency, language: str) -> dict[str, Any] | None:
    """What the latest analysed stage changed: its summary and scores, its clash events, the clashes it
    opened, and the provisional tendency before and after it. None before any analysis."""
    if not progress.analyses:
        return None
    analyses, clashes, stages = progress.analyses, progress.clashes, progress.stages
    last = analyses[-1]
    before = provisional_tendency(analyses[:-1], clashes_before(clashes, last.stage_id), stages)
    changes = []
    for c in clashes.values():
        for e in c.events:
            if e.stage_id == last.stage_id:
                changes.append({"clash_id": c.clash_id, "title": c.title, "side": e.side, "kind": e.kind, "note": e.note, "debater": e.debater})
    return {
        "stage_id": last.stage_id,
        "stage_name": progress.stage_names().get(last.stage_id, last.stage_id),
        "stage_display_name": stage_name(progress.stage_names().get(last.stage_id, last.stage_id), language),
        "summary": last.summary,
        "scores": [{"side": s.side, "role": s.role, "suggested_score": s.suggested_score} for s in last.sides],
        "clash_events": changes,
        "opened": [c.clash_id for c in clashes.values() if c.opened_in == last.stage_id],
        "tendency_before": before.p,
        "tendency_after": tendency.p,
    }


def _timeline(progress: Progress, language: str) -> list[dict[str, Any]]:
    """The turning points so far (:mod:`adjudicator.live.rooms.turning_points`), each with its stage's name in
    the match's language."""
    return [
        asdict(tp) | {"clash_events": list(tp.clash_events), "stage_display_name": stage_name(tp.stage_name, language)}
        for tp in turning_points(progress.analyses, progress.clashes, progress.stages)
    ]


def board_snapshot(
    header: MatchView,
    values: dict[str, Any],
    *,
    status: str,
    model: str,
    is_llm: bool,
    verdict: Verdict | None = None,
    panel_error: str | None = None,
    error: str | None = None,
    revision: int = 0,
) -> dict[str, Any]:
    """The board's JSON snapshot of one match (what the page renders; what SSE sends).

    ``values`` is the clash-tracking state (keys ``stages``, ``next_stage``, ``clashes``, ``analyses``,
    ``failures``). ``status`` is "open", "closing" or "closed". Keys of the result: ``match``,
    ``status``, ``model``, ``is_llm``, ``revision``, ``stages`` (received, each with ``analysed``),
    ``received``, ``analysed`` (stages the tracker has visited), ``pending`` (not visited yet),
    ``failed`` (visited, analysis failed, not retried successfully), ``next_slot``, ``clashes`` (the battlefield map),
    ``scores`` (provisional suggested scores per stage and side), ``tendency`` (see
    :mod:`adjudicator.live.rooms.tendency`), ``latest`` (what changed in the latest analysed stage),
    ``timeline`` (the turning points, :mod:`adjudicator.live.rooms.turning_points`),
    ``failures``, ``error``, ``verdict`` (after close) and ``panel_error``.
    """
    progress = Progress.of(values)
    stages = progress.stages
    names = progress.stage_names()
    tendency = provisional_tendency(progress.analyses, progress.clashes, stages)
    return {
        "match": _match_json(header, stages),
        "status": status,
        "model": model,
        "is_llm": is_llm,
        "revision": revision,
        "stages": _stage_rows(progress, header.language),
        "received": len(stages),
        "analysed": progress.analysed,
        "pending": [s.stage_id for s in stages[progress.analysed :]],
        "failed": failed_stage_ids(cast(BattlefieldState, values)),
        "next_slot": next_slot(header, stages) if status == "open" else None,
        "clashes": [_clash_json(c, names) for c in progress.clashes.values()],
        "scores": _score_rows(progress),
        "tendency": asdict(tendency),
        "latest": _latest_change(progress, tendency, header.language),
        "timeline": _timeline(progress, header.language),
        "failures": [{"node": f.node, "key": f.key, "reason": f.reason} for f in progress.failures],
        "error": error,
        "verdict": _verdict_json(header.match_id, verdict, header.language) if verdict is not None else None,
        "panel_error": panel_error,
    }


# ---------------------------------------------------------------------------------------------
# Views derived from a snapshot


def push_reply(snapshot: dict[str, Any], stage_id: str, duplicate: bool) -> dict[str, Any]:
    """The reply to a push of ``stage_id`` once the match's board is ``snapshot``: ``{"match_id",
    "stage_id", "duplicate", "status": "analysed" | "failed" | "queued", "received", "analysed",
    "failed", "pending", "latest", "tendency", "next_slot"}``. ``status`` is the pushed stage's:
    "queued" while any received stage awaits its analysis, "failed" when its analysis failed, else
    "analysed". ``latest`` is what the pushed stage changed, and None unless it was analysed (never an
    earlier stage's scores under this stage's name); ``failed`` lists every failed stage."""
    failed = list(snapshot.get("failed") or [])
    latest = snapshot["latest"]
    status = "queued" if snapshot["pending"] else "failed" if stage_id in failed else "analysed"
    return {
        "match_id": snapshot["match"]["match_id"],
        "stage_id": stage_id,
        "duplicate": duplicate,
        "status": status,
        "received": snapshot["received"],
        "analysed": snapshot["analysed"],
        "failed": failed,
        "pending": snapshot["pending"],
        "latest": latest if status == "analysed" and latest is not None and latest["stage_id"] == stage_id else None,
        "tendency": snapshot["tendency"],
        "next_slot": snapshot["next_slot"],
    }


def match_summary(snapshot: dict[str, Any], created_at: str) -> dict[str, Any]:
    """A match's line in the list of live matches: id, motion, format, status, stages received and
    analysed, creation time (UTC ISO 8601) and board URL."""
    mid = snapshot["match"]["match_id"]
    return {
        "match_id": mid,
        "motion": snapshot["match"]["motion"],
        "format": snapshot["match"]["format"],
        "status": snapshot["status"],
        "received": snapshot["received"],
        "analysed": snapshot["analysed"],
        "failed": len(snapshot.get("failed") or []),
        "created_at": created_at,
        "board_url": f"/board/{mid}",
    }


#: ``tendency.leaning`` of a snapshot whose analysis is held back until the room's verdict is released.
WITHHELD = "withheld"


def withheld(snapshot: dict[str, Any]) -> dict[str, Any]:
    """``snapshot`` without anything that tells which way its closed, unreleased room went (issue 27,
    item 6): no provisional tendency (``p`` None, ``leaning`` :data:`WITHHELD`), no suggested scores,
    no latest change, no turning points, and the battlefield map as clash titles only (no events, no
    momentum). Stages, transcripts and status stay. The verdict itself is withheld by the caller."""
    tendency = dict(snapshot["tendency"]) | {"p": None, "leaning": WITHHELD, "score_gap": 0.0, "momentum": 0.0, "compared_groups": 0, "counted_events": 0}
    clashes = [{k: v for k, v in c.items() if k not in ("events", "momentum")} | {"events": [], "momentum": 0.0} for c in snapshot["clashes"]]
    return snapshot | {"tendency": tendency, "scores": [], "latest": None, "timeline": [], "clashes": clashes, "withheld": True}
