"""Per-dimension judging scored against per-dimension gold (issue 13): report.json ``tasks.dimensions``.

Present only when some match of the run carries ``labels.dimensions`` (PanelBench DebateArt: the
audience's outcome on argument, source and language). For each gold dimension:

- Instances: the matches whose gold on that dimension is decisive; gold ties are excluded from the
  accuracy and counted (``n_gold_ties``). An arm's prediction is the panel's winner on the verdict
  dimension whose ``gold`` names it (:class:`adjudicator.verdict.dimensions.DimensionResult`): a predicted
  tie is a parsed, incorrect prediction (read as p = 0.5, as Task 1 reads an undecided p); a
  dimension not assessed, a verdict without that dimension or a failed sample is unparsed and
  excluded (counted in ``n_excluded``).
- Rows: every arm, and the comparable baselines of Task 1 drawn on that dimension's gold (always
  affirmative, always negative, the seeded random p ~ U(0, 1), each with its exact expectation); every
  value with its match-level bootstrap interval and effective n
  (:func:`adjudicator.bench.scoring.leaves.scored`), resampling the matches with a decisive gold on
  that dimension (a gold tie is no instance and is not resampled); the common subset (matches every
  arm predicted) beside it.
- The overall decision: per arm, winner accuracy against the match's gold outcome of the panel's
  direct winner (its ``p``) and of the decision derived from its dimension results by the rubric's
  rule (``dimension_decision``), on the same matches; plus, as a non-comparable reference, the
  decision the *gold* dimension labels give under debateart.com's points (arguments 3, sources 2,
  language 1; :func:`adjudicator.verdict.dimensions.dimension_decision`).
- Correlation (InspireScore section 4.2): Pearson and Spearman per dimension between an arm's mean
  score per (match, side) and human dimension scores (``labels.dimension_scores``) where the dataset
  carries them; otherwise not applicable, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.bench.predictions import exact_p
from adjudicator.bench.results import SampleResult
from adjudicator.bench.scoring.leaves import ScoreSettings, scored, take
from adjudicator.bench.scoring.tables import all_parsed, baseline_row, rank, row
from adjudicator.bench.scoring.winner import task1_structural_baselines
from adjudicator.evaluation import baselines as B
from adjudicator.evaluation import metrics as M
from adjudicator.input.match import Match

TASK = "task1"  # rows are ranked like Task 1: by winner accuracy
_P = {"affirmative": 1.0, "negative": 0.0, "tie": 0.5}
SIDES = ("affirmative", "negative")
NO_SCORES = "the dataset carries per-dimension outcomes, not human dimension scores (labels.dimension_scores); PanelBench DebateArt has outcomes only"


def gold_dimensions(matches: Sequence[Match]) -> list[str]:
    """The gold dimension names of ``matches`` (``labels.dimensions`` keys), in order of first appearance."""
    out: list[str] = []
    for m in matches:
        for k in (m.labels.dimensions if m.labels else {}):
            if k not in out:
                out.append(k)
    return out


def _verdict_dimension(verdict: dict[str, Any] | None, gold_name: str) -> dict[str, Any] | None:
    """The verdict's dimension result measured against ``gold_name`` (its ``gold``, else its key)."""
    for d in (verdict or {}).get("dimensions") or []:
        if d.get("gold") == gold_name:
            return d
    for d in (verdict or {}).get("dimensions") or []:
        if d.get("dimension") == gold_name and not d.get("gold"):
            return d
    return None


def _p_of(outcome: Any) -> float:
    return _P.get(outcome, np.nan) if isinstance(outcome, str) else np.nan


def dimension_predictions(matches: Sequence[Match], results: dict[str, SampleResult], gold_name: str) -> np.ndarray:
    """(M,) per match: 1.0 affirmative, 0.0 negative, 0.5 tie, NaN unparsed (module docstring)."""
    out = np.full(len(matches), np.nan)
    for i, m in enumerate(matches):
        r = results.get(m.match_id)
        d = _verdict_dimension(r.verdict if r is not None else None, gold_name)
        if d is not None and d.get("assessed"):
            out[i] = _p_of(d.get("winner"))
    return out


