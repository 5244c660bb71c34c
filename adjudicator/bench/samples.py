"""One row per (sample, arm) of a run: what the arm predicted, the gold, whether it was right, how it
was parsed, what it cost, and where its result file is; written to ``samples.jsonl`` and
``samples.csv`` in the run folder and shown as the per-sample table of report.html.

The rows are computed from the same aligned predictions as the metrics
(:mod:`adjudicator.bench.predictions`), so a row's ``correct`` is exactly what winner accuracy counts
(an extracted p = 0.5 is incorrect; no prediction or no decisive gold is None). The fields are listed
in :data:`FIELDS` (and in ``runs/README.md``); ``escalated`` appears only when some verdict of the run
carries a ``review`` field.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.bench.gold import Gold
from adjudicator.bench.predictions import ArmPredictions
from adjudicator.bench.results import SampleResult, first_failure
from adjudicator.evaluation.metrics import top1_credit, winner_from_p
from adjudicator.input.match import Match

#: Every field of a row, in order, with what it holds (``escalated`` only where a verdict has ``review``).
FIELDS: tuple[tuple[str, str], ...] = (
    ("sample_id", "the match id (the sample)"),
    ("arm", "the arm (agentic, single-call)"),
    ("arm_label", "the arm with its models, as the report names it"),
    ("motion", "the motion"),
    ("format", "the match format (ccdb-4v4, ccdb-2v2, online-1v1, ...)"),
    ("language", "the match's language (zh, en)"),
    ("status", "ok, partial (some nodes or tasks failed), failed (no verdict) or not-run"),
    ("parse", "how the winner prediction was read: strict, recovered, native (offline judge), unknown, failed or not-run"),
    ("gold_winner", "the gold winner: affirmative, negative, tie, or null without labels"),
    ("p", "the predicted winner tendency in [0, 1] (above 0.5 favours the affirmative), null when none was extracted"),
    ("predicted_winner", "the side p predicts (null for p = 0.5 or no p)"),
    ("correct", "true or false where winner accuracy scores the sample (p present, decisive gold), else null"),
    ("split", "the panel's winner split (3:0, 2:1), null for the single-call arm"),
    ("stage_units", "gold-scored (stage, side) units the arm predicted"),
    ("stage_mse", "mean squared error of those units against the judges' mean score, null without any"),
    ("best_debater_top1", "top-1 credit of the best-debater prediction (1, 0, or a share on a tied maximum), null without gold votes"),
    ("escalated", "whether the verdict asks for a person's review (only when verdicts carry a review field)"),
    ("requests", "model requests sent (transport retries included; cache hits not)"),
    ("cache_hits", "answers read from the response cache"),
    ("prompt_tokens", "prompt tokens of every call"),
    ("completion_tokens", "completion tokens of every call"),
    ("cached_tokens", "prompt tokens the provider served from its prompt cache (a part of prompt_tokens, billed at the cache-read price)"),
    ("cost_usd", "cost in US dollars of the requests sent (cached tokens at the cached price), null when a price was unknown"),
    ("elapsed_s", "wall-clock seconds of the sample"),
    ("failed_attempts", "attempts whose output could not be read (their raw outputs are in the result file)"),
    ("failed_nodes", "nodes or tasks that failed after their attempts"),
    ("error", "why the sample failed or is partial: its first underlying node failure as \"node key: reason\", null when ok"),
    ("result_file", "the result file, relative to the run folder (null when not run)"),
)
FIELD_NAMES = tuple(name for name, _ in FIELDS)


def escalation_of(verdict: dict[str, Any] | None) -> bool | None:
    """Whether a verdict asks for a person's review, read from its ``review`` field: a boolean as it is;
    an object by its first boolean among ``escalate``, ``escalated``, ``needed``, ``required``, else
    True (a review record is an escalation); absent or null: None (no review field) or False."""
    if not verdict or "review" not in verdict:
        return None
    review = verdict["review"]
    if review is None:
        return False
    if isinstance(review, bool):
        return review
    if isinstance(review, dict):
        for key in ("escalate", "escalated", "needed", "required"):
            if isinstance(review.get(key), bool):
                return bool(review[key])
        return True
    return bool(review)


def _clean(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _stage_errors(match: Match, verdict: dict[str, Any] | None) -> tuple[int, float | None]:
    """(units, MSE) of the verdict's stage means against the judges' mean on the units every gold
    judge scored (the Task 2 instances of this match)."""
    judges = list(match.labels.judges) if match.labels else []
    if not verdict or not judges:
        return 0, None
    pred = {(s["stage_id"], s["side"]): float(s["mean"]) for s in verdict.get("stage_scores") or []}
    sq = []
    for sid, side in match.scored_units():
        key = f"{sid}|{side}"
        if (sid, side) in pred and all(key in j.stage_scores for j in judges):
            gold = float(np.mean([j.stage_scores[key] for j in judges]))
            sq.append((pred[(sid, side)] - gold) ** 2)
    return len(sq), (float(np.mean(sq)) if sq else None)


def _error(res: SampleResult | None) -> str | None:
    """Why a sample is not ok: its first underlying node failure, ``"<node> <key>: <reason>"``, else
    the sample's own error; None when it is ok or not run."""
    if res is None or res.status == "ok":
        return None
    f = first_failure(list(res.failures))
    return f"{f.node} {f.key}: {f.reason}".replace("  ", " ") if f is not None else res.error


