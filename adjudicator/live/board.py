"""The live board: a JSON snapshot of where a match in progress stands, and its provisional tendency.

Everything here is a pure function of the clash-tracking state (the trackers' analyses and the clash
map), so it works the same with the offline judge and with any LLM. Nothing in the snapshot is the
panel's verdict until the match is closed; the provisional numbers are labelled as such on the page.

Provisional tendency (our definition; not the panel's ``p``, not fitted to any label):

- ``score_gap``: the like-for-like mean difference of the trackers' suggested scores (1-10). Scored
  units are grouped by (stage type, role) -- affirmative constructive against negative constructive,
  questioner against questioner, free debate against free debate -- because stage types carry a
  structural bias (paper 2.5: questioners outscore respondents). For each group where both sides have
  at least one unit, ``d_g`` = mean(affirmative) - mean(negative) with weight ``w_g`` = the smaller of the
  two unit counts; ``score_gap`` = sum(w_g d_g) / sum(w_g), or 0 while no group has both sides.
- ``momentum``: the event-weighted clash momentum in [-1, 1], the same counting as
  :meth:`adjudicator.battlefield.Clash.momentum` pooled over all clashes: each "advanced" or "defended"
  event counts +1 for its side, each "conceded" event +1 for the other side, "opened"/"contested" count 0;
  ``momentum`` = (affirmative counts - negative counts) / all counted events, or 0 with none.
- ``p = 1 / (1 + exp(-(0.8 * score_gap + 1.2 * momentum)))``, two decimals; above 0.5 leans affirmative.
  Scale: a one-point like-for-like gap alone (one rubric step, e.g. 7 against 6) gives 0.69; a clash
  map entirely one side's with equal scores gives 0.77. ``leaning`` is "affirmative" from 0.55,
  "negative" up to 0.45, else "even". ``p`` is None until both sides have been scored in at least one
  comparable (stage type, role) group -- e.g. after the first constructive speech alone.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from adjudicator.battlefield import Clash, StageAnalysis, event_balance
from adjudicator.formats import get_format, other_side
from adjudicator.match import MatchView, Stage
from adjudicator.rubric import band
from adjudicator.verdict import Verdict

SCORE_GAP_WEIGHT = 0.8  # logit per suggested-score point of like-for-like gap
MOMENTUM_WEIGHT = 1.2  # logit at a clash map entirely one side's (momentum +-1)
LEANING_MARGIN = 0.05  # |p - 0.5| below this is "even"


@dataclass(frozen=True)
class Tendency:
    """The provisional tendency (module docstring). ``p`` in [0, 1], or None before both sides have
    been scored in a comparable stage;
    ``score_gap`` in [-9, 9] suggested-score points; ``momentum`` in [-1, 1]; ``compared_groups`` the
    number of (stage type, role) groups with both sides scored; ``counted_events`` the clash events
    that moved momentum."""

    p: float | None
    leaning: str
    score_gap: float
    momentum: float
    compared_groups: int
    counted_events: int


def like_for_like_gap(analyses: list[StageAnalysis], stage_types: dict[str, str]) -> tuple[float, int]:
    """(score_gap, compared_groups): the weighted mean of per-(stage type, role) differences in mean
    suggested score, affirmative minus negative (module docstring). ``stage_types`` maps stage id ->
    stage type. Returns (0.0, 0) when no group has both sides."""
    groups: dict[tuple[str, str], dict[str, list[int]]] = {}
    for a in analyses:
        for s in a.sides:
            key = (stage_types.get(s.stage_id, "?"), s.role or "")
            groups.setdefault(key, {"affirmative": [], "negative": []})[s.side].append(s.suggested_score)
    num = 0.0
    den = 0.0
    compared = 0
    for g in groups.values():
        aff, neg = g["affirmative"], g["negative"]
        if not aff or not neg:
            continue
        w = min(len(aff), len(neg))
        num += w * (sum(aff) / len(aff) - sum(neg) / len(neg))
        den += w
        compared += 1
    return (num / den if den else 0.0), compared


def pooled_momentum(clashes: dict[str, Clash]) -> tuple[float, int]:
    """(momentum, counted_events): clash momentum pooled over every clash event (module docstring)."""
    score, n = event_balance([e for c in clashes.values() for e in c.events])
    return (score / n if n else 0.0), n


def provisional_tendency(analyses: list[StageAnalysis], clashes: dict[str, Clash], stages: list[Stage]) -> Tendency:
    """The provisional tendency of a match in progress (formula in the module docstring)."""
    gap, groups = like_for_like_gap(analyses, {s.stage_id: s.type for s in stages})
    momentum, events = pooled_momentum(clashes)
    if not analyses or groups == 0:
        # until both sides have been scored in a comparable stage there is nothing to weigh: clash
        # momentum alone after one side's opening speech would read as a landslide
        return Tendency(p=None, leaning="none yet", score_gap=0.0, momentum=round(momentum, 3), compared_groups=groups, counted_events=events)
    z = SCORE_GAP_WEIGHT * gap + MOMENTUM_WEIGHT * momentum
    p = round(1.0 / (1.0 + math.exp(-z)), 2)
    leaning = "affirmative" if p >= 0.5 + LEANING_MARGIN else "negative" if p <= 0.5 - LEANING_MARGIN else "even"
    return Tendency(p=p, leaning=leaning, score_gap=round(gap, 3), momentum=round(momentum, 3), compared_groups=groups, counted_events=events)


def clashes_before(clashes: dict[str, Clash], stage_id: str) -> dict[str, Clash]:
    """The clash map as it stood before ``stage_id``: its events removed, clashes it opened dropped."""
    out: dict[str, Clash] = {}
    for cid, c in clashes.items():
        if c.opened_in == stage_id:
            continue
        out[cid] = c.model_copy(update={"events": [e for e in c.events if e.stage_id != stage_id]})
    return out


# ---------------------------------------------------------------------------------------------
# Next-stage suggestion (for the organiser's push form)


def next_slot(header: MatchView, stages: list[Stage]) -> dict[str, Any] | None:
    """A template for the next stage to push, from the format's declared order (fixed-order formats)
    or by alternating sides (online-1v1). None when a fixed order is complete.

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
    side = other_side(stages[-1].sides[0]) if stages else "affirmative"
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