def _accuracy(pred: np.ndarray, gold: list[Any], mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Winner accuracy of ``pred`` on the matches in ``mask`` whose gold is decisive, its interval
    resampling those matches only (as Task 1's does: a gold tie is not an instance, so it is not
    resampled either, and the same statistic gets the same interval in both tables)."""
    sel = mask & np.array([g in SIDES for g in gold], dtype=bool)
    return scored(M.winner_accuracy, [np.asarray(pred, float)[sel], take(gold, sel)], None, st)


def _rows(p: dict[str, np.ndarray], labels: dict[str, str], gold: list[Any], mask: np.ndarray, st: ScoreSettings) -> list[dict[str, Any]]:
    """Arm rows and the structural baselines on the matches in ``mask`` (constant sides' expectation
    recomputed on the subset; the random one's stays 0.5)."""
    gsub = take(gold, mask)
    rows = [row(labels.get(a, a), "arm", True, {"winner_accuracy": _accuracy(v, gold, mask, st)}, arm=a) for a, v in p.items()]
    for b in task1_structural_baselines(gold, st.seed):
        exp = b.expected if b.seed is not None else B.constant_side_baseline("affirmative" if b.name == "always affirmative" else "negative", gsub).expected
        rows.append(baseline_row(b, {"winner_accuracy": _accuracy(np.asarray(b.predictions, float), gold, mask, st)}, exp))
    return rank(rows, TASK)


def _counts(p: dict[str, np.ndarray], gold: list[Any]) -> dict[str, Any]:
    dec = np.array([g in SIDES for g in gold])
    return {
        "n_matches": len(gold),
        "n_decisive": int(dec.sum()),
        "n_gold_ties": sum(g == "tie" for g in gold),
        "n_no_label": sum(g is None for g in gold),
        "gold_balance": {s: sum(g == s for g in gold) for s in (*SIDES, "tie")},
        "per_arm": {a: {"predicted_ties": int((v[dec] == 0.5).sum()), "unparsed": int((~np.isfinite(v[dec])).sum())} for a, v in p.items()},
    }


def _correlation(matches: Sequence[Match], arm_results: dict[str, dict[str, SampleResult]], gold_name: str, st: ScoreSettings) -> dict[str, Any]:
    """Pearson and Spearman per arm between predicted and human dimension scores per (match, side)."""
    human: list[float] = []
    keys: list[tuple[str, str]] = []
    for m in matches:
        scores = (m.labels.dimension_scores if m.labels else {}).get(gold_name) or {}
        for s in SIDES:
            if s in scores:
                human.append(float(scores[s]))
                keys.append((m.match_id, s))
    if not human:
        return {"applicable": False, "reason": f"not applicable: {NO_SCORES}"}
    out: dict[str, Any] = {"applicable": True, "n_pairs": len(human), "arms": {}}
    ids = [k[0] for k in keys]
    for a, results in arm_results.items():
        pred = []
        for mid, s in keys:
            r = results.get(mid)
            d = _verdict_dimension(r.verdict if r is not None else None, gold_name)
            pred.append(float((d or {}).get("mean_scores", {}).get(s, np.nan)) if d else np.nan)
        x, y = np.array(pred, float), np.array(human, float)
        out["arms"][a] = {"pearson": scored(M.stage_pearson, [x, y], ids, st), "spearman": scored(M.stage_spearman, [x, y], ids, st)}
    return out


def _decision(matches: Sequence[Match], arm_results: dict[str, dict[str, SampleResult]], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any]:
    """The overall decision: direct winner vs the decision derived from the dimensions, per arm, on
    the matches with a decisive gold outcome where the arm has both; plus the gold-dimension reference."""
    from adjudicator.input.rubric import load_rubric
    from adjudicator.verdict.dimensions import DimensionResult, dimension_decision

    gold = [m.labels.outcome if m.labels else None for m in matches]
    rows = []
    for a, results in arm_results.items():
        direct = np.full(len(matches), np.nan)
        derived = np.full(len(matches), np.nan)
        rule = ""
        for i, m in enumerate(matches):
            r = results.get(m.match_id)
            v = r.verdict if r is not None else None
            dd = (v or {}).get("dimension_decision")
            if v is None or not dd or dd.get("winner") is None:
                continue
            rule = dd.get("rule", rule)
            derived[i] = _p_of(dd["winner"])
            direct[i] = np.nan if (pv := exact_p(v)) is None else pv
        both = np.isfinite(direct) & np.isfinite(derived)
        rows.append(row(f"{labels.get(a, a)} · direct winner", "arm", True, {"winner_accuracy": _accuracy(direct, gold, both, st)}, arm=a))
        rows.append(row(f"{labels.get(a, a)} · decision from dimensions ({rule or 'n/a'})", "arm", True, {"winner_accuracy": _accuracy(derived, gold, both, st)}, arm=a))
    rubric = load_rubric("debateart")
    ref = np.full(len(matches), np.nan)
    for i, m in enumerate(matches):
        dims = m.labels.dimensions if m.labels else {}
        res = [
            DimensionResult(dimension=d.key, name=d.name, kind=d.kind, weight=d.weight, assessed=True, winner=dims[d.gold]) for d in rubric.dimensions if d.gold in dims
        ]
        dd = dimension_decision(rubric, res) if res else None
        if dd is not None and dd.winner is not None:
            ref[i] = _p_of(dd.winner)
    note = "non-comparable: the gold dimension labels combined by debateart.com's points (arguments 3, sources 2, language 1) against the gold outcome; how far the audience's overall vote follows its category votes"
    rows.append(row("gold dimensions → debateart points", "reference", False, {"winner_accuracy": _accuracy(ref, gold, np.isfinite(ref), st)}, note=note))
    return {"n_decisive": sum(g in SIDES for g in gold), "rows": rank(rows, TASK)}


def dimension_tables(matches: Sequence[Match], arm_results: dict[str, dict[str, SampleResult]], arm_labels: dict[str, str], st: ScoreSettings) -> dict[str, Any] | None:
    """report.json ``tasks.dimensions`` (module docstring), or None when no match has dimension labels."""
    names = gold_dimensions(matches)
    if not names:
        return None
    out: dict[str, Any] = {
        "title": "Dimensions: per-dimension winner accuracy against the per-dimension gold",
        "metric": "winner accuracy on matches with a decisive gold on the dimension (gold ties excluded and counted; a predicted tie is incorrect; not assessed = unparsed)",
        "dimensions": {},
    }
    for g in names:
        gold = [(m.labels.dimensions.get(g) if m.labels else None) for m in matches]
        p = {a: dimension_predictions(matches, arm_results[a], g) for a in arm_results}
        n = len(matches)
        common = all_parsed([np.isfinite(v) for v in p.values()], n)
        dec = np.array([x in SIDES for x in gold])
        out["dimensions"][g] = {
            **_counts(p, gold),
            "rows": _rows(p, arm_labels, gold, np.ones(n, bool), st),
            "common_subset": {"n": int((common & dec).sum()), "arms": list(p), "rows": _rows(p, arm_labels, gold, common, st)},
            "correlation": _correlation(matches, arm_results, g, st),
        }
    out["decision"] = _decision(matches, arm_results, arm_labels, st)
    return out
