"""One arm's predictions aligned with the gold labels, each instance with its parse mode (protocol 001
s.02; paper A.5).

- Parsing. An instance is parsed when the arm's verdict holds a value for it. Its parse mode comes
  from the verdict's per-task status (single-call arm) or, for the agentic arm, from the final
  attempt of every judge whose ballot made the verdict: ``strict`` JSON, ``recovered`` (normalised or
  regular-expression extraction), ``native`` (offline judge), ``failed`` (no value after all
  attempts, or the sample failed) and ``not-run`` (the run stopped before the sample). Unparsed
  instances are excluded from the metric, never scored as wrong or as zero; an extracted p = 0.5 is
  a parsed, incorrect Task 1 prediction.
- :func:`parse_statistics` counts the modes per task (report.json ``parsing``).
- Unrounded. The verdict rounds for display (a stage or speaker mean to 3 decimals, the log-prob p
  to 4) and a panel's p (to 2); metrics are computed from what those numbers were rounded from:
  :func:`exact_mean` (the mean of the judges' integers), :func:`exact_p` (the mean of the ballots'
  p, kept on the panel winner's side) and :func:`exact_logprob_p` (the mean of the ballots' log-prob p).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from adjudicator.bench.gold import Gold
from adjudicator.bench.results import SampleResult, first_cause
from adjudicator.input.match import Match

ParseMode = Literal["strict", "recovered", "native", "unknown", "failed", "not-run"]
TASKS = ("task1", "task2", "task3")


@dataclass
class ArmPredictions:
    """One arm's predictions aligned with :class:`~adjudicator.bench.gold.Gold` (NaN / None where
    not parsed).

    ``status`` match id -> ``ok`` / ``failed`` / ``not-run``; ``p`` (M,); ``votes`` (M,) vectors or
    None; ``unit_pred`` (S,); ``pair_aff``/``pair_neg`` (P,); ``parse`` task -> per-instance mode
    over *all* instances of the run's matches (Task 2: every scored unit, gold or not);
    ``failures`` the failed samples; ``p_logprob`` (M,) the verdicts' log-prob p (``--p-source
    logprob``), None when no verdict of the arm has one; ``escalated`` (M,) each verdict's
    ``review.escalate`` (None where there is no verdict or no review); ``unit_judges`` judge id -> (S,)
    that judge's own integer score per unit (NaN where it gave none; the single-call arm's one integer
    under ``"single-call"``)."""

    arm: str
    label: str
    status: dict[str, str]
    p: np.ndarray
    votes: list[np.ndarray | None]
    unit_pred: np.ndarray
    pair_aff: np.ndarray
    pair_neg: np.ndarray
    parse: dict[str, list[ParseMode]]
    failures: list[dict[str, Any]]
    p_logprob: np.ndarray | None = None
    escalated: list[bool | None] | None = None
    unit_judges: dict[str, np.ndarray] | None = None


# ---------------------------------------------------------------------------------------------
# parse modes


def _mode_of(parse: str | None) -> ParseMode:
    if parse == "strict":
        return "strict"
    if parse in ("normalised", "regex", "recovered"):
        return "recovered"
    if parse == "native":
        return "native"
    if parse == "failed":
        return "failed"
    return "unknown"


def _task_of(name: str) -> str | None:
    low = name.lower()
    if "1" in low or "winner" in low:
        return "task1"
    if "2" in low or "stage" in low or "score" in low:
        return "task2"
    if "3" in low or "best" in low or "debater" in low or "vote" in low:
        return "task3"
    return None


def _unit_key(key: str) -> str:
    return key.replace(":", "|").replace("/", "|")


def _agentic_mode(calls: Sequence[Any]) -> ParseMode:
    """Parse mode of an agentic verdict: over the final attempt of every judge that produced a ballot,
    ``recovered`` if any needed recovery, ``native`` if all were the offline judge, else ``strict``."""
    final: dict[str, Any] = {}
    for c in calls:
        if c.node != "judge":
            continue
        if c.key not in final or c.attempt >= final[c.key].attempt:
            final[c.key] = c
    modes = {_mode_of(c.parse) for c in final.values() if c.parse != "failed"}
    if not modes:
        return "unknown"
    if "recovered" in modes:
        return "recovered"
    if modes == {"native"}:
        return "native"
    if "strict" in modes:
        return "strict"
    return "unknown"


class VerdictModes:
    """The parse mode of each instance of one verdict.

    A verdict with per-task statuses (``verdict["tasks"]``, the single-call arm) gives each instance
    its task's mode (Task 2 by unit key, Tasks 1 and 3 by task), ``failed`` when that task is not
    ``ok``; a verdict without them (the agentic arm) gives every parsed instance the mode of its
    judges' final attempts (:func:`_agentic_mode`). An instance without a value is ``failed``."""

    def __init__(self, verdict: dict[str, Any], calls: Sequence[Any]) -> None:
        self.task_status: dict[tuple[str, str], dict[str, Any]] = {}
        for t in verdict.get("tasks") or []:
            task = _task_of(str(t.get("task", "")))
            if task:
                self.task_status[(task, _unit_key(str(t.get("key") or "")) if task == "task2" else "")] = t
        self.default: ParseMode = _agentic_mode(calls) if not self.task_status else "unknown"

    def __call__(self, task: str, key: str, has_value: bool) -> ParseMode:
        """Mode of the instance ``key`` (``"sid|side"`` for Task 2, ``""`` otherwise) of ``task``."""
        t = self.task_status.get((task, key))
        if t is None and task != "task2":
            t = next((s for (tk, _), s in self.task_status.items() if tk == task), None)
        if not has_value:
            return "failed"
        if t is not None:
            return _mode_of(t.get("parse")) if t.get("ok", True) else "failed"
        return self.default