# ---------------------------------------------------------------------------------------------
# The snapshot


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


def _verdict_json(match_id: str, v: Verdict) -> dict[str, Any]:
    return {
        "winner": v.winner,
        "p": v.p,
        "winner_split": v.dissent.winner_split if v.dissent else None,
        "best_debaters": list(v.best_debaters),
        "best_debater_votes": dict(v.best_debater_votes),
        "stage_scores": [{"stage_id": s.stage_id, "stage_name": s.stage_name, "side": s.side, "judge_scores": list(s.judge_scores), "mean": s.mean} for s in v.stage_scores],
        "ballots": [{"judge_id": b.judge_id, "perspective": b.perspective, "winner": b.winner, "p": b.p} for b in v.ballots],
        "failures": len(v.failures),
        "model": v.provenance.model,
        "is_llm": v.provenance.is_llm,
        "verdict_url": f"/api/matches/{match_id}/verdict",
        "report_url": f"/api/matches/{match_id}/report",
    }


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
    ``received``, ``analysed``, ``pending``, ``next_slot``, ``clashes`` (the battlefield map),
    ``scores`` (provisional suggested scores per stage and side), ``tendency`` (see the module
    docstring), ``latest`` (what changed in the latest analysed stage), ``failures``, ``error``,
    ``verdict`` (after close) and ``panel_error``.
    """
    stages: list[Stage] = list(values.get("stages") or [])
    analyses: list[StageAnalysis] = sorted(values.get("analyses") or [], key=lambda a: a.stage_index)
    clashes: dict[str, Clash] = dict(values.get("clashes") or {})
    failures = list(values.get("failures") or [])
    n_done = int(values.get("next_stage") or 0)
    names = {s.stage_id: s.name for s in stages}
    types = {s.stage_id: s.type for s in stages}
    analysed_ids = {a.stage_id for a in analyses}
    failed_ids = {f.key for f in failures if f.node == "track_stage"}

    stage_rows = [
        {
            "stage_id": s.stage_id,
            "name": s.name,
            "type": s.type,
            "sides": list(s.sides),
            "roles": dict(s.roles or {}),
            "speakers": list(s.speakers),
            "chars": sum(len(u.text) for u in s.utterances),
            "analysed": i < n_done and s.stage_id in analysed_ids,
            "failed": i < n_done and s.stage_id in failed_ids,
        }
        for i, s in enumerate(stages)
    ]
    scores = [
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
        for a in analyses
        for sa in a.sides
    ]
    tendency = provisional_tendency(analyses, clashes, stages)

    latest = None
    if analyses:
        last = analyses[-1]
        before = provisional_tendency(analyses[:-1], clashes_before(clashes, last.stage_id), stages)
        changes = []
        for c in clashes.values():
            for e in c.events:
                if e.stage_id == last.stage_id:
                    changes.append({"clash_id": c.clash_id, "title": c.title, "side": e.side, "kind": e.kind, "note": e.note, "debater": e.debater})
        latest = {
            "stage_id": last.stage_id,
            "stage_name": names.get(last.stage_id, last.stage_id),
            "summary": last.summary,
            "scores": [{"side": s.side, "role": s.role, "suggested_score": s.suggested_score} for s in last.sides],
            "clash_events": changes,
            "opened": [c.clash_id for c in clashes.values() if c.opened_in == last.stage_id],
            "tendency_before": before.p,
            "tendency_after": tendency.p,
        }
    fixed = get_format(header.format).fixed_order
    return {
        "match": {
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
        },
        "status": status,
        "model": model,
        "is_llm": is_llm,
        "revision": revision,
        "stages": stage_rows,
        "received": len(stages),
        "analysed": n_done,
        "pending": [s.stage_id for s in stages[n_done:]],
        "next_slot": next_slot(header, stages) if status == "open" else None,
        "clashes": [_clash_json(c, names) for c in clashes.values()],
        "scores": scores,
        "tendency": asdict(tendency),
        "latest": latest,
        "failures": [{"node": f.node, "key": f.key, "reason": f.reason} for f in failures],
        "error": error,
        "verdict": _verdict_json(header.match_id, verdict) if verdict is not None else None,
        "panel_error": panel_error,
    }
