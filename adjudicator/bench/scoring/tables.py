"""The rows of a task's table in report.json and how they are ranked.

A row is ``{"predictor", "kind": "arm"|"baseline"|"reference", "comparable", "metrics", "rank",
"expected"?, "seed"?, "note"?, "arm"?}``. Comparable rows (arms and structural baselines) are ranked
by the task's ranking metric (:data:`RANK_BY`); the references (the Task 3 oracle, the Task 1
majority class and the individual-judge rows of Appendix B.1) have ``comparable: false`` and
``rank: null``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adjudicator.bench.scoring.leaves import clean
from adjudicator.evaluation.baselines import Baseline

TASK_TITLES = {
    "task1": "Task 1: winner-tendency prediction",
    "task2": "Task 2: stage-score prediction",
    "task3": "Task 3: best-debater prediction",
}

#: Metric name -> (task, higher is better). :data:`RANK_BY` names the metric that ranks each task's table.
METRICS: dict[str, tuple[str, bool]] = {
    "winner_accuracy": ("task1", True),
    "stage_mse": ("task2", False),
    "stage_pearson": ("task2", True),
    "stage_spearman": ("task2", True),
    "tendency_all_pairs": ("task2", True),
    "tendency_non_tie": ("task2", True),
    "best_debater_top1": ("task3", True),
    "vote_share_mae": ("task3", False),
    "vote_share_pearson": ("task3", True),
    "vote_share_spearman": ("task3", True),
    "pred_winner_third_speaker_top1": ("task3", True),
}
RANK_BY = {"task1": "winner_accuracy", "task2": "stage_pearson", "task3": "best_debater_top1"}
#: How the ranking metrics are named in the reports ("ranked by <label>").
RANK_LABELS = {"winner_accuracy": "winner accuracy", "stage_pearson": "Pearson r", "best_debater_top1": "top-1 accuracy"}

#: The metrics of each task that the individual-judge references (Appendix B.1) report.
HUMAN_REFERENCE_METRICS = {
    "task1": ("winner_accuracy",),
    "task2": ("stage_mse", "stage_pearson", "stage_spearman"),
    "task3": ("best_debater_top1", "vote_share_mae"),
}


def ranked_by(task: str) -> dict[str, Any]:
    """What ranks ``task``'s tables, for report.json: ``{"metric", "label", "higher_is_better", "text"}``,
    ``text`` e.g. ``"ranked by Pearson r (higher is better); a row whose Pearson r is undefined is not
    ranked"``."""
    key = RANK_BY[task]
    label = RANK_LABELS[key]
    higher = METRICS[key][1]
    text = f"ranked by {label} ({'higher' if higher else 'lower'} is better); a row whose {label} is undefined is not ranked, nor is a seeded random baseline (one draw, shown with its expected value E)"
    return {"metric": key, "label": label, "higher_is_better": higher, "text": text}


def table_header(task: str, reason: str | None) -> dict[str, Any]:
    """The head of a task's section: ``{"title", "applicable", "reason", "ranked_by"}``; ``reason``
    None when the dataset supports the task (see :meth:`adjudicator.bench.gold.Gold.applicability`)."""
    return {"title": TASK_TITLES[task], "applicable": reason is None, "reason": reason, "ranked_by": ranked_by(task)}


def all_parsed(masks: list[np.ndarray], n: int) -> np.ndarray:
    """The common subset: the (n,) mask of instances every arm parsed (all True for no arm)."""
    out = np.ones(n, dtype=bool)
    for m in masks:
        out &= m
    return out


def row(predictor: str, kind: str, comparable: bool, metrics: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """One table row (see module docstring)."""
    return {"predictor": predictor, "kind": kind, "comparable": comparable, "metrics": metrics, **extra}


def baseline_row(b: Baseline, metrics: dict[str, Any], expected: dict[str, float]) -> dict[str, Any]:
    """The row of baseline ``b`` (a ``reference`` when not comparable) with its seeded draw's
    ``metrics`` and the ``expected`` values (NaN as None)."""
    return row(
        b.name,
        "baseline" if b.comparable else "reference",
        b.comparable,
        metrics,
        expected={k: clean(v) for k, v in expected.items()},
        seed=b.seed,
        note=b.note,
    )


def human_rows(reliability: dict[str, Any], task: str, synthetic: bool = False) -> list[dict[str, Any]]:
    """The individual-judge references (Appendix B.1) for ``task``, non-comparable, from the
    ``human_reference`` section of the label-reliability report. With ``synthetic`` labels (written
    by developers) the rows are named "synthetic judge", not human."""
    ref = (reliability or {}).get("human_reference") or {}
    rows = []
    who = "synthetic judge" if synthetic else "human judge"
    for setting, title in (("self_included", f"{who} (self-included)"), ("leave_one_out", f"{who} (leave-one-out)")):
        vals = ref.get(setting) or {}
        metrics = {}
        for k in HUMAN_REFERENCE_METRICS[task]:
            leaf = vals.get(k)
            if leaf is not None:
                metrics[k] = {"value": leaf.get("value"), "n": leaf.get("n", 0), "n_excluded": leaf.get("n_excluded", 0), "ci": None, "reason": leaf.get("reason")}
        if any(m.get("value") is not None for m in metrics.values()):
            note = "non-comparable: individual judges against a panel that includes them / the other judges (Appendix B.1); n counts (match, judge) instances"
            if synthetic:
                note += "; SYNTHETIC labels written by developers, so these are not human judges"
            rows.append(row(title, "reference", False, metrics, note=note))
    return rows


def rank(rows: list[dict[str, Any]], task: str) -> list[dict[str, Any]]:
    """Rank comparable rows by the task's ranking metric and sort ``rows`` in place so they read in
    rank order: ranked rows first, then comparable rows without a value, then the non-comparable
    references (rank None), each group otherwise in its original order. Returns ``rows``.

    Competition ranking: 1 = best, and rows with equal values (to 12 decimals) share a rank, the next
    rank skipping as many places (values .6, .5, .5, .4 rank 1, 2, 2, 4). A seeded random baseline is
    not ranked: its value is one draw (luck), shown beside its expected value E; a lucky draw must not
    rank above an arm."""
    key = RANK_BY[task]
    higher = METRICS[key][1]

    def value(r: dict[str, Any]) -> float | None:
        if r.get("kind") == "baseline" and r.get("seed") is not None:
            return None
        return r["metrics"].get(key, {}).get("value")

    given = [(value(r), i) for i, r in enumerate(rows) if r["comparable"]]
    vals = [(round(v if higher else -v, 12), i) for v, i in given if v is not None]  # larger is better
    for r in rows:
        r["rank"] = None
    for v, i in vals:
        rows[i]["rank"] = 1 + sum(other > v for other, _ in vals)
    order = sorted(range(len(rows)), key=lambda i: (0, rows[i]["rank"]) if rows[i]["rank"] is not None else ((1 if rows[i]["comparable"] else 2), i))
    rows[:] = [rows[i] for i in order]
    return rows