# ---------------------------------------------------------------------------------------------
# alignment


def _failure(arm: str, sample_id: str, res: SampleResult) -> dict[str, Any]:
    """The report.json ``failures`` entry of a sample that is not ``ok``."""
    return {
        "arm": arm, "sample_id": sample_id, "status": res.status, "error_type": res.error_type, "error": res.error, "session": res.session,
        "cause": first_cause([f for f in res.failures if not f.partial]),
        "failed_nodes": [{"node": f.node, "key": f.key, "reason": f.reason, "raw_outputs": len(f.raw_outputs)} for f in res.failures if not f.partial],  # dropped_field: not failed
    }


def _mark_all(parse: dict[str, list[ParseMode]], mode: ParseMode, n_units: int) -> None:
    """Every instance of a match (one for Tasks 1 and 3, ``n_units`` for Task 2) gets ``mode``."""
    parse["task1"].append(mode)
    parse["task3"].append(mode)
    parse["task2"].extend([mode] * n_units)


def predictions_for_arm(arm: str, label: str, gold: Gold, matches: Sequence[Match], results: dict[str, SampleResult]) -> ArmPredictions:
    """Align ``results`` (match id -> result; absent = not run) of ``arm`` with ``gold``."""
    m_index = {mid: i for i, mid in enumerate(gold.match_ids)}
    p = np.full(len(gold.match_ids), np.nan)
    p_lp = np.full(len(gold.match_ids), np.nan)
    escalated: list[bool | None] = [None] * len(gold.match_ids)
    judge_vals: dict[str, dict[tuple[str, str, str], float]] = {}
    votes: list[np.ndarray | None] = [None] * len(gold.match_ids)
    unit_vals: dict[tuple[str, str, str], float] = {}
    status: dict[str, str] = {}
    parse: dict[str, list[ParseMode]] = {t: [] for t in TASKS}
    failures: list[dict[str, Any]] = []
    for match in matches:
        mid = match.match_id
        i = m_index[mid]
        res = results.get(mid)
        units = match.scored_units()
        if res is None:
            status[mid] = "not-run"
            _mark_all(parse, "not-run", len(units))
            continue
        status[mid] = res.status
        if res.status != "ok":
            failures.append(_failure(arm, mid, res))
        if res.verdict is None:
            _mark_all(parse, "failed", len(units))
            continue
        v = res.verdict
        mode = VerdictModes(v, res.calls)
        pv = exact_p(v)
        if pv is not None:
            p[i] = pv
        if (lp := exact_logprob_p(v)) is not None:
            p_lp[i] = lp
        review = v.get("review")
        escalated[i] = review.get("escalate") if isinstance(review, dict) else None
        parse["task1"].append(mode("task1", "", pv is not None))
        bd = v.get("best_debater_votes") or {}
        if bd and sum(bd.values()) > 0:
            votes[i] = np.array([float(bd.get(lab, 0)) for lab in gold.debater_labels[i]])
        parse["task3"].append(mode("task3", "", votes[i] is not None))
        scores = {(s["stage_id"], s["side"]): m for s in v.get("stage_scores") or [] if (m := exact_mean(s)) is not None}
        for judge, unit, score in _judge_integers(v):
            judge_vals.setdefault(judge, {})[(mid, *unit)] = score
        for sid, side in units:
            val = scores.get((sid, side))
            if val is not None:
                unit_vals[(mid, sid, side)] = val
            parse["task2"].append(mode("task2", f"{sid}|{side}", val is not None))
    unit_pred = np.array([unit_vals.get(u, np.nan) for u in gold.units], dtype=float)
    pair_aff = np.array([unit_vals.get((mid, sid, "affirmative"), np.nan) for mid, sid in gold.pairs], dtype=float)
    pair_neg = np.array([unit_vals.get((mid, sid, "negative"), np.nan) for mid, sid in gold.pairs], dtype=float)
    unit_judges = {j: np.array([vals.get(u, np.nan) for u in gold.units], dtype=float) for j, vals in sorted(judge_vals.items())}
    return ArmPredictions(arm, label, status, p, votes, unit_pred, pair_aff, pair_neg, parse, failures, p_lp if np.isfinite(p_lp).any() else None, escalated, unit_judges or None)