def _row(arm: str, pr: ArmPredictions, gold: Gold, i: int | None, match: Match, res: SampleResult | None, result_file: str | None) -> dict[str, Any]:
    """One row; ``i`` is the match's index in ``gold`` and ``pr``, None for a match of a ranking
    format (BP), which the winner predictions do not cover: its winner fields are null."""
    verdict = res.verdict if res is not None else None
    p = _clean(float(pr.p[i])) if i is not None else None
    g = gold.winners[i] if i is not None else None
    correct = None if p is None or g not in ("affirmative", "negative") else winner_from_p(p) == g
    pv, gv = (pr.votes[i], gold.votes[i]) if i is not None else (None, None)
    top1 = top1_credit(pv, gv) if pv is not None and gv is not None else None
    n_units, mse = _stage_errors(match, verdict)
    usage = res.usage if res is not None else None
    return {
        "sample_id": match.match_id, "arm": arm, "arm_label": pr.label, "motion": match.motion, "format": match.format, "language": match.language,
        "status": "not-run" if res is None else res.status, "parse": pr.parse["task1"][i] if i is not None else ("not-run" if res is None else "unknown"), "gold_winner": g, "p": p,
        "predicted_winner": winner_from_p(p), "correct": correct,
        "split": ((verdict or {}).get("dissent") or {}).get("winner_split"),
        "stage_units": n_units, "stage_mse": mse, "best_debater_top1": top1, "escalated": escalation_of(verdict),
        "requests": usage.requests if usage else 0, "cache_hits": usage.cache_hits if usage else 0,
        "prompt_tokens": usage.prompt_tokens if usage else 0, "completion_tokens": usage.completion_tokens if usage else 0,
        "cached_tokens": usage.cached_tokens if usage else 0,
        "cost_usd": (usage.cost_usd if usage.cost_known else None) if usage else None,
        "elapsed_s": res.elapsed_s if res is not None else None,
        "failed_attempts": sum(c.parse == "failed" for c in res.calls) if res is not None else 0,
        "failed_nodes": len(res.failures) if res is not None else 0,
        "error": _error(res),
        "result_file": result_file,
    }


def sample_rows(matches: Sequence[Match], gold: Gold, preds: dict[str, ArmPredictions], results: dict[str, dict[str, SampleResult]],
                result_files: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """The rows of every arm over every selected match (match order, then arm order), keys in
    :data:`FIELD_NAMES` order; ``escalated`` dropped when no verdict of the run has a ``review`` field.
    ``result_files`` arm -> match id -> result path relative to the run folder."""
    rows = []
    index = {mid: i for i, mid in enumerate(gold.match_ids)}
    for arm, pr in preds.items():
        for m in matches:
            res = results.get(arm, {}).get(m.match_id)
            rows.append(_row(arm, pr, gold, index.get(m.match_id), m, res, result_files.get(arm, {}).get(m.match_id) if res is not None else None))
    order = {m.match_id: i for i, m in enumerate(matches)}
    arms = {a: k for k, a in enumerate(preds)}
    rows.sort(key=lambda r: (order[r["sample_id"]], arms[r["arm"]]))
    if all(r["escalated"] is None for r in rows):
        for r in rows:
            del r["escalated"]
    return rows


def jsonl_text(rows: Sequence[dict[str, Any]]) -> str:
    """``samples.jsonl``: one JSON object per row and line (UTF-8, no NaN)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    """``samples.csv``: a header and one line per row; null is an empty cell, booleans true/false."""
    cols = [f for f in FIELD_NAMES if not rows or f in rows[0]]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow(["" if r.get(c) is None else ("true" if r[c] is True else "false" if r[c] is False else r[c]) for c in cols])
    return buf.getvalue()
