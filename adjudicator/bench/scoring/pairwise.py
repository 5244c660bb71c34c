"""The pairwise panel's section of a run's report (``tasks.pairwise``, present when an arm's
verdicts carry a pairwise record, ``--panel pairwise``): per arm and level (units; speakers),

- ``results`` and ``inconsistent``: resolved pairs (judge x pair) over all matches and how many were
  order-inconsistent, with the pooled ``inconsistent_share``;
- ``agreement`` and ``kappa``: the mean over matches of the panel's mean percent agreement and
  Cohen's kappa between judges (:mod:`adjudicator.pairwise.agreement`), with the matches counted;
- ``kendall_tau`` and ``spearman_rho``: the mean over matches of the rank correlations between the
  panel fit's strengths and the gold (:func:`~adjudicator.evaluation.ranking_metrics.strength_correlations`),
  where gold allows: BP houses against the gold ranking, else the advanced (1) / eliminated (0) split;
  BP speeches against the gold speaker scores (else negated speaker ranks); two-sided debaters
  against the gold judges' summed best-debater votes. Two sides are never correlated (two items; the
  winner accuracy of task 1 covers them). A match whose gold has fewer than three distinct
  competitors, or is constant, is left out (n counts the rest).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from adjudicator.bench.results import SampleResult
from adjudicator.evaluation.ranking_metrics import strength_correlations
from adjudicator.input.match import Match

LEVELS = ("unit", "speaker")


def gold_goodness(match: Match, level: str) -> dict[str, float] | None:
    """Competitor -> a gold value where higher is better (module docstring), None when the match's
    gold does not allow a correlation at ``level``."""
    lab = match.labels
    if lab is None:
        return None
    ranking = match.spec().verdict == "ranking"
    if level == "unit":
        if not ranking:
            return None
        if lab.ranking:
            return {u: -float(r) for u, r in lab.ranking.items()}
        if lab.advanced:
            return {u: 1.0 if u in lab.advanced else 0.0 for u in match.units()}
        return None
    if ranking:
        if lab.speaker_scores:
            return {k: float(v) for k, v in lab.speaker_scores.items()}
        if lab.speaker_ranks:
            return {k: -float(v) for k, v in lab.speaker_ranks.items()}
        return None
    votes: dict[str, float] = {}
    for j in lab.judges:
        for k, n in j.best_debater_votes.items():
            votes[k] = votes.get(k, 0.0) + n
    if not votes:
        return None
    return {d: votes.get(d, 0.0) for d in match.debater_labels()}


def _mean(values: Sequence[float]) -> dict[str, Any]:
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return {"value": round(sum(vals) / len(vals), 4) if vals else None, "n": len(vals)}


def _level_row(matches: Sequence[Match], results: dict[str, SampleResult], level: str) -> dict[str, Any] | None:
    n_results = n_bad = 0
    agree: list[float] = []
    kappa: list[float] = []
    tau: list[float] = []
    rho: list[float] = []
    seen = False
    for m in matches:
        r = results.get(m.match_id)
        rec = ((r.verdict or {}).get("pairwise") if r is not None and r.status != "failed" else None) or {}
        if not rec:
            continue
        a = next((x for x in rec.get("agreement") or [] if x.get("level") == level), None)
        if a is None:
            continue
        seen = True
        n_results += int(a["results"])
        n_bad += int(a["inconsistent"])
        agree.append(a["agreement"] if a.get("agreement") is not None else float("nan"))
        kappa.append(a["kappa"] if a.get("kappa") is not None else float("nan"))
        gold = gold_goodness(m, level)
        f = (rec.get("fits") or {}).get(level)
        if gold and f:
            items = [it for it in f["items"] if it in gold]
            theta = dict(zip(f["items"], f["log_strengths"]))
            t, s = strength_correlations([theta[it] for it in items], [gold[it] for it in items])
            tau.append(t)
            rho.append(s)
    if not seen:
        return None
    return {
        "results": n_results,
        "inconsistent": n_bad,
        "inconsistent_share": round(n_bad / n_results, 4) if n_results else None,
        "agreement": _mean(agree),
        "kappa": _mean(kappa),
        "kendall_tau": _mean(tau),
        "spearman_rho": _mean(rho),
    }


def pairwise_table(matches: Sequence[Match], arm_results: dict[str, dict[str, SampleResult]], arm_labels: dict[str, str]) -> dict[str, Any] | None:
    """The ``tasks.pairwise`` section (module docstring), None when no arm ran a pairwise panel."""
    rows = []
    for arm, results in arm_results.items():
        levels = {lv: row for lv in LEVELS if (row := _level_row(matches, results, lv)) is not None}
        if levels:
            rows.append({"label": arm_labels.get(arm, arm), "arm": arm, "levels": levels})
    if not rows:
        return None
    return {
        "metric": "pairwise panel: order-inconsistent share, mean agreement and Cohen's kappa between judges, mean Kendall tau-b / Spearman rho of fitted strengths against gold (higher is better)",
        "rows": rows,
    }