def exact_mean(entry: dict[str, Any]) -> float | None:
    """The unrounded panel mean of one verdict stage-score or speaker-score entry: the mean of its
    ``judge_scores`` (the verdict's ``mean`` is that value rounded to 3 decimals), else its ``mean``
    (an older result without the judges' scores), None when it has neither."""
    scores = [float(x) for x in entry.get("judge_scores") or [] if x is not None]
    if scores:
        return sum(scores) / len(scores)
    return None if entry.get("mean") is None else float(entry["mean"])


def exact_p(verdict: dict[str, Any]) -> float | None:
    """The winner tendency p every metric scores (docs/metrics.md, "Which p is scored"), in [0, 1].

    A panel's p (the agentic arm: a verdict with two or more ballots carrying p and no pairwise
    record) unrounded: the mean of its deciding ballots' p (a p left out, ``p_counted`` false, and a
    ballot that does not decide take no part), each a Task 1 answer in the protocol's steps
    of 0.01 (the verdict's ``p`` is that mean rounded to 2 decimals,
    :func:`adjudicator.verdict.aggregate.panel_p`). When the mean falls on 0.5 or on the losing side of
    the panel's (majority) winner, the verdict's own 0.51 / 0.49 is scored: the protocol reads p > 0.5
    as predicting the affirmative and allows no tie, so the panel's p must predict its winner. Any
    other verdict (the single-call arm's model answer, the pairwise panel's Bradley-Terry p, an older
    result without ballots) is scored as stated. None when the verdict has no p.

    Example: ballots 0.70, 0.70, 0.71 and winner affirmative -> 0.7033 (the verdict prints 0.70);
    ballots 0.51, 0.52, 0.45, winner affirmative (2:1) -> mean 0.4933 -> 0.51 (the verdict's).
    """
    stated = verdict.get("p")
    if stated is None:
        return None
    ballots = [float(b["p"]) for b in verdict.get("ballots") or [] if isinstance(b, dict) and b.get("p") is not None and b.get("deciding", True) and b.get("p_counted", True)]
    if verdict.get("pairwise") or len(ballots) < 2:
        return float(stated)
    mean = sum(ballots) / len(ballots)
    winner = verdict.get("winner")
    if (winner == "affirmative" and mean <= 0.5) or (winner == "negative" and mean >= 0.5):
        return float(stated)
    return mean


def exact_logprob_p(verdict: dict[str, Any]) -> float | None:
    """The verdict's log-prob p (``--p-source logprob``) unrounded: the mean of its ballots' own
    ``p_logprob`` (the verdict's ``p_logprob`` is that mean rounded to 4 decimals, over the same
    ballots, :func:`adjudicator.verdict.aggregate.panel_logprob_p`), else the verdict's value; None
    when there is none."""
    values = [float(b["p_logprob"]) for b in verdict.get("ballots") or [] if isinstance(b, dict) and b.get("p_logprob") is not None]
    if values:
        return sum(values) / len(values)
    return None if verdict.get("p_logprob") is None else float(verdict["p_logprob"])


def _judge_integers(verdict: dict[str, Any]) -> list[tuple[str, tuple[str, str], float]]:
    """(judge id, (stage id, side), integer score) of every ballot's stage score; a verdict without
    ballots (the single-call arm) gives its one integer per unit under ``"single-call"``."""
    out = []
    for b in verdict.get("ballots") or []:
        for s in b.get("stage_scores") or []:
            out.append((str(b.get("judge_id")), (s["stage_id"], s["side"]), float(s["score"])))
    if not out:
        for s in verdict.get("stage_scores") or []:
            if len(s.get("judge_scores") or []) == 1:
                out.append(("single-call", (s["stage_id"], s["side"]), float(s["judge_scores"][0])))
    return out


def parse_statistics(pred: ArmPredictions, results: dict[str, SampleResult]) -> dict[str, Any]:
    """Per task: instances, not run, parsed, parse rate (parsed / instances run), strict, recovered,
    native, unknown, failed; plus call-level counts (strict JSON, recovered, failed attempts)."""
    out: dict[str, Any] = {}
    for task, modes in pred.parse.items():
        run = [m for m in modes if m != "not-run"]
        parsed = [m for m in run if m != "failed"]
        out[task] = {
            "instances": len(run),
            "not_run": len(modes) - len(run),
            "parsed": len(parsed),
            "parse_rate": (len(parsed) / len(run)) if run else None,
            "strict": sum(m == "strict" for m in run),
            "recovered": sum(m == "recovered" for m in run),
            "native": sum(m == "native" for m in run),
            "unknown": sum(m == "unknown" for m in run),
            "failed": sum(m == "failed" for m in run),
        }
    calls = [c for r in results.values() for c in r.calls]
    out["calls"] = {
        "calls": len(calls),
        "strict_json": sum(c.parse == "strict" for c in calls),
        "recovered": sum(c.parse in ("normalised", "regex") for c in calls),
        "failed_attempts": sum(c.parse == "failed" for c in calls),
        "native": sum(c.parse == "native" for c in calls),
    }
    return out
